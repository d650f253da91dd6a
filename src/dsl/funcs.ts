// func(...): a function compiled once and called with the chip's branch with link, for code that
// would otherwise be copied at every use (a TypeScript function still inlines: it runs while the
// kernel is built). A func takes values and gives values: its body may assign its own variables
// and use If, While, For, Where and other funcs, and read the kernel's variables, but not touch
// memory, wait for other QPUs, assert or print. Its body is built once per kernel, at the first
// call in that kernel; each call records a `call` statement (source/ast.ts) whose results land
// in new variables, in the lanes the caller's Wheres keep.

import { childBlocks, childExprs, containsKind, type Expr, type FuncAst, setOpaquely, someExpr, type Stmt, storageOf, type Ty, type VarRef } from '../source/ast.ts';
import { builder, callerPlace, checkOwner, describeHost, DslError, type KernelBuilder } from './builder.ts';
import { declaredName, destructuredNames, sourceParameterNames } from './names.ts';
import { Float, Int, Int8, Int16, Ptr, type ParamType, type ParamValue, Uint8, Uint16, type FloatType, type IntType, type PtrType } from './types.ts';
import { type Elem, FloatExpr, type FloatLike, FloatVar, IntExpr, type IntLike, IntVar, PtrExpr, PtrVar } from './values.ts';
import { describeTy, exprOf, Vec } from './vec.ts';

/** A value a func takes or gives. */
export type FuncValue = IntExpr | FloatExpr | PtrExpr<Elem>;
/** What a func's body returns: one value, or several in an array. */
export type FuncResult = FuncValue | readonly FuncValue[];

type ArgOf<T extends ParamType> = T extends IntType ? IntLike : T extends FloatType ? FloatLike : T extends PtrType<infer E> ? PtrExpr<E> : never;
/** The arguments a func of parameter types P takes: values or plain numbers, as operators do. */
export type FuncArgs<P extends readonly ParamType[]> = { [K in keyof P]: P[K] extends ParamType ? ArgOf<P[K]> : never };
type Params<P extends readonly ParamType[]> = { [K in keyof P]: P[K] extends ParamType ? ParamValue<P[K]> : never };

/** A value's variable type: what a call gives for each result. */
type VarOf<T> = T extends IntExpr ? IntVar : T extends FloatExpr ? FloatVar : T extends PtrExpr<infer E> ? PtrVar<E> : never;
/** What a call gives: the body's results as new variables, in the same shape. */
export type FuncResults<R extends FuncResult> = R extends readonly FuncValue[] ? { -readonly [K in keyof R]: VarOf<R[K]> } : VarOf<R>;

/** A func: call it inside a kernel with its arguments; it gives what its body returned, as new variables. */
export type Func<P extends readonly ParamType[], R extends FuncResult> = ((...args: FuncArgs<P>) => FuncResults<R>) & { readonly funcName: string };

export interface FuncOptions {
  /** The name messages and dumps give it (default: the function's name, or the name it is declared with). */
  readonly name?: string;
}

const TYPES: readonly ParamType[] = [Int, Float, Ptr(Int), Ptr(Float), Ptr(Uint8), Ptr(Int8), Ptr(Uint16), Ptr(Int16)];
const NAME = /^[A-Za-z_$][\w$]{0,63}$/;

/** One func's body as built in one kernel. */
interface Instance {
  readonly index: number;
  readonly results: readonly Expr[];
  /** Whether the body returned an array (the call then gives one). */
  readonly many: boolean;
}

/**
 * A function compiled once and called, with parameters of `params`' types (Int, Float, Ptr(...)).
 * `body` gets them and returns the results: a value or an array of values.
 */
