// The language's abstract syntax: what a kernel is, as data. The embedded language (src/dsl)
// builds it, the reference interpreter (interpreter.ts) defines what it means, and the compiler
// (src/compiler) translates it. print.ts writes it as readable text.

import { SEMAPHORES } from '../vc4/chip.ts';
import type { BinOp, CmpOp, PtrTy, Ty, UnOp } from './ops.ts';

/** The value types (ops.ts, beside the operators that compute on them). */
export { elemBytes, elemOf, isPtr, type Narrow, type PtrTy, type Storage, STORAGES, storageOf, type Ty } from './ops.ts';

/** The operators: the names of the rows of ops.ts's tables, which say what each means and how it compiles. */
export type { BinOp, CmpOp, UnOp };

export interface VarRef {
  readonly k: 'var';
  readonly id: number;
  readonly ty: Ty;
}

export type Expr =
  | { readonly k: 'lit'; readonly ty: 'int' | 'float'; /** The 32-bit pattern. */ readonly bits: number }
  | VarRef
  | { readonly k: 'special'; readonly ty: 'int'; readonly what: 'index' | 'me' | 'numQPUs' }
  | { readonly k: 'bin'; readonly op: BinOp; readonly ty: Ty; readonly a: Expr; readonly b: Expr }
  | { readonly k: 'un'; readonly op: UnOp; readonly ty: 'int' | 'float'; readonly a: Expr }
  /** Lane l of the result is lane (l - n) mod 16 of `a`: element 0 moves to element n. */
  | { readonly k: 'rotate'; readonly ty: Ty; readonly a: Expr; readonly n: Expr }
  /** Pointer plus a number of elements (of its storage's size: 4, 2 or 1 bytes), lane by lane. */
  | { readonly k: 'ptradd'; readonly ty: PtrTy; readonly p: Expr; readonly n: Expr }
  /**
   * The 16 consecutive elements from the address in lane 0 of `ptr` (a blocking load), of its
   * storage (8- and 16-bit ones widened to ints, STORAGES); with `n`,
   * only the first n of them (lane 0 of n, clamped to 0..16), the other lanes 0 (countedLanes).
   */
  | { readonly k: 'load'; readonly ty: 'int' | 'float'; readonly ptr: Expr; readonly n?: Expr }
  /** Lane n of `a` in every lane: n is lane 0 of `n`, modulo 16. */
  | { readonly k: 'lane'; readonly ty: Ty; readonly a: Expr; readonly n: Expr }
  /** Lane by lane, `a` where condition `c` holds and `b` where it does not (both computed in every lane). */
  | { readonly k: 'select'; readonly ty: Ty; readonly c: BoolExpr; readonly a: Expr; readonly b: Expr }
  /** The 16 lanes of `a` combined by `op`, in every lane (source/lanes.ts says in which order). */
  | { readonly k: 'reduce'; readonly op: ReduceOp; readonly ty: 'int' | 'float'; readonly a: Expr }
  /** Prefix sums across the 16 lanes of `a`: lane l the sum of lanes 0 to l, or with `exclusive` to l - 1 (source/lanes.ts). */
  | { readonly k: 'scan'; readonly ty: 'int' | 'float'; readonly a: Expr; readonly exclusive: boolean };

/** The operations a reduction across lanes combines with: rows of ops.ts's BINARY (`and` and `or` on Ints only). */
export type ReduceOp = 'add' | 'min' | 'max' | 'and' | 'or';

/** What a scatter does at each lane's address: writes its value, adds it, or adds it atomically. */
export type ScatterHow = 'store' | 'add' | 'atomicAdd';

export type BoolExpr =
  | { readonly k: 'cmp'; readonly op: CmpOp; readonly ty: Ty; readonly a: Expr; readonly b: Expr }
  | { readonly k: 'and' | 'or'; readonly a: BoolExpr; readonly b: BoolExpr }
  | { readonly k: 'not'; readonly a: BoolExpr };

/** A condition for If and While: any or all of the 16 lanes of a vector condition. */
export interface Cond {
  readonly k: 'any' | 'all';
  readonly b: BoolExpr;
}

interface Located {
  /** Where the statement was written: "file:line:col" of the kernel's source, when known. */
  readonly loc?: string;
  /** For a statement a compiler pass made: the user's statement it does the work of, which messages show. */
  readonly shows?: Stmt;
}

