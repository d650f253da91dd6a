// User text inside error messages. A message must stay one readable line whatever the input
// holds: control and other invisible characters are escaped (`\x00`, `\u200B`), a character
// outside the Basic Multilingual Plane is one code point (an emoji shows as itself, never as
// half a surrogate pair), and a megabyte-long name is shortened.

/** Code points of user text shown before the rest is elided. */
const MAX_SHOWN = 40;

/** Letters, marks, digits, punctuation and symbols print as themselves; so does a plain space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** One code point as message text: itself if printable, else a JavaScript-style escape. */
export function showChar(ch: string): string {
  if (PRINTABLE.test(ch)) return ch;
  const cp = ch.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase();
  if (cp < 0x100) return `\\x${hex.padStart(2, '0')}`;
  if (cp < 0x10000) return `\\u${hex.padStart(4, '0')}`;
  return `\\u{${hex}}`;
}

/** The code point at index `i` of `text` (a whole surrogate pair, or one lone surrogate). */
export function charAt(text: string, i: number): string {
  return String.fromCodePoint(text.codePointAt(i)!);
}

/** `U+0000`: the code point's number, for a character that does not show well on its own. */
export function codePointName(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** User text (a name, a number, a suffix) for a message: escaped, and elided when long. */
export function shown(text: string): string {
  let out = '';
  let count = 0;
  for (const ch of text) {
    if (count === MAX_SHOWN) return `${out}... (${text.length} characters)`;
    out += showChar(ch);
    count++;
  }
  return out;
}

/** A whole message on one line: every control or invisible character escaped, nothing elided. */
export function oneLineEscaped(text: string): string {
  let out = '';
  for (const ch of text) out += ch === ' ' || PRINTABLE.test(ch) ? ch : showChar(ch);
  return out;
}
