// What the math library's functions (math-exp.ts, math-trig.ts) share: exact floors without
// conversions, polynomials by Horner's rule, constants cut to a few bits, division and square
// root written once against dual.ts's Dual.

import { type Dual, floatBits } from './dual.ts';
import { shiftImmediate } from '../vc4/tables.ts';

/** 1.5 * 2^23: x + MAGIC, rounded toward zero, holds floor(x) in its low bits for |x| < 2^22. */
export const MAGIC = 12582912;
export const MAGIC_BITS = floatBits(MAGIC);
export const INFINITY = 0x7f800000;

/** A shift amount as a small immediate: shifts read the low 5 bits, so 16-31 are -16..-1. */
export const shift = <V>(o: Dual<V>, n: number) => o.bits(shiftImmediate(n));

/** floor(t) as a float and as an int, for |t| < 2^22 (no flags, no conversion). */
export function floorOf<V>(o: Dual<V>, t: V): { kf: V; k: V } {
  const v = o.op('fadd', t, o.f(MAGIC));
  return { kf: o.op('fsub', v, o.f(MAGIC)), k: o.op('sub', v, o.bits(MAGIC_BITS)) };
}

/** Horner's rule: c[0] + z (c[1] + z (c[2] + ...)). */
export function horner<V>(o: Dual<V>, z: V, c: readonly number[]): V {
  let p = o.f(c[c.length - 1]!);
  for (let i = c.length - 2; i >= 0; i--) p = o.op('fadd', o.op('fmul', p, z), o.f(c[i]!));
  return p;
}

/** x cut to its leading `bits` significant bits (toward zero): an exact double and float. */
export function leading(x: number, bits: number): number {
  const scale = 2 ** (bits - 1 - Math.floor(Math.log2(Math.abs(x))));
  return Math.trunc(x * scale) / scale;
}

/** a / b: the SFU's reciprocal r of b and one Newton step, (a r)(2 - b r) (as Float div). */
export function divide<V>(o: Dual<V>, a: V, b: V): V {
  const r = o.sfu('recip', b);
  return o.op('fmul', o.op('fmul', a, r), o.op('fsub', o.f(2), o.op('fmul', b, r)));
}

/** The square root of a non-negative x: recipsqrt and one Newton step (as Float sqrt, without its special values). */
export function root<V>(o: Dual<V>, x: V): V {
  const rs = o.sfu('recipsqrt', x);
  const s0 = o.op('fmul', x, rs);
  const t = o.op('fmul', s0, o.op('sub', rs, o.bits(0x00800000)));
  return o.op('fmul', s0, o.op('fsub', o.f(1.5), t));
}

/** x with y's sign bit. */
export const withSignOf = <V>(o: Dual<V>, x: V, y: V): V => o.op('or', o.un('fabs', x), o.op('and', y, o.bits(0x80000000 | 0)));
