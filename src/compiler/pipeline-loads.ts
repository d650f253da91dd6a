// Software pipelining of blocking loads (pass `pipeline`, from -O2): in a counted loop, the
// loads at the top of the body become TMU gathers issued d iterations ahead (d = 4 / k for k
// loads, 1, 2 or 4: as many as the TMU FIFO holds), so that memory is read while earlier
// iterations compute, as the user would write with gather and receive (rot3D version 1 runs as
// version 2 does). It works on the kernel's AST, before lowering.
//
// Needs: a kernel AST that check.ts accepted.
// Guarantees: the same results as the kernel as written, for every argument. A loop
//   For(i < N, i = i + S) { v1 = *P1; ... vk = *Pk; rest }
// becomes
//   If (i < N) {
//     a1 = P1 + index() ... (each load's address, lane by lane: the next iteration's to gather)
//     gather(a1); a1 = a1 + S ...; If (i + S < N) { gather(a1); a1 = a1 + S ... } ... up to i + (d-1)S
//     While (i + dS < N) {       (d more iterations follow this one)
//       receive(v1) ...; gather(a1); a1 = a1 + S ...; rest; i = i + S
//     }
//     While (i < N) { receive(v1) ...; rest; i = i + S }     (the last d gather nothing; an If for d = 1)
//   }
// or, for a loop of few iterations known when compiled whose body is long (copyLastIterations),
// one loop in place of the two, so that its body is not copied:
//     While (i < N) { receive(v1) ...; If (i + dS < N) { gather(a1); a1 = a1 + S ... }; rest; i = i + S }
// and only when all of this holds:
// - the loop is a statement of the kernel's body (not nested), and no statement before it
//   stores, gathers or receives; and no statement before it waits for another QPU (a semaphore,
//   the mutex, a barrier, an operation across QPUs) unless nothing from the loop on stores: a
//   QPU that has run past the loop could store and then let this one go on. So no gather reads
//   a word this run stored earlier (the TMU's caches would return the old value,
//   docs/language.md) and the FIFO is empty when the loop starts;
// - i and N are the same in every lane and the loop does not change N or S; only the step
//   assigns i; each Pj is a pointer the loop does not change plus i (plus unchanged offsets),
//   the same in every lane, so a load's 16 words are the gather's 16 lanes and the next
//   iteration's address is Pj + S;
// - the body has no loop, Break, gather, receive, non-blocking store, semaphore, mutex, meeting
//   of QPUs or assertion (which may end the loop early, as a Break); at most TMU_FIFO_DEPTH
//   loads of 32-bit words move, each before the body's first store and the first mention of
//   its variable;
// - no load reads a word that a store of an earlier iteration wrote: every store's address is
//   a pointer the loop does not change plus i, and for each load L and store T, with
//   D = L(i) - T(i) in bytes (the same for every i), the step going up (0 < S), either
//   D + 4S >= 64 (the loads run at least a vector ahead of the stores) or D + 4(N - i) + 60 <= 0
//   (everything loaded lies below everything stored). Addresses wrap at 32 bits, so these are
//   only trusted where nothing in them can wrap: |D| < SMALL_D bytes, S and N - i below
//   MAX_COUNT elements, N below MAX_BOUND (so that i + kS, the test k iterations ahead, cannot). What the compiler cannot decide is tested once before the loop, and the
//   loop as written runs when the test fails.
// The loads read exactly the words the kernel as written reads, never a word more: the last
// iteration, peeled, prefetches nothing.

import type { BoolExpr, Cond, Expr, KernelAst, Stmt, VarInfo, VarRef } from '../source/ast.ts';
import { assignedIn, boolOperands, childBlocks, childExprs, isPtr, readsMemory, sameExpr, setOpaquely, someExpr } from '../source/ast.ts';
import { TMU_FIFO_DEPTH } from '../vc4/rules.ts';
import { normalizeLoop } from './pipeline-normalize.ts';
import { prefetchRun } from './prefetch-loads.ts';

type ForStmt = Extract<Stmt, { k: 'for' }>;
type AssignStmt = Extract<Stmt, { k: 'assign' }>;

/** An address as base + offsets + c elements (+ i when `i`): base and offsets the loop keeps. */
interface Affine {
  readonly base: Expr;
  readonly offs: readonly Expr[];
  readonly c: number;
  readonly i: boolean;
}

