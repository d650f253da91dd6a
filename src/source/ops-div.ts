// Integer division and remainder (the rows div, rem, udiv, urem of ops.ts): their meaning, as
// JavaScript's `(a / b) | 0` and `(a % b) | 0` (truncation toward zero; by 0 both give 0), and
// their lowering. The chip has no divide: the quotient comes from the SFU's reciprocal, sharpened
// by a Newton step, in two rounds of float estimates with exact integer remainders between them,
// then one last step up. By a constant, a power of two is a shift, a dividend known to fit in a
// few bits is one mul24 by a magic number and a shift, and any other dividend the high word of
// its product with a magic number (Granlund and Montgomery, 1994), built from four mul24.
//
// Why it is exact (every uint32 dividend n and divisor d >= 1, docs/language.md):
// - r, the reciprocal, lies in [(1 - 2^-19) / d, 1 / d): the SFU's estimate within 2^-11
//   (VC4C's doc/sfu_accuracy.txt measured 11-13 bits), one Newton step r(c - d r) with
//   c = 2 - 2^-20 squares that error and takes about 2^-20 off, more than the float ops' own
//   rounding can add back. The floats round toward zero, so no estimate below is ever high.
// - Round 1: q0 = 2 * ftoi(float(n) * r / 2) (halved, so that ftoi never meets 2^31 or more),
//   q0 <= n / d, so the remainder n - q0 d (computed modulo 2^32 with the 32-bit product) is
//   exact and in [0, n]; it is at most n 2^-19 + 3d, its quotient below 2^14.
// - Round 2: q1 = ftoi(float(rem) * r) misses floor(rem / d) by at most 1: what is left is in
//   [0, 2d), and one compare and step up ends it.

import { constantOf, type OpEmitter, type OpLowering, shiftBy } from './op-emitter.ts';
import type { Reg, Src, VReg } from '../compiler/operands.ts';

/** What the operators compute, lane by lane, as JavaScript does. */
export const divide = {
  div: (a: number, b: number) => (b === 0 ? 0 : Math.trunc(a / b) | 0),
  rem: (a: number, b: number) => (b === 0 ? 0 : a % b | 0),
  udiv: (a: number, b: number) => (b === 0 ? 0 : Math.trunc((a >>> 0) / (b >>> 0)) | 0),
  urem: (a: number, b: number) => (b === 0 ? 0 : (a >>> 0) % (b >>> 0) | 0),
};

/** Float patterns: 2^32, the Newton step's 2 - 2^-20, and 1/2 (a small immediate). */
const TWO_TO_32 = 0x4f800000;
const NEWTON = 0x3ffffff8;
const HALF = 0x3f000000;


/** x read as unsigned, as a float (rounded toward zero): itof reads it signed, so 2^32 is added where that gave a negative. */
function unsignedFloat(l: OpEmitter, x: Src): VReg {
  const f = l.fresh();
  l.alu('itof', f, x, x, { setf: true });
  l.alu('fadd', f, f, l.word(TWO_TO_32), { cond: 'ns' });
  return f;
}

/** |x| as a float, for x read signed (itof, then the sign cleared: |-2^31| is 2^31). */
function magnitudeFloat(l: OpEmitter, x: Src): VReg {
  const f = l.fresh();
  l.alu('itof', f, x);
  l.alu('fmaxabs', f, f, f);
  return f;
}

/** |x| (|-2^31| is 2^31 read unsigned). */
function magnitude(l: OpEmitter, x: Src): VReg {
  const neg = l.fresh();
  l.alu('sub', neg, l.int(0), x);
  const m = l.fresh();
  l.alu('max', m, x, neg);
  return m;
}

/** x * y modulo 2^32, y's top 8 bits given (yh); with `small`, x is known to fit in 24 bits. */
function product(l: OpEmitter, x: Src, y: Src, yh: Src, small: boolean): VReg {
  const lo = l.fresh();
  l.alu('mul24', lo, x, y);
  const high = l.fresh();
  l.alu('mul24', high, x, yh);
  if (!small) {
    const xh = l.fresh();
    l.alu('shr', xh, x, shiftBy(l, 24));
    const more = l.fresh();
    l.alu('mul24', more, xh, y);
    l.alu('add', high, high, more);
  }
  const shifted = l.fresh();
  l.alu('shl', shifted, high, shiftBy(l, 24));
  const p = l.fresh();
  l.alu('add', p, lo, shifted);
  return p;
}

