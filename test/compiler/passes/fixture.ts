// IR fixtures for the tests of the compiler's passes (QBE's habit): a small IR program as text,
// a pass, and the IR the pass must print. The text is what `qpu compile --dump` prints, which
// ir-parse.ts reads back; `#` starts a comment, and indentation and blank lines do not count.
import assert from 'node:assert/strict';
import type { IrPass } from '../../../src/compiler/driver.ts';
import { parseIr } from '../../../src/compiler/ir-parse.ts';
import { printIr } from '../../../src/compiler/ir.ts';
import { verifyIr } from '../../../src/compiler/verify.ts';

/** IR text as the lines it prints, comments, indentation and blank lines dropped. */
export const irLines = (text: string): string[] => lines(printIr(parseIr(text).code));

/** A text's lines without their indentation, blank lines dropped. */
export const lines = (text: string): string[] => text.split('\n').map((l) => l.trim()).filter(Boolean);

/** Runs `pass` on the IR `input` and returns the IR it prints; the result must pass the IR verifier, as with `verify: true`. */
export function after(pass: IrPass, input: string, opts: { verify?: boolean } = {}): string[] {
  const p = parseIr(input);
  const r = pass(p.code, p.vregs);
  const [code, vregs] = Array.isArray(r) ? [r, p.vregs] : [r.code, r.vregs];
  if (opts.verify ?? true) verifyIr(code, vregs, 'the pass');
  return lines(printIr(code));
}

/** `pass` turns the IR `input` into `output` (both as text; comments do not count). */
export function assertPass(pass: IrPass, input: string, output: string, opts: { verify?: boolean } = {}): void {
  assert.deepEqual(after(pass, input, opts), irLines(output));
}

/** `pass` leaves the IR `input` as it is. */
export function assertUnchanged(pass: IrPass, input: string, opts: { verify?: boolean } = {}): void {
  assert.deepEqual(after(pass, input, opts), irLines(input));
}