interface Plan {
  readonly i: VarRef;
  /** The step's amount (elements) and the step's new value of i. */
  readonly step: Expr;
  readonly next: Expr;
  readonly loads: readonly { readonly s: AssignStmt; readonly ptr: Expr }[];
  /** What must hold at run time (empty: the compiler proved it). */
  readonly guard: readonly BoolExpr[];
}

const lit = (n: number): Expr => ({ k: 'lit', ty: 'int', bits: n | 0 });
/** An int operation, folded when its operands are numbers. */
function bin(op: 'add' | 'sub' | 'shl', a: Expr, b: Expr): Expr {
  if (a.k === 'lit' && b.k === 'lit') return lit(op === 'add' ? a.bits + b.bits : op === 'sub' ? a.bits - b.bits : a.bits << b.bits);
  if (op === 'add' && a.k === 'lit' && a.bits === 0) return b;
  if ((op === 'add' || op === 'sub') && b.k === 'lit' && b.bits === 0) return a;
  return { k: 'bin', op, ty: 'int', a, b };
}

/** Whether every leaf of an expression (a literal, variable, special value or load) passes `ok`. */
function everyLeaf(e: Expr, ok: (leaf: Expr) => boolean): boolean {
  if (e.k === 'load') return ok(e);
  const children = childExprs(e);
  return children.length ? children.every((c) => everyLeaf(c, ok)) : ok(e);
}

/**
 * Whether an expression is the same in every lane, given the variables that may differ: a
 * lane's index, a load (16 different words), a prefix across lanes and whatever reads them
 * differ; a lane broadcast (`lane`) and a reduction of Ints across lanes never do; a rotation
 * of lanes that are all the same changes nothing. A reduction of Floats may differ: the chip's
 * fmin and fmax keep each lane's own zero when +0 and -0 tie, and a sum of NaNs of both signs
 * gives each lane the infinity of its own operand order (source/lanes.ts).
 */
export function laneUniform(e: Expr, varying: ReadonlySet<number>): boolean {
  switch (e.k) {
    case 'lit':
      return true;
    case 'var':
      return !varying.has(e.id);
    case 'special':
      return e.what !== 'index';
    case 'load':
    case 'scan':
      return false;
    case 'lane':
      return true;
    case 'reduce':
      return e.ty === 'int' || laneUniform(e.a, varying);
    case 'rotate':
      return laneUniform(e.a, varying);
    case 'select':
      return boolOperands(e.c).every((x) => laneUniform(x, varying)) && laneUniform(e.a, varying) && laneUniform(e.b, varying);
    default:
      return childExprs(e).every((x) => laneUniform(x, varying));
  }
}

/** The variables whose value may differ between lanes: written under Where, by receive, from lanes. */
function laneVaryingVars(k: KernelAst): Set<number> {
  const varying = new Set<number>();
  let changed = true;
  const walk = (ss: readonly Stmt[], underWhere: boolean): void => {
    for (const s of ss) {
      const ids = s.k === 'assign' ? [s.v.id] : setOpaquely(s).map((v) => v.id);
      for (const id of ids)
        if (!varying.has(id) && (s.k !== 'assign' || underWhere || !laneUniform(s.e, varying))) {
          varying.add(id);
          changed = true;
        }
      for (const b of childBlocks(s)) walk(b, underWhere || s.k === 'where');
    }
  };
  while (changed) {
    changed = false;
    walk(k.body, false);
  }
  return varying;
}

/** Whether some statement, at any depth, is of one of these kinds. */
function contains(ss: readonly Stmt[], kinds: ReadonlySet<Stmt['k']>): boolean {
  return ss.some((s) => kinds.has(s.k) || childBlocks(s).some((b) => contains(b, kinds)));
}

/** The variables an expression or statement mentions. */
function mentions(x: Expr | BoolExpr | Stmt, id: number): boolean {
  return JSON.stringify(x).includes(`"k":"var","id":${id},`);
}

/** The stores of statements, at any depth. */
function storesIn(ss: readonly Stmt[], out: Expr[] = []): Expr[] {
  for (const s of ss) {
    if (s.k === 'store' || s.k === 'storeNB') out.push(s.ptr);
    for (const b of childBlocks(s)) storesIn(b, out);
  }
  return out;
}