export function func<const P extends readonly ParamType[], const R extends FuncResult>(params: P, body: (...args: Params<P>) => R, opts?: FuncOptions): Func<P, R> {
  const place = callerPlace();
  const at = place ? ` (${place.loc})` : '';
  const name = funcName(body, opts, place ? declaredName(place) : undefined, at);
  const fail = (why: string): never => {
    throw new DslError(`func ${name}${at}: ${why}`);
  };
  if (!Array.isArray(params)) fail(`func()'s first argument is the list of parameter types, such as [Int, Float], not ${describeHost(params)}`);
  params.forEach((t, i) => TYPES.includes(t) || fail(`parameter ${i + 1}'s type must be Int, Float or a Ptr (Ptr(Int), Ptr(Float), ...), not ${describeHost(t)}`));
  if (typeof body !== 'function') fail(`func()'s second argument is its body, such as (a, b) => a.add(b), not ${describeHost(body)}`);
  const types = [...params] as ParamType[];
  const paramNames = (place && sourceParameterNames(place, types.length)) ?? [];
  const instances = new WeakMap<KernelBuilder, Instance | 'building'>();

  const call = (...args: unknown[]): FuncResults<R> => {
    const b = builder(`${name}(...)`);
    let inst = instances.get(b);
    if (inst === 'building') {
      const chain = b.building.slice(b.building.lastIndexOf(name));
      const through = chain.length > 1 ? ` (${[...chain, name].join(' calls ')})` : '';
      throw b.error(`func ${name} calls itself${through}: a func cannot recurse (the chip has no stack); write the repetition as a While or For`);
    }
    if (!inst) {
      instances.set(b, 'building');
      b.building.push(name);
      try {
        inst = instantiate(b, name, types, paramNames, body as (...a: unknown[]) => unknown, place?.loc);
      } catch (e) {
        instances.delete(b);
        throw e;
      } finally {
        b.building.pop();
      }
      instances.set(b, inst);
    }
    if (args.length !== types.length) throw b.error(`${name} takes ${types.length} argument${types.length === 1 ? '' : 's'}, not ${args.length}`);
    const exprs = args.map((a, i) => argument(b, name, i, a, types[i]!.ty));
    const callPlace = callerPlace();
    const names = inst.many ? callPlace && destructuredNames(callPlace, inst.results.length) : callPlace && declaredName(callPlace);
    const outs = inst.results.map((e, i) => b.newVar(e.ty, undefined, (Array.isArray(names) ? names[i] : names) ?? `${name}.${inst.many ? `result${i + 1}` : 'result'}`));
    b.emit({ k: 'call', f: inst.index, args: exprs, outs }, callPlace?.loc);
    const values = outs.map((v) => valueOf(v, b));
    return (inst.many ? values : values[0]) as unknown as FuncResults<R>;
  };
  return Object.assign(call, { funcName: name }) as Func<P, R>;
}

/** The func's name: the option, the function's own name, or the name it is declared with. */
function funcName(body: unknown, opts: FuncOptions | undefined, declared: string | undefined, at: string): string {
  if (opts?.name !== undefined) {
    if (typeof opts.name !== 'string' || !NAME.test(opts.name)) throw new DslError(`func()${at}: its name is an identifier of 1 to 64 characters, not ${describeHost(opts.name)}`);
    return opts.name;
  }
  const own = typeof body === 'function' ? body.name : '';
  return own && NAME.test(own) && own !== 'body' ? own : (declared ?? 'func');
}

/** Builds the func's body in kernel `b`: its parameters, statements and results, checked. */
function instantiate(b: KernelBuilder, name: string, types: readonly ParamType[], paramNames: readonly string[], body: (...a: unknown[]) => unknown, loc: string | undefined): Instance {
  const index = b.funcs.length;
  b.funcs.push(undefined);
  const saved = { where: b.whereDepth, loops: b.loops.splice(0), parallel: b.inParallel, func: b.inFunc };
  b.whereDepth = 0;
  b.inParallel = false;
  b.inFunc = name;
  const first = b.vars.length;
  /** An error about the func as a whole: where it was made. */
  const wrong = (why: string, where = loc) => new DslError(`kernel ${b.name}${where ? ` (${where})` : ''}: func ${name} ${why}`);
  try {
    const params = types.map((t, i) => b.newVar(t.ty, undefined, paramNames[i] ?? `${name}.arg${i + 1}`));
    let returned: unknown;
    let stmts: Stmt[];
    try {
      stmts = b.collect(() => {
        returned = body(...params.map((v) => valueOf(v, b)));
      });
    } catch (e) {
      if (!(e instanceof RangeError && /call stack/i.test(e.message))) throw e;
      throw wrong(`ran out of the host's stack while its body was built: does the body call its own TypeScript function (${body.name || 'itself'}) instead of the func? A func cannot recurse (the chip has no stack)`);
    }
    const many = Array.isArray(returned);
    const list: readonly unknown[] = many ? (returned as unknown[]) : [returned];
    if (returned === undefined || list.length === 0)
      throw wrong('returns nothing: its body returns its results, a value or an array of values (code with no results is a plain TypeScript function)');
    const results = list.map((x, i) => result(name, x, many ? i : undefined, wrong));
    const stray = firstAssignment(stmts, (id) => id < first);
    if (stray)
      throw wrong(`assigns ${b.vars[stray.id]!.userName ?? b.vars[stray.id]!.name}, a variable of the kernel: a func gives values back; return it and assign it where the func is called`, stray.loc);
    if (someExpr(stmts, (e) => e.k === 'load') || results.some((e) => containsKind(e, 'load')))
      throw b.error(`func ${name} reads memory: load in the kernel and pass the values to the func`);
    // Named once in the kernel, as variables are: a second func called `helper` shows as helper#2.
    const taken = new Set(b.funcs.map((x) => x?.name));
    let shown = name;
    for (let n = 2; taken.has(shown); n++) shown = `${name}#${n}`;
    const f: FuncAst = { name: shown, params, body: stmts, results, ...(loc ? { loc } : {}) };
    for (let id = first; id < b.vars.length; id++) if (!b.funcOf.has(id)) b.funcOf.set(id, shown);
    b.funcs[index] = f;
    return { index, results, many };
  } finally {
    b.whereDepth = saved.where;
    b.loops.push(...saved.loops);
    b.inParallel = saved.parallel;
    b.inFunc = saved.func;
  }
}

