// Float division and square root (the rows div and sqrt of ops.ts): the meaning, as the chip
// computes it, and the lowering, side by side. Both start from the SFU (recip, recipsqrt) and
// sharpen its result with one Newton step, so they hold their documented accuracy with the
// chip's SFU (11-12 bits, vc4/sfu-model.ts) as with the exact one. The chip's float ops round
// toward zero, so results lean toward zero; bench/accuracy.ts measures the ulps against the
// correctly rounded quotient and root over a sweep of float32 (docs/language.md has the figures).

import * as arith from '../vc4/arith.ts';
import type { OpEmitter, OpLowering, Sfu } from './op-emitter.ts';
import type { Src } from '../compiler/operands.ts';

const RECIP = 0;
const RECIPSQRT = 1;
/** Float patterns: 2, 1.5, +infinity. */
const TWO = 0x40000000;
const THREE_HALVES = 0x3fc00000;
/** One in a float's exponent field: subtracting it from the pattern halves a normal float exactly. */
const EXPONENT_ONE = 0x00800000;
/** rs / 2 for a normal rs, as an integer subtraction (the add ALU's, so that it pairs with an fmul). */
const halved = (rs: number) => arith.sub(rs, EXPONENT_ONE);
const INFINITY = 0x7f800000;

/**
 * a / b: r = recip(b), then (a r)(2 - b r), one Newton step with a r computed beside it. By 0,
 * an infinity with a's sign (0 / 0 is 0: the chip's fmul of a zero is 0); by an infinity, 0.
 */
export function fdiv(a: number, b: number, sfu: Sfu = arith.sfu): number {
  const r = sfu(RECIP, b);
  const e = arith.fsub(TWO, arith.fmul(b, r));
  return arith.fmul(arith.fmul(a, r), e);
}

export const fdivLowering: OpLowering = (l, dst, a, b, cond) => {
  const r = fromSfu(l, 'sfu_recip', b);
  const t = l.fresh();
  l.alu('fmul', t, b, r);
  const e = l.fresh();
  l.alu('fsub', e, l.word(TWO), t);
  const q0 = l.fresh();
  l.alu('fmul', q0, a, r);
  l.alu('fmul', dst, q0, e, { cond });
};

/**
 * sqrt(x): s = x rs with rs = recipsqrt(x), then s (3/2 - s rs / 2), one Newton step (rs / 2
 * made by taking one from its exponent: for x = 0, rs is infinite and that gives a large finite
 * number, which s = 0 multiplies to 0). Patterns from +infinity's up, read unsigned (+infinity,
 * NaNs and every negative, -0 included: Math.sqrt gives -0 for -0) take special(x) instead.
 */
export function sqrt(x: number, sfu: Sfu = arith.sfu): number {
  const rs = sfu(RECIPSQRT, x);
  const s0 = arith.fmul(x, rs);
  const t = arith.fmul(s0, halved(rs));
  const s = arith.fmul(s0, arith.fsub(THREE_HALVES, t));
  return x >>> 0 < INFINITY ? s : special(x);
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

/** Writes x to an SFU register and returns the register the result (r4) is copied to. */
function fromSfu(l: OpEmitter, reg: 'sfu_recip' | 'sfu_recipsqrt', x: Src) {
  l.mov(l.p(reg), x);
  const r = l.fresh();
  l.mov(r, l.p('r4'));
  return r;
}
