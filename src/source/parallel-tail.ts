// The last, partial vector of a parallelFor (parallel.ts, dsl/parallel.ts): its body rewritten so that the lanes
// past the end (the inactive ones) touch no memory and change nothing the loop gives back.
// Needs: the body's statements, the condition that holds in the active lanes (a prefix of the
// lanes: 0 to k - 1, k >= 1), k itself, the accumulators and a way to make temporaries.
// Guarantees, for the active lanes, what the body as written computes:
// - every blocking load whose address may depend on the element (reads the element number,
//   index() or a variable the body assigns) reads only the first k words (a count of k, or of its own count when that is
//   smaller): lane l of such a load is the active lane's own word, and the words past them
//   may lie past the array; the inactive lanes read 0. A load at an address that does not
//   depend on the element (a table, `coef.load()`) reads its 16 words, as in every whole block;
// - every store writes only the first k lanes (a non-blocking one becomes a counted store);
// - a gather at the element: its inactive lanes ask for lane 0's address (lane 0 is active);
//   a scatter acts in the active lanes only (a Where);
// - If, While and For test only the active lanes: any(c) becomes any(c and active), all(c)
//   all(c or not active), so the inactive lanes' values cannot keep a loop going;
// - an assertion holds in the inactive lanes;
// - an accumulation (acc = acc op e) adds only the active lanes: e into a temporary first (its
//   loads are counted), then the accumulation in a Where.
// Everything else runs in every lane, as in a full vector; operations across lanes (rotate,
// lane, the reductions) see the inactive lanes' values.

import type { BoolExpr, Cond, Expr, Stmt, Ty, VarRef } from './ast.ts';
import { mapBool, mapExpr } from './ast.ts';

export interface TailContext {
  /** True in the active lanes. */
  readonly active: BoolExpr;
  /** Whether an address depends on the element (reads its number). */
  readonly element: (e: Expr) => boolean;
  /** The count of active lanes (the same in every lane). */
  readonly count: Expr;
  /** The accumulators' variables. */
  readonly accumulators: ReadonlySet<number>;
  /** A new variable of type ty. */
  fresh(ty: Ty): VarRef;
}

const min = (a: Expr, b: Expr): Expr => ({ k: 'bin', op: 'min', ty: 'int', a, b });

/** Every load in e at the element reading only the active lanes' words. */
function counted(e: Expr, t: TailContext): Expr {
  return mapExpr(e, (x) => (x.k === 'load' && t.element(x.ptr) ? { ...x, n: x.n ? min(x.n, t.count) : t.count } : x));
}

function condition(c: Cond, t: TailContext): Cond {
  const b = mapBool(c.b, (x) => counted(x, t));
  if (c.k === 'any') return { k: 'any', b: { k: 'and', a: b, b: t.active } };
  return { k: 'all', b: { k: 'or', a: b, b: { k: 'not', a: t.active } } };
}

export function tailOf(ss: readonly Stmt[], t: TailContext): Stmt[] {
  return ss.flatMap((s): Stmt[] => {
    const block = (b: readonly Stmt[]) => tailOf(b, t);
    switch (s.k) {
      case 'assign': {
        const e = counted(s.e, t);
        if (!t.accumulators.has(s.v.id)) return [{ ...s, e }];
        // acc = acc op x: x first, in every lane; then the active lanes' accumulation.
        const bin = e as Extract<Expr, { k: 'bin' }>;
        const accFirst = bin.a.k === 'var' && bin.a.id === s.v.id;
        const x = t.fresh(s.v.ty);
        const acc: Expr = accFirst ? { ...bin, b: x } : { ...bin, a: x };
        return [
          { ...s, v: x, e: accFirst ? bin.b : bin.a },
          { k: 'where', b: t.active, then: [{ ...s, e: acc }], else: [], loc: s.loc },
        ];
      }
      case 'store':
        return [{ ...s, ptr: counted(s.ptr, t), e: counted(s.e, t), n: s.n ? min(counted(s.n, t), t.count) : t.count }];
      case 'storeNB':
        return [{ k: 'store', ptr: counted(s.ptr, t), e: counted(s.e, t), n: t.count, loc: s.loc }];
      case 'gather': {
        const ptr = counted(s.ptr, t);
        if (!t.element(ptr)) return [{ ...s, ptr }];
        const first: Expr = { k: 'lane', ty: ptr.ty, a: ptr, n: { k: 'lit', ty: 'int', bits: 0 } };
        return [{ ...s, ptr: { k: 'select', ty: ptr.ty, c: t.active, a: ptr, b: first } }];
      }
      case 'call':
        // The function runs in every lane (its loops see the inactive lanes' values); its arguments' loads are counted.
        return [{ ...s, args: s.args.map((e) => counted(e, t)) }];
      case 'assert':
        return [{ ...s, b: { k: 'or', a: mapBool(s.b, (x) => counted(x, t)), b: { k: 'not', a: t.active } }, values: s.values.map((e) => counted(e, t)), shows: s.shows ?? s }];
      case 'scatter':
        return [{ k: 'where', b: t.active, then: [{ ...s, ptr: counted(s.ptr, t), e: counted(s.e, t) }], else: [], loc: s.loc }];
      case 'if':
        return [{ ...s, c: condition(s.c, t), then: block(s.then), else: block(s.else) }];
      case 'where':
        return [{ ...s, b: mapBool(s.b, (x) => counted(x, t)), then: block(s.then), else: block(s.else) }];
      case 'while':
        return [{ ...s, c: condition(s.c, t), body: block(s.body) }];
      case 'for':
        return [{ ...s, c: condition(s.c, t), body: block(s.body), step: block(s.step) }];
      default:
        return [s];
    }
  });
}
