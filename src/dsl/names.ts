// Names from the user's source: a variable's name read from the line that declares it
// (`const q = Int(...)`), or given explicitly (`Int(x, 'q')`); a kernel's parameter names read
// from its function where the kernel is made. The host's own text of a function is not enough:
// tools that run TypeScript (tsx, through esbuild) rename a parameter that shares a name with a
// top-level variable of the file (`n` becomes `n2`), so the file itself is read, once.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { describeHost, type SourcePlace } from './builder.ts';

/** Source files larger than this are not read for names. */
const MAX_SOURCE_BYTES = 4 << 20;
/** Files whose lines are kept (the oldest is dropped beyond this). */
const MAX_FILES = 64;
/** An explicit name's characters: 1 to 64, no white space or backquotes (which quote statements in messages). */
const NAME_TEXT = /^[^\s`]{1,64}$/u;

/** Each file's lines, read once; null when it cannot be read. */
const sources = new Map<string, readonly string[] | null>();

function linesOf(file: string): readonly string[] | null {
  let lines = sources.get(file);
  if (lines !== undefined) return lines;
  try {
    lines = readSource(file)?.split(/\r?\n/) ?? null;
  } catch {
    lines = null;
  }
  if (sources.size >= MAX_FILES) sources.delete(sources.keys().next().value!);
  sources.set(file, lines);
  return lines;
}

/**
 * A source file's text, if it is a regular file of at most MAX_SOURCE_BYTES; else null. The name
 * comes from a stack frame, which a program can set to anything (`//# sourceURL=`): a FIFO, a
 * device or /dev/zero must neither block nor be read without end, so the file is opened without
 * blocking, checked on the open descriptor, and read for its stated size at most.
 */
function readSource(file: string): string | null {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_SOURCE_BYTES) return null;
    const buf = Buffer.alloc(st.size);
    let got = 0;
    for (let n = 1; got < buf.length && n > 0; got += n) n = readSync(fd, buf, got, buf.length - got, got);
    return buf.toString('utf8', 0, got);
  } finally {
    closeSync(fd);
  }
}

const IDENT = '[A-Za-z_$][\\w$]*';
/** What a declaration looks like before its `=`: const/let/var, class-field modifiers, or this. */
const HEAD = '(?:(?:export\\s+)?(?:const|let|var)\\s+|(?:(?:public|private|protected|readonly|static|override|declare)\\s+)*|this\\.)';
/** An optional type annotation (`: IntVar`), which has no `=` in it. */
const ANNOTATION = '(?:!?\\s*:[^=]*)?';
/**
 * What may stand between the `=` and the place V8 gives the call: part of the callee (`qpu.` of
 * qpu.Int, `Ptr(Float` of Ptr(Float)(...)), never an open call (`f(Int(0))` declares no Int).
 */
const CALLEE = '(?:[\\w$.]*\\bPtr\\s*\\(\\s*[\\w$.]*\\s*\\)?|[\\w$.]+)?';
const SAME_LINE = new RegExp(`^\\s*${HEAD}(${IDENT})\\s*${ANNOTATION}=\\s*${CALLEE}\\s*$`);
/** `const q =` ending a line, the call on the next. */
const LINE_BEFORE = new RegExp(`^\\s*${HEAD}(${IDENT})\\s*${ANNOTATION}=\\s*$`);
const ONLY_CALLEE = new RegExp(`^\\s*${CALLEE}\\s*$`);

/** The name the source declares with the call at `at`, or undefined when it declares no one plain name. */
export function declaredName(at: SourcePlace): string | undefined {
  if (!at.direct) return undefined;
  const lines = linesOf(at.file);
  const text = lines?.[at.line - 1];
  if (text === undefined || at.col < 1 || at.col > text.length + 1) return undefined;
  const before = text.slice(0, at.col - 1);
  const m = SAME_LINE.exec(before) ?? SAME_LINE.exec(lastPart(before));
  if (m) return m[1];
  const element = ARRAY_ELEMENT.exec(before);
  if (element) {
    const index = elementIndex(element[2]!);
    if (index !== undefined) return `${element[1]}[${index}]`;
  }
  const pushed = PUSHED.exec(before);
  if (pushed) return `${pushed[1]}[]`;
  if (at.line >= 2 && ONLY_CALLEE.test(before)) return LINE_BEFORE.exec(lines![at.line - 2]!)?.[1];
  return undefined;
}

/**
 * The names a destructuring declaration gives the `count` values of the call at `at`
 * (`const [lo, hi] = cmpx(a, b)`), or undefined when the line is not that.
 */