const STORES = new Set<Stmt['k']>(['store', 'storeNB', 'scatter']);

/** Whether some store, at any depth, writes only its first lanes (store's count). */
const hasCountedStore = (ss: readonly Stmt[]): boolean => ss.some((s) => (s.k === 'store' && s.n !== undefined) || childBlocks(s).some(hasCountedStore));
const FIFO = new Set<Stmt['k']>(['gather', 'receive']);
// An assertion, as a Break, may end the loop early: loads gathered ahead for later iterations could then read where the kernel as written never does.
const NOT_IN_BODY = new Set<Stmt['k']>(['for', 'while', 'break', 'continue', 'gather', 'receive', 'storeNB', 'scatter', 'sema', 'mutex', 'barrier', 'combine', 'assert']);
/** The statements that wait for another QPU, after which that QPU's stores may come before this one's loads. */
const SYNC = new Set<Stmt['k']>(['sema', 'mutex', 'barrier', 'combine']);

/** Whether the pass pipelined a loop of the kernel, or why not (qpu compile --explain). */
export interface LoopDecision {
  /** Where the loop was written, and the loop as messages write it. */
  readonly loop: Stmt;
  /** The loads it pipelined and how many iterations ahead, or why it did not. */
  readonly pipelined?: { readonly loads: number; readonly ahead: number; readonly copied: boolean };
  readonly why?: string;
}

export function pipelineLoads(k: KernelAst): { ast: KernelAst; loops: number; prefetched: number; decisions: LoopDecision[] } {
  const decisions: LoopDecision[] = [];
  const varying = laneVaryingVars(k);
  const uniform = (e: Expr): boolean => laneUniform(e, varying) && !readsMemory(e);
  const vars: VarInfo[] = [...k.vars];
  const body: Stmt[] = [];
  let loops = 0;
  let prefetched = 0;
  let touched = false; // a statement before this one stores, gathers or receives
  let synced = false; // a statement before this one waits for another QPU
  for (let at = 0; at < k.body.length; at++) {
    const s = k.body[at]!;
    // After a wait for another QPU, that QPU's stores from here on may come before this QPU's loads.
    const othersStore = synced && contains(k.body.slice(at), STORES);
    const before = touched ? BEFORE_TOUCHED : othersStore ? BEFORE_SYNCED : undefined;
    const run = !before ? prefetchRun(k.body, at, uniform) : undefined;
    if (run) {
      // Loads only: what follows sees nothing touched, and the FIFO empty again.
      body.push(...run.stmts);
      prefetched += run.count;
      at += run.count - 1;
      continue;
    }
    const normal = s.k === 'for' && !before ? normalizeLoop(s, vars) : undefined;
    const plan = normal ? planLoop(normal.loop, varying) : before;
    if (normal && typeof plan === 'object') {
      loops++;
      vars.push(...normal.added);
      const copy = copyLastIterations(normal.loop, knownCount(k.body, at, plan));
      body.push(...rewrite(normal.loop, plan, vars, copy));
      decisions.push({ loop: s, pipelined: { loads: plan.loads.length, ahead: aheadFor(plan.loads.length), copied: copy } });
    } else {
      body.push(s);
      if (s.k === 'for' || s.k === 'while') decisions.push({ loop: s, why: s.k === 'while' ? WHILE : (plan as string) });
    }
    for (const b of childBlocks(s)) innerLoops(b, decisions);
    touched ||= contains([s], STORES) || contains([s], FIFO);
    synced ||= contains([s], SYNC);
  }
  return loops || prefetched ? { ast: { ...k, vars, body }, loops, prefetched, decisions } : { ast: k, loops, prefetched, decisions };
}

const WHILE = 'a While loop: only For loops, whose counter the pass can follow, are pipelined';
const BEFORE_TOUCHED = 'a statement before it stores, gathers or receives: a gather could read a word stored earlier in the run, which the TMU caches do not see';
const BEFORE_SYNCED = 'a statement before it waits for other QPUs, and stores follow: their stores could come before this loop\'s loads';

/** The loops inside blocks, which the pass leaves as they are. */
function innerLoops(ss: readonly Stmt[], out: LoopDecision[]): void {
  for (const s of ss) {
    if (s.k === 'for' || s.k === 'while') out.push({ loop: s, why: 'inside another loop or block: only the loops of the kernel\'s body are pipelined' });
    for (const b of childBlocks(s)) innerLoops(b, out);
  }
}

