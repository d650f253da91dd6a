// The compiler's intermediate representation: QPU instructions in the assembly language's own
// terms (docs/asm.md), over virtual registers %n that register allocation later replaces with
// ra/rb registers. One IR instruction becomes one machine instruction. Operations, conditions,
// registers and small immediates are typed values named from the ISA's tables (src/vc4), so an
// operation or register the hardware lacks does not type-check. The text form is the assembly
// language with %n for virtual registers, so each pass's output reads like assembly.

import type { Stmt } from '../source/ast.ts';
import { ADD_FNS, colourToFloatBits, MUL_FNS } from '../vc4/arith.ts';
import {
  ADD_OP_BY_NAME,
  type BranchCondition,
  bitsToFloat,
  floatBits,
  MUL_OP_BY_NAME,
  smallImmForFloat,
  smallImmForInt,
  smallImmValue,
} from '../vc4/tables.ts';
import type { Accumulator, AluCode, Imm, PackMode, PReg, PRegName, Reg, Src, UnpackMode, VReg, WriteCond } from './operands.ts';
import { COLOURS, insertFunction, isColour, isInsert, isUnpack, UNPACKS } from './operands.ts';

/** The operands (operands.ts), for the passes. */
export type {
  Accumulator,
  AluCode,
  ColourCode,
  Imm,
  InsertCode,
  PackMode,
  PReg,
  PRegName,
  Reg,
  RegfileName,
  Src,
  UnpackCode,
  UnpackMode,
  VReg,
  WriteCond,
} from './operands.ts';
export { COLOURS, INSERTS, insertFunction, isColour, isInsert, isUnpack, UNPACKS } from './operands.ts';


export type IrOp =
  | {
      readonly op: 'alu';
      readonly code: AluCode;
      dst: Reg;
      a: Src;
      b: Src;
      readonly cond?: WriteCond;
      readonly setf?: boolean;
      /** Rotation of the mul result: lanes up by n, or by r5. */
      readonly rot?: number | 'r5';
      /** Regfile A's unpack of its regfile-A inputs (emit.ts sets it, for UNPACKS and COLOURS codes). */
      readonly unpack?: UnpackMode;
      /** Regfile A's pack of the write to `dst` in regfile A (emit.ts sets it, for INSERTS codes). */
      readonly pack?: PackMode;
    }
  | { readonly op: 'ldi'; dst: Reg; readonly bits: number; readonly cond?: WriteCond }
  /** A read whose value is not used: waits (vw_wait), acquires (mutex). */
  | { readonly op: 'read'; readonly src: PReg }
  /** An instruction that only signals: ldtmu0, ldtmu1. */
  | { readonly op: 'signal'; readonly sig: 'ldtmu0' | 'ldtmu1' }
  | { readonly op: 'nop' }
  /**
   * A branch to `label`. A call (lower-funcs.ts) also writes the return address, the instruction
   * after its delay slots, to `link` (in regfile A); a return jumps to the address in `via`
   * (regfile A, element 15 on chips) instead, back to a call of the function whose entry is `label`.
   */
  | { readonly op: 'branch'; readonly cond: BranchCondition; readonly label: string; link?: Reg; via?: Reg }
  | { readonly op: 'label'; readonly name: string }
  | { readonly op: 'sema'; readonly down: boolean; readonly n: number }
  /** The end: program end and its two delay slots. */
  | { readonly op: 'end' };

/** An IR instruction, with the kernel statement it was lowered from (for run-time errors and profiles); `spill`: spill code (a store or reload of a spilled register, spill.ts), which profiles count apart. */
export type IrInstr = IrOp & { readonly stmt?: Stmt; readonly spill?: true };

export const v = (id: number): VReg => ({ k: 'v', id });
export const p = (name: PRegName): PReg => ({ k: 'p', name });

/** The small immediate of an integer (-16 to 15). */
export function int(n: number): Imm {
  const code = smallImmForInt(n);
  if (code === undefined) throw new Error(`internal: ${n} is no small immediate`);
  return { k: 'imm', code };
}

/** The small immediate that spells a 32-bit pattern as an int or a float, or undefined. */
export function smallImm(bits: number, ty: 'int' | 'float'): Imm | undefined {
  if (ty === 'int') {
    const code = smallImmForInt(bits | 0);
    return code === undefined ? undefined : { k: 'imm', code };
  }
  const code = smallImmForFloat(bitsToFloat(bits));
  return code === undefined || smallImmValue(code) >>> 0 !== bits >>> 0 ? undefined : { k: 'imm', code };
}

