// What a parallel loop is (the DSL's parallelFor, dsl/parallel.ts; the random program generator
// makes them too): statements of the language, so that every target runs the same loop.
//
//   parallel loop over n, body B (i = base + index(): element numbers, one per lane)
//     n' = lane 0 of n; last = max(n', 15) - 15
//     base = me() * 16
//     For(base < last; base += numQPUs() * 16) { B }                    (whole vectors)
//     If(base < n') { B's tail version (parallel-tail.ts) }              (the last, partial one)
//
// QPU q takes vectors q, q + N, q + 2N, ... (N QPUs); of the last one, only the lanes below n
// act. Over [w, h], each QPU takes the rows y = q, q + N, ... and walks each row's x in vectors
// the same way, from 0 with a step of 16. The whole-vector loop of a one-dimensional loop is the
// form the compiler's load pipelining takes (pass `pipeline`).
//
// Accumulators: outer variables the body changes only by `acc = acc op x` (or `x op acc`; op
// one of add, min, max, and, or, one per variable; acc read nowhere else in the body). Each
// lane of each QPU accumulates its elements from op's identity, in the order it meets them;
// then the lanes are combined (lanes.ts's tree), then the QPUs (a combine, in QPU order: all
// QPUs meet), and last the value before the loop: `before op total`, in every lane of every QPU.

import type { BoolExpr, Expr, FuncAst, ReduceOp, Stmt, Ty, VarRef } from './ast.ts';
import { assignedIn, childBlocks, containsVar, someExpr } from './ast.ts';
import { tailOf } from './parallel-tail.ts';
import { LANES } from '../vc4/chip.ts';

const int = (bits: number): Expr => ({ k: 'lit', ty: 'int', bits: bits | 0 });
const bin = (op: 'add' | 'sub' | 'shl', a: Expr, b: Expr): Expr => ({ k: 'bin', op, ty: 'int', a, b });
const lt = (a: Expr, b: Expr): BoolExpr => ({ k: 'cmp', op: 'lt', ty: 'int', a, b });
const special = (what: 'index' | 'me' | 'numQPUs'): Expr => ({ k: 'special', ty: 'int', what });
const LANE_SHIFT = Math.log2(LANES);

/** Each accumulation's identity: the value that changes nothing (floats: +0, +infinity, -infinity). */
const IDENTITY: Record<'int' | 'float', Partial<Record<ReduceOp, number>>> = {
  int: { add: 0, min: 0x7fffffff, max: 0x80000000 | 0, and: -1, or: 0 },
  float: { add: 0, min: 0x7f800000, max: 0xff800000 | 0 },
};

export interface Accumulator {
  readonly v: VarRef;
  readonly op: ReduceOp;
}

export interface ParallelLoop {
  /** n, or [w, h]. */
  readonly sizes: readonly Expr[];
  /** The variable the element numbers start from (i = base + index(), x for two dimensions), and the row's (y). */
  readonly base: VarRef;
  readonly row?: VarRef;
  readonly body: readonly Stmt[];
  readonly accumulators: readonly Accumulator[];
  /** A new variable, for the loop's own values. */
  fresh(ty: Ty, what: string): VarRef;
}

/** The element numbers a parallel loop's body sees in its lanes (base + index()). */
export const elementOf = (base: VarRef): Expr => bin('add', base, special('index'));

/** The statements of a parallel loop, in order. */
export function parallelStatements(p: ParallelLoop): Stmt[] {
  const out: Stmt[] = [];
  const temp = (e: Expr, what: string): VarRef => {
    const v = p.fresh('int', what);
    out.push({ k: 'assign', v, e });
    return v;
  };
  // A size is lane 0's, the same for every lane.
  const size = (e: Expr, what: string) => temp(e.k === 'lit' ? e : { k: 'lane', ty: 'int', a: e, n: int(0) }, what);
  const width = size(p.sizes[0]!, p.row ? 'w' : 'n');
  const height = p.row && size(p.sizes[1]!, 'h');
  // The last whole block starts below width - 15; from max(width, 15), so that no width wraps.
  const last = temp(bin('sub', { k: 'bin', op: 'max', ty: 'int', a: width, b: int(LANES - 1) }, int(LANES - 1)), 'last');
  const saved = p.accumulators.map((a) => {
    const s = p.fresh(a.v.ty, 'before');
    const ty = a.v.ty as 'int' | 'float';
    out.push({ k: 'assign', v: s, e: a.v }, { k: 'assign', v: a.v, e: { k: 'lit', ty, bits: IDENTITY[ty][a.op]! } });
    return s;
  });
  const i = elementOf(p.base);
  // An address may depend on the element unless it reads only what the body does not change
  // (no index(), no element number, no variable the body assigns): a table's, a fixed slot's.
  const changed = assignedIn(p.body, new Set([p.base.id]));
  const element = (e: Expr): boolean => someExpr([{ k: 'assign', v: p.base, e }], (x) => (x.k === 'var' && changed.has(x.id)) || (x.k === 'special' && x.what === 'index'));
  const tail = tailOf(p.body, {
    active: lt(i, width),
    element,
    count: bin('sub', width, p.base),
    accumulators: new Set(p.accumulators.map((a) => a.v.id)),
    fresh: (ty) => p.fresh(ty, 'x'),
  });
  // Whole vectors from `start`, `stride` apart, then the partial one.
  const vectors = (start: Expr, stride: Expr): Stmt[] => [
    { k: 'assign', v: p.base, e: start },
    { k: 'for', c: { k: 'all', b: lt(p.base, last) }, step: [{ k: 'assign', v: p.base, e: bin('add', p.base, stride) }], body: [...p.body] },
    { k: 'if', c: { k: 'all', b: lt(p.base, width) }, then: tail, else: [] },
  ];
  if (!p.row || !height) out.push(...vectors(bin('shl', special('me'), int(LANE_SHIFT)), bin('shl', special('numQPUs'), int(LANE_SHIFT))));
  else {
    out.push({ k: 'assign', v: p.row, e: special('me') });
    const step: Stmt = { k: 'assign', v: p.row, e: bin('add', p.row, special('numQPUs')) };
    out.push({ k: 'for', c: { k: 'all', b: lt(p.row, height) }, step: [step], body: vectors(int(0), int(LANES)) });
  }
  p.accumulators.forEach((a, j) => {
    const ty = a.v.ty as 'int' | 'float';
    out.push(
      { k: 'assign', v: a.v, e: { k: 'reduce', op: a.op, ty, a: a.v } },
      { k: 'combine', v: a.v, op: a.op },
      { k: 'assign', v: a.v, e: { k: 'bin', op: a.op, ty, a: saved[j]!, b: a.v } },
    );
  });
  return out;
}

