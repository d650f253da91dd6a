// Emission: allocated IR to machine instructions (machine.ts), each with the statement it comes
// from, and labels; text only for dumps. Needs: IR whose virtual registers all have a placement
// (regalloc.ts). Guarantees: every instruction reads at
// most one regfile-A and one regfile-B address, counting a small immediate as a B read (Guide
// p. 17, p. 29): where an instruction's two operands would need the same file, the first is
// copied to accumulator r0 by an instruction of its own just before; so is a rotation's input
// that is not in r0-r3 (only those rotate across all 16 lanes, Guide p. 20). Program end gets its two
// delay slots.

import { lookupDest, lookupSource } from '../vc4/asm/names.ts';
import { writeInfo } from '../vc4/registers.ts';
import { MUX_R3, shiftImmediate } from '../vc4/tables.ts';
import { branchOffset } from '../vc4/flow.ts';
import { disassembleInstr } from '../vc4/asm/disasm.ts';
import type { Instr } from '../vc4/instr.ts';
import {
  COLOURS,
  type Imm,
  type InsertCode,
  INSERTS,
  type IrInstr,
  irText,
  isColour,
  isInsert,
  isUnpack,
  p,
  type Reg,
  regText,
  type Src,
  type UnpackCode,
  UNPACKS,
  type WriteCond,
} from './ir.ts';
import { machineInstr } from './machine.ts';
import { type Placement, placeName } from './regalloc.ts';
import type { Stmt } from '../source/ast.ts';

/** A line of the program: a label, or one machine instruction. */
export type AsmLine =
  | { readonly label: string }
  | {
      readonly instr: Instr;
      /** A branch's target label. */
      readonly target?: string;
      /** The kernel statement the instruction comes from. */
      readonly stmt?: Stmt;
      /** When two instructions were paired into this one (schedule.ts), the second's statement, if another. */
      readonly paired?: Stmt;
      /** The second, paired instruction is the one that can stall (a profile charges its statement with the stalls). */
      readonly stallsInPaired?: true;
      /** A nop only for a latency (schedule.ts, space.ts). */
      readonly spacer?: true;
      /** Spill code (spill.ts). */
      readonly spill?: true;
      /** The virtual registers it writes (the debugger follows which value each register holds). */
      readonly defs?: readonly number[];
      /** Virtual registers a copy the emitter left out (both in one register) gave their register before it starts. */
      readonly aliases?: readonly number[];
      /** A copy of a loop head's instruction in the delay slot of the branch back (loop-slots.ts): the next pass's work, done before the branch is known to jump. */
      readonly ahead?: true;
    };
export type InstrLine = Extract<AsmLine, { instr: Instr }>;

/** Instruction line `pc` in assembly syntax (docs/asm.md), a branch aimed at its label (`labels` places them). */
function lineText(l: InstrLine, pc: number, labels: ReadonlyMap<string, number>): string {
  return l.target === undefined ? disassembleInstr(l.instr) : disassembleInstr(l.instr, { branchLabel: l.target }, pc, labels);
}

/** Where a source is read: a regfile port and address, an accumulator, or either file. */
type Port = { file: 'a' | 'b'; addr: number | 'imm' } | { file: 'either'; addr: number } | undefined;

function portOf(s: Src): Port {
  if (s.k === 'imm') return { file: 'b', addr: 'imm' };
  if (s.k === 'v') throw new Error('internal: unallocated register in emit');
  const r = lookupSource(s.name);
  if (!r || r.kind === 'acc') return undefined;
  return { file: r.file, addr: r.addr };
}

/** Whether two sources can be read in one instruction. */
export function portsFit(a: Src, b: Src): boolean {
  const x = portOf(a);
  const y = portOf(b);
  if (!x || !y) return true;
  if (x.addr === y.addr && (x.file === y.file || x.file === 'either' || y.file === 'either')) return true;
  if (x.file === 'either' || y.file === 'either') return true;
  if (x.file !== y.file) return true;
  return false;
}

