// Building a kernel: the record of statements a kernel's TypeScript function makes when it runs
// once, at kernel() time. Language values and statements exist only while a kernel is being
// built; using one outside (or in another kernel) is an error that says so. Every statement
// remembers where in the user's source it was written, so errors can point at it.
//
// Every variable has a name for messages, unique in its kernel, read from the user's source: a
// variable made by `const q = Int(...)`, `let done = Float(...)`, `const p = Ptr(Float)(...)`, a
// class field `readonly prev = Float()` or `this.prev = Float()` is called q, done, p, prev, since
// the builder knows the file, line and column of the call and the text before it on that line
// says what it declares (declaredName). Anything else (a destructuring, an array of variables, a
// line that cannot be read) falls back to v<id>; `Int(x, 'name')` names one explicitly. Names
// come only from a line that plainly declares that one variable, and never cause an error.

import type { FuncAst, Stmt, Ty, VarInfo, VarRef } from '../source/ast.ts';
import { callerLocation, userStack } from './frames.ts';

export { callerLocation, callerPlace, frameLocation, type SourcePlace, userEntries, userStack } from './frames.ts';

/** A mistake in a kernel, found while building it: names the kernel and the statement. */
export class DslError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DslError';
    userStack(this);
  }
}

/** A loop whose blocks are being built (loops.ts's Loop): what Break and Continue check. */
export interface OpenLoop {
  readonly kind: 'While' | 'For';
  /** While its For's step is being built. */
  inStep: boolean;
}

export class KernelBuilder {
  readonly vars: VarInfo[] = [];
  /** The statement lists being filled, innermost last. */
  private readonly blocks: Stmt[][] = [[]];
  /** Inside Where: only assignments, calls, scatters and nested Where. */
  whereDepth = 0;
  /** The stream statements made so far (streams.ts numbers them). */
  streams = 0;
  /** The loops whose blocks are being built, innermost last (loops.ts's Loop). */
  readonly loops: OpenLoop[] = [];
  /** While a parallelFor's body is being built (parallel.ts). */
  inParallel = false;
  /** While a func's body is being built (funcs.ts): its name; only what a func may hold is accepted. */
  inFunc: string | undefined = undefined;
  /** The func each variable of a func's body belongs to (its parameters and what its body made), by id. */
  readonly funcOf = new Map<number, string>();
  /** The funcs whose bodies are being built, outermost first (funcs.ts: for the message when one calls itself). */
  readonly building: string[] = [];
  /** The functions the kernel calls, by the index calls name them with (a place held while one's body is built). */
  readonly funcs: (FuncAst | undefined)[] = [];
  /** Whether assert statements are kept (kernel()'s option assertions). */
  assertions = true;
  finished = false;
  /** The deepest nest of blocks reached, for the message when the host's stack runs out. */
  deepest = 0;

  /** The names messages show, each used once: the first `i` is `i`, the next `i#2`. */
  private readonly shown = new Set<string>();

  constructor(readonly name: string) {}

  get body(): Stmt[] {
    return this.blocks[0]!;
  }

  /**
   * A new variable. `name` is its internal name (a parameter's; else v<id>), `shown` the name
   * messages and dumps use (default: `name`), made unique in the kernel with a #2, #3, ... suffix.
   */
  newVar(ty: Ty, name?: string, shown?: string): VarRef {
    const id = this.vars.length;
    const internal = name ?? `v${id}`;
    this.vars.push({ id, ty, name: internal, userName: this.unique(shown ?? internal) });
    return { k: 'var', id, ty };
  }

  private unique(name: string): string {
    let out = name;
    for (let n = 2; this.shown.has(out); n++) out = `${name}#${n}`;
    this.shown.add(out);
    return out;
  }

  /** Appends a statement to the innermost block, with where it was written (`at`, when the caller already knows it). */
  emit<S extends Stmt>(s: S, at?: string): S {
    if (this.whereDepth > 0 && s.k !== 'assign' && s.k !== 'where' && s.k !== 'scatter' && s.k !== 'call')
      throw this.error(`${STMT_NAMES[s.k] ?? s.k} inside Where: only assignments, calls, scatters and nested Where may appear there`);
    if (this.inFunc !== undefined && !IN_FUNC.has(s.k))
      throw this.error(
        `${STMT_NAMES[s.k] ?? s.k} inside func ${this.inFunc}: a func computes values from its parameters (assignments, If, While, For, Where, calls); ` +
          `access memory, wait for other QPUs, assert and print in the kernel, or make it a plain TypeScript function, which inlines`,
      );
    const loc = at ?? callerLocation();
    const withLoc = (loc ? { ...s, loc } : s) as S;
    this.blocks[this.blocks.length - 1]!.push(withLoc);
    return withLoc;
  }

  /** The last statement of the innermost block (for Else). */
  last(): Stmt | undefined {
    const b = this.blocks[this.blocks.length - 1]!;
    return b[b.length - 1];
  }

  /** Runs `fn` collecting the statements it makes into a new list. */
  /** The statements `fn` makes, run now (given `arg`: a loop's handle). */
  collect<A>(fn: (arg: A) => void, arg?: A): Stmt[] {
    if (typeof fn !== 'function') throw this.error(`a block is a function (() => { ... }), not ${describeHost(fn)}`);
    const deferred = deferredKind(fn);
    if (deferred) throw this.error(blockDeferredMessage(`a block is ${deferred}`));
    this.blocks.push([]);
    this.deepest = Math.max(this.deepest, this.blocks.length - 1);
    let result: unknown;
    try {
      result = fn(arg as A);
    } catch (e) {
      this.blocks.pop();
      throw e;
    }
    const later = deferredResult(result);
    if (later) {
      this.blocks.pop();
      throw this.error(blockDeferredMessage(`a block returned ${later}`));
    }
    return this.blocks.pop()!;
  }

