// The compiler's intermediate representation: QPU instructions in the assembly language's own
// terms (docs/asm.md), over virtual registers %n that register allocation later replaces with
// ra/rb registers. One IR instruction becomes one machine instruction. The text form is the
// assembly language with %n for virtual registers, so each pass's output reads like assembly.

/** A virtual register: one 16-lane value the allocator will place in regfile A or B. */
export interface VReg {
  readonly k: 'v';
  readonly id: number;
}
/** A register by its assembly name: an accumulator (r0-r5), ra/rb, or an I/O register. */
export interface PReg {
  readonly k: 'p';
  readonly name: string;
}
export type Reg = VReg | PReg;
/** A small immediate, as the assembler writes it ("1", "-16", "0.5"). */
export interface Imm {
  readonly k: 'imm';
  readonly text: string;
}
export type Src = Reg | Imm;

export type IrOp =
  | {
      readonly op: 'alu';
      /** The assembly mnemonic: add, fadd, fmul, mul24, v8min, or, ... ("mov" is `or x, x`). */
      readonly code: string;
      dst: Reg;
      a: Src;
      b: Src;
      readonly cond?: string;
      readonly setf?: boolean;
      /** Rotation of the mul result: lanes up by n, or by r5. */
      readonly rot?: number | 'r5';
    }
  | { readonly op: 'ldi'; dst: Reg; readonly bits: number; readonly cond?: string }
  /** A read whose value is not used: waits (vw_wait), acquires (mutex). */
  | { readonly op: 'read'; readonly src: PReg }
  /** An instruction that only signals: ldtmu0, ldtmu1. */
  | { readonly op: 'signal'; readonly sig: string }
  | { readonly op: 'nop' }
  | { readonly op: 'branch'; readonly cond: string; readonly label: string }
  | { readonly op: 'label'; readonly name: string }
  | { readonly op: 'sema'; readonly down: boolean; readonly n: number }
  /** The end: program end and its two delay slots. */
  | { readonly op: 'end' };

/** An IR instruction and the kernel statement it was lowered from (for run-time errors). */
export type IrInstr = IrOp & { readonly stmt?: Stmt };

import type { Stmt } from '../source/ast.ts';

export const v = (id: number): VReg => ({ k: 'v', id });
export const p = (name: string): PReg => ({ k: 'p', name });
export const imm = (text: string): Imm => ({ k: 'imm', text });

export function regText(r: Src): string {
  return r.k === 'v' ? `%${r.id}` : r.k === 'p' ? r.name : r.text;
}

/** One IR instruction as text, in assembly syntax. */
export function irText(i: IrInstr): string {
  switch (i.op) {
    case 'alu': {
      const suffix = `${i.cond ? '.' + i.cond : ''}${i.setf ? '.setf' : ''}`;
      const rot = i.rot === undefined ? '' : i.rot === 'r5' ? ' >> r5' : ` >> ${i.rot}`;
      const [a, b] = [regText(i.a) + rot, regText(i.b) + rot];
      return i.code === 'mov' ? `mov${suffix} ${regText(i.dst)}, ${a}` : `${i.code}${suffix} ${regText(i.dst)}, ${a}, ${b}`;
    }
    case 'ldi':
      return `ldi${i.cond ? '.' + i.cond : ''} ${regText(i.dst)}, 0x${(i.bits >>> 0).toString(16)}`;
    case 'read':
      return `read ${i.src.name}`;
    case 'signal':
      return i.sig;
    case 'nop':
      return 'nop';
    case 'branch':
      return `brr${i.cond === 'always' ? '' : '.' + i.cond} -, ${i.label}`;
    case 'label':
      return `${i.name}:`;
    case 'sema':
      return `sema ${i.down ? 'down' : 'up'}, ${i.n}`;
    case 'end':
      return 'nop.tend';
  }
}

export function printIr(code: readonly IrInstr[]): string {
  return code.map((i) => (i.op === 'label' ? irText(i) : `    ${irText(i)}`)).join('\n') + '\n';
}

/** The virtual registers an instruction reads. */
export function uses(i: IrInstr): VReg[] {
  if (i.op === 'alu') {
    const out: VReg[] = [];
    if (i.a.k === 'v') out.push(i.a);
    if (i.b.k === 'v' && !(i.a.k === 'v' && i.a.id === i.b.id)) out.push(i.b);
    // A conditional write keeps the old value where the condition fails: it reads its destination.
    if (i.cond && i.dst.k === 'v' && !out.some((x) => x.id === (i.dst as VReg).id)) out.push(i.dst);
    return out;
  }
  if (i.op === 'ldi' && i.cond && i.dst.k === 'v') return [i.dst];
  return [];
}

/** The virtual register an instruction writes, if any. */
export function def(i: IrInstr): VReg | undefined {
  if ((i.op === 'alu' || i.op === 'ldi') && i.dst.k === 'v') return i.dst;
  return undefined;
}
