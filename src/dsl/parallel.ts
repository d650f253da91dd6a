// parallelFor: a loop over an index space, split over the run's QPUs and their 16 lanes, whose
// body the user writes for one element (gpu.js's `this.thread`, Quasar's `parallel_do`).
// source/parallel.ts says what it is: statements of the language, so every target runs the same
// loop. This file builds the body, checks it and records the statements.

import { accumulatorsOf, elementOf, parallelStatements } from '../source/parallel.ts';
import { builder } from './builder.ts';
import { notInWhere } from './control.ts';
import { type IntExpr, intExpr, type IntLike } from './values.ts';
import { exprOf } from './vec.ts';

/**
 * One dimension: the body runs for i = 0 to n - 1 (n's lane 0), 16 elements at a time, one per
 * lane. Two: for x = 0 to w - 1 and y = 0 to h - 1, each QPU taking whole rows. An outer variable
 * the body accumulates into (`sum.set(sum.add(x))`; min, max, and, or) holds the total after it,
 * in every lane of every QPU.
 */
export function parallelFor(n: IntLike, body: (i: IntExpr) => void): void;
export function parallelFor(space: readonly [IntLike, IntLike], body: (x: IntExpr, y: IntExpr) => void): void;
export function parallelFor(space: IntLike | readonly [IntLike, IntLike], body: (a: IntExpr, b: IntExpr) => void): void {
  const b = builder('parallelFor');
  notInWhere(b, 'parallelFor');
  if (b.inFunc !== undefined) throw b.error(`parallelFor inside func ${b.inFunc}: call the func from the parallelFor's body instead`);
  if (b.inParallel) throw b.error('parallelFor inside parallelFor: write one two-dimensional parallelFor([w, h], (x, y) => ...), or a For inside');
  const sizes = Array.isArray(space) ? (space as readonly unknown[]) : [space];
  if (Array.isArray(space) && sizes.length !== 2) throw b.error(`parallelFor([w, h], (x, y) => ...) takes two sizes, not ${sizes.length}`);
  const what = sizes.length === 2 ? ['w', 'h'] : ['n'];
  const exprs = sizes.map((x, j) => exprOf(x as IntLike, 'int', `parallelFor(${what[j]})`));
  const outer = b.vars.length;
  const fresh = (ty: Parameters<typeof b.newVar>[0], name: string) => b.newVar(ty, undefined, `parallelFor.${name}`);
  const base = fresh('int', sizes.length === 2 ? 'x' : 'i');
  const row = sizes.length === 2 ? fresh('int', 'y') : undefined;
  // The body, with the parallel loop open as a loop: a Break or Continue of it is refused below.
  b.loops.push({ kind: 'For', inStep: false });
  b.inParallel = true;
  let stmts;
  try {
    stmts = b.collect(() => body(intExpr(elementOf(base), b), row ? intExpr(row, b) : (undefined as never)));
  } finally {
    b.loops.pop();
    b.inParallel = false;
  }
  const accumulators = accumulatorsOf(stmts, outer, (id) => b.vars[id]!.userName ?? b.vars[id]!.name, (id) => b.vars[id]!.ty, b.funcs);
  if ('error' in accumulators) throw b.error(accumulators.error);
  for (const s of parallelStatements({ sizes: exprs, base, row, body: stmts, accumulators, fresh })) b.emit(s);
}