/** What the body holds that stops the pass (NOT_IN_BODY), as a user would name it. */
const NOT_IN_BODY_NAMES: Partial<Record<Stmt['k'], string>> = {
  for: 'a loop', while: 'a loop', break: 'a Break', continue: 'a Continue', gather: 'a gather', receive: 'a receive', storeNB: 'a non-blocking store',
  scatter: 'a scatter', sema: 'a semaphore', mutex: 'the mutex', barrier: 'a barrier', combine: 'an operation across QPUs', assert: 'an assertion',
};

/** The first statement, at any depth, of one of these kinds. */
function firstOf(ss: readonly Stmt[], kinds: ReadonlySet<Stmt['k']>): Stmt | undefined {
  for (const s of ss) {
    if (kinds.has(s.k)) return s;
    for (const b of childBlocks(s)) {
      const x = firstOf(b, kinds);
      if (x) return x;
    }
  }
  return undefined;
}

/** The loop's plan, or why it has none. */
function planLoop(s: ForStmt, varying: ReadonlySet<number>): Plan | string {
  const cmp = s.c.b;
  const notCounted = 'its condition is not counter < bound (or bound > counter) on Ints';
  if (cmp.k !== 'cmp' || cmp.ty !== 'int') return notCounted;
  const [iv, n] = cmp.op === 'lt' ? [cmp.a, cmp.b] : cmp.op === 'gt' ? [cmp.b, cmp.a] : [];
  if (iv?.k !== 'var' || !n) return notCounted;
  if (varying.has(iv.id)) return 'its counter differs between lanes';
  const st = s.step[0];
  const oneStep = 'its step is not one counter = counter + step';
  if (s.step.length !== 1 || st?.k !== 'assign' || st.v.id !== iv.id || st.e.k !== 'bin' || st.e.op !== 'add') return oneStep;
  const step = st.e.a.k === 'var' && st.e.a.id === iv.id ? st.e.b : st.e.b.k === 'var' && st.e.b.id === iv.id ? st.e.a : undefined;
  if (!step) return oneStep;
  const stops = firstOf(s.body, NOT_IN_BODY);
  if (stops) return `its body holds ${NOT_IN_BODY_NAMES[stops.k]}${stops.loc ? ` (${stops.loc})` : ''}, which could end an iteration early or needs the TMU's FIFO`;
  const assigned = assignedIn([...s.body, ...s.step]);
  if (assignedIn(s.body).has(iv.id)) return 'its body assigns the counter';
  // Unchanged by the loop and the same in every lane.
  const kept = (e: Expr): boolean => laneUniform(e, varying) && everyLeaf(e, (x) => x.k === 'lit' || (x.k === 'var' && !assigned.has(x.id)) || x.k === 'special');
  if (!kept(n) || !kept(step)) return 'its bound or its step changes in the loop or differs between lanes';
  const affine = (e: Expr): Affine | undefined => affinePtr(e, iv.id, kept);

  const loads: { s: AssignStmt; ptr: Expr; at: Affine }[] = [];
  for (let t = 0; t < s.body.length && loads.length < TMU_FIFO_DEPTH; t++) {
    const b = s.body[t]!;
    if (contains([b], STORES)) break;
    if (b.k !== 'assign' || b.e.k !== 'load' || b.e.n) continue; // a counted load stays a DMA load
    if (b.e.ptr.ty !== 'int*' && b.e.ptr.ty !== 'float*') continue; // 8 and 16 bits: a gather reads whole aligned words
    const at = affine(b.e.ptr);
    const v = b.v.id;
    if (at?.i && !s.body.slice(0, t).some((x) => mentions(x, v)) && !mentions(b.e, v)) loads.push({ s: b, ptr: b.e.ptr, at });
  }
  if (!loads.length) return 'no load before its first store reads Ints or Floats at pointer + counter (plus offsets the loop keeps), the same in every lane';
  if (hasCountedStore(s.body)) return 'it stores a count of lanes (store(p, x, n)), which a non-blocking store cannot'; // its stores would become non-blocking, which take no count
  const stores = storesIn(s.body).map(affine);
  if (stores.some((t) => !t?.i)) return 'a store\'s address is not pointer + counter (plus offsets the loop keeps): loads gathered ahead could miss what it stores';
  // The tests hold for a step going up: 0 < S < MAX_COUNT (at run time when S is no number).
  const guard: BoolExpr[] = [];
  if (step.k === 'lit' && !((step.bits | 0) > 0 && (step.bits | 0) < MAX_COUNT)) return 'its step does not go up (or goes up by 2^24 or more)';
  if (step.k !== 'lit') guard.push({ k: 'and', a: cmpGt(step, 0), b: cmpLt(step, MAX_COUNT) });
  // The tests of iterations ahead, i + k S < N (k up to TMU_FIFO_DEPTH), must not wrap: N below MAX_BOUND.
  if (n.k === 'lit' && (n.bits | 0) >= MAX_BOUND) return 'its bound is within 2^26 of the largest Int: the test of an iteration ahead (counter + k x step) could wrap';
  if (n.k !== 'lit') guard.push(cmpLt(n, MAX_BOUND));
  for (const l of loads)
    for (const t of stores as Affine[]) {
      const ok = apart(l.at, t, step, n, iv);
      if (ok === false) return 'a load reads words a store of an earlier iteration writes';
      if (ok !== true) guard.push(ok);
    }
  return { i: iv, step, next: st.e, loads, guard };
}

