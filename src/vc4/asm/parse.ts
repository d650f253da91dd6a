// Parses the tokens of one line into a statement: labels, then an ALU line, a load immediate,
// a branch, a semaphore or a directive. Only the shape is checked here; build.ts gives the
// statement its meaning (registers, immediates, which ALU, which fields).

import { LexError, nextToken, type Token } from './lexer.ts';
import { type NumberValue, parseNumber } from './numbers.ts';
import { shown } from './text.ts';
import { LANES } from '../tables.ts';

export class SyntaxError_ extends Error {
  constructor(
    message: string,
    readonly col: number,
  ) {
    super(message);
  }
}

export interface Suffix {
  readonly text: string;
  readonly col: number;
}

export interface Rotation {
  /** Rotation towards higher element numbers (element 0 moves to element `by`), or by r5. */
  readonly by: number | 'r5';
  readonly col: number;
}

export type Operand =
  | { kind: 'name'; name: string; col: number; suffixes: Suffix[]; rot?: Rotation }
  | { kind: 'number'; value: NumberValue; text: string; col: number; rot?: Rotation }
  | { kind: 'vector'; values: NumberValue[]; col: number };

export interface OpPart {
  kind: 'op';
  name: string;
  col: number;
  suffixes: Suffix[];
  operands: Operand[];
}

export type Part = OpPart | { kind: 'read'; col: number; operand: Operand } | { kind: 'signal'; name: string; col: number };

export type Statement =
  | { kind: 'alu'; parts: Part[]; col: number }
  | { kind: 'ldi'; col: number; suffixes: Suffix[]; operands: Operand[]; ignored?: IgnoredBits }
  | { kind: 'branch'; relative: boolean; col: number; suffixes: Suffix[]; operands: Operand[]; ignored?: IgnoredBits }
  | { kind: 'sema'; col: number; suffixes: Suffix[]; operands: Operand[]; mnemonic: string; ignored?: IgnoredBits }
  | { kind: 'dword'; col: number; hi: number; lo: number };

/** `; ignored 0xHHHHHHHH_LLLLLLLL`: bits of the word that the hardware ignores, set as given. */
export interface IgnoredBits {
  readonly hi: number;
  readonly lo: number;
  readonly col: number;
}

export interface ParsedLine {
  labels: { name: string; col: number }[];
  statement?: Statement;
}

/** Mnemonics of the signals that may stand alone as a part (vc4asm style): `ldtmu0`, `thrend`. */
export type SignalLookup = (name: string) => number | undefined;

/**
 * The tokens of one line, lexed as the parser asks for them: a line that goes wrong early stops
 * there, however much text follows.
 */
class Cursor {
  private readonly toks: Token[] = [];
  private lexedTo = 0;
  private lexedAll = false;
  private i = 0;
  constructor(private readonly line: string) {}
  peek(k = 0): Token | undefined {
    while (!this.lexedAll && this.toks.length <= this.i + k) {
      const t = nextToken(this.line, this.lexedTo, this.toks[this.toks.length - 1]);
      if (t) {
        this.toks.push(t);
        this.lexedTo = t.end;
      } else this.lexedAll = true;
    }
    return this.toks[this.i + k];
  }
  next(): Token | undefined {
    const t = this.peek();
    if (t) this.i++;
    return t;
  }
  atEnd(): boolean {
    return this.peek() === undefined;
  }
  /** Column for "something expected here": the next token, or just after the last one. */
  col(): number {
    return this.peek()?.col ?? (this.toks[this.toks.length - 1]?.end ?? 0) + 1;
  }
  isPunct(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t !== undefined && t.kind === 'punct' && t.text === text;
  }
}

export function parseLine(line: string, isSignal: SignalLookup): ParsedLine {
  const c = new Cursor(line);
  try {
    const labels: { name: string; col: number }[] = [];
    while (c.peek()?.kind === 'word' && c.isPunct(':', 1)) {
      const t = c.next()!;
      c.next();
      labels.push({ name: t.text, col: t.col });
    }
    if (c.atEnd()) return { labels };
    return { labels, statement: parseStatement(c, isSignal) };
  } catch (e) {
    if (e instanceof LexError) throw new SyntaxError_(e.message, e.col);
    throw e;
  }
}

