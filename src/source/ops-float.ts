// Float square root (the row sqrt of ops.ts): its meaning and its lowering. The root itself is
// math-common.ts's `root` (recipsqrt and one Newton step, so that it holds its documented
// accuracy with the chip's SFU, vc4/sfu-model.ts, as with the exact one); the lowering writes it
// by hand, to make the special values in the SFU's shadow and write the root under their flags.
// Float division is math-common.ts's `divide` (ops.ts's row div). bench/accuracy.ts measures the
// ulps against the correctly rounded root over a sweep of float32 (docs/language.md has the figures).

import * as arith from '../vc4/arith.ts';
import type { OpLowering, Sfu } from './op-emitter.ts';
import { evaluator } from './dual.ts';
import { root } from './math-common.ts';

/** Float patterns: 1.5, +infinity. */
const THREE_HALVES = 0x3fc00000;
/** One in a float's exponent field: subtracting it from the pattern halves a normal float exactly. */
const EXPONENT_ONE = 0x00800000;
const INFINITY = 0x7f800000;

/**
 * sqrt(x): s = x rs with rs = recipsqrt(x), then s (3/2 - s rs / 2), one Newton step (`root`;
 * rs / 2 made by taking one from its exponent: for x = 0, rs is infinite and that gives a large
 * finite number, which s = 0 multiplies to 0). The lowering below emits the same. Patterns from +infinity's up, read unsigned (+infinity,
 * NaNs and every negative, -0 included: Math.sqrt gives -0 for -0) take special(x) instead.
 */
export function sqrt(x: number, sfu: Sfu = arith.sfu): number {
  return x >>> 0 < INFINITY ? root(evaluator(sfu), x) : special(x);
}

/**
 * What sqrt gives from +infinity's pattern up: +infinity for +infinity, a NaN for the others.
 * (x | +inf) has an all-ones exponent; its mantissa is x's, non-zero for NaNs and most negatives.
 * Where x's is zero (-infinity, -0, -2^k), x - +inf is not 0 but its low 23 bits are, so its bits
 * 23-31 are not: rotated right by 9 they land in the mantissa. For +infinity that difference is 0.
 * Three add-ALU operations after the difference the flags come from, made while the SFU works.
 */
const special = (x: number) => arith.or(arith.or(x, INFINITY), arith.ror(arith.sub(x, INFINITY), 9));

export const sqrtLowering: OpLowering = (l, dst, x) => {
  l.mov(l.p('sfu_recipsqrt'), x);
  // C (a borrow) where the pattern is below +infinity's, read unsigned: there the root is written.
  const inf = l.word(INFINITY);
  const diff = l.fresh();
  l.alu('sub', diff, x, inf, { setf: true });
  const out = l.fresh();
  l.alu('or', out, x, inf);
  const spread = l.fresh();
  l.alu('ror', spread, diff, l.int(9));
  l.alu('or', out, out, spread);
  const rs = l.fresh();
  l.mov(rs, l.p('r4'));
  const hr = l.fresh();
  l.alu('sub', hr, rs, l.word(EXPONENT_ONE)); // halved on the add ALU, beside s0's fmul
  const s0 = l.fresh();
  l.alu('fmul', s0, x, rs);
  const t = l.fresh();
  l.alu('fmul', t, s0, hr);
  const v = l.fresh();
  l.alu('fsub', v, l.word(THREE_HALVES), t);
  l.alu('fmul', out, s0, v, { cond: 'cs' });
  l.mov(dst, out);
};