/** An address as an Affine, when it is one. */
function affinePtr(e: Expr, i: number, kept: (e: Expr) => boolean): Affine | undefined {
  if (e.k === 'ptradd') {
    const p = affinePtr(e.p, i, kept);
    const n = affineInt(e.n, i, kept);
    if (!p || !n || (p.i && n.i)) return undefined;
    return { base: p.base, offs: [...p.offs, ...n.offs], c: p.c + n.c, i: p.i || n.i };
  }
  return isPtr(e.ty) && kept(e) ? { base: e, offs: [], c: 0, i: false } : undefined;
}

function affineInt(e: Expr, i: number, kept: (e: Expr) => boolean): Omit<Affine, 'base'> | undefined {
  if (e.k === 'lit' && e.ty === 'int') return { offs: [], c: e.bits | 0, i: false };
  if (e.k === 'var' && e.id === i) return { offs: [], c: 0, i: true };
  if (e.k === 'bin' && e.op === 'add' && e.ty === 'int') {
    const a = affineInt(e.a, i, kept);
    const b = affineInt(e.b, i, kept);
    if (!a || !b || (a.i && b.i)) return undefined;
    return { offs: [...a.offs, ...b.offs], c: a.c + b.c, i: a.i || b.i };
  }
  return e.ty === 'int' && kept(e) ? { offs: [e], c: 0, i: false } : undefined;
}

/**
 * Whether no word load l reads in an iteration was stored by t in an earlier one: true, false,
 * or the condition to test at run time (see the contract above).
 */
function apart(l: Affine, t: Affine, step: Expr, n: Expr, i: VarRef): boolean | BoolExpr {
  const rest = [...t.offs];
  const mine: Expr[] = [];
  for (const o of l.offs) {
    const j = rest.findIndex((x) => sameExpr(x, o));
    if (j >= 0) rest.splice(j, 1);
    else mine.push(o);
  }
  const sameBase = sameExpr(l.base, t.base);
  const c = 4 * (l.c - t.c); // exact; the kernel's addresses wrap at 32 bits, so only a small c is D
  const s = step.k === 'lit' ? step.bits | 0 : undefined;
  if (sameBase && !mine.length && !rest.length && Math.abs(c) < SMALL_D) {
    if (s !== undefined && c + 4 * s >= 64) return true;
    if (c >= -64) return s !== undefined ? false : cmpGe(bin('shl', step, lit(2)), 64 - c);
  }
  // D in 32 bits, as the kernel computes addresses; the tests below hold only for a D within
  // +-SMALL_D (and S and N - i within MAX_COUNT), where nothing they add can wrap.
  let d: Expr = lit(c | 0);
  if (!sameBase) d = bin('add', bin('sub', l.base, t.base), d);
  for (const o of mine) d = bin('add', d, bin('shl', o, lit(2)));
  for (const o of rest) d = bin('sub', d, bin('shl', o, lit(2)));
  const small: BoolExpr = { k: 'and', a: cmpGt(d, -SMALL_D), b: cmpLt(d, SMALL_D) };
  const ahead = s !== undefined ? cmpGe(d, 64 - 4 * s) : cmpGe(bin('add', d, bin('shl', step, lit(2))), 64);
  const left = bin('sub', n, i);
  const below: BoolExpr = {
    k: 'and',
    a: { k: 'and', a: cmpGt(left, 0), b: cmpLt(left, MAX_COUNT) },
    b: { k: 'cmp', op: 'le', ty: 'int', a: bin('add', d, bin('shl', left, lit(2))), b: lit(-60) },
  };
  return { k: 'and', a: small, b: { k: 'or', a: ahead, b: below } };
}