export type Stmt = Located &
  (
    | { readonly k: 'assign'; readonly v: VarRef; readonly e: Expr }
    /** Blocking store of 16 values to the address in lane 0 of `ptr` (narrowed to its storage); with `n`, of the first n (lane 0 of n, clamped to 0..16). */
    | { readonly k: 'store'; readonly ptr: Expr; readonly e: Expr; readonly n?: Expr }
    | { readonly k: 'if'; readonly c: Cond; readonly then: Stmt[]; else: Stmt[] }
    | { readonly k: 'while'; readonly c: Cond; readonly body: Stmt[] }
    | { readonly k: 'for'; readonly c: Cond; readonly step: Stmt[]; readonly body: Stmt[] }
    | { readonly k: 'where'; readonly b: BoolExpr; readonly then: Stmt[]; else: Stmt[] }
    /**
     * Leaves a While or For (`break`), or ends its pass, going on to a For's step or the next
     * test (`continue`): the innermost loop holding it, or with `levels` that many loops further out.
     */
    | { readonly k: 'break' | 'continue'; readonly levels?: number }
    /** Request the value at each lane's address (non-blocking). */
    | { readonly k: 'gather'; readonly ptr: Expr }
    /** Wait for the oldest gather and put its values in `v`. */
    | { readonly k: 'receive'; readonly v: VarRef }
    /**
     * Starts this QPU's broadcast stream at `ptr` (32-bit elements; every lane the same address),
     * replacing any stream before it; `id` numbers the stream statements of the kernel, so that a
     * `next` can say which stream it reads (source/streams.ts).
     */
    | { readonly k: 'stream'; readonly ptr: Expr; readonly id: number }
    /** `v` takes, in every lane, the next element of stream `stream` (this QPU's current one) and the stream moves on by one. */
    | { readonly k: 'next'; readonly v: VarRef; readonly stream: number }
    /** Non-blocking store of 16 values to the address in lane 0 of `ptr`. */
    | { readonly k: 'storeNB'; readonly e: Expr; readonly ptr: Expr }
    /**
     * Each lane (of those a Where keeps) writes its value to its own address, lane 0 first, so a
     * later lane wins a shared address (`store`); or adds it to the word there, lane after lane,
     * so lanes sharing an address all count (`add`); or does that holding the mutex, so that
     * QPUs adding to the same words all count (`atomicAdd`). Blocking: memory holds the result after it.
     */
    | { readonly k: 'scatter'; readonly how: ScatterHow; readonly ptr: Expr; readonly e: Expr }
    | { readonly k: 'sema'; readonly down: boolean; readonly n: number }
    | { readonly k: 'mutex'; readonly lock: boolean }
    /** Every QPU of the run waits until all have reached a barrier (source/qpus.ts). */
    | { readonly k: 'barrier' }
    /**
     * Lane by lane across the QPUs (a barrier too): `v` becomes, on every QPU, the QPUs' values of
     * `v` combined by `op` in QPU order; or with `scan`, QPU q's prefix: QPUs 0 to q (inclusive)
     * or 0 to q - 1 (exclusive, 0 on QPU 0), with op 'add' (source/qpus.ts).
     */
    | { readonly k: 'combine'; readonly v: VarRef; readonly op: ReduceOp; readonly scan?: 'inclusive' | 'exclusive'; /** What v was set from, for messages. */ readonly from?: Expr }
    /**
     * Stops the run where `b` fails in some lane: the message, and the lanes' values of `values`
     * (named `names`), reach the host (source/checks.ts).
     */
    | { readonly k: 'assert'; readonly b: BoolExpr; readonly message?: string; readonly names: readonly string[]; readonly values: readonly Expr[] }
    /** Logs the 16 lanes of each value, with the label (and a name for a value, where `names` has one), for the host to show after the run (source/checks.ts). */
    | { readonly k: 'print'; readonly label: string; readonly names: readonly string[]; readonly values: readonly Expr[] }
    /**
     * Runs function `f` of the kernel (KernelAst.funcs) on `args`: its parameters take their
     * values in every lane, its body runs in every lane, and `outs` take its results in the lanes
     * the enclosing Wheres keep (source/funcs.ts).
     */
    | { readonly k: 'call'; readonly f: number; readonly args: readonly Expr[]; readonly outs: readonly VarRef[] }
  );

/**
 * A function compiled once and called (`func(...)`, src/dsl/funcs.ts): values in, values out.
 * Its parameters and the variables of its body are the kernel's variables (no recursion, so
 * each has one home); the body computes on them and on variables it reads from the kernel, and
 * assigns only its own. It holds no memory access, no waiting for other QPUs, no assertion or
 * print, and its Break and Continue stay inside its own loops.
 */
export interface FuncAst {
  readonly name: string;
  readonly params: readonly VarRef[];
  readonly body: Stmt[];
  readonly results: readonly Expr[];
  /** Where func() was called: "file:line:col", when known. */
  readonly loc?: string;
}