const ACCUMULATE: ReadonlySet<string> = new Set(['add', 'min', 'max', 'and', 'or']);

/**
 * The accumulators of a body whose outer variables are those numbered below `outer`, or what is
 * wrong: an outer variable changed otherwise, by two operations, or read; a meeting of QPUs;
 * a Break or Continue out of the body. `name` gives a variable's name for the messages.
 */
/** The funcs statements call, directly or through other funcs. */
function calledFuncs(ss: readonly Stmt[], funcs: readonly (FuncAst | undefined)[]): FuncAst[] {
  const out: FuncAst[] = [];
  const walk = (xs: readonly Stmt[]): void => {
    for (const s of xs) {
      const f = s.k === 'call' ? funcs[s.f] : undefined;
      if (f && !out.includes(f)) {
        out.push(f);
        walk(f.body);
      }
      childBlocks(s).forEach(walk);
    }
  };
  walk(ss);
  return out;
}

export function accumulatorsOf(
  ss: readonly Stmt[],
  outer: number,
  name: (id: number) => string,
  ty: (id: number) => Ty,
  funcs: readonly (FuncAst | undefined)[] = [],
): Accumulator[] | { error: string } {
  const found = new Map<number, Accumulator & { n: number }>();
  const refuse = (id: number, why: string, at?: string) => ({
    error:
      `parallelFor's body ${why} ${name(id)}${at ? ` (${at})` : ''}, made outside it: each QPU and lane has its own copy, so an outer variable may only ` +
      `accumulate (${name(id)}.set(${name(id)}.add(x)), or min, max${ty(id) === 'int' ? ', and, or' : ''}), which gives every QPU the total; make per-element variables inside the body`,
  });
  const walk = (xs: readonly Stmt[], depth: number): { error: string } | undefined => {
    for (const s of xs) {
      const at = s.loc ? ` (${s.loc})` : '';
      if (s.k === 'barrier' || s.k === 'combine')
        return { error: `${s.k === 'barrier' ? 'barrier()' : 'an operation across QPUs'}${at} inside parallelFor: the QPUs run different numbers of its elements, so they would not all meet` };
      if ((s.k === 'break' || s.k === 'continue') && (s.levels ?? 0) >= depth)
        return { error: `a ${s.k === 'break' ? 'Break' : 'Continue'}${at} in a parallelFor's body must be inside a loop of the body: the elements have no order to leave` };
      if (s.k === 'receive' && s.v.id < outer) return refuse(s.v.id, 'receives into', s.loc);
      const out = s.k === 'call' ? s.outs.find((o) => o.id < outer) : undefined;
      if (out) return refuse(out.id, 'sets from a func', s.loc);
      if (s.k === 'assign' && s.v.id < outer) {
        const e = s.e;
        const self = (x: Expr) => x.k === 'var' && x.id === s.v.id;
        const op = e.k === 'bin' && ACCUMULATE.has(e.op) && e.ty === s.v.ty && self(e.a) !== self(e.b) ? (e.op as ReduceOp) : undefined;
        if (!op || !(s.v.ty === 'int' || s.v.ty === 'float') || IDENTITY[s.v.ty][op] === undefined) return refuse(s.v.id, 'assigns', s.loc);
        const seen = found.get(s.v.id);
        if (seen && seen.op !== op) return { error: `parallelFor's body accumulates ${name(s.v.id)} by both ${seen.op} and ${op}: one operation per variable` };
        found.set(s.v.id, { v: s.v, op, n: (seen?.n ?? 0) + 1 });
      }
      const inner = s.k === 'while' || s.k === 'for' ? depth + 1 : depth;
      const problem = (s.k === 'if' || s.k === 'where' ? [s.then, s.else] : s.k === 'while' ? [s.body] : s.k === 'for' ? [s.body, s.step] : [])
        .map((b) => walk(b, inner))
        .find((x) => x);
      if (problem) return problem;
    }
    return undefined;
  };
  const problem = walk(ss, 0);
  if (problem) return problem;
  const called = calledFuncs(ss, funcs);
  for (const [id, a] of found) {
    let reads = 0;
    someExpr(ss, (e) => ((reads += e.k === 'var' && e.id === id ? 1 : 0), false));
    const via = called.find((f) => someExpr(f.body, (e) => e.k === 'var' && e.id === id) || f.results.some((e) => containsVar(e, id)));
    if (reads !== a.n || via)
      return { error: `parallelFor's body reads ${name(id)}${via ? ` (in func ${via.name})` : ''}, which it accumulates: its value is a part of the total until the loop ends; read it after` };
  }
  return [...found.values()].map(({ v, op }) => ({ v, op }));
}
