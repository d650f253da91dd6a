// Splits one line of QPU assembly into tokens, each with its column, so that every error can
// say file:line:col. The grammar is described in docs/asm.md.

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
}

export class LexError extends Error {
  constructor(
    message: string,
    readonly col: number,
  ) {
    super(message);
  }
}

const isWordStart = (c: string) => /[A-Za-z_]/.test(c);
const isWordChar = (c: string) => /[A-Za-z0-9_]/.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';

/** Tokens of a line, without its comment (`#` to the end of the line). */
export function lex(line: string): Token[] {
  const out: Token[] = [];
  const n = line.length;
  let i = 0;
  let lastEnd = -1; // index just past the previous token
  const push = (kind: TokenKind, text: string, col: number, end: number) => {
    out.push({ kind, text, col });
    lastEnd = end;
    i = end;
  };
  while (i < n) {
    const c = line[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#') break;
    const start = i;
    const prev = out[out.length - 1];
    const glued = prev !== undefined && lastEnd === start;
    const next = line[i + 1] ?? '';
    if (c === '.') {
      if (glued && (prev.kind === 'word' || prev.kind === 'suffix') && isWordChar(next)) {
        let j = i + 1;
        while (j < n && isWordChar(line[j]!)) j++;
        push('suffix', line.slice(start + 1, j), start + 1, j);
      } else if (isDigit(next)) {
        const j = scanNumber(line, i);
        push('number', line.slice(start, j), start + 1, j);
      } else if (isWordStart(next)) {
        let j = i + 1;
        while (j < n && isWordChar(line[j]!)) j++;
        push('directive', line.slice(start + 1, j), start + 1, j);
      } else throw new LexError(`a '.' here must start a suffix (like .tend), a directive or a number`, start + 1);
    } else if (isDigit(c) || (c === '-' && (isDigit(next) || (next === '.' && isDigit(line[i + 2] ?? ''))))) {
      const j = scanNumber(line, c === '-' ? i + 1 : i);
      push('number', line.slice(start, j), start + 1, j);
    } else if (isWordStart(c)) {
      let j = i;
      while (j < n && isWordChar(line[j]!)) j++;
      push('word', line.slice(start, j), start + 1, j);
    } else if ((c === '>' && next === '>') || (c === '<' && next === '<')) {
      push('punct', c + c, start + 1, i + 2);
    } else if (',;:[]-'.includes(c)) {
      push('punct', c, start + 1, i + 1);
    } else throw new LexError(`unexpected character '${c}'`, start + 1);
  }
  return out;
}

/** Scans a decimal, hex or floating-point literal (with an optional trailing `f`). */
function scanNumber(line: string, i: number): number {
  const n = line.length;
  if (line[i] === '0' && (line[i + 1] === 'x' || line[i + 1] === 'X')) {
    i += 2;
    while (i < n && /[0-9A-Fa-f_]/.test(line[i]!)) i++;
    return i;
  }
  while (i < n && isDigit(line[i]!)) i++;
  if (line[i] === '.' && isDigit(line[i + 1] ?? '')) {
    i++;
    while (i < n && isDigit(line[i]!)) i++;
  } else if (line[i] === '.' && !isWordStart(line[i + 1] ?? 'x')) {
    i++; // `1.` is a float
  }
  if ((line[i] === 'e' || line[i] === 'E') && /[-+0-9]/.test(line[i + 1] ?? '')) {
    i += 2;
    while (i < n && isDigit(line[i]!)) i++;
  }
  if (line[i] === 'f' && !isWordChar(line[i + 1] ?? ' ')) i++;
  return i;
}

export interface NumberValue {
  /** The 32-bit pattern: the integer (two's complement) or the float's bits. */
  readonly bits: number;
  readonly isFloat: boolean;
  /** The numeric value as written (for range checks and small immediates). */
  readonly value: number;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Parses a number token. Integers must fit in 32 bits (signed or unsigned). */
export function parseNumber(text: string): NumberValue | string {
  const neg = text.startsWith('-');
  const body = neg ? text.slice(1) : text;
  if (/^0x[0-9a-f_]+$/i.test(body)) {
    const v = Number.parseInt(body.slice(2).replace(/_/g, ''), 16) * (neg ? -1 : 1);
    return intValue(v, text);
  }
  if (/^[0-9]+$/.test(body)) return intValue(Number.parseInt(body, 10) * (neg ? -1 : 1), text);
  const m = /^([0-9]*\.?[0-9]*(?:e[-+]?[0-9]+)?)f?$/i.exec(body);
  if (m && m[1] !== '' && m[1] !== '.') {
    const v = Number.parseFloat(m[1]!) * (neg ? -1 : 1);
    if (!Number.isFinite(v)) return `'${text}' is not a finite number`;
    f32[0] = v;
    return { bits: u32[0]!, isFloat: true, value: v };
  }
  return `'${text}' is not a number`;
}

function intValue(v: number, text: string): NumberValue | string {
  if (!Number.isSafeInteger(v) || v < -(2 ** 31) || v > 2 ** 32 - 1)
    return `${text} does not fit in 32 bits (the range is -2147483648 to 0xFFFFFFFF)`;
  return { bits: v >>> 0, isFloat: false, value: v };
}