function parseStatement(c: Cursor, isSignal: SignalLookup): Statement {
  const first = c.peek()!;
  if (first.kind === 'directive') return parseDirective(c);
  if (first.kind !== 'word')
    throw new SyntaxError_(`expected an instruction (an ALU op, ldi, bra, brr, sema or a label), found '${shown(first.text)}'`, first.col);
  const mnemonic = first.text.toLowerCase();
  if (mnemonic === 'ldi' || mnemonic === 'bra' || mnemonic === 'brr' || mnemonic === 'sema' || mnemonic === 'sacq' || mnemonic === 'srel') {
    c.next();
    const suffixes = parseSuffixes(c);
    const operands = parseOperands(c);
    // The SHA-256 series ends these lines with ';' too (`ldi ra1, 0x16;`); after it, only the
    // bits the hardware ignores may follow (`; ignored 0x...`).
    let ignored: IgnoredBits | undefined;
    while (c.isPunct(';')) {
      c.next();
      const t = c.peek();
      if (!ignored && t?.kind === 'word' && t.text === 'ignored') {
        c.next();
        ignored = { ...word64(c, 'ignored'), col: t.col };
      }
    }
    if (!c.atEnd()) throw new SyntaxError_(`unexpected '${shown(c.peek()!.text)}' after the operands of ${mnemonic}`, c.col());
    if (mnemonic === 'ldi') return { kind: 'ldi', col: first.col, suffixes, operands, ignored };
    if (mnemonic === 'bra' || mnemonic === 'brr')
      return { kind: 'branch', relative: mnemonic === 'brr', col: first.col, suffixes, operands, ignored };
    return { kind: 'sema', col: first.col, suffixes, operands, mnemonic, ignored };
  }
  const parts: Part[] = [];
  for (;;) {
    if (c.atEnd()) break;
    if (c.isPunct(';')) {
      c.next();
      continue;
    }
    parts.push(parsePart(c, isSignal));
    if (!c.atEnd() && !c.isPunct(';'))
      throw new SyntaxError_(`expected ';' between the parts of an instruction, found '${shown(c.peek()!.text)}'`, c.col());
  }
  return { kind: 'alu', parts, col: first.col };
}

function parsePart(c: Cursor, isSignal: SignalLookup): Part {
  const t = c.next()!;
  if (t.kind !== 'word') throw new SyntaxError_(`expected an operation, found '${shown(t.text)}'`, t.col);
  const name = t.text.toLowerCase();
  if (name === 'read') {
    const operand = parseOperand(c);
    return { kind: 'read', col: t.col, operand };
  }
  if (isSignal(name) !== undefined && (c.atEnd() || c.isPunct(';')))
    return { kind: 'signal', name, col: t.col };
  const suffixes = parseSuffixes(c);
  const operands = c.atEnd() || c.isPunct(';') ? [] : parseOperands(c);
  return { kind: 'op', name, col: t.col, suffixes, operands };
}

function parseSuffixes(c: Cursor): Suffix[] {
  const out: Suffix[] = [];
  while (c.peek()?.kind === 'suffix') {
    const t = c.next()!;
    out.push({ text: t.text.toLowerCase(), col: t.col });
  }
  return out;
}

function parseOperands(c: Cursor): Operand[] {
  const out: Operand[] = [parseOperand(c)];
  while (c.isPunct(',')) {
    c.next();
    out.push(parseOperand(c));
  }
  return out;
}