/**
 * The reciprocal's estimate and its Newton factor: 1/d is about est * e (rounded toward zero, in
 * [(1 - 2^-19) / d, 1 / d)), and x / d about (x * est) * e, which lets x * est start before e is known.
 */
function reciprocal(l: OpEmitter, df: Src): { est: VReg; e: VReg; r: VReg } {
  l.mov(l.p('sfu_recip'), df);
  const est = l.fresh();
  l.mov(est, l.p('r4'));
  const t = l.fresh();
  l.alu('fmul', t, df, est);
  const e = l.fresh();
  l.alu('fsub', e, l.word(NEWTON), t);
  const r = l.fresh();
  l.alu('fmul', r, est, e);
  return { est, e, r };
}

/** floor(x * est * e) for a float x, rounded toward zero at each step (a quotient's estimate from below); no e: x * est. */
function estimate(l: OpEmitter, xf: Src, est: Src, e: Src | undefined): VReg {
  let qf = l.fresh();
  l.alu('fmul', qf, xf, est);
  if (e) {
    const u = qf;
    qf = l.fresh();
    l.alu('fmul', qf, u, e);
  }
  const q = l.fresh();
  l.alu('ftoi', q, qf);
  return q;
}

/** The reciprocal of a divisor: from the SFU at run time (est * e), or known when the divisor is a constant (est alone). */
type Reciprocal = { est: Src; e?: Src; r: Src };

/** 1/d for a constant d >= 2, as the float just below (1 - 2^-20) / d: the bounds the SFU's path has. */
function knownReciprocal(l: OpEmitter, d: number): Reciprocal {
  const x = (1 - 2 ** -20) / d;
  const bits = new Int32Array(new Float32Array([x]).buffer)[0]!;
  const below = new Float32Array(new Int32Array([bits]).buffer)[0]! > x ? bits - 1 : bits;
  const est = l.word(below);
  return { est, r: est };
}

/**
 * The remainder's quotient q1 (floor(rem / d) or one less), from the float of rem, and rem - q1 d:
 * in [0, 2d). q1 is below 2^14, so its product with d takes two mul24.
 */
function secondRound(l: OpEmitter, remf: Src, rem: Src, r: Src, d: Src, dh: Src): { q1: VReg; left: VReg } {
  const q1f = l.fresh();
  l.alu('fmul', q1f, remf, r);
  const q1 = l.fresh();
  l.alu('ftoi', q1, q1f);
  const left = l.fresh();
  l.alu('sub', left, rem, product(l, q1, d, dh, true));
  return { q1, left };
}

type Which = 'q' | 'r';

/**
 * Both read unsigned (any uint32 n and d). Round 1 is halved: q0 = 2 floor(float(n) * r / 2),
 * so that ftoi stays below 2^31 (n / d reaches 2^32 - 1 when d is 1), and uses 2d's product,
 * which is q0 d; the remainder, up to n, may pass 2^31, so its float is made unsigned too.
 * By 0 every estimate is 0 (the reciprocal is infinite, ftoi of it 0), and the last step never
 * goes up (d - 1 is 2^32 - 1): the quotient is 0, and the remainder is made 0 by making n 0.
 */