export function destructuredNames(at: SourcePlace, count: number): string[] | undefined {
  if (!at.direct) return undefined;
  const text = linesOf(at.file)?.[at.line - 1];
  if (text === undefined || at.col < 1 || at.col > text.length + 1) return undefined;
  const m = DESTRUCTURING.exec(text.slice(0, at.col - 1));
  const names = m?.[1]!.split(',').map((x) => x.trim());
  return names && names.length === count && names.every((x) => new RegExp(`^${IDENT}$`).test(x)) ? names : undefined;
}
const DESTRUCTURING = new RegExp(`^\\s*(?:const|let|var)\\s*\\[([^\\[\\]=]*)\\]\\s*=\\s*${CALLEE}\\s*$`);

/** `vs.push(` right before the call: an element of vs (`vs[]`; the kernel's names add #2, #3 to the next ones). */
const PUSHED = new RegExp(`(?:^|[\\s;{(])(${IDENT})\\.push\\(\\s*${CALLEE}\\s*$`);

/** `const vs = [` and what follows it on the line, up to the call (`Int(0), Int(1), `). */
const ARRAY_ELEMENT = new RegExp(`^\\s*${HEAD}(${IDENT})\\s*${ANNOTATION}=\\s*\\[([^\\[\\]'"\`]*)$`);

/**
 * The text after the last `;` or top-level `,` of a line's start: the second declaration of
 * `const i = Int(0); const s = Float(0)` or of `let a = Int(0), b = Float(0)`. Text with quotes
 * is not split (a `;` in a string would cut it in the wrong place).
 */
function lastPart(before: string): string {
  if (/['"`]/.test(before)) return before;
  let depth = 0;
  let cut = 0;
  for (let i = 0; i < before.length; i++) {
    const c = before[i]!;
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
    else if (c === ';' || (c === ',' && depth === 0)) cut = i + 1;
  }
  return before.slice(cut);
}

/**
 * The index of the element a call makes in an array literal, from the literal's text before
 * the call (`Int(0), Int(1), ` makes the third: 2): complete elements only, separated by commas
 * outside brackets; undefined when the text is not that.
 */
function elementIndex(inside: string): number | undefined {
  let depth = 0;
  let commas = 0;
  for (const c of inside) {
    if (c === '(' || c === '{') depth++;
    else if (c === ')' || c === '}') {
      if (depth === 0) return undefined;
      depth--;
    } else if (c === ',' && depth === 0) commas++;
  }
  if (depth !== 0) return undefined;
  // What follows the last comma is white space: the call is the start of an element.
  return /,?\s*$/.exec(inside)![0].includes(',') || inside.trim() === '' ? commas : undefined;
}

/** An explicit name (`Int(x, 'name')`): a short string without white space or backquotes; else why not, for a message. */
export function explicitName(name: unknown): { name: string } | { error: string } {
  if (typeof name === 'string' && NAME_TEXT.test(name)) return { name };
  return { error: `a variable's name is a string of 1 to 64 characters without spaces or backquotes, not ${describeHost(name)}` };
}

/**
 * The parameter names of the function passed as the second argument of the call at `at`
 * (`kernel([Ptr(Int)], function k(p) {...})` or `kernel([...], (p) => {...})`), as the source
 * writes them; undefined when the source cannot be read that way or does not give `count`.
 */
export function sourceParameterNames(at: SourcePlace, count: number): string[] | undefined {
  const lines = linesOf(at.file);
  if (!lines || at.line < 1 || at.line > lines.length) return undefined;
  const text = lines.slice(at.line - 1, at.line + 200).join('\n');
  const open = text.indexOf('(', at.col - 1);
  if (open < 0) return undefined;
  const second = afterTopLevelComma(text, open + 1);
  if (second < 0) return undefined;
  const m = FUNCTION_HEAD.exec(text.slice(second));
  const params = m?.[1] ?? m?.[2];
  if (params === undefined) return undefined;
  const names = params.trim() === '' ? [] : params.split(',').map((p) => /^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*)/.exec(p)?.[1]);
  return names.length === count && names.every((n): n is string => n !== undefined) ? names : undefined;
}

/** `function name?(params)`, `async (params) =>`, `(params) =>` or `param =>`, after white space. */
const FUNCTION_HEAD = /^\s*(?:async\s+)?(?:function\b\s*[\w$]*\s*\(([^()]*)\)|\(([^()]*)\)\s*(?::[^=]*)?=>|([A-Za-z_$][\w$]*)\s*=>)/;

/** The index just past the first comma at the top level of the brackets that open before `from`, or -1. */
function afterTopLevelComma(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return -1;
      i = end;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return -1;
      depth--;
    } else if (c === ',' && depth === 0) return i + 1;
  }
  return -1;
}
