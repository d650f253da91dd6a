// Operations across the 16 lanes of a vector: reductions (Int.sumLanes, minLanes, maxLanes,
// andLanes, orLanes; Float.sumLanes, minLanes, maxLanes) and prefix sums (scanLanes). Their
// meaning, bit for bit: the order the lowering (compiler/lower-lanes.ts) combines the lanes in,
// with the chip's arithmetic (ops.ts's rows), so that float sums agree on every target.
//
// A reduction is a tree of four steps, by k = 8, 4, 2 and 1 lanes: v[l] = op(v[l], v[(l - k) mod 16]),
// the second operand the vector rotated up by k (the mul ALU's rotation). The Int operations
// commute, so after each step the vector repeats every k lanes, and at the end every lane holds
// the same value. The Float ones do not quite: fmin and fmax return one operand when +0 and -0
// tie, and a sum of NaNs of both signs the infinity of its operands' order, so lanes that
// combined the same values in the other order may hold the other zero or infinity.
// A prefix sum is Hillis and Steele's: four steps by k = 1, 2, 4 and 8, lanes l >= k adding
// v[l - k] (v[l] + v[l - k], in that order); an exclusive one is the inclusive one moved up a
// lane, lane 0 taking 0 (+0.0 for floats).

import type { ReduceOp } from './ast.ts';
import { binaryImpl } from './ops.ts';
import { LANES } from '../vc4/chip.ts';

/** The distances a reduction combines lanes at, in order, and a prefix sum's (the reverse). */
export const REDUCE_STEPS = [8, 4, 2, 1] as const;
export const SCAN_STEPS = [1, 2, 4, 8] as const;

/** The row `op` names on `ty` (ops.ts), which the meaning and the lowering both use. */
export function reduceImpl(op: ReduceOp, ty: 'int' | 'float') {
  const impl = binaryImpl(op, ty);
  if (!impl) throw new Error(`internal: no ${op} on ${ty}s to reduce with`);
  return impl;
}

/** The reduction of `v` by `op`, in every lane. */
export function reduceLanes(op: ReduceOp, ty: 'int' | 'float', v: Int32Array): Int32Array {
  const fn = reduceImpl(op, ty).fn;
  let x = v.slice();
  for (const k of REDUCE_STEPS) {
    const y = new Int32Array(LANES);
    for (let l = 0; l < LANES; l++) y[l] = fn(x[l]!, x[(l - k) & (LANES - 1)]!) | 0;
    x = y;
  }
  return x;
}

/** The prefix sums of `v`, inclusive or exclusive. */
export function scanLanes(ty: 'int' | 'float', v: Int32Array, exclusive: boolean): Int32Array {
  const fn = reduceImpl('add', ty).fn;
  let x = v.slice();
  for (const k of SCAN_STEPS) {
    const y = x.slice();
    for (let l = k; l < LANES; l++) y[l] = fn(x[l]!, x[l - k]!) | 0;
    x = y;
  }
  if (!exclusive) return x;
  const out = new Int32Array(LANES);
  for (let l = 1; l < LANES; l++) out[l] = x[l - 1]!;
  return out;
}