/** Whether a small immediate is one of the floats (codes 32-47). */
export const isFloatImm = (i: Imm): boolean => i.code >= 32;

/** A small immediate as the assembler writes it: "-3", "0.125", "2.0". */
export function immText(i: Imm): string {
  const bits = smallImmValue(i.code);
  if (!isFloatImm(i)) return String(bits);
  const t = String(bitsToFloat(bits));
  return t.includes('.') || t.includes('e') ? t : `${t}.0`;
}

/** A small immediate read from assembly text ("-3", "0.5"), or undefined when it is none. */
export function parseImm(text: string): Imm | undefined {
  const x = Number(text);
  if (!Number.isFinite(x)) return undefined;
  return /[.e]/.test(text) ? smallImm(floatBits(x), 'float') : Number.isInteger(x) ? smallImm(x, 'int') : undefined;
}

export function regText(r: Src): string {
  return r.k === 'v' ? `%${r.id}` : r.k === 'p' ? r.name : immText(r);
}

/** One IR instruction as text, in assembly syntax. */
export function irText(i: IrInstr): string {
  switch (i.op) {
    case 'alu': {
      const suffix = `${i.cond ? '.' + i.cond : ''}${i.setf ? '.setf' : ''}`;
      const rot = i.rot === undefined ? '' : i.rot === 'r5' ? ' >> r5' : ` >> ${i.rot}`;
      const unpack = (s: Src) => (i.unpack && s.k === 'p' && s.name.startsWith('ra') ? `.${i.unpack}` : '');
      const [a, b] = [regText(i.a) + unpack(i.a) + rot, regText(i.b) + unpack(i.b) + rot];
      const dst = regText(i.dst) + (i.pack ? `.${i.pack}` : '');
      return i.code === 'mov' ? `mov${suffix} ${dst}, ${a}` : `${i.code}${suffix} ${dst}, ${a}, ${b}`;
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
      if (i.via) return `bra -, ${regText(i.via)} (return from ${i.label})`;
      return `brr${i.cond === 'always' ? '' : '.' + i.cond} ${i.link ? regText(i.link) : '-'}, ${i.label}`;
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

/**
 * What reading an operand does, for the passes that remove, merge and move instructions (dead.ts,
 * cse.ts, direct.ts, hoist.ts): the one definition of a pure read.
 * - 'fixed': the same value whenever it is read, and nothing else: a small immediate, the
 *   element number, the QPU number.
 * - 'register': a register's value and nothing else, the same until the register is written: a
 *   virtual register, an accumulator (r0-r5).
 * - 'effect': any other register, whose read may do more than give a value: a uniform, the VPM,
 *   a DMA wait, the mutex (each read takes the next value, or waits).
 */
export function readKind(s: Src): 'fixed' | 'register' | 'effect' {
  if (s.k === 'imm') return 'fixed';
  if (s.k === 'v') return 'register';
  return FIXED_READS.has(s.name) ? 'fixed' : ACCUMULATORS.has(s.name) ? 'register' : 'effect';
}
const FIXED_READS: ReadonlySet<PRegName> = new Set<PRegName>(['elem_num', 'qpu_num']);
const ACCUMULATORS: ReadonlySet<PRegName> = new Set<Accumulator>(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);

/** What ALU operation `code` computes on 32-bit patterns, as the chip does (vc4/arith.ts), or undefined for nop. */
export function aluFunction(code: AluCode): ((a: number, b: number) => number) | undefined {
  if (code === 'mov') return (a) => a;
  if (isUnpack(code)) {
    const u = UNPACKS[code];
    return (a) => (u.signed ? (a << u.shl) >> u.shr : (a << u.shl) >>> u.shr) | 0;
  }
  if (isInsert(code)) return insertFunction(code);
  if (isColour(code)) {
    const k = 8 * COLOURS[code].byte;
    return (a) => colourToFloatBits((a >>> k) & 255);
  }
  const add = ADD_OP_BY_NAME.get(code);
  if (add) return ADD_FNS[add.code];
  const mul = MUL_OP_BY_NAME.get(code);
  return mul ? MUL_FNS[mul.code] : undefined;
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
  if (i.op === 'branch' && i.via?.k === 'v') return [i.via];
  return [];
}

/** The virtual register an instruction writes, if any. */
export function def(i: IrInstr): VReg | undefined {
  if ((i.op === 'alu' || i.op === 'ldi') && i.dst.k === 'v') return i.dst;
  if (i.op === 'branch' && i.link?.k === 'v') return i.link;
  return undefined;
}