/**
 * The semaphore of the end-of-kernel barrier: the chip's last, which the language keeps for itself
 * (a kernel's sema statements use the others; docs/compiler.md says how the barrier works).
 */
export const BARRIER_SEMAPHORE = SEMAPHORES - 1;

export interface VarInfo {
  readonly id: number;
  readonly ty: Ty;
  /** The internal name: the parameter's name, or v<id> (the compiler's dumps use it). */
  readonly name: string;
  /**
   * The name messages and k.dump() show, unique in the kernel: the name the user's source gives
   * the variable (`const q = Int(...)`, `Int(x, 'q')`), else `name` (src/dsl/builder.ts, declaredName).
   */
  readonly userName?: string;
}

export interface KernelAst {
  readonly name: string;
  /** Parameters are the first variables (ids 0 ... n-1), set from the call's arguments. */
  readonly params: readonly VarInfo[];
  readonly vars: readonly VarInfo[];
  readonly body: Stmt[];
  /** The functions the body calls (`call` statements name them by index), in any order (lowering lays them out callers first). */
  readonly funcs?: readonly FuncAst[];
}

/** Children of a statement that hold statements. */
export function childBlocks(s: Stmt): Stmt[][] {
  switch (s.k) {
    case 'if':
    case 'where':
      return [s.then, s.else];
    case 'while':
      return [s.body];
    case 'for':
      return [s.step, s.body];
    default:
      return [];
  }
}

/** The expressions an expression computes from, conditions' operands included, in evaluation order. */
export function childExprs(e: Expr): Expr[] {
  switch (e.k) {
    case 'bin':
      return [e.a, e.b];
    case 'un':
      return [e.a];
    case 'rotate':
    case 'lane':
      return [e.a, e.n];
    case 'ptradd':
      return [e.p, e.n];
    case 'load':
      return e.n ? [e.ptr, e.n] : [e.ptr];
    case 'select':
      return [e.a, e.b, ...boolOperands(e.c)];
    case 'reduce':
    case 'scan':
      return [e.a];
    case 'lit':
    case 'var':
    case 'special':
      return [];
  }
}

/** The expressions a condition compares, in evaluation order. */
export function boolOperands(b: BoolExpr): Expr[] {
  return b.k === 'cmp' ? [b.a, b.b] : b.k === 'not' ? boolOperands(b.a) : [...boolOperands(b.a), ...boolOperands(b.b)];
}

/** Whether an expression, or any it computes from, is of kind `k`. */
export function containsKind(e: Expr, k: Expr['k']): boolean {
  return e.k === k || childExprs(e).some((c) => containsKind(c, k));
}

/** Whether an expression, or any it computes from, reads variable `id`. */
export function containsVar(e: Expr, id: number): boolean {
  return (e.k === 'var' && e.id === id) || childExprs(e).some((c) => containsVar(c, id));
}

/** Whether an expression reads memory (a blocking load). */
export function readsMemory(e: Expr): boolean {
  return containsKind(e, 'load');
}

/** Whether a statement itself (not a block it holds) reads or writes memory: a load, a store, a gather, a receive. */
export function accessesMemory(s: Stmt): boolean {
  switch (s.k) {
    case 'stream':
    case 'next':
    case 'store':
    case 'storeNB':
    case 'scatter':
    case 'gather':
    case 'receive':
      return true;
    case 'assign':
      return readsMemory(s.e);
    default:
      return false;
  }
}