export function emit(code: readonly IrInstr[], place: readonly (Placement | undefined)[], kernel: string): AsmLine[] {
  // One operand object per virtual register, made once.
  const physOf: Src[] = [];
  const phys = (s: Src): Src => {
    if (s.k !== 'v') return s;
    const known = physOf[s.id];
    if (known) return known;
    const pl = place[s.id];
    if (!pl) throw new Error(`internal: %${s.id} has no register`);
    return (physOf[s.id] = p(placeName(pl)));
  };
  const out: AsmLine[] = [];
  // A return jumps through its register, not to its label (which names the function it leaves).
  let spill = false;
  // The values a skipped copy gave a register (coalesced onto its source's): they are there when the next instruction starts.
  let aliases: number[] = [];
  const put = (i: IrInstr, stmt: Stmt | undefined) => {
    const held = aliases.length ? { aliases } : {};
    aliases = [];
    out.push({ instr: built(i, kernel), stmt, ...(i.op === 'branch' && !i.via ? { target: i.label } : {}), ...(spill ? { spill: true as const } : {}), ...(def !== undefined ? { defs: [def] } : {}), ...held });
  };
  let def: number | undefined;
  for (const i of code) {
    spill = !!i.spill;
    def = (i.op === 'alu' || i.op === 'ldi') && i.dst.k === 'v' ? i.dst.id : undefined;
    const stmt = i.stmt;
    switch (i.op) {
      case 'label':
        out.push({ label: i.name });
        break;
      case 'end':
        put(i, stmt);
        put({ op: 'nop' }, stmt);
        put({ op: 'nop' }, stmt);
        break;
      case 'ldi':
        put({ ...i, dst: phys(i.dst) as typeof i.dst }, stmt);
        break;
      case 'alu': {
        let a = phys(i.a);
        const b = phys(i.b);
        const dst = phys(i.dst);
        if (isUnpack(i.code)) {
          unpack(i.code, dst, a, i.cond, (x) => put(x, stmt));
          break;
        }
        if (isInsert(i.code)) {
          insert(i.code, dst, a, b, i.cond, (x) => put(x, stmt));
          break;
        }
        if (isColour(i.code)) {
          const mode = COLOURS[i.code].mode;
          if (!inFileA(a)) throw new Error(`internal: ${irText(i)}: the colour's word is not in regfile A (regalloc.ts keeps it there)`);
          put({ op: 'alu', code: 'fmax', dst: dst as Reg, a, b: a, ...(i.cond ? { cond: i.cond } : {}), unpack: mode }, stmt);
          break;
        }
        // A copy of a register onto itself (pass coalesce gave both values one register) is no work.
        if (i.code === 'mov' && !i.setf && i.rot === undefined && dst.k === 'p' && a.k === 'p' && dst.name === a.name && selfMoveIsNothing(dst.name)) {
          if (def !== undefined) aliases.push(def);
          break;
        }
        const same = srcKey(i.a) === srcKey(i.b);
        if (copiesFirst(i, a, b)) {
          put({ op: 'alu', code: 'mov', dst: p('r0'), a, b: a }, stmt);
          a = p('r0');
        }
        // One shape for every operation (no spread of the IR's own fields: its statement stays out).
        put({ op: 'alu', code: i.code, dst: dst as typeof i.dst, a, b: same ? a : b, cond: i.cond, setf: i.setf, rot: i.rot, unpack: i.unpack, pack: i.pack }, stmt);
        break;
      }
      case 'branch': {
        const regs = { ...(i.link ? { link: phys(i.link) as Reg } : {}), ...(i.via ? { via: phys(i.via) as Reg } : {}) };
        if ((i.link || i.via) && !inFileA(regs.link ?? regs.via!)) throw new Error(`internal: ${irText(i)}: the link is not in regfile A (regalloc.ts keeps it there)`);
        put({ ...i, ...regs }, stmt);
        break;
      }
      default:
        put(i, stmt);
    }
  }
  return aimBranches(out);
}

/**
 * A byte or half-word out of `a` into `dst` (operands.ts UNPACKS): from regfile A, one `mov`
 * with its unpack mode (Guide p. 31, Table 6); from elsewhere, a shift left to drop the bits
 * above and one right to drop those below (through r0, copied there first from regfile B, whose
 * read port the shift's small immediate takes). Only the last instruction writes under `cond`.
 */
function unpack(code: UnpackCode, dst: Src, a: Src, cond: WriteCond | undefined, put: (i: IrInstr) => void): void {
  const u = UNPACKS[code];
  const to = dst as Reg;
  if (inFileA(a)) {
    put({ op: 'alu', code: 'mov', dst: to, a, b: a, cond, unpack: u.mode });
    return;
  }
  let x = a;
  if (!portsFit(a, shiftBy(u.shr))) {
    put({ op: 'alu', code: 'mov', dst: p('r0'), a, b: a });
    x = p('r0');
  }
  if (u.shl) {
    put({ op: 'alu', code: 'shl', dst: p('r0'), a: x, b: shiftBy(u.shl) });
    x = p('r0');
  }
  put({ op: 'alu', code: u.signed ? 'asr' : 'shr', dst: to, a: x, b: shiftBy(u.shr), cond });
}

const shiftBy = (n: number): Imm => ({ k: 'imm', code: shiftImmediate(n) });

const inFileA = (s: Src): boolean => s.k === 'p' && /^ra\d+$/.test(s.name);

