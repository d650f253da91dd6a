// The math library's exponentials and logarithms: exp, exp2, log, log2, pow, sinh, cosh, tanh,
// each written once (dual.ts): its meaning with the chip's arithmetic and its lowering from the
// same lines. Each is a range reduction that is exact or nearly, a polynomial fitted to the
// reduced range (weighted least squares on Chebyshev nodes, coefficients rounded to float32), and
// a reconstruction with integer operations on the float's bits. The chip's float operations round
// toward zero; bench/accuracy.ts measures the error in ulps against correctly rounded results
// over dense sweeps, and docs/language.md states the figures and the domains they hold in.

import type { Dual } from './dual.ts';
import { divide, floorOf, horner, INFINITY, leading, shift, withSignOf } from './math-common.ts';

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
/** ln 2 in two parts, the first 12 bits long (k times it is exact). */
const LN2_HI = leading(Math.LN2, 12);
const LN2_LO = Math.LN2 - LN2_HI;
/** log(1 + f) = f - s (f - R(s^2)), s = f / (2 + f), R(z) = z (A + z (B + z C)). */
const LOG = [0.6666677594184875, 0.3997734487056732, 0.29876095056533813];

/**
 * x = 2^k (1 + f), 1 + f in [sqrt(1/2), sqrt(2)), from the bits, and w = log(1 + f) = f - s (f - R(s^2))
 * with s = f / (2 + f) (the SFU's reciprocal and a Newton step: s is only in the correction
 * term, so its last bits matter little). For a positive normal x.
 */
function logParts<V>(o: Dual<V>, x: V): { kf: V; w: V } {
  const ix = o.op('sub', x, o.bits(SQRT_HALF_BITS));
  const k = o.op('asr', ix, shift(o, 23));
  const m = o.op('add', o.op('and', ix, o.bits(0x7fffff)), o.bits(SQRT_HALF_BITS));
  const f = o.op('fsub', m, o.f(1));
  const s = divide(o, f, o.op('fadd', f, o.f(2)));
  const z = o.op('fmul', s, s);
  const big = o.op('fmul', z, horner(o, z, LOG));
  return { kf: o.un('itof', k), w: o.op('fsub', f, o.op('fmul', s, o.op('fsub', f, big))) };
}

/**
 * What log and log2 give where x is not a positive normal finite float: -infinity below the
 * normals (+0, -0 and denormals), NaN for negatives, x itself from +infinity up. (x - 1) & x is
 * negative for the negatives but -0: the sign spread picks NaN over -infinity.
 */
function logSpecial<V>(o: Dual<V>, x: V): V {
  const negative = o.op('asr', o.op('and', o.op('sub', x, o.bits(1)), x), shift(o, 31));
  const low = o.op('xor', o.bits(0xff800000 | 0), o.op('and', negative, o.bits(0x80400000 | 0)));
  return o.pick('ilt', x, o.bits(0x00800000), low, x);
}

/** Lanes where x is a positive normal finite float take `y`, the others logSpecial's value. */
const normalOr = <V>(o: Dual<V>, x: V, y: V, special: V): V => o.pick('ult', o.op('sub', x, o.bits(0x00800000)), o.bits(0x7f000000), y, special);

/** log(x) = k ln2 + log(1 + f). The special values are made first, to fill the main chain's free slots. */
export function log<V>(o: Dual<V>, x: V): V {
  const special = logSpecial(o, x);
  const { kf, w } = logParts(o, x);
  const y = o.op('fadd', o.op('fadd', w, o.op('fmul', kf, o.f(LN2_LO))), o.op('fmul', kf, o.f(LN2_HI)));
  return normalOr(o, x, y, special);
}

/** log2(x) = k + log(1 + f) log2(e), log2(e) in two parts. */
export function log2<V>(o: Dual<V>, x: V): V {
  const special = logSpecial(o, x);
  const { kf, w } = logParts(o, x);
  const y = o.op('fadd', kf, o.op('fadd', o.op('fmul', w, o.f(LOG2E_LO)), o.op('fmul', w, o.f(LOG2E_HI))));
  return normalOr(o, x, y, special);
}

/** log2(e) in two parts, the first 12 bits long. */
const LOG2E_HI = leading(Math.LOG2E, 12);
const LOG2E_LO = Math.LOG2E - LOG2E_HI;