/** Whether two expressions are the same computation (same shape, same variables). */
export function sameExpr(a: Expr, b: Expr): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The variables statements assign (assignments, receives, combines, calls' results, at any depth). */
export function assignedIn(ss: readonly Stmt[], out = new Set<number>()): Set<number> {
  for (const s of ss) {
    if (s.k === 'assign' || s.k === 'receive' || s.k === 'next' || s.k === 'combine') out.add(s.v.id);
    if (s.k === 'call') for (const o of s.outs) out.add(o.id);
    for (const b of childBlocks(s)) assignedIn(b, out);
  }
  return out;
}

/**
 * The variables a statement itself sets to values no expression of its own gives: what a
 * receive or a stream's next takes from memory, a combine from the other QPUs, a call from its
 * function. Analyses that follow values through assignments know nothing of these.
 */
export function setOpaquely(s: Stmt): readonly VarRef[] {
  return s.k === 'receive' || s.k === 'next' || s.k === 'combine' ? [s.v] : s.k === 'call' ? s.outs : [];
}

/** e with every expression in it, itself included, replaced by what `f` gives (children first). */
export function mapExpr(e: Expr, f: (e: Expr) => Expr): Expr {
  const m = (x: Expr) => mapExpr(x, f);
  switch (e.k) {
    case 'bin':
      return f({ ...e, a: m(e.a), b: m(e.b) });
    case 'un':
      return f({ ...e, a: m(e.a) });
    case 'rotate':
    case 'lane':
      return f({ ...e, a: m(e.a), n: m(e.n) });
    case 'ptradd':
      return f({ ...e, p: m(e.p), n: m(e.n) });
    case 'load':
      return f({ ...e, ptr: m(e.ptr), ...(e.n ? { n: m(e.n) } : {}) });
    case 'select':
      return f({ ...e, c: mapBool(e.c, f), a: m(e.a), b: m(e.b) });
    case 'reduce':
    case 'scan':
      return f({ ...e, a: m(e.a) });
    default:
      return f(e);
  }
}

/** A condition with mapExpr applied to the expressions it compares. */
export function mapBool(b: BoolExpr, f: (e: Expr) => Expr): BoolExpr {
  if (b.k === 'cmp') return { ...b, a: mapExpr(b.a, f), b: mapExpr(b.b, f) };
  if (b.k === 'not') return { ...b, a: mapBool(b.a, f) };
  return { ...b, a: mapBool(b.a, f), b: mapBool(b.b, f) };
}

/** A statement with mapExpr applied to every expression in it and in the statements it holds. */
export function mapStmt(s: Stmt, f: (e: Expr) => Expr): Stmt {
  const block = (ss: readonly Stmt[]) => ss.map((x) => mapStmt(x, f));
  const cond = (c: Cond): Cond => ({ ...c, b: mapBool(c.b, f) });
  switch (s.k) {
    case 'assign':
      return { ...s, e: mapExpr(s.e, f) };
    case 'store':
      return { ...s, ptr: mapExpr(s.ptr, f), e: mapExpr(s.e, f), ...(s.n ? { n: mapExpr(s.n, f) } : {}) };
    case 'storeNB':
    case 'scatter':
      return { ...s, ptr: mapExpr(s.ptr, f), e: mapExpr(s.e, f) };
    case 'gather':
    case 'stream':
      return { ...s, ptr: mapExpr(s.ptr, f) };
    // What they report shows the user's statement, not a pass's rewriting of it (an induction sum).
    case 'assert':
      return { ...s, b: mapBool(s.b, f), values: s.values.map((e) => mapExpr(e, f)), shows: s.shows ?? s };
    case 'print':
      return { ...s, values: s.values.map((e) => mapExpr(e, f)), shows: s.shows ?? s };
    case 'call':
      return { ...s, args: s.args.map((e) => mapExpr(e, f)) };
    case 'if':
      return { ...s, c: cond(s.c), then: block(s.then), else: block(s.else) };
    case 'where':
      return { ...s, b: mapBool(s.b, f), then: block(s.then), else: block(s.else) };
    case 'while':
      return { ...s, c: cond(s.c), body: block(s.body) };
    case 'for':
      return { ...s, c: cond(s.c), step: block(s.step), body: block(s.body) };
    default:
      return s;
  }
}

/** Whether some expression in statements (at any depth, conditions' operands too), or one it computes from, passes `pred`. */
export function someExpr(ss: readonly Stmt[], pred: (e: Expr) => boolean): boolean {
  const inExpr = (e: Expr): boolean => pred(e) || childExprs(e).some(inExpr);
  const inBool = (b: BoolExpr): boolean => boolOperands(b).some(inExpr);
  return ss.some((s) => {
    switch (s.k) {
      case 'assign':
        return inExpr(s.e);
      case 'store':
        return inExpr(s.ptr) || inExpr(s.e) || (s.n !== undefined && inExpr(s.n));
      case 'storeNB':
      case 'scatter':
        return inExpr(s.ptr) || inExpr(s.e);
      case 'gather':
      case 'stream':
        return inExpr(s.ptr);
      case 'assert':
        return inBool(s.b) || s.values.some(inExpr);
      case 'print':
        return s.values.some(inExpr);
      case 'call':
        return s.args.some(inExpr);
      case 'if':
      case 'while':
      case 'for':
        return inBool(s.c.b) || childBlocks(s).some((b) => someExpr(b, pred));
      case 'where':
        return inBool(s.b) || childBlocks(s).some((b) => someExpr(b, pred));
      default:
        return false;
    }
  });
}

/** How many lanes a counted load or store takes: lane 0 of its count, clamped to 0..16. */
export const countedLanes = (n: number): number => Math.min(Math.max(n | 0, 0), 16);
