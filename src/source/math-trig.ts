// The math library's trigonometric functions: sin, cos, tan, atan, atan2, asin, acos, each
// written once (dual.ts): its meaning with the chip's arithmetic and its lowering from the same
// lines. bench/accuracy.ts measures their errors; docs/language.md states them.

import type { Dual } from './dual.ts';
import { divide, floorOf, horner, leading, root, shift } from './math-common.ts';

// ---- sin, cos

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


// ---- tan

/**
 * tan(x) = sin(r) / cos(r) with r = x - k pi, k = floor(x / pi + 1/2) (the signs (-1)^k cancel).
 * cos(r) is sin(pi/2 - |r|), from r_c = x - (k + sign(r)/2) pi, reduced again from x, so that it
 * keeps its accuracy near the poles, where it is small.
 */
export function tan<V>(o: Dual<V>, x: V): V {
  const t = o.op('fadd', o.op('fmul', x, o.f(1 / Math.PI)), o.f(0.5));
  const { kf } = floorOf(o, t);
  const r = reduce(o, x, kf);
  // r_c = r - sign(r) pi/2, and cos(r) = sin(pi/2 - |r|) = sin(-sign(r) r_c) (for any r: k may be one off near a pole).
  const sign = o.op('and', r, o.bits(0x80000000 | 0));
  const rc = reduce(o, x, o.op('fadd', kf, o.op('or', sign, o.f(0.5))));
  const c = o.op('xor', o.op('xor', rc, sign), o.bits(0x80000000 | 0));
  return divide(o, sinPoly(o, r), sinPoly(o, c));
}

/** x - kf pi, pi in four parts. */
function reduce<V>(o: Dual<V>, x: V, kf: V): V {
  let r = x;
  for (const part of PI) r = o.op('fsub', r, o.op('fmul', kf, o.f(part)));
  return r;
}

/** sin(r) for r in [-pi/2, pi/2]: r + r^3 P(r^2). */
function sinPoly<V>(o: Dual<V>, r: V): V {
  const z = o.op('fmul', r, r);
  return o.op('fadd', r, o.op('fmul', o.op('fmul', r, z), horner(o, z, SIN)));
}

// ---- atan2, atan, asin, acos

/** atan(v) = v + v^3 P(v^2) for |v| <= tan(pi/8). */
const ATAN = [-0.33332937955856323, 0.1997736096382141, -0.13874448835849762, 0.08044466376304626];
const TAN_PI_8 = Math.tan(Math.PI / 8);
const TAN_3PI_8 = Math.tan((3 * Math.PI) / 8);
/** pi in two parts, for pi - a. */
const PI_HI = Math.fround(Math.PI);
const PI_LO = Math.PI - PI_HI;

/**
 * atan2(y, x): on a = |y|, b = |x|, one of three ranges by a / b (compared as a against b times
 * tan(3pi/8) and tan(pi/8), no division): above, -b / a plus pi/2; between, (a - b) / (a + b)
 * plus pi/4; below, a / b. That quotient v is at most tan(pi/8), where the polynomial holds.
 * Then pi minus it where x is negative (its sign bit: -0 too), and y's sign. atan2(0, 0) is 0,
 * atan2(0, -0) pi; infinities give unspecified values.
 */
export function atan2<V>(o: Dual<V>, y: V, x: V): V {
  const a = o.un('fabs', y);
  const b = o.un('fabs', x);
  // Each pair: [above the threshold, below it].
  const [num, den, off] = o.choose('flt', o.op('fmul', b, o.f(TAN_3PI_8)), a, [
    [o.op('fsub', o.f(0), b), o.op('fsub', a, b)],
    [a, o.op('fadd', a, b)],
    [o.f(Math.PI / 2), o.f(Math.PI / 4)],
  ]);
  const [n2, d2, o2] = o.choose('flt', o.op('fmul', b, o.f(TAN_PI_8)), a, [
    [num!, a],
    [den!, b],
    [off!, o.f(0)],
  ]);
  const v = divide(o, n2!, d2!);
  const z = o.op('fmul', v, v);
  const angle = o.op('fadd', o2!, o.op('fadd', v, o.op('fmul', o.op('fmul', v, z), horner(o, z, ATAN))));
  const flipped = o.op('fadd', o.op('fsub', o.f(PI_HI), angle), o.f(PI_LO));
  const whole = o.pick('ilt', x, o.bits(0), flipped, angle);
  return o.op('or', whole, o.op('and', y, o.bits(0x80000000 | 0)));
}

/** atan(x) = atan2(x, 1). */
export const atan = <V>(o: Dual<V>, x: V): V => atan2(o, x, o.f(1));

/** sqrt((1 - x)(1 + x)), NaN outside [-1, 1]: the cosine of asin(x), without cancellation near |x| = 1. */
function coSide<V>(o: Dual<V>, x: V): V {
  const c = root(o, o.op('fmul', o.op('fsub', o.f(1), x), o.op('fadd', o.f(1), x)));
  return o.pick('flt', o.f(1), o.un('fabs', x), o.bits(0x7fc00000), c);
}

/** asin(x) = atan2(x, sqrt(1 - x^2)); NaN where |x| > 1. */
export function asin<V>(o: Dual<V>, x: V): V {
  const c = coSide(o, x);
  return o.pick('ult', o.bits(0x7fc00000 - 1), c, c, atan2(o, x, c));
}

/** acos(x) = atan2(sqrt(1 - x^2), x); NaN where |x| > 1. */
export function acos<V>(o: Dual<V>, x: V): V {
  const c = coSide(o, x);
  return o.pick('ult', o.bits(0x7fc00000 - 1), c, c, atan2(o, c, x));
}
