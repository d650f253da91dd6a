// parallelFor: a loop over an index space, split over the run's QPUs and their 16 lanes, whose
// body the user writes for one element (gpu.js's `this.thread`, Quasar's `parallel_do`). It is
// built from the language's own statements, so every target runs the same loop:
//
//   parallelFor(n, (i) => body)           (i: element numbers, one per lane)
//     base = me() * 16; stride = numQPUs() * 16; last = n - 15
//     For(base < last; base += stride) { body with i = base + index() }   (whole vectors)
//     If(base < n) { the body's tail version (parallel-tail.ts) }         (the last, partial one)
//
// QPU q takes vectors q, q + N, q + 2N, ... (N QPUs); of the last one, only the lanes below n
// act. `parallelFor([w, h], (x, y) => body)` gives each QPU the rows y = q, q + N, ... and walks
// each row's x in vectors the same way. The whole-vector loop of a one-dimensional parallelFor
// is the form the compiler's load pipelining takes (pass `pipeline`): its loads become gathers
// issued an iteration ahead.
//
// An outer variable (made before the parallelFor) that the body changes only by accumulating,
// `acc.set(acc.add(x))` (or min, max, and, or; one operation per variable), is an accumulator:
// each lane of each QPU accumulates its elements from the operation's identity, in the order it
// meets them; then the lanes are combined (source/lanes.ts's tree), then the QPUs (sumQPUs and
// the like, in QPU order: a meeting of all QPUs), and last the variable's value before the
// loop, `before op total`: every lane of every QPU gets the result. Any other change of an
// outer variable is an error (each QPU and lane has its own copy: there is no one value to give back).

import type { BoolExpr, Expr, ReduceOp, Stmt, VarRef } from '../source/ast.ts';
import { someExpr } from '../source/ast.ts';
import { builder, type KernelBuilder } from './builder.ts';
import { notInWhere } from './control.ts';
import { tailOf } from './parallel-tail.ts';
import { type IntExpr, intExpr, type IntLike } from './values.ts';
import { exprOf } from './vec.ts';
import { LANES } from '../vc4/chip.ts';

const int = (bits: number): Expr => ({ k: 'lit', ty: 'int', bits: bits | 0 });
const bin = (op: 'add' | 'sub' | 'shl', a: Expr, b: Expr): Expr => ({ k: 'bin', op, ty: 'int', a, b });
const lt = (a: Expr, b: Expr): BoolExpr => ({ k: 'cmp', op: 'lt', ty: 'int', a, b });
const special = (what: 'index' | 'me' | 'numQPUs'): Expr => ({ k: 'special', ty: 'int', what });
const LANE_SHIFT = Math.log2(LANES);

/** Each accumulation's identity: the value that changes nothing. */
const IDENTITY: Record<'int' | 'float', Partial<Record<ReduceOp, number>>> = {
  int: { add: 0, min: 0x7fffffff, max: 0x80000000 | 0, and: -1, or: 0 },
  float: { add: 0, min: 0x7f800000, max: 0xff800000 | 0 }, // +0, +infinity, -infinity
};
const ACCUMULATE: ReadonlySet<string> = new Set(['add', 'min', 'max', 'and', 'or']);

/** One-dimensional: i is 0 to n - 1. Two-dimensional: x is 0 to w - 1, y 0 to h - 1. */
export function parallelFor(n: IntLike, body: (i: IntExpr) => void): void;
export function parallelFor(space: readonly [IntLike, IntLike], body: (x: IntExpr, y: IntExpr) => void): void;
export function parallelFor(space: IntLike | readonly [IntLike, IntLike], body: (a: IntExpr, b: IntExpr) => void): void {
  const b = builder('parallelFor');
  notInWhere(b, 'parallelFor');
  if (b.inParallel) throw b.error('parallelFor inside parallelFor: write one two-dimensional parallelFor([w, h], (x, y) => ...), or a For inside');
  const outer = b.vars.length;
  const temp = (e: Expr, what: string): VarRef => {
    const v = b.newVar('int', undefined, `parallelFor.${what}`);
    b.emit({ k: 'assign', v, e });
    return v;
  };
  // A count is lane 0's, the same for every lane.
  const count = (x: unknown, what: string): VarRef => {
    const e = exprOf(x as IntLike, 'int', `parallelFor(${what})`);
    return temp(e.k === 'lit' ? e : { k: 'lane', ty: 'int', a: e, n: int(0) }, what);
  };
  const sizes = Array.isArray(space) ? (space as readonly unknown[]) : undefined;
  if (sizes && sizes.length !== 2) throw b.error(`parallelFor([w, h], (x, y) => ...) takes two sizes, not ${sizes.length}`);
  const width = count(sizes ? sizes[0] : space, sizes ? 'w' : 'n');
  const height = sizes ? count(sizes[1], 'h') : undefined;
  const last = temp(bin('sub', width, int(LANES - 1)), 'last');
  const row = height && temp(special('me'), 'y');
  const base = b.newVar('int', undefined, 'parallelFor.base');
  const i = bin('add', base, special('index'));
  const stmts = collectBody(b, () => body(intExpr(i, b), row ? intExpr(row, b) : (undefined as never)));
  const accs = accumulators(b, stmts, outer);
  const saved = accs.map((a) => {
    const s = b.newVar(a.v.ty, undefined, `parallelFor.before`);
    b.emit({ k: 'assign', v: s, e: a.v });
    b.emit({ k: 'assign', v: a.v, e: { k: 'lit', ty: a.v.ty as 'int' | 'float', bits: IDENTITY[a.v.ty as 'int' | 'float'][a.op]! } });
    return s;
  });
  const tail = tailOf(stmts, {
    active: lt(i, width),
    count: bin('sub', width, base),
    accumulators: new Set(accs.map((a) => a.v.id)),
    fresh: (ty) => b.newVar(ty, undefined, 'parallelFor.x'),
  });
  // Whole vectors from `start`, `stride` apart, then the partial one.
  const vectors = (start: Expr, stride: Expr): Stmt[] => [
    { k: 'assign', v: base, e: start },
    { k: 'for', c: { k: 'all', b: lt(base, last) }, step: [{ k: 'assign', v: base, e: bin('add', base, stride) }], body: stmts },
    { k: 'if', c: { k: 'all', b: lt(base, width) }, then: tail, else: [] },
  ];
  const lanes = bin('shl', special('numQPUs'), int(LANE_SHIFT));
  if (!row || !height) for (const s of vectors(bin('shl', special('me'), int(LANE_SHIFT)), lanes)) b.emit(s);
  else
    b.emit({
      k: 'for',
      c: { k: 'all', b: lt(row, height) },
      step: [{ k: 'assign', v: row, e: bin('add', row, special('numQPUs')) }],
      body: vectors(int(0), int(LANES)),
    });
  accs.forEach((a, j) => {
    b.emit({ k: 'assign', v: a.v, e: { k: 'reduce', op: a.op, ty: a.v.ty as 'int' | 'float', a: a.v } });
    b.emit({ k: 'combine', v: a.v, op: a.op });
    b.emit({ k: 'assign', v: a.v, e: { k: 'bin', op: a.op, ty: a.v.ty, a: saved[j]!, b: a.v } });
  });
}

