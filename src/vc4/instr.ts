// The instruction model: one plain object per 64-bit word, with one numeric property per field
// of the word's format (fields.ts). Every 64-bit word decodes to exactly one of these four kinds
// and encodes back to the same word, so the model is lossless. Whether an instruction is
// canonical (the form the assembler writes) is a separate question: see canonical.ts.

import { R_NOP, W_NOP } from './registers.ts';
import {
  ADD_NOP,
  BRANCH_ALWAYS,
  COND_ALWAYS,
  COND_NEVER,
  LDI_MODE_32,
  MUL_NOP,
  MUX_R0,
  NO_PACK,
  NO_UNPACK,
  SIG_NONE,
} from './tables.ts';

export interface WriteFields {
  /** 1: the pack and unpack fields program the r4 unpack and mul colour pack (Table 8, 9). */
  pm: number;
  pack: number;
  condAdd: number;
  condMul: number;
  /** Set flags. */
  sf: number;
  /** Write swap: 0 = add writes regfile A and mul writes B; 1 = the other way round. */
  ws: number;
  waddrAdd: number;
  waddrMul: number;
}

export interface AluInstr extends WriteFields {
  kind: 'alu';
  /** Signal 0-13; 13 means raddrB holds a small immediate. */
  sig: number;
  unpack: number;
  opMul: number;
  opAdd: number;
  raddrA: number;
  /** A regfile-B address, or with sig = 13 a small immediate code (0-63). */
  raddrB: number;
  addA: number;
  addB: number;
  mulA: number;
  mulB: number;
}

export interface LoadImmInstr extends WriteFields {
  kind: 'ldi';
  /** 0: 32-bit; 1: per-element signed; 3: per-element unsigned; 2, 5-7 undefined. */
  mode: number;
  /** The low 32 bits, unsigned. */
  imm: number;
}

export interface SemaInstr extends WriteFields {
  kind: 'sema';
  /** Bits 31:5: ignored by the semaphore, but written out like a load immediate's value. */
  rest: number;
  /** 0: increment (up, release); 1: decrement (down, acquire). */
  down: number;
  sema: number;
}

export interface BranchInstr {
  kind: 'branch';
  /** Bits 59:56, which the hardware ignores. */
  unused: number;
  cond: number;
  /** Add PC + 4 instructions to the target. */
  rel: number;
  /** Add element 0 (15 on real chips, per vc4asm's addendum) of regfile A `raddrA`. */
  reg: number;
  raddrA: number;
  ws: number;
  waddrAdd: number;
  waddrMul: number;
  /** Signed byte offset. */
  imm: number;
}

export type Instr = AluInstr | LoadImmInstr | SemaInstr | BranchInstr;
export type InstrKind = Instr['kind'];

/** Write fields that write nothing: no pack, condition never, no flags, both addresses nop (39). */
const NO_WRITES: WriteFields = {
  pm: 0,
  pack: NO_PACK,
  condAdd: COND_NEVER,
  condMul: COND_NEVER,
  sf: 0,
  ws: 0,
  waddrAdd: W_NOP,
  waddrMul: W_NOP,
};

/** Mesa's canonical NOP, 0x100009E7_009E7000: no signal, both ALUs nop, no reads, no writes. */
export function nopInstr(sig = SIG_NONE): AluInstr {
  return {
    kind: 'alu',
    sig,
    unpack: NO_UNPACK,
    ...NO_WRITES,
    opMul: MUL_NOP,
    opAdd: ADD_NOP,
    raddrA: R_NOP,
    raddrB: R_NOP,
    addA: MUX_R0,
    addB: MUX_R0,
    mulA: MUX_R0,
    mulB: MUX_R0,
  };
}

/** A load immediate (32-bit mode unless `fields` says otherwise); both conditions always. */
export function ldiInstr(imm: number, fields: Partial<Omit<LoadImmInstr, 'kind'>> = {}): LoadImmInstr {
  return { kind: 'ldi', mode: LDI_MODE_32, ...NO_WRITES, condAdd: COND_ALWAYS, condMul: COND_ALWAYS, ...fields, imm: imm >>> 0 };
}

/** `sema up|down, n` as the assembler writes it: nothing else written. */
export function semaInstr(down: boolean, sema: number): SemaInstr {
  return { kind: 'sema', ...NO_WRITES, rest: 0, down: down ? 1 : 0, sema };
}

export function branchInstr(fields: Partial<Omit<BranchInstr, 'kind'>> = {}): BranchInstr {
  return {
    kind: 'branch',
    unused: 0,
    cond: BRANCH_ALWAYS,
    rel: 1,
    reg: 0,
    raddrA: 0,
    ws: 0,
    waddrAdd: W_NOP,
    waddrMul: W_NOP,
    imm: 0,
    ...fields,
  };
}

/** A deep copy (instructions are flat objects). */
export function cloneInstr<T extends Instr>(i: T): T {
  return { ...i };
}

export function instrEquals(a: Instr, b: Instr): boolean {
  const ka = Object.keys(a) as (keyof Instr)[];
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => (a as unknown as Record<string, unknown>)[k] === (b as unknown as Record<string, unknown>)[k]);
}
