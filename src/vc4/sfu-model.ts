// The SFU as a real chip computes it, to the accuracy that was measured, for the emulator's and
// the interpreter's `sfu: 'chip'` mode. arith.sfu returns the correctly rounded result; a chip's
// SFU is accurate to 11-13 bits. VC4C's doc/accuracy.txt (measured on a Pi) shows, for example:
//   exp2(0) = 1.000031, exp2(1) = 2.000061, exp2(-1) = 0.4999847 (about 2^-15 off, either way);
//   log2(pi) = 1.651428 for 1.651496, log2(0.5) = -0.9999847 (2^-16 to 2^-13.8 off, absolute);
//   recip(recip(2)) = 2.000183, recip(recip(100)) = 100.0039 (the two together 2^-12.4 off);
// and its least accurate binary digits: 10 for recip(recip(x)), 12 for recip(rsqrt(x)), 11 for
// exp2, 12 for log2. No bit-exact description is published, so this model is one of bounds:
// each result is off by a deterministic amount, drawn from a hash of the input, up to the
// bound below (relative for recip, recipsqrt and exp2; absolute for log2, whose measured errors
// do not shrink with the result). Code that is exact with this SFU holds on a chip's within
// those bounds; code that relies on exact reciprocals fails here as it would there. Zeros,
// infinities and NaNs come out as arith.sfu gives them.

import { sfu } from './arith.ts';
import { W_SFU_RECIP, WRITE_A } from './registers.ts';

/** How the SFU computes: correctly rounded (the default), or off as a chip's is (this model). */
export type SfuMode = 'exact' | 'chip';
export const SFU_MODES: readonly SfuMode[] = ['exact', 'chip'];

/** The most each function's result is off in the chip model, by function number (Table 14's order). */
export const SFU_CHIP_ERROR: readonly { readonly bound: number; readonly relative: boolean }[] = [
  { bound: 2 ** -11, relative: true }, // recip: 10 digits for two of them
  { bound: 2 ** -12, relative: true }, // recipsqrt
  { bound: 2 ** -11, relative: true }, // exp2
  { bound: 2 ** -13, relative: false }, // log2: measured 2^-13.8 at most, absolute
];

const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);
const toF = (bits: number) => ((i32[0] = bits), f32[0]!);
const fromF = (x: number) => ((f32[0] = x), i32[0]!);

/** A 32-bit hash of the input pattern and the function (MurmurHash3's finaliser), as a number in [-1, 1). */
function draw(bits: number, fn: number): number {
  let h = (bits ^ Math.imul(fn + 1, 0x9e3779b9)) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return h / 2 ** 31;
}

/** SFU function fn (0 recip, 1 recipsqrt, 2 exp2, 3 log2) of a pattern, off as the chip model says. */
export function sfuChip(fn: number, bits: number): number {
  const exact = sfu(fn, bits);
  const x = toF(exact);
  if (x === 0 || !Number.isFinite(x)) return exact;
  const { bound, relative } = SFU_CHIP_ERROR[fn]!;
  const e = draw(bits, fn) * bound;
  const r = fromF(relative ? x * (1 + e) : x + e);
  return (r & 0x7f800000) === 0 ? 0 : r; // a denormal result is +0, as arith.sfu's
}

/** The SFU function of a mode. */
export const sfuOf = (mode: SfuMode | undefined): ((fn: number, bits: number) => number) => (mode === 'chip' ? sfuChip : sfu);

/** The function number of an SFU register's write (Table 14's order). */
export const sfuNumber = (name: string): number => WRITE_A.findIndex((r) => r.name === name) - W_SFU_RECIP;
