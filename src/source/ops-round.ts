// Rounding a float to an integral float (trunc, floor, ceil, round, as Math's on float32) and
// fract: the meaning and the lowering of the rows of ops.ts, side by side.

import * as arith from '../vc4/arith.ts';
import type { OpLowering } from './op-emitter.ts';

/** 2^23 as a float's pattern: from there on every float is integral (or infinite, or NaN). */
const INTEGRAL_FROM = 0x4b000000;
const ONE = 0x3f800000;
const HALF = 0x3f000000;
const MINUS_HALF = 0xbf000000 | 0;

type Rounding = 'trunc' | 'floor' | 'ceil' | 'round' | 'fract';

/**
 * A rounding of a pattern, as the lowering below computes it with the chip's arithmetic: ftoi
 * and itof (exact below 2^23) with a's sign put back (so -0.5 truncates to -0), then one step
 * where that passed a (floor, ceil) or where a is half a step or more away (round: halves go up,
 * as Math.round); from 2^23 on, infinities and NaNs, a itself. fract is a minus its floor.
 */
function rounded(mode: Rounding, a: number): number {
  const m = arith.fmaxabs(a, a);
  let t = arith.itof(arith.ftoi(a)) | (a ^ m);
  if ((mode === 'floor' || mode === 'fract') && arith.fkey(t) > arith.fkey(a)) t = arith.fsub(t, ONE);
  if (mode === 'ceil' && arith.fkey(a) > arith.fkey(t)) t = arith.fadd(t, ONE);
  if (mode === 'round') {
    const d = arith.fsub(a, t);
    if (!(arith.fkey(HALF) > arith.fkey(d))) t = arith.fadd(t, ONE);
    if (arith.fkey(MINUS_HALF) > arith.fkey(d)) t = arith.fsub(t, ONE);
  }
  const r = (m | 0) < INTEGRAL_FROM ? t : a;
  return mode === 'fract' ? arith.fsub(a, r) : r;
}

function roundedLowering(mode: Rounding): OpLowering {
  return (l, dst, a) => {
    const i = l.fresh();
    l.alu('ftoi', i, a);
    const t = l.fresh();
    l.alu('itof', t, i);
    const m = l.fresh();
    l.alu('fmaxabs', m, a);
    const sign = l.fresh();
    l.alu('xor', sign, a, m);
    l.alu('or', t, t, sign);
    // fmax.setf sets C where its first operand is the greater in the float order.
    if (mode === 'floor' || mode === 'fract') {
      l.alu('fmax', l.p('nop'), t, a, { setf: true });
      l.alu('fsub', t, t, l.word(ONE), { cond: 'cs' });
    }
    if (mode === 'ceil') {
      l.alu('fmax', l.p('nop'), a, t, { setf: true });
      l.alu('fadd', t, t, l.word(ONE), { cond: 'cs' });
    }
    if (mode === 'round') {
      const d = l.fresh();
      l.alu('fsub', d, a, t);
      l.alu('fmax', l.p('nop'), l.word(HALF), d, { setf: true });
      l.alu('fadd', t, t, l.word(ONE), { cond: 'cc' });
      l.alu('fmax', l.p('nop'), l.word(MINUS_HALF), d, { setf: true });
      l.alu('fsub', t, t, l.word(ONE), { cond: 'cs' });
    }
    // N where m < 2^23 (both non-negative): the rounded value there, a elsewhere.
    l.alu('sub', l.p('nop'), m, l.word(INTEGRAL_FROM), { setf: true });
    const r = l.fresh();
    l.mov(r, a);
    l.mov(r, t, 'ns');
    if (mode === 'fract') l.alu('fsub', dst, a, r);
    else l.mov(dst, r);
  };
}

/** The row of ops.ts for one rounding. */
export const roundingRow = (mode: Rounding) =>
  ({ from: 'float', to: 'float', fn: (a: number) => rounded(mode, a), lower: roundedLowering(mode), setsFlags: true, generate: true }) as const;