/**
 * A statement with its stores made non-blocking: the next store, load, semaphore up, mutex
 * release or the kernel's end waits for them (lower.ts), and no gather of the loop reads what
 * they write, so nothing waits sooner.
 */
function nonBlocking(s: Stmt): Stmt {
  if (s.k === 'store') return { k: 'storeNB', e: s.e, ptr: s.ptr, loc: s.loc };
  if (s.k === 'if' || s.k === 'where') return { ...s, then: s.then.map(nonBlocking), else: s.else.map(nonBlocking) };
  return s;
}

const cmpGe = (a: Expr, n: number): BoolExpr => ({ k: 'cmp', op: 'ge', ty: 'int', a, b: lit(n) });
const cmpGt = (a: Expr, n: number): BoolExpr => ({ k: 'cmp', op: 'gt', ty: 'int', a, b: lit(n) });
const cmpLt = (a: Expr, n: number): BoolExpr => ({ k: 'cmp', op: 'lt', ty: 'int', a, b: lit(n) });

/**
 * Bounds that keep the alias tests' arithmetic exact in 32 bits: a distance D of less than
 * 2^29 bytes either way (GPU memory is smaller), and a step S and a count N - i of less than
 * 2^24 elements. Outside them the loop as written runs.
 */
const SMALL_D = 2 ** 29;
const MAX_COUNT = 2 ** 24;
/** A bound below which counter + k step (k <= TMU_FIFO_DEPTH, step < MAX_COUNT) cannot wrap, as counter < bound. */
const MAX_BOUND = 2 ** 31 - TMU_FIFO_DEPTH * MAX_COUNT;

/**
 * Whether the last iterations, which gather nothing, run as a copy of the body (a second loop)
 * rather than each iteration testing whether to gather. The copy is code the instruction cache
 * must fetch once a run, about 4 cycles an instruction cold (a 64-byte line of 8 instructions,
 * docs/timing.md); the test costs every iteration about GATHER_TEST_INSTRS instructions of 4
 * cycles. Where the count of iterations is known when compiled, the cheaper; else the copy,
 * which costs a long-running loop nothing in its iterations.
 */
function copyLastIterations(loop: ForStmt, count: number | undefined): boolean {
  if (count === undefined) return true;
  let ops = 0;
  someExpr([...loop.body, ...loop.step], (e) => {
    if (e.k !== 'lit' && e.k !== 'var' && e.k !== 'special') ops++;
    return false;
  });
  return ops <= GATHER_TEST_INSTRS * count;
}

/** A comparison and a branch with its 3 delay slots (Guide p. 34). */
const GATHER_TEST_INSTRS = 5;

/**
 * The loop's count of iterations when compiled, if known: its counter set to a number by a
 * statement of the kernel's body before it (and not set again in between), its bound and step
 * numbers.
 */
function knownCount(body: readonly Stmt[], at: number, plan: Plan): number | undefined {
  const loop = body[at] as ForStmt;
  const cmp = loop.c.b as Extract<BoolExpr, { k: 'cmp' }>;
  const bound = cmp.op === 'lt' ? cmp.b : cmp.a;
  if (bound.k !== 'lit' || plan.step.k !== 'lit') return undefined;
  for (let j = at - 1; j >= 0; j--) {
    const s = body[j]!;
    if (!assignedIn([s]).has(plan.i.id)) continue;
    if (s.k !== 'assign' || s.e.k !== 'lit') return undefined;
    return Math.max(0, Math.ceil(((bound.bits | 0) - (s.e.bits | 0)) / (plan.step.bits | 0)));
  }
  return undefined;
}

