// The math library's functions on floats, each written once (dual.ts): what it computes with the
// chip's arithmetic is its meaning on every target, and the same lines emit its code. Each is a
// range reduction that is exact or nearly, a polynomial fitted to the reduced range (weighted
// least squares on Chebyshev nodes, coefficients rounded to float32), and a reconstruction with
// integer operations on the float's bits. The chip's float operations round toward zero;
// bench/accuracy.ts measures the error in ulps against correctly rounded results over dense
// sweeps, and docs/language.md states the figures and the domains they hold in.

import { type Dual, floatBits } from './dual.ts';

/** 1.5 * 2^23: x + MAGIC, rounded toward zero, holds floor(x) in its low bits for |x| < 2^22. */
const MAGIC = 12582912;
const MAGIC_BITS = floatBits(MAGIC);
const INFINITY = 0x7f800000;

/** A shift amount as a small immediate: shifts read the low 5 bits, so 16-31 are -16..-1. */
const shift = <V>(o: Dual<V>, n: number) => o.bits(n < 16 ? n : n - 32);

/** floor(t) as a float and as an int, for |t| < 2^22 (no flags, no conversion). */
function floorOf<V>(o: Dual<V>, t: V): { kf: V; k: V } {
  const v = o.op('fadd', t, o.f(MAGIC));
  return { kf: o.op('fsub', v, o.f(MAGIC)), k: o.op('sub', v, o.bits(MAGIC_BITS)) };
}

/** Horner's rule: c[0] + z (c[1] + z (c[2] + ...)). */
function horner<V>(o: Dual<V>, z: V, c: readonly number[]): V {
  let p = o.f(c[c.length - 1]!);
  for (let i = c.length - 2; i >= 0; i--) p = o.op('fadd', o.op('fmul', p, z), o.f(c[i]!));
  return p;
}

// ---- sin, cos

/** x cut to its leading `bits` significant bits (toward zero): an exact double and float. */
function leading(x: number, bits: number): number {
  const scale = 2 ** (bits - 1 - Math.floor(Math.log2(Math.abs(x))));
  return Math.trunc(x * scale) / scale;
}

/**
 * pi in four parts: 8, 10 and 10 significant bits, then the rest rounded to float32. k times
 * each of the first three is exact for |k| < 2^13 (k + 1/2 for |k| < 2^12), so r loses nothing
 * until the last part, and sin and cos stay accurate near their zeros.
 */
const PI: readonly number[] = (() => {
  const p1 = leading(Math.PI, 8);
  const p2 = leading(Math.PI - p1, 10);
  const p3 = leading(Math.PI - p1 - p2, 10);
  return [p1, p2, p3, Math.fround(Math.PI - p1 - p2 - p3)];
})();
/** sin(r) = r + r^3 P(r^2) on [-pi/2, pi/2]. */
const SIN = [-0.1666666716337204, 0.008333330973982811, -0.00019840861205011606, 0.0000027525093173608184, -2.388435227373975e-8];

/**
 * sin(x) (cos: cos(x)). With k = floor(x / pi + 1/2), r = x - k pi is in [-pi/2, pi/2] and
 * sin(x) = (-1)^k sin(r); for cos, k = floor(x / pi), r = x - (k + 1/2) pi and
 * cos(x) = (-1)^(k+1) sin(r). The sign is the parity bit shifted to the sign and xor-ed in.
 */
export function sinOrCos<V>(o: Dual<V>, x: V, cos: boolean): V {
  let t = o.op('fmul', x, o.f(1 / Math.PI));
  if (!cos) t = o.op('fadd', t, o.f(0.5));
  const floor = floorOf(o, t);
  const { k } = floor;
  const kf = cos ? o.op('fadd', floor.kf, o.f(0.5)) : floor.kf;
  let r = x;
  for (const part of PI) r = o.op('fsub', r, o.op('fmul', kf, o.f(part)));
  const z = o.op('fmul', r, r);
  const s = o.op('fadd', r, o.op('fmul', o.op('fmul', r, z), horner(o, z, SIN)));
  const sign = o.op('shl', cos ? o.op('add', k, o.bits(1)) : k, shift(o, 31));
  return o.op('xor', s, sign);
}

// ---- exp

/** ln 2 in two parts, the first short enough that k times it is exact. */
const LN2 = [0.693359375, -2.12194440e-4];
/** e^r = 1 + r + r^2 Q(r) on [-ln2/2, ln2/2]. */
const EXP = [0.49999988079071045, 0.166665181517601, 0.04166953265666962, 0.008368915878236294, 0.0013751407386735082];
/** Where exp's result is a normal float: |x - EXP_MID| <= EXP_HALF, from ln(2^-126) to ln(2^128). */
const EXP_LOW = -87.33654;
const EXP_HIGH = 88.72283;