// ---- exp2, pow

/** 2^r = 1 + r P(r) on [-1/2, 1/2]. */
const EXP2 = [0.6931471824645996, 0.24022647738456726, 0.05550329014658928, 0.009618373587727547, 0.0013399848248809576, 0.00015370704932138324];

/**
 * 2^x: k = floor(x + 1/2), r = x - k (exact), 2^x = 2^k 2^r, the 2^k added to the exponent's bits.
 * From 128 up +infinity; below -126, 0 (NaNs: +infinity or 0).
 */
export function exp2<V>(o: Dual<V>, x: V): V {
  const special = o.op('and', o.op('xor', o.op('asr', x, shift(o, 31)), o.bits(-1)), o.bits(INFINITY));
  const off = o.un('fabs', o.op('fsub', x, o.f(1)));
  const { kf, k } = floorOf(o, o.op('fadd', x, o.f(0.5)));
  const r = o.op('fsub', x, kf);
  const p = o.op('fadd', o.op('fmul', r, horner(o, r, EXP2)), o.f(1));
  const scaled = o.op('add', p, o.op('shl', k, shift(o, 23)));
  return o.pick('flt', o.f(127), off, special, scaled);
}

/**
 * x^y = 2^(y log2 |x|), and for a negative x: NaN unless y is an integer, the sign of x^y from
 * y's parity (y's floor and parity from the bits, exact for |y| < 2^22). 0^y: 0 for y > 0,
 * +infinity for y < 0; x^0 is 1. The error grows with |y log2 x| (docs/language.md).
 */
export function pow<V>(o: Dual<V>, x: V, y: V): V {
  const ax = o.un('fabs', x);
  const p = exp2(o, o.op('fmul', y, log2(o, ax)));
  const { kf, k } = floorOf(o, y);
  const odd = o.op('shl', k, shift(o, 31));
  const integer = o.op('fsub', y, kf); // 0 (+0) where y is an integer
  const negative = o.pick('ult', integer, o.bits(1), o.op('xor', p, odd), o.bits(0x7fc00000));
  return o.pick('ilt', x, o.bits(0), negative, p);
}

// ---- sinh, cosh, tanh

/** sinh(x) = x + x^3 P(x^2) for |x| <= 1. */
const SINH = [0.1666666716337204, 0.008333350531756878, 0.00019836029969155788, 0.0000028176129944768036];
/** tanh(x) = x + x^3 P(x^2) for |x| <= 0.55. */
const TANH = [-0.33333316445350647, 0.13332565128803253, -0.05385030433535576, 0.02106417343020439, -0.006264416500926018];

/** sinh(x): the polynomial for |x| < 1, else (E - 1/E) / 2 with E = e^|x|, x's sign put back. */
export function sinh<V>(o: Dual<V>, x: V): V {
  const a = o.un('fabs', x);
  const z = o.op('fmul', x, x);
  const small = o.op('fadd', x, o.op('fmul', o.op('fmul', x, z), horner(o, z, SINH)));
  const e = exp(o, a);
  const big = withSignOf(o, o.op('fmul', o.op('fsub', e, divide(o, o.f(1), e)), o.f(0.5)), x);
  return o.pick('flt', a, o.f(1), small, big);
}

/** cosh(x) = (E + 1/E) / 2 with E = e^|x|. */
export function cosh<V>(o: Dual<V>, x: V): V {
  const e = exp(o, o.un('fabs', x));
  return o.op('fmul', o.op('fadd', e, divide(o, o.f(1), e)), o.f(0.5));
}

/** tanh(x): the polynomial for |x| < 0.55, else 1 - 2 / (e^(2|x|) + 1), x's sign put back. */
export function tanh<V>(o: Dual<V>, x: V): V {
  const a = o.un('fabs', x);
  const z = o.op('fmul', x, x);
  const small = o.op('fadd', x, o.op('fmul', o.op('fmul', x, z), horner(o, z, TANH)));
  const e = exp(o, o.op('fadd', a, a));
  const big = withSignOf(o, o.op('fsub', o.f(1), divide(o, o.f(2), o.op('fadd', e, o.f(1)))), x);
  return o.pick('flt', a, o.f(0.55), small, big);
}