/**
 * A byte or half-word of `b` into `a`'s word, in `dst` (operands.ts INSERTS): one `mov` of b with
 * regfile A's pack into dst (Guide p. 31, Table 7), after a copy of a into dst unless dst is a's
 * register already. The allocator keeps dst in regfile A and never gives it b's register (the
 * copy would overwrite b). Both write under `cond`, so the lanes it fails keep dst as it was.
 */
function insert(code: InsertCode, dst: Src, a: Src, b: Src, cond: WriteCond | undefined, put: (i: IrInstr) => void): void {
  if (!inFileA(dst) || (dst.k === 'p' && b.k === 'p' && b.name === dst.name && srcKey(a) !== srcKey(b)))
    throw new Error(`internal: ${code} into ${regText(dst)} from ${regText(a)} and ${regText(b)}: regalloc.ts keeps the destination in regfile A, apart from the byte's value`);
  const to = dst as Reg;
  const c = cond ? { cond } : {};
  if (srcKey(a) !== srcKey(dst)) put({ op: 'alu', code: 'mov', dst: to, a, b: a, ...c });
  put({ op: 'alu', code: 'mov', dst: to, a: b, b, ...c, pack: INSERTS[code].mode });
}

/**
 * Instructions are values (nothing changes one once built), so each distinct one is built once
 * and shared, within a kernel and across kernels: the effects and scheduling footprints cached
 * per instruction (effects.ts, schedule.ts) are then found again too. At most INTERNED are kept.
 */
const interned = new Map<string, Instr>();
const INTERNED = 8192;

function built(i: IrInstr, kernel: string): Instr {
  if (i.op === 'branch') return machineInstr(i, kernel);
  const key = irText(i);
  let m = interned.get(key);
  if (!m) {
    if (interned.size >= INTERNED) interned.clear();
    interned.set(key, (m = machineInstr(i, kernel)));
  }
  return m;
}

/** Whether a register's copy onto itself does nothing: regfile locations and r0-r3 (no I/O). */
function selfMoveIsNothing(name: string): boolean {
  const d = lookupDest(name);
  if (!d) return false;
  const unit = writeInfo(d.file === 'either' ? 'a' : d.file, d.addr).unit;
  return unit === 'regfile' || unit === 'acc';
}

/**
 * Whether emit() copies an operation's first operand to r0 before it, its operands placed as `a`
 * and `b`: a rotation's input outside r0-r3 (only those rotate across all 16 lanes, Guide p. 20),
 * or two operands that need one read port (p. 17). An operation that unpacks a byte outside
 * regfile A writes r0 too (unpack()), and so does the IR where it names r0.
 */
export function copiesFirst(i: Extract<IrInstr, { op: 'alu' }>, a: Src, b: Src): boolean {
  if (i.rot !== undefined) return !(a.k === 'p' && rotatable(a.name));
  return srcKey(a) !== srcKey(b) && !portsFit(a, b);
}

/** Whether an unpack of `a` is done through r0: it is everywhere but in regfile A (Guide p. 31). */
export const unpacksThroughScratch = (a: Src): boolean => !inFileA(a);

/** Whether a rotation reads a register across all 16 lanes: r0-r3 (Guide p. 20). */
function rotatable(name: string): boolean {
  const r = lookupSource(name);
  return r?.kind === 'acc' && r.acc <= MUX_R3;
}

const srcKey = (s: Src) => (s.k === 'v' ? `%${s.id}` : s.k === 'p' ? s.name : `#${s.code}`);

/** The instruction index each label stands before. */
function labelIndex(lines: readonly AsmLine[]): Map<string, number> {
  const at = new Map<string, number>();
  let n = 0;
  for (const l of lines) {
    if ('label' in l) at.set(l.label, n);
    else n++;
  }
  return at;
}

/** The lines with every branch aimed at its label (relative: from the instruction after its delay slots). */
export function aimBranches(lines: readonly AsmLine[]): AsmLine[] {
  const at = labelIndex(lines);
  let n = 0;
  return lines.map((l) => {
    if ('label' in l) return l;
    const k = n++;
    if (l.target === undefined || l.instr.kind !== 'branch') return l;
    const target = at.get(l.target);
    if (target === undefined) throw new Error(`internal: branch to unknown label ${l.target}`);
    return { ...l, instr: { ...l.instr, imm: branchOffset(k, target) } };
  });
}

/** The instructions of the lines, in order. */
export function instrsOf(lines: readonly AsmLine[]): Instr[] {
  const out: Instr[] = [];
  for (const l of lines) if (!('label' in l)) out.push(l.instr);
  return out;
}

/** The lines as an assembly program. */
export function asmText(lines: readonly AsmLine[]): string {
  const at = labelIndex(lines);
  let pc = 0;
  return lines.map((l) => ('label' in l ? `${l.label}:` : `    ${lineText(l, pc++, at)}`)).join('\n') + '\n';
}
