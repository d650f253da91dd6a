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

import { fileURLToPath } from 'node:url';
import type { Stmt, Ty, VarInfo, VarRef } from '../source/ast.ts';

/** A mistake in a kernel, found while building it: names the kernel and the statement. */
export class DslError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DslError';
  }
}

export class KernelBuilder {
  readonly vars: VarInfo[] = [];
  /** The statement lists being filled, innermost last. */
  private readonly blocks: Stmt[][] = [[]];
  /** Inside Where: only assignments and nested Where. */
  whereDepth = 0;
  loopDepth = 0;
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
    if (this.whereDepth > 0 && s.k !== 'assign' && s.k !== 'where')
      throw this.error(`${STMT_NAMES[s.k] ?? s.k} inside Where: only assignments and nested Where may appear there (as in QPULib)`);
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
  collect(fn: () => void): Stmt[] {
    if (typeof fn !== 'function') throw this.error(`a block is a function (() => { ... }), not ${describeHost(fn)}`);
    this.blocks.push([]);
    this.deepest = Math.max(this.deepest, this.blocks.length - 1);
    try {
      fn();
    } catch (e) {
      this.blocks.pop();
      throw e;
    }
    return this.blocks.pop()!;
  }

  /** An error about the statement being made now, naming the kernel and the source line. */
  error(what: string): DslError {
    const loc = callerLocation();
    return new DslError(`kernel ${this.name}${loc ? ` (${loc})` : ''}: ${what}`);
  }
}

const STMT_NAMES: Partial<Record<Stmt['k'], string>> = { store: 'a store (*p = x)', storeNB: 'store', receive: 'receive' };

let current: KernelBuilder | undefined;

/** The kernel being built, or an error naming the construct used outside one. */
export function builder(what: string): KernelBuilder {
  if (!current) {
    const at = callerLocation();
    throw new DslError(`${what} can only be used inside a kernel's function, while kernel() builds it${at ? ` (at ${at})` : ''}`);
  }
  return current;
}

/** Builds a kernel: runs `fn` with `b` as the current builder. */
export function withBuilder<T>(b: KernelBuilder, fn: () => T): T {
  if (current) throw new DslError(`kernel ${b.name} is defined inside kernel ${current.name}'s function; define kernels separately`);
  current = b;
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
    current = undefined;
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

// qpu-ts's own files (src/ or dist/) as a path (decoded, with the platform's separators), as stack frames name files.
const LIB_DIR = fileURLToPath(new URL('../', import.meta.url));

/** A place in the user's source: the file as the host names it, the line and column (from 1). */
export interface SourcePlace {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** "file:line:col", the file relative to the working directory, for messages. */
  readonly loc: string;
  /** Whether the language was called from this place itself, not through a library (node_modules) or the host. */
  readonly direct: boolean;
}

/** The first stack frame outside qpu-ts's own files (and the host's, and libraries'). */
export function callerPlace(): SourcePlace | undefined {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  let direct = true;
  for (const line of stack) {
    const at = frameLocation(line);
    if (!at) continue;
    const file = at.file.startsWith('file://') ? filePath(at.file) : at.file;
    if (file.startsWith(LIB_DIR)) continue;
    if (file.startsWith('node:') || /[\\/]node_modules[\\/]/.test(file)) {
      direct = false;
      continue;
    }
    return { file, line: Number(at.line), col: Number(at.col), loc: `${relative(file)}:${at.line}:${at.col}`, direct };
  }
  return undefined;
}

/** "file:line:col" of the first stack frame outside the language's own files. */
export function callerLocation(): string | undefined {
  return callerPlace()?.loc;
}

/**
 * Where a V8 stack frame points (`    at name (file:line:col)` or `    at file:line:col`), read
 * from the end of the line by plain string search: the function's name comes from user code
 * and may be of any length, so no pattern may scan it more than once.
 */
export function frameLocation(frame: string): { file: string; line: string; col: string } | undefined {
  let s = frame.trimEnd();
  if (s.endsWith(')')) s = s.slice(0, -1);
  const c2 = s.lastIndexOf(':');
  const c1 = c2 > 0 ? s.lastIndexOf(':', c2 - 1) : -1;
  if (c1 < 0) return undefined;
  const line = s.slice(c1 + 1, c2);
  const col = s.slice(c2 + 1);
  if (!isDigits(line) || !isDigits(col)) return undefined;
  const open = s.lastIndexOf('(', c1);
  const start = open >= 0 ? open + 1 : s.indexOf('at ') + 3;
  const file = s.slice(start, c1).trim();
  return file ? { file, line, col } : undefined;
}

/** A file: URL's path (the URL's text after file:// if it is not one Node can convert). */
function filePath(url: string): string {
  try {
    return fileURLToPath(url);
  } catch {
    return url.slice('file://'.length);
  }
}

function isDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (const c of s) if (c < '0' || c > '9') return false;
  return true;
}

function relative(file: string): string {
  const cwd = process.cwd() + '/';
  return file.startsWith(cwd) ? file.slice(cwd.length) : file;
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
