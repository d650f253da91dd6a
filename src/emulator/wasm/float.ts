// The QPU's float arithmetic on four lanes at once, as WebAssembly SIMD: the same results as
// src/vc4/arith.ts, bit for bit (test/emulator/wasm-float.test.ts compares them on structured
// and random inputs). WebAssembly rounds to nearest and keeps denormals; the QPU rounds toward
// zero and flushes them (docs/emulator.md, "Arithmetic"). So:
// - inputs whose exponent field is 0 (zeros, denormals) read as +0;
// - a sum is rounded to nearest, and the rounding error recovered exactly with Knuth's TwoSum
//   (error-free in binary32 when nothing overflows); where the error points toward zero the
//   rounded sum went away from it, and the result steps one unit toward zero (its pattern minus
//   one: patterns are sign and magnitude). A product or an int-to-float conversion is exact in
//   binary64: its mantissa cut to 24 bits is the value rounded toward zero;
// - results below the smallest normal become +0; toward zero, a result is below it exactly when
//   the exact value is;
// - lanes where the rounded result is not finite (NaN or infinite inputs, overflow) are marked
//   `rare`: the caller recomputes those lanes with arith.ts; a product only where it is NaN
//   (its infinities, from infinite inputs or overflow, are arith.ts's already).
// Needs: v128 locals holding the inputs' patterns. Guarantees: `out` holds the result of every
// lane not marked in `rare` (all ones in a marked lane, zero elsewhere; rare is OR-ed into).

import type { FunctionBuilder } from './encoder.ts';

const MIN_NORMAL_BITS = 0x00800000;
const INF_BITS = 0x7f800000;

const splat = (x: number) => [x, x, x, x];

/** Which inputs the caller knows to be flushed already (results of float operations). */
export interface Clean {
  readonly a?: boolean;
  readonly b?: boolean;
}

/** Leaves on the stack: `v` with lanes whose magnitude is below the smallest normal (zeros, denormals, -0) made +0. */
function flushed(f: FunctionBuilder, v: number): void {
  f.get(v);
  f.get(v).simd('f32x4.abs').v128i32(splat(MIN_NORMAL_BITS)).simd('f32x4.lt');
  f.simd('v128.andnot');
}

/**
 * A local holding `v` flushed: `v` itself when the caller knows it is (`clean`: a float result,
 * never a denormal or -0), else a new local.
 */
function flushInto(f: FunctionBuilder, v: number, name: string, clean = false): number {
  if (clean) return v;
  const x = f.local('v128', name);
  flushed(f, v);
  f.set(x);
  return x;
}

/** rare |= lanes of the binary32 value `v` that are not finite (NaN or infinite). */
function markNonFinite(f: FunctionBuilder, v: number, rare: number): void {
  f.get(rare);
  f.get(v).simd('f32x4.abs').v128i32(splat(INF_BITS)).simd('f32x4.lt').simd('v128.not');
  f.simd('v128.or').set(rare);
}

/**
 * rare |= lanes of `v` that are NaN. A product's only lanes arith.ts computes otherwise: an
 * infinite input times a finite non-zero one is the infinity the binary64 product narrows to,
 * and so is an overflow (from 2^128 on, toward zero an infinity, below it the largest single
 * exactly); a zero or NaN input beside an infinity or a NaN makes a NaN here, +0 or an infinity
 * there.
 */
function markNaN(f: FunctionBuilder, v: number, rare: number): void {
  f.get(rare);
  f.get(v).get(v).simd('f32x4.ne');
  f.simd('v128.or').set(rare);
}

/** fadd (or fsub) of the patterns in locals `a` and `b` into `out`, rounded toward zero. */
export function emitFaddSub(f: FunctionBuilder, a: number, b: number, sub: boolean, out: number, rare: number, clean: Clean = {}): void {
  f.note(sub ? 'fsub: TwoSum, then one step toward zero where rounding went away from it' : 'fadd: TwoSum, then one step toward zero where rounding went away from it');
  const x = flushInto(f, a, 'fa', clean.a);
  let y = flushInto(f, b, 'fb', clean.b);
  if (sub) {
    const t = f.local('v128', 'neg_fb');
    f.get(y).simd('f32x4.neg').set(t);
    y = t;
  }
  const s = f.local('v128', 's');
  const bv = f.local('v128', 'bv');
  const err = f.local('v128', 'err');
  f.get(x).get(y).simd('f32x4.add').set(s);
  markNonFinite(f, s, rare);
  // bv = s - x; err = (x - (s - bv)) + (y - bv)
  f.get(s).get(x).simd('f32x4.sub').set(bv);
  f.get(x).get(s).get(bv).simd('f32x4.sub').simd('f32x4.sub');
  f.get(y).get(bv).simd('f32x4.sub');
  f.simd('f32x4.add').set(err);
  // TwoSum is exact when nothing overflows on the way: an intermediate that did (a sum near the
  // largest single, say -max + 7e37) leaves err infinite or NaN, and the lane to arith.
  markNonFinite(f, err, rare);
  // Where err is non-zero and of the other sign than s, s went away from zero: its pattern - 1.
  f.get(s);
  f.get(err).get(s).simd('v128.xor').i32(31).simd('i32x4.shr_s');
  f.get(err).v128i32(splat(0)).simd('f32x4.ne');
  f.simd('v128.and');
  f.simd('i32x4.add').set(out);
  flushed(f, out);
  f.set(out);
}

