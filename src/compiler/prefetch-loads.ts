// Prefetching straight-line loads (pass `pipeline`, from -O2): a run of blocking word loads among
// the kernel's statements becomes TMU gathers issued up to TMU_FIFO_DEPTH loads ahead, each
// received where its load was, so that the loads overlap one another (a blocking load waits for
// its DMA transfer before the next starts, and all QPUs share the one DMA load engine: SHA-256's
// 16 loads of message words were 47% of its cycles on 12 QPUs). pipeline-loads.ts does the same
// for the loads of a counted loop, an iteration ahead; this is its straight-line counterpart.
//
// Needs: a kernel AST that check.ts accepted, the statements of its body (not nested), and the
// variables whose values may differ between lanes (pipeline-loads.ts `laneVaryingVars`).
// Guarantees: the same results as the kernel as written, for every argument. A run
//   v1 = *P1; v2 = *P2; ...; vn = *Pn
// of consecutive statements of the kernel's body becomes, for d = TMU_FIFO_DEPTH,
//   gather(P1 + index()) ... gather(Pd + index())
//   receive(v1); gather(P(d+1) + index()); receive(v2); ... receive(vn)
// and only when all of this holds (the caller, pipeline-loads.ts, checks the first):
// - no statement before the run stores, gathers or receives, so no gather reads a word this run
//   stored earlier (the TMU's caches would return the old value, docs/language.md) and the FIFO
//   is empty when the run starts; and none waits for another QPU (a semaphore, the mutex, a
//   barrier, an operation across QPUs) unless nothing from the run on stores;
// - each load reads 16 words (Ints or Floats, no count) at an address the same in every lane
//   (pipeline-loads.ts `laneUniform`) that reads no memory, so the load's 16 words are the
//   gather's 16 lanes (a load reads at lane 0's address);
// - no address mentions a variable the run assigns, so each can be computed ahead of the loads
//   before it.
// The gathers read exactly the words the loads read. The FIFO is empty again after the run, so a
// loop after it is pipelined as it would have been.

import { containsVar, type Expr, type Stmt } from '../source/ast.ts';
import { TMU_FIFO_DEPTH } from '../vc4/rules.ts';

type AssignStmt = Extract<Stmt, { k: 'assign' }>;

/** A word load the same in every lane, the statement `v = *P`; else undefined. */
function wordLoad(s: Stmt, uniform: (e: Expr) => boolean): (AssignStmt & { e: Extract<Expr, { k: 'load' }> }) | undefined {
  if (s.k !== 'assign' || s.e.k !== 'load' || s.e.n) return undefined;
  if (s.e.ptr.ty !== 'int*' && s.e.ptr.ty !== 'float*') return undefined; // 8 and 16 bits: a gather reads whole aligned words
  return uniform(s.e.ptr) ? (s as AssignStmt & { e: Extract<Expr, { k: 'load' }> }) : undefined;
}

/** Whether an expression reads one of these variables. */
const reads = (e: Expr, ids: ReadonlySet<number>): boolean => [...ids].some((id) => containsVar(e, id));

/**
 * The run of loads that starts at body[at], as gathers and receives, and how many statements it
 * replaces; undefined when body[at] starts none.
 */
export function prefetchRun(body: readonly Stmt[], at: number, uniform: (e: Expr) => boolean): { stmts: Stmt[]; count: number } | undefined {
  const run: (AssignStmt & { e: Extract<Expr, { k: 'load' }> })[] = [];
  const assigned = new Set<number>();
  for (let t = at; t < body.length; t++) {
    const l = wordLoad(body[t]!, uniform);
    if (!l || reads(l.e.ptr, assigned)) break;
    run.push(l);
    assigned.add(l.v.id);
  }
  if (!run.length) return undefined;
  // Messages about these show the user's load, not the gather and receive it became.
  const gather = (l: AssignStmt & { e: Extract<Expr, { k: 'load' }> }): Stmt => ({
    k: 'gather',
    ptr: { k: 'ptradd', ty: l.e.ptr.ty as 'int*' | 'float*', p: l.e.ptr, n: { k: 'special', ty: 'int', what: 'index' } },
    loc: l.loc,
    shows: l.shows ?? l,
  });
  const stmts: Stmt[] = run.slice(0, TMU_FIFO_DEPTH).map(gather);
  run.forEach((l, j) => {
    stmts.push({ k: 'receive', v: l.v, loc: l.loc, shows: l.shows ?? l });
    const next = run[j + TMU_FIFO_DEPTH];
    if (next) stmts.push(gather(next));
  });
  return { stmts, count: run.length };
}
