// Where in the user's source the host is: stack frames read for the first place outside qpu-ts
// (statements remember where they were written; messages say file:line:col), and errors' stacks
// cut so that their first frame is the user's call, not qpu-ts's own `throw` (an error at the
// user's `await k(a)` shows that line first, and Node prints that line of source).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

/** Whether a stack line is a frame in qpu-ts's own files. */
function ownFrame(line: string): boolean {
  const at = frameLocation(line);
  if (!at) return false;
  const file = at.file.startsWith('file://') ? filePath(at.file) : at.file;
  return file.startsWith(LIB_DIR);
}

/**
 * Drops the frames in qpu-ts's own files (src/ or dist/) from the top of an error's stack, when
 * a frame of the user's follows them, so that the stack starts where the user called qpu-ts.
 * With `entry`, a function on the stack now (the one that caught the error), the stack is first
 * taken again from the frames above it (Error.captureStackTrace(e, entry)). Returns the error.
 */
export function userStack<E>(e: E, entry?: (...a: never[]) => unknown): E {
  if (!(e instanceof Error)) return e;
  let stack: unknown;
  try {
    // The stack again from here, above `entry`: the error's own stack may hold only qpu-ts's frames (V8 keeps 10).
    if (entry) Error.captureStackTrace(e, entry);
    stack = e.stack;
  } catch {
    return e;
  }
  if (typeof stack !== 'string') return e;
  const lines = stack.split('\n');
  const first = lines.findIndex((l) => /^\s+at /.test(l));
  if (first < 0) return e;
  let i = first;
  while (i < lines.length && ownFrame(lines[i]!)) i++;
  if (i === first || i === lines.length) return e;
  try {
    Object.defineProperty(e, 'stack', { value: [...lines.slice(0, first), ...lines.slice(i)].join('\n'), writable: true, configurable: true, enumerable: false });
  } catch {
    // a frozen error keeps its stack
  }
  return e;
}

/**
 * The functions of an API object, each wrapped so that what it throws has the user's call as
 * its first frame (userStack), whatever depth in qpu-ts it came from.
 */
export function userEntries<T extends Record<string, unknown>>(api: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, f] of Object.entries(api)) {
    if (typeof f !== 'function') {
      out[key] = f;
      continue;
    }
    const entry = function (this: unknown, ...args: unknown[]): unknown {
      try {
        return (f as (...a: unknown[]) => unknown).apply(this, args);
      } catch (e) {
        throw userStack(e, entry);
      }
    };
    Object.defineProperty(entry, 'name', { value: key });
    out[key] = entry;
  }
  return Object.freeze(out) as T;
}

/** The source line of "file:line:col", if the file can be read (cached; the debugger and profiles show it). */
const files = new Map<string, string[] | undefined>();
export function sourceLine(loc: string | undefined): string | undefined {
  const m = loc && /^(.*):(\d+):\d+$/.exec(loc);
  if (!m) return undefined;
  if (!files.has(m[1]!)) {
    try {
      files.set(m[1]!, readFileSync(m[1]!, 'utf8').split('\n'));
    } catch {
      files.set(m[1]!, undefined);
    }
  }
  return files.get(m[1]!)?.[Number(m[2]) - 1];
}