function parseOperand(c: Cursor): Operand {
  const t = c.next();
  if (!t) throw new SyntaxError_('expected an operand', c.col());
  let op: Operand;
  if (t.kind === 'word' || (t.kind === 'punct' && t.text === '-')) {
    op = { kind: 'name', name: t.text, col: t.col, suffixes: t.kind === 'word' ? parseSuffixes(c) : [] };
  } else if (t.kind === 'number') {
    op = { kind: 'number', value: num(t), text: t.text, col: t.col };
  } else if (t.kind === 'punct' && t.text === '[') {
    const values: NumberValue[] = [];
    for (;;) {
      const v = c.next();
      if (!v || v.kind !== 'number') throw new SyntaxError_('expected a number in the per-element list', v?.col ?? c.col());
      if (values.length === LANES) throw new SyntaxError_(`a per-element value lists ${LANES} elements, not more`, v.col);
      values.push(num(v));
      const sep = c.next();
      if (sep?.kind === 'punct' && sep.text === ']') break;
      if (!(sep?.kind === 'punct' && sep.text === ','))
        throw new SyntaxError_("expected ',' or ']' in the per-element list", sep?.col ?? c.col());
    }
    return { kind: 'vector', values, col: t.col };
  } else throw new SyntaxError_(`expected an operand, found '${shown(t.text)}'`, t.col);
  if (c.isPunct('>>') || c.isPunct('<<')) {
    const dir = c.next()!;
    const amount = c.next();
    let by: number | 'r5';
    if (amount?.kind === 'word' && amount.text.toLowerCase() === 'r5') {
      if (dir.text === '<<') throw new SyntaxError_('a rotation by r5 is written >> r5 (towards higher elements)', dir.col);
      by = 'r5';
    } else if (amount?.kind === 'number') {
      const v = num(amount);
      if (v.isFloat || v.value < 0 || v.value > 15)
        throw new SyntaxError_(`a rotation is by 0 to 15 elements, not ${shown(amount.text)}`, amount.col);
      by = dir.text === '>>' ? v.value : (16 - v.value) % 16;
    } else throw new SyntaxError_(`expected a rotation amount (1-15 or r5) after '${dir.text}'`, amount?.col ?? c.col());
    op.rot = { by, col: dir.col };
  }
  return op;
}

function num(t: Token): NumberValue {
  const v = parseNumber(t.text);
  if (typeof v === 'string') throw new SyntaxError_(v, t.col);
  return v;
}

function parseDirective(c: Cursor): Statement {
  const d = c.next()!;
  const name = d.text.toLowerCase();
  if (name !== 'dword')
    throw new SyntaxError_(`unknown directive .${shown(d.text)} (the only directive is .dword 0xHHHHHHHH_LLLLLLLL)`, d.col);
  const { hi, lo } = word64(c, '.dword');
  if (!c.atEnd()) throw new SyntaxError_(`unexpected '${shown(c.peek()!.text)}' after .dword`, c.col());
  return { kind: 'dword', col: d.col, hi, lo };
}

/** A 64-bit hex number, 0xHHHHHHHH_LLLLLLLL (the `_` optional), after `what`. */
function word64(c: Cursor, what: string): { hi: number; lo: number } {
  const t = c.next();
  const hex = t?.kind === 'number' ? hexDigits(t.text) : undefined;
  if (!t || !hex) throw new SyntaxError_(`${what} takes one 64-bit hex number, like 0x100009E7_009E7000`, t?.col ?? c.col());
  if (hex.length > 16) throw new SyntaxError_(`${shown(t.text)} has more than 64 bits`, t.col);
  const padded = hex.padStart(16, '0');
  return { hi: Number.parseInt(padded.slice(0, 8), 16), lo: Number.parseInt(padded.slice(8), 16) };
}

/** The digits of a `0x` hex literal without its `_` separators, or undefined if it is not one. */
function hexDigits(text: string): string | undefined {
  if (!text.startsWith('0x') && !text.startsWith('0X')) return undefined;
  let out = '';
  for (let i = 2; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '_') continue;
    if (Number.isNaN(Number.parseInt(ch, 16))) return undefined;
    out += ch;
  }
  return out || undefined;
}
