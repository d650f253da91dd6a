// Lowering the operations across lanes (source/lanes.ts gives the reductions' meaning and order):
// rotations, broadcasts of one lane, reductions and prefix sums. Needs: a lowering to emit into (lower.ts).
// Guarantees: dst holds the value in the lanes `cond` holds in (all without one); a reduction
// sets no flags, a prefix sum sets them (lowering computes it before any flags it is written
// under: lower-select.ts, setsFlags).
//
// Each step rotates the vector up by k lanes with the mul ALU (`v8min t, x, x` rotated: the same
// bits, moved; only r0-r3 rotate across all 16 lanes, Guide p. 20, so the allocator's accumulators
// or emit.ts's copy to r0 hold the input) and combines it with the unrotated one: a reduction
// with its operation in every lane (four steps; an Int one in two halves of three rotations,
// reduceInts), a prefix sum with an add in the lanes l >= k only, from flags
// `sub.setf nop, elem_num, k` sets (N where l < k).

import type { Expr } from '../source/ast.ts';
import { REDUCE_STEPS, reduceImpl, SCAN_STEPS } from '../source/lanes.ts';
import { LANES } from '../vc4/chip.ts';
import { int, p, type AluCode, type IrInstr, type Reg, type Src, type VReg, type WriteCond } from './ir.ts';

/** What the operations across lanes need of a lowering. */
export interface LanesEmitter {
  fresh(): VReg;
  emit(i: IrInstr): void;
  alu(code: AluCode, dst: Reg, a: Src, b?: Src, extra?: { cond?: WriteCond; setf?: boolean }): void;
  mov(dst: Reg, src: Src, cond?: WriteCond): void;
  materialize(x: Src): VReg;
  expr(e: Expr): Src;
}

/** rotate(a, n) into dst: lane l gets lane l - n. */
export function lowerRotate(l: LanesEmitter, e: Expr & { k: 'rotate' }, dst: Reg, cond: WriteCond | undefined): void {
  // Only r0-r3 rotate across all 16 lanes (Guide p. 20): emit.ts copies an input held
  // anywhere else to r0 first (the allocator keeps short-lived values in accumulators).
  const a = l.materialize(l.expr(e.a));
  const n = e.n.k === 'lit' ? e.n.bits & (LANES - 1) : undefined;
  if (n === 0) return l.mov(dst, a, cond);
  if (n === undefined) l.mov(p('r5rep'), l.expr(e.n));
  l.emit({ op: 'alu', code: 'v8min', dst, a, b: a, rot: n ?? 'r5', ...(cond ? { cond } : {}) });
}

/** a.lane(n) into dst: lane n in every lane. */
export function lowerLane(l: LanesEmitter, e: Expr & { k: 'lane' }, dst: Reg, cond: WriteCond | undefined): void {
  // Rotated so that lane n comes to lane 0, written to r5 through its replicating port
  // (r5rep: lane 0 to all 16, Guide p. 18), then read from r5. A constant n takes one
  // rotation by a small immediate; an Int n, its negation in r5 as the rotation amount.
  const a = l.materialize(l.expr(e.a));
  if (e.n.k === 'lit') {
    const by = -e.n.bits & (LANES - 1);
    if (by === 0) l.mov(p('r5rep'), a);
    else l.emit({ op: 'alu', code: 'v8min', dst: p('r5rep'), a, b: a, rot: by });
  } else {
    l.alu('sub', p('r5rep'), int(0), l.expr(e.n));
    const t = l.fresh();
    l.emit({ op: 'alu', code: 'v8min', dst: t, a, b: a, rot: 'r5' });
    l.mov(p('r5rep'), t);
  }
  l.mov(dst, p('r5'), cond);
}

/** x rotated up by k lanes (lane l gets lane l - k), into a fresh register. */
function rotated(l: LanesEmitter, x: VReg, k: number): VReg {
  const t = l.fresh();
  l.emit({ op: 'alu', code: 'v8min', dst: t, a: x, b: x, rot: k });
  return t;
}

export function lowerReduce(l: LanesEmitter, e: Expr & { k: 'reduce' }, a: Src, dst: Reg, cond: WriteCond | undefined): void {
  const code = reduceImpl(e.op, e.ty).lower;
  if (typeof code !== 'string') throw new Error(`internal: ${e.op} on ${e.ty}s is not one ALU operation`);
  if (e.ty === 'int') return reduceInts(l, code, l.materialize(a), dst, cond);
  let x = l.materialize(a);
  REDUCE_STEPS.forEach((k, i) => {
    const last = i === REDUCE_STEPS.length - 1;
    const y = last ? dst : l.fresh();
    l.alu(code, y, x, rotated(l, x, k), last && cond ? { cond } : {});
    x = y as VReg;
  });
}

/**
 * An Int reduction (add, min, max, and, or: associative and commutative, bit for bit, so any
 * order gives the tree's result) in two halves of three rotations of one vector each: x op x>>8
 * op x>>4 op x>>12, then the same with 1, 2 and 3. A rotation cannot read an accumulator the
 * instruction before wrote (Guide p. 37), so the tree's four steps wait between them three
 * times; here each rotation reads the half's input, the scheduler pairs each with an operation
 * (mul ALU and add ALU), and only the second half waits for the first: 12 operations in 8
 * instructions and one wait, against 8 in 11 (docs/language.md, reductions).
 */
function reduceInts(l: LanesEmitter, code: AluCode, x: VReg, dst: Reg, cond: WriteCond | undefined): void {
  // Each rotation just before the operation that reads it: three values live at a time (the
  // input, the sum so far, a rotation), which r1-r3 hold; the scheduler moves the rotations up.
  const half = (v: VReg, by: readonly number[], into: Reg, last: boolean): void => {
    let y: VReg = v;
    by.forEach((k, j) => {
      const end = j === by.length - 1;
      const out = end ? into : l.fresh();
      l.alu(code, out, y, rotated(l, v, k), end && last && cond ? { cond } : {});
      y = out as VReg;
    });
  };
  const mid = l.fresh();
  half(x, [8, 4, 12], mid, false);
  half(mid, [1, 2, 3], dst, true);
}

export function lowerScan(l: LanesEmitter, e: Expr & { k: 'scan' }, a: Src, dst: Reg, cond: WriteCond | undefined): void {
  if (cond) throw new Error('internal: a prefix sum lowers before the flags it is written under (setsFlags)');
  const add = e.ty === 'float' ? 'fadd' : 'add';
  // A copy of the input that the steps change in place, lane by lane.
  const x = l.fresh();
  l.mov(x, a);
  for (const k of SCAN_STEPS) {
    const t = rotated(l, x, k);
    l.alu('sub', p('nop'), p('elem_num'), int(k), { setf: true });
    l.alu(add, x, x, t, { cond: 'nc' });
  }
  if (!e.exclusive) return l.mov(dst, x);
  // Moved up a lane, lane 0 (Z from elem_num) taking 0.
  const t = rotated(l, x, 1);
  l.alu('or', p('nop'), p('elem_num'), p('elem_num'), { setf: true });
  l.mov(t, int(0), 'zs');
  l.mov(dst, t);
}