/**
 * Checks that a func's variables are used only in its body: a kernel (or another func) that
 * kept one in a TypeScript variable and reads or sets it is refused, at the statement. (The
 * value would be what the last call left, and the compiler takes a call to change only its
 * results.)
 */
export function checkFuncVariables(b: KernelBuilder): void {
  if (b.funcOf.size === 0) return;
  const misuse = (ss: readonly Stmt[], owner: string | undefined): void => {
    for (const s of ss) {
      for (const inner of childBlocks(s)) misuse(inner, owner);
      const own = (id: number) => b.funcOf.has(id) && b.funcOf.get(id) !== owner;
      const set = (s.k === 'assign' ? [s.v] : setOpaquely(s)).find((v) => own(v.id));
      let read: number | undefined;
      if (!set) someExpr([{ ...s, ...(childBlocks(s).length ? { then: [], else: [], body: [], step: [] } : {}) } as Stmt], (e) => e.k === 'var' && own(e.id) && ((read = e.id), true));
      const id = set?.id ?? read;
      if (id === undefined) continue;
      const v = b.vars[id]!;
      throw new DslError(
        `kernel ${b.name}${s.loc ? ` (${s.loc})` : ''}: ${owner ? `func ${owner}` : 'the kernel'} ${set ? 'sets' : 'reads'} ${v.userName ?? v.name}, a variable of func ${b.funcOf.get(id)} (kept from its body): ` +
          `a func's variables belong to its body; return the value from the func instead`,
      );
    }
  };
  misuse(b.body, undefined);
  for (const f of b.funcs) {
    if (!f) continue;
    misuse(f.body, f.name);
    const stray = f.results.flatMap((e) => varsRead(e)).find((id) => b.funcOf.has(id) && b.funcOf.get(id) !== f.name);
    if (stray !== undefined)
      throw new DslError(`kernel ${b.name}${f.loc ? ` (${f.loc})` : ''}: func ${f.name} returns ${b.vars[stray]!.userName ?? b.vars[stray]!.name}, a variable of func ${b.funcOf.get(stray)}: a func's variables belong to its body`);
  }
}

/** The variables an expression reads. */
function varsRead(e: Expr): number[] {
  return e.k === 'var' ? [e.id] : childExprs(e).flatMap(varsRead);
}

/** A returned value as an expression of this kernel. */
function result(name: string, x: unknown, i: number | undefined, wrong: (why: string) => DslError): Expr {
  const which = i === undefined ? 'its result' : `result ${i + 1}`;
  if (!(x instanceof Vec)) throw wrong(`returns ${describeHost(x)} as ${which}; a func returns Int, Float or Ptr values (or an array of them)`);
  checkOwner(x.owner, `func ${name}`);
  return x.node;
}

/** The first statement, at any depth, that assigns a variable passing `pred`: the variable and where. */
function firstAssignment(ss: readonly Stmt[], pred: (id: number) => boolean): { id: number; loc?: string } | undefined {
  for (const s of ss) {
    const id = (s.k === 'assign' ? [s.v] : setOpaquely(s)).map((v) => v.id).find(pred);
    if (id !== undefined) return { id, ...(s.loc ? { loc: s.loc } : {}) };
    for (const inner of childBlocks(s)) {
      const found = firstAssignment(inner, pred);
      if (found) return found;
    }
  }
  return undefined;
}

/** Argument i as an expression of the parameter's type. */
function argument(b: KernelBuilder, name: string, i: number, a: unknown, ty: Ty): Expr {
  const what = `${name}(...) argument ${i + 1}`;
  if (ty === 'int' || ty === 'float') return exprOf(a as Vec | number, ty, what);
  if (!(a instanceof PtrExpr) || a.ty !== ty) throw b.error(`${what}: expected ${describeTy(ty)}, got ${a instanceof Vec ? describeTy(a.ty) : describeHost(a)}`);
  checkOwner(a.owner, what);
  return a.node;
}

function valueOf(v: VarRef, b: KernelBuilder): IntVar | FloatVar | PtrVar<Elem> {
  return v.ty === 'int' ? new IntVar(v, b) : v.ty === 'float' ? new FloatVar(v, b) : new PtrVar(v, b, storageOf(v.ty));
}
