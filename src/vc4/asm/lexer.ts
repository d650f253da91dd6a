// Splits one line of QPU assembly into tokens, each with its column, so that every error can
// say file:line:col. The grammar is described in docs/asm.md; numbers.ts gives number tokens
// their value.

import { charAt, codePointName, showChar } from './text.ts';

export type TokenKind =
  | 'word' // identifiers, mnemonics, register names, labels
  | 'suffix' // the part after a dot glued to a word: `nop.tend`, `ra5.16a`
  | 'directive' // `.dword` at the start of a statement
  | 'number'
  | 'punct'; // , ; : [ ] >> << -

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** 1-based column of the first character. */
  readonly col: number;
  /** 1-based column of the last character. */
  readonly end: number;
}

export class LexError extends Error {
  constructor(
    message: string,
    readonly col: number,
  ) {
    super(message);
  }
}

// Character classes by comparison, not regular expressions: the lexer looks at each character
// of a line a bounded number of times, so a megabyte-long line takes milliseconds.
const isDigit = (c: string) => c >= '0' && c <= '9';
const isWordStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isWordChar = (c: string) => isWordStart(c) || isDigit(c);
const PUNCT = new Set([',', ';', ':', '[', ']', '-']);

/**
 * The next token at or after index `i` of the line, or undefined at its end or its comment
 * (`#` to the end of the line). `prev` is the token before, which a `.` may be glued to.
 */
export function nextToken(line: string, i: number, prev: Token | undefined): Token | undefined {
  // No closures here or below: under tsx every closure created costs a property definition,
  // which a megabyte of short lines would pay a million times.
  while (i < line.length) {
    const c = line[i]!;
    if (c === '#') return undefined;
    if (c !== ' ' && c !== '\t' && c !== '\r') return scanToken(line, i, prev !== undefined && prev.end === i ? prev : undefined);
    i++;
  }
  return undefined;
}

const token = (kind: TokenKind, line: string, textStart: number, start: number, end: number): Token => ({
  kind,
  text: line.slice(textStart, end),
  col: start + 1,
  end,
});

/** The token that starts at index `start`; `glued` is the token that ends right there, if any. */
function scanToken(line: string, start: number, glued: Token | undefined): Token {
  const c = line[start]!;
  const next = line[start + 1] ?? '';
  if (c === '.') {
    if ((glued?.kind === 'word' || glued?.kind === 'suffix') && isWordChar(next))
      return token('suffix', line, start + 1, start, wordEnd(line, start + 1));
    if (isDigit(next)) return token('number', line, start, start, scanNumber(line, start));
    if (isWordStart(next)) return token('directive', line, start + 1, start, wordEnd(line, start + 1));
    throw new LexError(`a '.' here must start a suffix (like .tend), a directive or a number`, start + 1);
  }
  if (isDigit(c) || (c === '-' && (isDigit(next) || (next === '.' && isDigit(line[start + 2] ?? '')))))
    return token('number', line, start, start, scanNumber(line, c === '-' ? start + 1 : start));
  if (isWordStart(c)) return token('word', line, start, start, wordEnd(line, start));
  if ((c === '>' && next === '>') || (c === '<' && next === '<')) return token('punct', line, start, start, start + 2);
  if (PUNCT.has(c)) return token('punct', line, start, start, start + 1);
  throw new LexError(unexpectedChar(line, start), start + 1);
}

function wordEnd(line: string, j: number): number {
  while (j < line.length && isWordChar(line[j]!)) j++;
  return j;
}

function unexpectedChar(line: string, i: number): string {
  const ch = charAt(line, i);
  const code = ch > '~' || ch < ' ' ? ` (${codePointName(ch)})` : '';
  return `unexpected character '${showChar(ch)}'${code}`;
}

/**
 * Scans a number token: everything that could belong to one (letters, digits, `_`, `.`, and a
 * sign after a decimal exponent's `e`), so that `12abc` or `0x_` is one token that parseNumber
 * can call "not a number", rather than a number glued to a word.
 */
function scanNumber(line: string, i: number): number {
  const n = line.length;
  const hex = line[i] === '0' && (line[i + 1] === 'x' || line[i + 1] === 'X');
  let j = i;
  while (j < n) {
    const c = line[j]!;
    const exponentSign = (c === '+' || c === '-') && !hex && (line[j - 1] === 'e' || line[j - 1] === 'E');
    if (isWordChar(c) || c === '.' || exponentSign) j++;
    else break;
  }
  return j;
}