function unsignedDivide(l: OpEmitter, dst: Reg, n: Src, d: Src, want: Which, known?: Reciprocal): void {
  const nf = unsignedFloat(l, n);
  const { est, e, r } = known ?? reciprocal(l, unsignedFloat(l, d));
  const d2 = l.fresh();
  l.alu('shl', d2, d, l.int(1));
  const d2h = l.fresh();
  l.alu('shr', d2h, d2, shiftBy(l, 24));
  const dh = l.fresh();
  l.alu('shr', dh, d, shiftBy(l, 24));
  const dm1 = l.fresh();
  l.alu('sub', dm1, d, l.int(1));
  let nn: Src = n;
  if (want === 'r') {
    nn = l.fresh();
    l.mov(nn, n);
    l.alu('or', l.p('nop'), d, d, { setf: true });
    l.mov(nn, l.int(0), 'zs');
  }
  const halfEst = l.fresh();
  l.alu('fmul', halfEst, est, l.word(HALF)); // exact: a power of two
  const qh = estimate(l, nf, halfEst, e);
  const rem0 = l.fresh();
  l.alu('sub', rem0, nn, product(l, qh, d2, d2h, false));
  const { q1, left } = secondRound(l, unsignedFloat(l, rem0), rem0, r, d, dh);
  // One step up where what is left is d or more: C where d - 1 < left, unsigned.
  const x = l.fresh();
  if (want === 'q') {
    l.alu('shl', x, qh, l.int(1));
    l.alu('add', x, x, q1);
    l.alu('sub', l.p('nop'), dm1, left, { setf: true });
    l.alu('add', x, x, l.int(1), { cond: 'cs' });
  } else {
    l.mov(x, left);
    l.alu('sub', l.p('nop'), dm1, left, { setf: true });
    l.alu('sub', x, x, d, { cond: 'cs' });
  }
  l.mov(dst, x);
}

/**
 * Signed: on the magnitudes n = |a| and d = |b|, both at most 2^31, round 1 needs no halving
 * (n / d reaches 2^31 only for -2^31 by 1, and the estimate is then below it) and the remainder's
 * float is its magnitude's (it is at most n). The quotient's sign is applied before the last step,
 * which then steps by -1 or 1; the remainder takes a's sign, and steps by d with a's sign.
 */
function signedDivide(l: OpEmitter, dst: Reg, a: Src, b: Src, want: Which, known?: Reciprocal): void {
  const { est, e, r } = known ?? reciprocal(l, magnitudeFloat(l, b));
  const nf = magnitudeFloat(l, a);
  const d = magnitude(l, b);
  const dh = l.fresh();
  l.alu('shr', dh, d, shiftBy(l, 24));
  const dm1 = l.fresh();
  l.alu('sub', dm1, d, l.int(1));
  let n: Src = magnitude(l, a);
  if (want === 'r') {
    const nz = l.fresh();
    l.mov(nz, n);
    l.alu('or', l.p('nop'), b, b, { setf: true });
    l.mov(nz, l.int(0), 'zs');
    n = nz;
  }
  const q0 = estimate(l, nf, est, e);
  const rem0 = l.fresh();
  l.alu('sub', rem0, n, product(l, q0, d, dh, false));
  const { q1, left } = secondRound(l, magnitudeFloat(l, rem0), rem0, r, d, dh);
  // s: 0, or -1 where the result is negative; x with that sign is (x ^ s) - s.
  const s = l.fresh();
  if (want === 'q') l.alu('xor', s, a, b);
  l.alu('asr', s, want === 'q' ? s : a, shiftBy(l, 31));
  const signed = (x: Src) => {
    const t = l.fresh();
    l.alu('xor', t, x, s);
    l.alu('sub', t, t, s);
    return t;
  };
  const x = l.fresh();
  if (want === 'q') {
    l.alu('add', x, q0, q1);
    const y = signed(x);
    const step = l.fresh();
    l.alu('or', step, s, l.int(1));
    l.alu('sub', l.p('nop'), dm1, left, { setf: true });
    l.alu('add', y, y, step, { cond: 'cs' });
    l.mov(dst, y);
  } else {
    const y = signed(left);
    const ds = signed(d);
    l.alu('sub', l.p('nop'), dm1, left, { setf: true });
    l.alu('sub', y, y, ds, { cond: 'cs' });
    l.mov(dst, y);
  }
}

/**
 * By a constant d >= 2 a dividend n in [0, 2^bits) is floor(n * m / 2^s) where m = floor(2^s / d) + 1
 * and (m d - 2^s)(2^bits - 1) < 2^s; one mul24 when n and m fit in 24 bits and n m in 32.
 */
function magic(d: number, bits: number): { m: number; s: number } | undefined {
  for (let s = 0; s < 32; s++) {
    const m = Math.floor(2 ** s / d) + 1;
    if (m >= 2 ** 24 || (2 ** bits - 1) * m >= 2 ** 32) return undefined;
    if ((m * d - 2 ** s) * (2 ** bits - 1) < 2 ** s) return { m, s };
  }
  return undefined;
}