/**
 * e^x: k = floor(x log2(e) + 1/2), r = x - k ln2, e^x = 2^k e^r, the 2^k added to the
 * exponent's bits. Above ln of the largest float, +infinity; below ln(2^-126) (and for NaNs
 * with the sign bit set), 0; +infinity for NaNs otherwise (the chip makes no NaN).
 */
export function exp<V>(o: Dual<V>, x: V): V {
  // Out of range: +infinity above, 0 below (the sign spread, inverted, keeps +infinity's bits).
  // Made first, from x alone, so that they fill the main chain's free add-ALU slots.
  const special = o.op('and', o.op('xor', o.op('asr', x, shift(o, 31)), o.bits(-1)), o.bits(INFINITY));
  const off = o.un('fabs', o.op('fsub', x, o.f((EXP_HIGH + EXP_LOW) / 2)));
  const t = o.op('fadd', o.op('fmul', x, o.f(Math.LOG2E)), o.f(0.5));
  const { kf, k } = floorOf(o, t);
  let r = x;
  for (const part of LN2) r = o.op('fsub', r, o.op('fmul', kf, o.f(part)));
  const p = o.op('fadd', o.op('fadd', o.op('fmul', o.op('fmul', r, r), horner(o, r, EXP)), r), o.f(1));
  const scaled = o.op('add', p, o.op('shl', k, shift(o, 23)));
  return o.pick('flt', o.f((EXP_HIGH - EXP_LOW) / 2), off, special, scaled);
}

// ---- log

/** sqrt(1/2)'s bits: x's bits minus these give its exponent k (x = 2^k m, m in [sqrt(1/2), sqrt(2))). */
const SQRT_HALF_BITS = 0x3f3504f3;
/** ln 2 in two parts, the first with its low 12 bits clear. */
const LN2_HI = 0.69313812255859375;
const LN2_LO = Math.LN2 - LN2_HI;
/** log(1 + f) = f - s (f - R(s^2)), s = f / (2 + f), R(z) = z (A + z (B + z C)). */
const LOG = [0.6666677594184875, 0.3997734487056732, 0.29876095056533813];

/**
 * log(x) for a positive normal x: x = 2^k m, m in [sqrt(1/2), sqrt(2)), from the bits; with
 * f = m - 1 and s = f / (2 + f) (the SFU's reciprocal and a Newton step: s is only in the
 * correction term, so its last bits matter little), log(x) = k ln2 + f - s (f - R(s^2)).
 * Others: +0, -0 and denormals give -infinity, negatives NaN, +infinity and NaNs themselves.
 */
export function log<V>(o: Dual<V>, x: V): V {
  // Not a positive normal finite float: -infinity below the normals, NaN for negatives, x itself
  // from +infinity up. Made first, to fill the main chain's free slots.
  // (x - 1) & x is negative for the negatives but -0: the sign spread picks NaN over -infinity.
  const negative = o.op('asr', o.op('and', o.op('sub', x, o.bits(1)), x), shift(o, 31));
  const low = o.op('xor', o.bits(0xff800000), o.op('and', negative, o.bits(0x80400000)));
  const special = o.pick('ilt', x, o.bits(0x00800000), low, x);
  const ix = o.op('sub', x, o.bits(SQRT_HALF_BITS));
  const k = o.op('asr', ix, shift(o, 23));
  const m = o.op('add', o.op('and', ix, o.bits(0x7fffff)), o.bits(SQRT_HALF_BITS));
  const f = o.op('fsub', m, o.f(1));
  const d = o.op('fadd', f, o.f(2));
  const est = o.sfu('recip', d);
  const e = o.op('fsub', o.f(2), o.op('fmul', d, est));
  const s = o.op('fmul', o.op('fmul', f, est), e);
  const z = o.op('fmul', s, s);
  const big = o.op('fmul', z, horner(o, z, LOG));
  const w = o.op('fsub', f, o.op('fmul', s, o.op('fsub', f, big)));
  const kf = o.un('itof', k);
  const y = o.op('fadd', o.op('fadd', w, o.op('fmul', kf, o.f(LN2_LO))), o.op('fmul', kf, o.f(LN2_HI)));
  return o.pick('ult', o.op('sub', x, o.bits(0x00800000)), o.bits(0x7f000000), y, special);
}
