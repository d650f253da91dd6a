// Operations across the QPUs of a run (source/qpus.ts gives their meaning): barrier(), the
// reductions sumQPUs, minQPUs, maxQPUs, andQPUs, orQPUs and the prefix sum scanQPUs. Each is
// a statement every QPU of the run must reach; an operation's result is a new variable, which
// messages call by the name the user's declaration gives it (`const total = sumQPUs(x)`).

import type { ReduceOp } from '../source/ast.ts';
import { builder, describeHost } from './builder.ts';
import { notInWhere } from './control.ts';
import { FloatExpr, type FloatVar, IntExpr, type IntLike, type IntVar, newVar } from './values.ts';

/** Every QPU of the run waits here until all have reached a barrier; reusable any number of times. */
export function barrier(): void {
  const b = builder('barrier');
  notInWhere(b, 'barrier');
  b.emit({ k: 'barrier' });
}

function combine(what: string, x: unknown, op: ReduceOp, scan: 'inclusive' | 'exclusive' | undefined, intsOnly: boolean): IntVar | FloatVar {
  const b = builder(what);
  notInWhere(b, what);
  const float = x instanceof FloatExpr;
  if (!(x instanceof IntExpr) && !float && !Number.isInteger(x))
    throw b.error(`${what} combines an Int${intsOnly ? '' : ' or a Float'} over the QPUs, not ${describeHost(x)}`);
  if (float && intsOnly) throw b.error(`${what} combines Ints (bits), not a Float`);
  const v = newVar(float ? 'float' : 'int', x as IntLike, what) as IntVar | FloatVar;
  const from = typeof x === 'number' ? undefined : (x as IntExpr).node;
  b.emit({ k: 'combine', v: v.node as Extract<typeof v.node, { k: 'var' }>, op, ...(scan ? { scan } : {}), ...(from ? { from } : {}) });
  return v;
}

/** Lane by lane, the sum of x over the run's QPUs, in QPU order, on every QPU (a barrier too). */
export function sumQPUs(x: IntLike): IntExpr;
export function sumQPUs(x: FloatExpr): FloatExpr;
export function sumQPUs(x: IntLike | FloatExpr): IntExpr | FloatExpr {
  return combine('sumQPUs', x, 'add', undefined, false);
}

/** Lane by lane, the least x over the run's QPUs (floats in the chip's order), on every QPU. */
export function minQPUs(x: IntLike): IntExpr;
export function minQPUs(x: FloatExpr): FloatExpr;
export function minQPUs(x: IntLike | FloatExpr): IntExpr | FloatExpr {
  return combine('minQPUs', x, 'min', undefined, false);
}

/** Lane by lane, the greatest x over the run's QPUs, on every QPU. */
export function maxQPUs(x: IntLike): IntExpr;
export function maxQPUs(x: FloatExpr): FloatExpr;
export function maxQPUs(x: IntLike | FloatExpr): IntExpr | FloatExpr {
  return combine('maxQPUs', x, 'max', undefined, false);
}

/** Lane by lane, the bitwise and of x over the run's QPUs, on every QPU. */
export function andQPUs(x: IntLike): IntExpr {
  return combine('andQPUs', x, 'and', undefined, true) as IntExpr;
}

/** Lane by lane, the bitwise or of x over the run's QPUs, on every QPU. */
export function orQPUs(x: IntLike): IntExpr {
  return combine('orQPUs', x, 'or', undefined, true) as IntExpr;
}

/**
 * Lane by lane, QPU q's prefix sum of x over the QPUs: QPUs 0 to q, or with 'exclusive' 0 to
 * q - 1 (0 on QPU 0): where each QPU's part of an output starts.
 */
export function scanQPUs(x: IntLike, kind?: 'inclusive' | 'exclusive'): IntExpr;
export function scanQPUs(x: FloatExpr, kind?: 'inclusive' | 'exclusive'): FloatExpr;
export function scanQPUs(x: IntLike | FloatExpr, kind: 'inclusive' | 'exclusive' = 'inclusive'): IntExpr | FloatExpr {
  if (kind !== 'inclusive' && kind !== 'exclusive') throw builder('scanQPUs').error(`scanQPUs(x, kind): kind is 'inclusive' or 'exclusive', not ${describeHost(kind)}`);
  return combine('scanQPUs', x, 'add', kind, false);
}