/** Clears a binary64's 29 low mantissa bits (as i32 lanes, low word first): 24 significant bits remain. */
const TRUNCATE_24 = [0xe0000000, 0xffffffff, 0xe0000000, 0xffffffff];
/** 2^-126, the smallest normal binary32, as a binary64 (i32 lanes, low word first). */
const MIN_NORMAL_F64 = [0, 0x38100000, 0, 0x38100000];

/**
 * Leaves on the stack the binary32 patterns of the exact binary64 pairs `lo` (lanes 0, 1) and
 * `hi` (lanes 2, 3) rounded toward zero, below the smallest normal +0: cutting the mantissa to
 * 24 bits rounds toward zero (the pattern is sign and magnitude); a cut value of at least 2^-126
 * is then a binary32 exactly (or, from 2^128 on, narrows to an infinity: `rare`), and one below
 * it becomes +0 before narrowing (narrowing it could round up to 2^-126).
 */
function narrowTowardZero(f: FunctionBuilder, lo: number, hi: number): void {
  for (const pair of [lo, hi]) {
    f.get(pair).v128i32(TRUNCATE_24).simd('v128.and').set(pair);
    f.get(pair);
    f.get(pair).simd('f64x2.abs').v128i32(MIN_NORMAL_F64).simd('f64x2.lt');
    f.simd('v128.andnot').simd('f32x4.demote_f64x2_zero');
  }
  f.shuffle([0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]);
}

/** Splits the binary32 lanes of `v` into two binary64 pairs: lanes 0-1 into `lo`, 2-3 into `hi`. */
function widenF32(f: FunctionBuilder, v: number, lo: number, hi: number): void {
  f.get(v).simd('f64x2.promote_low_f32x4').set(lo);
  f.get(v).get(v).shuffle([8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15]).simd('f64x2.promote_low_f32x4').set(hi);
}

/** fmul of the patterns in `a` and `b` into `out`: the exact binary64 product rounded toward zero. */
export function emitFmul(f: FunctionBuilder, a: number, b: number, out: number, rare: number, clean: Clean = {}): void {
  f.note('fmul: the exact binary64 product, narrowed toward zero');
  const x = flushInto(f, a, 'fa', clean.a);
  const y = flushInto(f, b, 'fb', clean.b);
  const [xl, xh, yl, yh] = ['fa_lo', 'fa_hi', 'fb_lo', 'fb_hi'].map((n) => f.local('v128', n)) as [number, number, number, number];
  widenF32(f, x, xl, xh);
  widenF32(f, y, yl, yh);
  f.get(xl).get(yl).simd('f64x2.mul').set(xl);
  f.get(xh).get(yh).simd('f64x2.mul').set(xh);
  narrowTowardZero(f, xl, xh);
  f.set(out);
  markNaN(f, out, rare);
}

/** itof of the patterns in `a` into `out`: exact in binary64, narrowed toward zero (never rare). */
export function emitItof(f: FunctionBuilder, a: number, out: number): void {
  f.note('itof: exact in binary64, narrowed toward zero');
  const [lo, hi] = ['i_lo', 'i_hi'].map((n) => f.local('v128', n)) as [number, number];
  f.get(a).simd('f64x2.convert_low_i32x4_s').set(lo);
  f.get(a).get(a).shuffle([8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15]).simd('f64x2.convert_low_i32x4_s').set(hi);
  narrowTowardZero(f, lo, hi);
  f.set(out);
}

/** ftoi of the patterns in `a` into `out`: truncated; NaN and values outside the int32 range give 0. */
export function emitFtoi(f: FunctionBuilder, a: number, out: number, clean: Clean = {}): void {
  f.note('ftoi: truncated, 0 outside the int32 range');
  const x = flushInto(f, a, 'fa', clean.a);
  f.get(x).simd('i32x4.trunc_sat_f32x4_s');
  // -2^31 <= x < 2^31 (false for NaN)
  f.get(x).v128i32(splat(0xcf000000)).simd('f32x4.ge');
  f.get(x).v128i32(splat(0x4f000000)).simd('f32x4.lt');
  f.simd('v128.and').simd('v128.and').set(out);
}