/**
 * For dividends n in [0, nMax] (nMax < 2^32) and a constant d >= 3: m < 2^33 and s with
 * floor(n / d) = floor(n m / 2^(32 + s)), m = floor(2^(32 + s) / d) + 1 and
 * (m d - 2^(32 + s)) nMax < 2^(32 + s) (the error n (m d - 2^(32 + s)) / (d 2^(32 + s)) then
 * stays below 1 / d). The smallest such s; in exact integers (the products pass 2^53).
 */
export function magicFor(d: number, nMax: number): { m: number; s: number } {
  const [bd, bn] = [BigInt(d), BigInt(nMax)];
  for (let s = 0n; ; s++) {
    const big = 1n << (32n + s);
    const m = big / bd + 1n;
    if ((m * bd - big) * bn < big) return { m: Number(m), s: Number(s) };
  }
}

/**
 * floor(n m / 2^32) for a constant m < 2^32: the high word of the product, from the 16-bit
 * halves' four products (each below 2^32, so one mul24 each) as
 * nh mh + (nh ml + nl mh + (nl ml >> 16)) >> 16, the middle sum's two carries (add.setf's C)
 * counted in as 2^16 each.
 */
function highWord(l: OpEmitter, n: Src, m: number): VReg {
  const nh = l.fresh();
  l.alu('shr', nh, n, shiftBy(l, 16));
  const nl = l.fresh();
  l.alu('and', nl, n, l.word(0xffff));
  const [mh, ml] = [l.word(m >>> 16), l.word(m & 0xffff)];
  const part = (x: Src, y: Src) => {
    const t = l.fresh();
    l.alu('mul24', t, x, y);
    return t;
  };
  const hi = part(nh, mh);
  const [hl, lh, ll] = [part(nh, ml), part(nl, mh), part(nl, ml)];
  const llHigh = l.fresh();
  l.alu('shr', llHigh, ll, shiftBy(l, 16));
  const carryUnit = l.word(0x10000);
  const mid = l.fresh();
  l.alu('add', mid, hl, lh, { setf: true });
  l.alu('add', hi, hi, carryUnit, { cond: 'cs' });
  l.alu('add', mid, mid, llHigh, { setf: true });
  l.alu('add', hi, hi, carryUnit, { cond: 'cs' });
  const midHigh = l.fresh();
  l.alu('shr', midHigh, mid, shiftBy(l, 16));
  l.alu('add', hi, hi, midHigh);
  return hi;
}

/**
 * floor(n / d) for a magic number (magicFor): the high word of n m shifted by s; for m of 33
 * bits, t = the high word of n (m - 2^32), and the quotient (((n - t) >> 1) + t) >> (s - 1),
 * which never passes 2^32 (Granlund and Montgomery, 1994, section 5).
 */
function quotientByMagic(l: OpEmitter, n: Src, how: { m: number; s: number }): Src {
  const shifted = (x: Src, by: number): Src => {
    if (!by) return x;
    const t = l.fresh();
    l.alu('shr', t, x, shiftBy(l, by));
    return t;
  };
  if (how.m < 2 ** 32) return shifted(highWord(l, n, how.m), how.s);
  const t = highWord(l, n, how.m - 2 ** 32);
  const u = l.fresh();
  l.alu('sub', u, n, t);
  l.alu('shr', u, u, l.int(1));
  l.alu('add', u, u, t);
  return shifted(u, how.s - 1);
}

/**
 * n - q d for q = floor(n / d), a constant d: q d from mul24, which takes d's low 24 bits. Below
 * 2^24 the remainder (less than d) is the low 24 bits of n - q d, which that gives; from 2^24 on,
 * q is below 2^8 and d's top byte's product is added in.
 */
