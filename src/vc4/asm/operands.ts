// The operands of one instruction: resolves destination registers (with pack modes, and the
// write swap that puts them in their files) and sources (registers, small immediates, unpack
// modes), and shares out the read ports (one regfile-A read, one regfile-B read or small
// immediate). Needs: parsed operands from parse.ts. Guarantees: a Dest or Source whose fields
// say what the operand says, or a BuildError naming the column and what would be right.

import type { RegFile } from '../registers.ts';
import { CONDITION_ALIASES, CONDITIONS, MUX_A, MUX_B, MUX_R4, PACK_A_MODES, PACK_MUL_MODES, smallImmForFloat, smallImmForInt, UNPACK_MODES } from '../tables.ts';
import type { Operand, Suffix } from './parse.ts';
import { shown } from './text.ts';
import { allDestNames, allSourceNames, type DestReg, lookupDest, lookupSource, READ_ONLY_DEST_HINTS, suggest } from './names.ts';

/** A statement that means nothing the hardware can do: the message says why, at column `col`. */
export class BuildError extends Error {
  constructor(
    message: string,
    readonly col: number,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------- destinations

export type FileReq = RegFile | 'either';

export interface Dest {
  reg: DestReg;
  /** Regfile-A pack mode (pm = 0) or mul colour pack (pm = 1). */
  pack?: { pm: number; mode: number; col: number; text: string };
  /**
   * A write condition on the destination itself (`ra1.zs`): ldi and sema only, where it gives
   * this ALU's write its own condition (Figure 5, p. 33: both ALUs' conditions are fields).
   */
  cond?: { code: number; col: number; text: string };
  col: number;
}

/** The write condition a suffix names (Table 2, or vc4asm's spelling), if it names one. */
export function conditionCode(name: string): number | undefined {
  const i = (CONDITIONS as readonly string[]).indexOf(name);
  return i >= 0 ? i : CONDITION_ALIASES.get(name);
}

/** Refuses a condition written on a destination where the instruction has one condition per ALU op. */
export function noDestCond(d: Dest | undefined, where: string): void {
  if (d?.cond) throw new BuildError(`a condition on a destination fits only ldi and sema; ${where}`, d.cond.col);
}

export function resolveDest(op: Operand): Dest {
  if (op.kind !== 'name') throw new BuildError('a destination must be a register, not a number', op.col);
  const reg = lookupDest(op.name);
  if (!reg) {
    const lower = op.name.toLowerCase();
    const hint = READ_ONLY_DEST_HINTS.get(lower);
    if (hint !== undefined) throw new BuildError(`cannot write ${op.name}: ${hint}`, op.col);
    if (lookupSource(op.name))
      throw new BuildError(`${op.name} is read-only: it can be read but not written`, op.col);
    throw new BuildError(unknownRegister(op.name, allDestNames()), op.col);
  }
  if (op.rot) throw new BuildError('a destination cannot be rotated; put the rotation on a mul ALU source', op.rot.col);
  const d: Dest = { reg, col: op.col };
  for (const s of op.suffixes) {
    const c = conditionCode(s.text);
    if (c !== undefined) {
      if (d.cond) throw new BuildError(`two conditions on ${shown(op.name)}`, s.col);
      d.cond = { code: c, col: s.col, text: s.text };
      continue;
    }
    if (d.pack) throw new BuildError(`only one pack mode fits in an instruction (already .${d.pack.text})`, s.col);
    const a = (PACK_A_MODES as readonly string[]).indexOf(s.text);
    if (a > 0) d.pack = { pm: 0, mode: a, col: s.col, text: s.text };
    else if (s.text.endsWith('c') && (PACK_MUL_MODES.indexOf(s.text.slice(0, -1)) ?? -1) > 0)
      d.pack = { pm: 1, mode: PACK_MUL_MODES.indexOf(s.text.slice(0, -1)), col: s.col, text: s.text };
    else
      throw new BuildError(
        `unknown pack mode .${shown(s.text)}: regfile-A packs are ${PACK_A_MODES.slice(1).map((m) => '.' + m).join(' ')}; ` +
          `mul colour packs are .8888c .8ac .8bc .8cc .8dc`,
        s.col,
      );
  }
  return d;
}

function unknownRegister(name: string, candidates: string[]): string {
  const s = suggest(name, candidates);
  return `unknown register '${shown(name)}'${s ? ` (did you mean ${s}?)` : ''}`;
}

export const fits = (req: FileReq, file: RegFile) => req === 'either' || req === file;

/** The file a destination must be in, counting a regfile-A pack as needing file A. */
export function destReq(d: Dest | undefined): FileReq {
  if (!d) return 'either';
  if (d.pack?.pm === 0) {
    if (d.reg.file === 'b') throw new BuildError('a regfile-A pack mode needs a destination in regfile A', d.pack.col);
    return 'a';
  }
  return d.reg.file;
}

/** Whether write swap `ws` puts the add ALU's and the mul ALU's destinations in their files. */
const wsFits = (add: FileReq, mul: FileReq, ws: number) => fits(add, ws ? 'b' : 'a') && fits(mul, ws ? 'a' : 'b');
const where = (r: FileReq) => (r === 'a' ? 'regfile A' : 'regfile B');

/** Chooses the write swap bit so that the add and mul destinations land in their files. */
export function chooseWs(add: Dest | undefined, mul: Dest | undefined, force: Suffix | undefined, col: number): number {
  const ra = destReq(add);
  const rm = destReq(mul);
  if (force) {
    if (!wsFits(ra, rm, 1)) throw new BuildError('.ws (add writes regfile B, mul writes regfile A) does not fit these destinations', force.col);
    return 1;
  }
  if (wsFits(ra, rm, 0)) return 0;
  if (wsFits(ra, rm, 1)) return 1;
  throw new BuildError(
    `the add ALU's destination is in ${where(ra)} and the mul ALU's is in ${where(rm)} too; ` +
      `one instruction writes one register of each file (swap the operations between the ALUs, or use another instruction)`,
    mul?.col ?? col,
  );
}

// ---------------------------------------------------------------- sources

/** Collects the regfile reads and the small immediate of one instruction. */
export class ReadPorts {
  a?: { addr: number; col: number; name: string };
  b?: { addr: number; col: number; name: string };
  imm?: { code: number; col: number; text: string };

  claimA(addr: number, col: number, name: string): void {
    if (this.a && this.a.addr !== addr)
      throw new BuildError(
        `two different regfile-A reads in one instruction (${this.a.name} and ${name}); regfile A has one read port`,
        col,
      );
    this.a = { addr, col, name };
  }
  claimB(addr: number, col: number, name: string): void {
    if (this.imm)
      throw new BuildError(
        `${name} (a regfile-B read) clashes with the small immediate ${shown(this.imm.text)}: both use the regfile-B read address`,
        col,
      );
    if (this.b && this.b.addr !== addr)
      throw new BuildError(
        `two different regfile-B reads in one instruction (${this.b.name} and ${name}); regfile B has one read port`,
        col,
      );
    this.b = { addr, col, name };
  }
  claimImm(code: number, col: number, text: string): void {
    if (this.b)
      throw new BuildError(
        `the small immediate ${shown(text)} clashes with ${this.b.name}: both use the regfile-B read address`,
        col,
      );
    if (this.imm && this.imm.code !== code)
      throw new BuildError(`two different small immediates (${shown(this.imm.text)} and ${shown(text)}); only one fits`, col);
    this.imm = { code, col, text };
  }
}

export interface Source {
  op: Operand;
  /** The mux value once resolved (0-7). */
  mux: number;
  /** Reads that name a register in either file wait until fixed ones are placed. */
  either?: number;
  unpack?: { mode: number; col: number; text: string };
}

function smallImmCode(op: Extract<Operand, { kind: 'number' }>): number {
  const v = op.value;
  const code = v.isFloat ? smallImmForFloat(v.value) : smallImmForInt(v.value);
  if (code === undefined)
    throw new BuildError(
      `${shown(op.text)} is not a small immediate: they are the integers -16 to 15, the floats 1.0, 2.0, ... 128.0 and ` +
        `1/256 (0.00390625) ... 1/2 (0.5); load other constants with ldi`,
      op.col,
    );
  return code;
}

/** Resolves one source operand's register or immediate, claiming read ports (except 'either'). */
export function resolveSource(op: Operand, ports: ReadPorts): Source {
  if (op.kind === 'vector') throw new BuildError('a per-element list [..] is only for ldi', op.col);
  if (op.kind === 'number') {
    ports.claimImm(smallImmCode(op), op.col, op.text);
    return { op, mux: MUX_B };
  }
  const reg = lookupSource(op.name);
  if (!reg) {
    if (lookupDest(op.name)) throw new BuildError(`${op.name} is write-only: it can be written but not read`, op.col);
    throw new BuildError(unknownRegister(op.name, allSourceNames()), op.col);
  }
  const src: Source = { op, mux: 0 };
  for (const s of op.suffixes) {
    const m = (UNPACK_MODES as readonly string[]).indexOf(s.text);
    if (m <= 0)
      throw new BuildError(
        `unknown unpack mode .${shown(s.text)}: the unpack modes are ${UNPACK_MODES.slice(1).map((u) => '.' + u).join(' ')}`,
        s.col,
      );
    if (src.unpack) throw new BuildError('only one unpack mode fits in an instruction', s.col);
    src.unpack = { mode: m, col: s.col, text: s.text };
  }
  if (reg.kind === 'acc') {
    src.mux = reg.acc;
    if (src.unpack && reg.acc !== MUX_R4)
      throw new BuildError(`only regfile-A reads and r4 can be unpacked, not ${op.name}`, src.unpack.col);
  } else if (reg.file === 'a') {
    ports.claimA(reg.addr, op.col, op.name);
    src.mux = MUX_A;
  } else {
    if (src.unpack) throw new BuildError(`only regfile-A reads and r4 can be unpacked, not ${op.name}`, src.unpack.col);
    if (reg.file === 'b') {
      ports.claimB(reg.addr, op.col, op.name);
      src.mux = MUX_B;
    } else src.either = reg.addr;
  }
  return src;
}

/** Places a read that either file can serve: reuse a port reading it, else A, else B. */
export function placeEither(src: Source, ports: ReadPorts): void {
  const addr = src.either!;
  const name = (src.op as { name: string }).name;
  if (ports.a?.addr === addr) src.mux = MUX_A;
  else if (ports.b?.addr === addr) src.mux = MUX_B;
  else if (!ports.a) {
    ports.claimA(addr, src.op.col, name);
    src.mux = MUX_A;
  } else if (!ports.b && !ports.imm) {
    ports.claimB(addr, src.op.col, name);
    src.mux = MUX_B;
  } else
    throw new BuildError(
      `no read port left for ${name}: this instruction already reads ${ports.a.name} from regfile A and ` +
        `${ports.b?.name ?? 'a small immediate'} through regfile B`,
      src.op.col,
    );
  if (src.unpack && src.mux !== MUX_A)
    throw new BuildError(`only regfile-A reads and r4 can be unpacked; ${name} ended up in regfile B`, src.unpack.col);
}