/** The body's statements, built with the parallel loop open: a Break or Continue must stay inside a loop of the body. */
function collectBody(b: KernelBuilder, fn: () => void): Stmt[] {
  const loop = { kind: 'For' as const, inStep: false };
  b.loops.push(loop);
  b.inParallel = true;
  try {
    const stmts = b.collect(fn);
    const escapes = (ss: readonly Stmt[], depth: number): boolean =>
      ss.some((s) =>
        s.k === 'break' || s.k === 'continue'
          ? (s.levels ?? 0) >= depth
          : s.k === 'while' || s.k === 'for'
            ? escapes(s.body, depth + 1) || (s.k === 'for' && escapes(s.step, depth + 1))
            : s.k === 'if' && (escapes(s.then, depth) || escapes(s.else, depth)),
      );
    if (escapes(stmts, 0)) throw b.error('a Break or Continue in a parallelFor\'s body must be inside a loop of the body: the elements have no order to leave');
    return stmts;
  } finally {
    b.loops.pop();
    b.inParallel = false;
  }
}

/**
 * The outer variables (numbered below `outer`) the body changes, each of which must change only
 * by accumulating: `v = v op x` (or `x op v`), one operation per variable, v read nowhere else.
 */
function accumulators(b: KernelBuilder, ss: readonly Stmt[], outer: number): { v: VarRef; op: ReduceOp }[] {
  const found = new Map<number, { v: VarRef; op: ReduceOp; n: number }>();
  const name = (id: number) => b.vars[id]!.userName ?? b.vars[id]!.name;
  const refuse = (id: number, why: string): never => {
    throw b.error(
      `parallelFor's body ${why} ${name(id)}, made outside it: each QPU and lane has its own copy, so an outer variable may only ` +
        `accumulate (${name(id)}.set(${name(id)}.add(x)), or min, max, and, or), which gives every QPU the total; make per-element variables inside the body`,
    );
  };
  const walk = (xs: readonly Stmt[]): void => {
    for (const s of xs) {
      if (s.k === 'barrier' || s.k === 'combine') throw b.error(`${s.k === 'barrier' ? 'barrier()' : 'an operation across QPUs'} inside parallelFor: the QPUs run different numbers of its elements, so they would not all meet`);
      if (s.k === 'receive' && s.v.id < outer) refuse(s.v.id, 'receives into');
      if (s.k === 'assign' && s.v.id < outer) {
        const e = s.e;
        const self = (x: Expr) => x.k === 'var' && x.id === s.v.id;
        const op = e.k === 'bin' && ACCUMULATE.has(e.op) && e.ty === s.v.ty && self(e.a) !== self(e.b) ? (e.op as ReduceOp) : undefined;
        if (!op || !(s.v.ty === 'int' || s.v.ty === 'float') || IDENTITY[s.v.ty][op] === undefined) refuse(s.v.id, 'assigns');
        const seen = found.get(s.v.id);
        if (seen && seen.op !== op) throw b.error(`parallelFor's body accumulates ${name(s.v.id)} by both ${seen.op} and ${op}: one operation per variable`);
        found.set(s.v.id, { v: s.v, op: op!, n: (seen?.n ?? 0) + 1 });
      }
      if (s.k === 'if' || s.k === 'where') (walk(s.then), walk(s.else));
      if (s.k === 'while' || s.k === 'for') (walk(s.body), s.k === 'for' && walk(s.step));
    }
  };
  walk(ss);
  for (const [id, a] of found) {
    let reads = 0;
    someExpr(ss, (e) => ((reads += e.k === 'var' && e.id === id ? 1 : 0), false));
    if (reads !== a.n) throw b.error(`parallelFor's body reads ${name(id)}, which it accumulates: its value is a part of the total until the loop ends; read it after`);
  }
  return [...found.values()].map(({ v, op }) => ({ v, op }));
}