/** How many iterations ahead a loop with `loads` loads gathers: as many as the TMU FIFO holds (1, 2 or 4). */
export const aheadFor = (loads: number): number => 2 ** Math.floor(Math.log2(Math.max(1, Math.floor(TMU_FIFO_DEPTH / loads))));

function rewrite(s: ForStmt, plan: Plan, vars: VarInfo[], copy: boolean): Stmt[] {
  const loc = s.loc;
  const addrs: VarRef[] = plan.loads.map(({ s: l, ptr }) => {
    const v: VarInfo = { id: vars.length, ty: ptr.ty, name: `${vars[l.v.id]?.name ?? 'v' + l.v.id}_addr` };
    vars.push(v);
    return { k: 'var', id: v.id, ty: v.ty };
  });
  const moved = new Set<Stmt>(plan.loads.map((l) => l.s));
  const rest = s.body.filter((x) => !moved.has(x)).map(nonBlocking);
  // Messages about these show the user's load, not the gather and receive it became.
  const receives: Stmt[] = plan.loads.map(({ s: l }) => ({ k: 'receive', v: l.v, loc: l.loc, shows: l.shows ?? l }));
  // Each address is the next iteration's to gather: gathered, it moves on an iteration.
  const gathers: Stmt[] = plan.loads.flatMap(({ s: l }, j): Stmt[] => [
    { k: 'gather', ptr: addrs[j]!, loc: l.loc, shows: l.shows ?? l },
    { k: 'assign', v: addrs[j]!, e: { k: 'ptradd', ty: addrs[j]!.ty as 'int*' | 'float*', p: addrs[j]!, n: plan.step }, loc },
  ]);
  const first: Stmt[] = plan.loads.map(({ s: l, ptr }, j) => ({
    k: 'assign',
    v: addrs[j]!,
    e: { k: 'ptradd', ty: ptr.ty as 'int*' | 'float*', p: ptr, n: { k: 'special', ty: 'int', what: 'index' } },
    loc: l.loc,
    shows: l.shows ?? l,
  }));
  // The loop's condition k iterations on: i + k S < N.
  const cmp = s.c.b as Extract<BoolExpr, { k: 'cmp' }>;
  const ahead = (k: number): Cond => {
    const st = plan.step;
    const times = st.k === 'lit' ? lit(Math.imul(st.bits, k)) : k === 2 ? bin('shl', st, lit(1)) : k === 3 ? bin('add', bin('shl', st, lit(1)), st) : bin('shl', st, lit(2));
    const on = k === 1 ? plan.next : bin('add', plan.i, times);
    const subst = (e: Expr): Expr => (e.k === 'var' && e.id === plan.i.id ? on : e);
    return k === 0 ? s.c : { k: s.c.k, b: { ...cmp, a: subst(cmp.a), b: subst(cmp.b) } };
  };
  const d = aheadFor(plan.loads.length);
  // The first d iterations' gathers (those that exist), then while d more follow: receive, gather
  // d on, compute; then the last ones, which gather nothing.
  const prefetch: Stmt[] = [...gathers];
  for (let k = 1; k < d; k++) prefetch.push({ k: 'if', c: ahead(k), then: [...gathers], else: [], loc });
  const piped: Stmt = {
    k: 'if',
    c: s.c,
    then: [
      ...first,
      ...prefetch,
      ...(copy
        ? [
            { k: 'while', c: ahead(d), body: [...receives, ...gathers, ...rest, ...s.step], loc } as Stmt,
            d === 1 ? ({ k: 'if', c: s.c, then: [...receives, ...rest, ...s.step], else: [], loc } as Stmt) : ({ k: 'while', c: s.c, body: [...receives, ...rest, ...s.step], loc } as Stmt),
          ]
        : [{ k: 'while', c: s.c, body: [...receives, { k: 'if', c: ahead(d), then: [...gathers], else: [], loc }, ...rest, ...s.step], loc } as Stmt]),
    ],
    else: [],
    loc,
  };
  if (!plan.guard.length) return [piped];
  const guard = plan.guard.reduce((a, b) => ({ k: 'and', a, b }));
  return [{ k: 'if', c: { k: 'all', b: guard }, then: [piped], else: [s], loc }];
}