function remainderByConstant(l: OpEmitter, n: Src, q: Src, d: number): VReg {
  const qd = l.fresh();
  l.alu('mul24', qd, q, l.word(d & 0xffffff));
  if (d >= 2 ** 24) {
    const high = l.fresh();
    l.alu('mul24', high, q, l.word(d >>> 24));
    l.alu('shl', high, high, shiftBy(l, 24));
    l.alu('add', qd, qd, high);
  }
  const r = l.fresh();
  l.alu('sub', r, n, qd);
  if (d < 2 ** 24) l.alu('and', r, r, l.word(0xffffff));
  return r;
}

/**
 * By a constant c whose magnitude d (signed; c as unsigned for udiv and urem) is 3 or more and
 * no power of two: the quotient by a magic number (quotientByMagic), the remainder from it. Signed,
 * on the magnitudes, then a's sign (and the quotient's flipped for a negative c): -(a / d) is
 * a / -d and a % -d is a % d, truncating. About 16 instructions where the general lowering takes
 * 35. False for other constants.
 */
function byMagic(l: OpEmitter, dst: Reg, a: Src, c: number, want: Which, signed: boolean): boolean {
  const d = signed ? Math.abs(c) : c >>> 0;
  if (d < 3 || Number.isInteger(Math.log2(d))) return false;
  const n = signed ? magnitude(l, a) : a;
  const q = quotientByMagic(l, n, magicFor(d, signed ? 2 ** 31 : 2 ** 32 - 1));
  const x = want === 'q' ? q : remainderByConstant(l, n, q, d);
  if (!signed) {
    l.mov(dst, x);
    return true;
  }
  const sign = l.fresh();
  l.alu('asr', sign, a, shiftBy(l, 31));
  const t = l.fresh();
  l.alu('xor', t, x, sign);
  if (want === 'q' && c < 0) l.alu('sub', dst, sign, t);
  else l.alu('sub', dst, t, sign);
  return true;
}

/** The cheap cases by a constant divisor; false when there is none and the general lowering must run. */
function byConstant(l: OpEmitter, dst: Reg, a: Src, b: Src, want: Which, signed: boolean): boolean {
  const d = constantOf(l, b);
  if (d === undefined) return false;
  if (d <= 0) return byMagic(l, dst, a, d, want, signed);
  if (d === 1) {
    if (want === 'q') l.mov(dst, a);
    else l.mov(dst, l.int(0));
    return true;
  }
  const ra = l.range(a);
  const nonNegative = ra !== undefined && ra.lo >= 0;
  const k = Math.log2(d);
  if (Number.isInteger(k) && (!signed || nonNegative)) {
    if (want === 'q') l.alu('shr', dst, a, shiftBy(l, k));
    else l.alu('and', dst, a, l.word(d - 1));
    return true;
  }
  if (Number.isInteger(k) && want === 'q') {
    // Toward zero: a negative dividend is raised by d - 1 first (its sign spread, shifted down).
    const sign = l.fresh();
    l.alu('asr', sign, a, shiftBy(l, 31));
    const bias = l.fresh();
    l.alu('shr', bias, sign, shiftBy(l, 32 - k));
    const t = l.fresh();
    l.alu('add', t, a, bias);
    l.alu('asr', dst, t, shiftBy(l, k));
    return true;
  }
  const how = nonNegative && ra.hi < 2 ** 24 ? magic(d, Math.ceil(Math.log2(ra.hi + 1))) : undefined;
  if (!how) return byMagic(l, dst, a, d, want, signed);
  const p = l.fresh();
  l.alu('mul24', p, a, l.word(how.m));
  const q = want === 'q' ? dst : l.fresh();
  l.alu('shr', q, p, shiftBy(l, how.s));
  if (want === 'r') {
    const qd = l.fresh();
    l.alu('mul24', qd, q, l.word(d));
    l.alu('sub', dst, a, qd);
  }
  return true;
}

/** The lowering of one of the four rows. */
export function division(want: Which, signed: boolean): OpLowering {
  return (l, dst, a, b) => {
    if (byConstant(l, dst, a, b, want, signed)) return;
    // A constant divisor's reciprocal is known: no SFU, no Newton step.
    const d = constantOf(l, b);
    const known = d !== undefined && d >= 2 ? knownReciprocal(l, d) : undefined;
    if (signed) signedDivide(l, dst, a, b, want, known);
    else unsignedDivide(l, dst, a, b, want, known);
  };
}
