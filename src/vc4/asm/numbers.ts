// The value of a number token (lexer.ts): a 32-bit integer, decimal or `0x` hex, or a float
// that single precision holds. Scanned by hand, not with a regular expression, so that the time
// is linear in the token's length however it is malformed.

import { shown } from './text.ts';

export interface NumberValue {
  /** The 32-bit pattern: the integer (two's complement) or the float's bits. */
  readonly bits: number;
  readonly isFloat: boolean;
  /** The numeric value as written (for range checks and small immediates). */
  readonly value: number;
}

/** The smallest normal single-precision float, 2^-126: the QPU flushes smaller ones to zero. */
export const FLOAT32_MIN_NORMAL = 2 ** -126;

const SPELLINGS = 'numbers are decimal (42), hex (0x2A) or floats (1.5, 1e-3, 2.0f)';

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isHexDigit = (c: string) => isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * Parses a number token. Returns the value, or a message saying why it is not a number or does
 * not fit: integers must fit in 32 bits (signed or unsigned), floats in single precision as a
 * normal number (the QPU flushes denormals to zero).
 */
export function parseNumber(text: string): NumberValue | string {
  const neg = text.startsWith('-');
  const body = neg ? text.slice(1) : text;
  if (body[0] === '0' && (body[1] === 'x' || body[1] === 'X')) return parseHex(body.slice(2), neg, text);
  const end = scanDecimal(body);
  if (typeof end === 'string') return `'${shown(text)}' is not a number: ${end}`;
  if (!end.isFloat) return intValue(Number.parseInt(body, 10) * (neg ? -1 : 1), text);
  // A mantissa with a nonzero digit whose value parses as 0 (1e-400) underflowed: too small, not zero.
  const underflow = /[1-9]/.test(body.split(/[eE]/)[0]!);
  return floatValue(Number.parseFloat(body) * (neg ? -1 : 1), text, underflow);
}

function parseHex(digits: string, neg: boolean, text: string): NumberValue | string {
  let clean = '';
  for (const c of digits) {
    if (c === '_') continue;
    if (!isHexDigit(c)) return `'${shown(text)}' is not a number: '${shown(c)}' is not a hex digit (0-9, a-f, with _ between digits)`;
    clean += c;
  }
  if (clean === '') return `'${shown(text)}' is not a number: hex digits (0-9, a-f) are expected after 0x`;
  return intValue(Number.parseInt(clean, 16) * (neg ? -1 : 1), text);
}

/** Checks `digits[.digits][e[+-]digits][f]` (at least one mantissa digit); says if it is a float. */
function scanDecimal(body: string): { isFloat: boolean } | string {
  const n = body.length;
  let i = 0;
  let mantissaDigits = 0;
  let isFloat = false;
  let j = digitsEnd(body, i);
  mantissaDigits += j - i;
  i = j;
  if (body[i] === '.') {
    isFloat = true;
    j = digitsEnd(body, i + 1);
    mantissaDigits += j - i - 1;
    i = j;
  }
  if (mantissaDigits === 0) return `digits expected; ${SPELLINGS}`;
  if (body[i] === 'e' || body[i] === 'E') {
    isFloat = true;
    i++;
    if (body[i] === '+' || body[i] === '-') i++;
    j = digitsEnd(body, i);
    if (j === i) return `the exponent needs digits (1e-3, 2.5e+8)`;
    i = j;
  }
  if (body[i] === 'f' || body[i] === 'F') {
    isFloat = true;
    i++;
  }
  if (i < n) return `unexpected '${shown(body[i]!)}'; ${SPELLINGS}`;
  return { isFloat };
}

function digitsEnd(text: string, i: number): number {
  while (isDigit(text[i])) i++;
  return i;
}

function intValue(v: number, text: string): NumberValue | string {
  if (!Number.isSafeInteger(v) || v < -(2 ** 31) || v > 2 ** 32 - 1)
    return `${shown(text)} does not fit in 32 bits (the range is -2147483648 to 0xFFFFFFFF)`;
  return { bits: v >>> 0, isFloat: false, value: v };
}

function floatValue(v: number, text: string, nonzero: boolean): NumberValue | string {
  f32[0] = v;
  const f = f32[0]!;
  if (!Number.isFinite(f))
    return (
      `${shown(text)} does not fit in a 32-bit float (the largest is 3.4028235e38); ` +
      `an infinity is written as its bits: 0x7F800000, or 0xFF800000 for -infinity`
    );
  if ((v !== 0 || nonzero) && Math.abs(f) < FLOAT32_MIN_NORMAL)
    return (
      `${shown(text)} is too small for a 32-bit float: the QPU flushes magnitudes below 1.1754944e-38 ` +
      `(denormals) to zero; write 0.0 for zero`
    );
  return { bits: u32[0]!, isFloat: true, value: v };
}