  /** An error about the statement being made now, naming the kernel and the source line. */
  error(what: string): DslError {
    const loc = callerLocation();
    return new DslError(`kernel ${this.name}${loc ? ` (${loc})` : ''}: ${what}`);
  }
}

/**
 * What kind of function would run later rather than now (an async or generator function), or
 * undefined. A kernel's function and its blocks run once, while kernel() builds the kernel: an
 * async one stops at its first `await` and a generator does not run at all, so the statements
 * after would be lost (or land nowhere) while the kernel builds without error.
 */
export function deferredKind(fn: (...a: never[]) => unknown): string | undefined {
  const kind = Object.getPrototypeOf(fn)?.[Symbol.toStringTag];
  return kind === 'AsyncFunction' ? 'an async function' : kind === 'GeneratorFunction' ? 'a generator function' : kind === 'AsyncGeneratorFunction' ? 'an async generator function' : undefined;
}

/** What a block's or a kernel function's value says about work left for later: a Promise or a generator, or undefined. */
export function deferredResult(r: unknown): string | undefined {
  if (r === null || (typeof r !== 'object' && typeof r !== 'function')) return undefined;
  let then: unknown;
  try {
    then = (r as { then?: unknown }).then;
  } catch {
    return undefined;
  }
  if (typeof then === 'function') {
    // Its rejection (the statements after an await, run outside the kernel) must not surface later as an unhandled one.
    Promise.resolve(r).catch(() => {});
    return 'a Promise';
  }
  const tag = Object.prototype.toString.call(r);
  return tag === '[object Generator]' || tag === '[object AsyncGenerator]' ? 'a generator' : undefined;
}

/** The message for a block that would run later: why that cannot work, and what to write. */
export function blockDeferredMessage(what: string): string {
  return `${what}: kernel() runs a kernel's function and its blocks once, now, to build the kernel, so an async function stops at its first await (and a generator does not run) and the statements after it would be lost; remove async and await (compute host values before calling kernel())`;
}

const STMT_NAMES: Partial<Record<Stmt['k'], string>> = {
  store: 'a store (*p = x)',
  storeNB: 'store',
  receive: 'receive',
  gather: 'gather',
  stream: 'stream',
  next: 's.next()',
  scatter: 'a scatter',
  sema: 'a semaphore',
  mutex: 'the mutex',
  barrier: 'barrier()',
  combine: 'an operation across QPUs',
  assert: 'assert',
  print: 'print',
};

/** What a func's body may hold (funcs.ts). */
const IN_FUNC: ReadonlySet<Stmt['k']> = new Set<Stmt['k']>(['assign', 'if', 'while', 'for', 'where', 'break', 'continue', 'call']);

let currentBuilder: KernelBuilder | undefined;

/** The kernel being built, if one is. */
export function current(): KernelBuilder | undefined {
  return currentBuilder;
}

/** The kernel being built, or an error naming the construct used outside one. */
export function builder(what: string): KernelBuilder {
  if (!currentBuilder) {
    const at = callerLocation();
    throw new DslError(`${what} can only be used inside a kernel's function, while kernel() builds it${at ? ` (at ${at})` : ''}`);
  }
  return currentBuilder;
}

/** Builds a kernel: runs `fn` with `b` as the current builder. */
export function withBuilder<T>(b: KernelBuilder, fn: () => T): T {
  if (currentBuilder) throw new DslError(`kernel ${b.name} is defined inside kernel ${currentBuilder.name}'s function; define kernels separately`);
  currentBuilder = b;
  try {
    return fn();
  } catch (e) {
    // The kernel's function and the constructs it calls recurse once per nested block.
    if (e instanceof RangeError && /call stack/i.test(e.message))
      throw new DslError(
        `kernel ${b.name}: blocks nested ${b.deepest} deep when the host's stack ran out while the kernel was built; ` +
          `nest less (combine conditions with and/or, or split the kernel)`,
      );
    throw e;
  } finally {
    currentBuilder = undefined;
    b.finished = true;
  }
}

/** Throws if `owner` is not the kernel being built: a value used outside its kernel. */
export function checkOwner(owner: KernelBuilder, what: string): KernelBuilder {
  const b = builder(what);
  if (b !== owner)
    throw b.error(`${what} uses a value of kernel ${owner.name}; values belong to the kernel whose function made them`);
  return b;
}

/** A host value as an error message shows it: its kind, and its value when short. */
export function describeHost(a: unknown): string {
  if (typeof a === 'number') return String(a);
  if (typeof a === 'string') return `the string ${JSON.stringify(a.length > 40 ? a.slice(0, 40) + '...' : a)}`;
  if (typeof a === 'bigint') return `the bigint ${a}n`;
  if (a === null || a === undefined || typeof a === 'boolean') return String(a);
  const kind = typeof a === 'object' ? ((a as object).constructor?.name ?? 'object') : typeof a;
  return `${/^[AEIOUaeiou]/.test(kind) ? 'an' : 'a'} ${kind === 'Object' ? 'object' : kind}`;
}
