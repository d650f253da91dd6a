// The IR's operands, by themselves: virtual and physical registers, small immediates, the ALU
// codes and the write conditions, each typed from the chip's tables (src/vc4). They import nothing
// but those tables, so that the language's operator table (source/ops.ts), which says how each
// operator lowers, can name them without importing the IR, which names the language's statements.
// ir.ts re-exports them; the compiler's passes import them from there.

import type { ReadName, WriteName } from '../vc4/registers.ts';
import type { AddOpName, Condition, MulOpName, PACK_A_MODES, UNPACK_MODES } from '../vc4/tables.ts';

/**
 * A byte (0-3) of a word, zero-extended, or a half-word (0-1), sign-extended: one `mov` through
 * regfile A's unpack (Guide p. 31, Table 6: 8a-8d, 16a, 16b on an integer operation) when the
 * value is in regfile A, else two shifts (emit.ts chooses, once registers are placed).
 */
export const UNPACKS = {
  byte0: { mode: '8a', shl: 24, shr: 24, signed: false },
  byte1: { mode: '8b', shl: 16, shr: 24, signed: false },
  byte2: { mode: '8c', shl: 8, shr: 24, signed: false },
  byte3: { mode: '8d', shl: 0, shr: 24, signed: false },
  half0: { mode: '16a', shl: 16, shr: 16, signed: true },
  half1: { mode: '16b', shl: 0, shr: 16, signed: true },
} as const satisfies Record<string, { mode: (typeof UNPACK_MODES)[number]; shl: number; shr: number; signed: boolean }>;
export type UnpackCode = keyof typeof UNPACKS;
export type UnpackMode = (typeof UNPACKS)[UnpackCode]['mode'];
export const isUnpack = (code: string): code is UnpackCode => code in UNPACKS;

/**
 * A word with one byte (setByte0-3) or half-word (setHalf0-1) replaced by the low bits of another
 * value: `setByte1 d, a, b` is a with bits 8-15 taken from b's bits 0-7. One `mov` of b with
 * regfile A's pack (Guide p. 31, Table 7: a pack into 8 or 16 bits leaves the rest of the register
 * as it was) into d holding a: the allocator keeps d in regfile A (regalloc.ts) and away from b
 * (liveness.ts), and gives d a's register where a's life ends there; elsewhere emit.ts copies a
 * into d first.
 */
export const INSERTS = {
  setByte0: { mode: '8a', shift: 0, bits: 8 },
  setByte1: { mode: '8b', shift: 8, bits: 8 },
  setByte2: { mode: '8c', shift: 16, bits: 8 },
  setByte3: { mode: '8d', shift: 24, bits: 8 },
  setHalf0: { mode: '16a', shift: 0, bits: 16 },
  setHalf1: { mode: '16b', shift: 16, bits: 16 },
} as const satisfies Record<string, { mode: (typeof PACK_A_MODES)[number]; shift: number; bits: 8 | 16 }>;
export type InsertCode = keyof typeof INSERTS;
export type PackMode = (typeof INSERTS)[InsertCode]['mode'];
export const isInsert = (code: string): code is InsertCode => code in INSERTS;

/** What an INSERTS code computes: `a` with its field replaced by the low bits of `b`. */
export function insertFunction(code: InsertCode): (a: number, b: number) => number {
  const { shift, bits } = INSERTS[code];
  const field = (2 ** bits - 1) << shift;
  return (a, b) => (a & ~field) | ((b << shift) & field);
}

/**
 * A byte (0-3) of a word as a colour, a float in [0, 1]: regfile A's unpack 8a-8d read by a float
 * operation (Guide p. 31, Table 6), `fmax d, a.8b, a.8b`. The allocator keeps a in regfile A.
 */
export const COLOURS = {
  colour0: { mode: '8a', byte: 0 },
  colour1: { mode: '8b', byte: 1 },
  colour2: { mode: '8c', byte: 2 },
  colour3: { mode: '8d', byte: 3 },
} as const satisfies Record<string, { mode: (typeof UNPACK_MODES)[number]; byte: number }>;
export type ColourCode = keyof typeof COLOURS;
export const isColour = (code: string): code is ColourCode => code in COLOURS;

/**
 * An ALU operation: the add or mul ALU's (Tables 12 and 13), `mov` (`or x, x` / `v8min x, x`), or
 * one of the pack and unpack operations (UNPACKS, INSERTS, COLOURS), which emit.ts makes
 * instructions once registers are placed.
 */
export type AluCode = AddOpName | MulOpName | 'mov' | UnpackCode | InsertCode | ColourCode;
/** A per-lane write condition (Table 2), `always` aside: an instruction without one always writes. */
export type WriteCond = Exclude<Condition, 'always'>;
export type Accumulator = 'r0' | 'r1' | 'r2' | 'r3' | 'r4' | 'r5';
/** A location of regfile A or B, as the allocator places values (ra0-ra31, rb0-rb31). */
export type RegfileName = `ra${number}` | `rb${number}`;
/**
 * A physical register an IR instruction names: an accumulator, one of the I/O table's
 * (Table 14), or after allocation a regfile location.
 */
export type PRegName = Accumulator | ReadName | WriteName | RegfileName;

/** A virtual register: one 16-lane value the allocator will place in regfile A or B. */
export interface VReg {
  readonly k: 'v';
  readonly id: number;
}
/** A register by its assembly name: an accumulator (r0-r5) or an I/O register. */
export interface PReg {
  readonly k: 'p';
  readonly name: PRegName;
}
export type Reg = VReg | PReg;
/** A small immediate by its code in Table 5 (0-15, -16..-1, the floats 1-128 and 1/256-1/2). */
export interface Imm {
  readonly k: 'imm';
  readonly code: number;
}
export type Src = Reg | Imm;

/** The per-lane condition code that holds where a condition is true, after its flags are set. */
export type TrueCode = 'zs' | 'zc' | 'ns' | 'nc' | 'cs' | 'cc';
