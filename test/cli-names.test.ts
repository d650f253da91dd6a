// File names that hold terminal escape sequences, a right-to-left override or a newline reach
// no message raw: the assembler's file:line:col, the CLI's "cannot read X", validate's findings,
// compile's "written to X" and its qpu emu line all show them escaped, each message one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runQpu } from './helpers/cli.ts';
import { assemble, AsmError } from '../src/vc4/asm/assembler.ts';

const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'qpu-names-'));
/** Characters a terminal obeys: an escape sequence, a right-to-left override, a newline, a bell. */
const HOSTILE = ['\u001b[31mred', 'evil\u202Egnp.', 'two\nlines', 'bell\u0007'];
const RAW = /[\u001b\u202e\u0007]/;

/** Fails if the text has a raw control character, or a line that does not start as a message should. */
function clean(text: string, lineStart: RegExp, what: string): void {
  assert.doesNotMatch(text, RAW, `${what}: ${JSON.stringify(text)}`);
  for (const line of text.split('\n').filter((l) => l !== '')) assert.match(line, lineStart, `${what}: ${JSON.stringify(text)}`);
}

test('the assembler escapes the file name of its diagnostics', () => {
  for (const name of HOSTILE) {
    let message = '';
    try {
      assemble('bogus\nnop', { file: `${name}.qasm` });
    } catch (e) {
      assert.ok(e instanceof AsmError);
      message = e.message;
      assert.equal(e.diagnostics[0]!.file, `${name}.qasm`, 'the diagnostic keeps the name as given');
    }
    assert.match(message, /^\S.*\.qasm:1:1: error: /);
    clean(message, /\.qasm:1:1: error: /, name);
  }
  assert.match((() => { try { assemble('bogus', { file: '\u001b[31mred.qasm' }); } catch (e) { return (e as Error).message; } return ''; })(), /^\\x1B\[31mred\.qasm:1:1: error/);
});

test('every command that names a file escapes it', async () => {
  for (const name of HOSTILE) {
    const bad = join(dir, `${name}.qasm`);
    writeFileSync(bad, 'bogus\nnop\n');
    const good = join(dir, `${name}-ok.qasm`);
    writeFileSync(good, 'nop.tend\nnop\nnop\n');
    const bin = join(dir, `${name}.bin`);
    const cases: [string[], RegExp][] = [
      [['asm', bad, '--hex'], /^(\/.*\.qasm:1:1: error: |qpu asm: 1 error)/],
      [['validate', bad], /^\/.*\.qasm:1:1: error: /],
      [['emu', bad], /^(\/.*\.qasm:1:1: error: |qpu emu: 1 error)/],
      [['asm', join(dir, `${name}-missing.qasm`), '--hex'], /^qpu asm: cannot read '?\/.*-missing\.qasm'?: no such file/],
      [['asm', good, '-o', bin], /^$/],
      [['validate', bin], /^'?\/.*\.bin'?: 3 instructions, 0 errors, 0 warnings$/],
      [['compile', join(root, 'examples/gcd.ts'), '--kernel', 'gcd', '-o', bin], /^(gcd: \d+ instructions for 1 QPU written to '?\/.*\.bin'?|each QPU reads| {2}|run it on the emulator)/],
    ];
    for (const [args, lineStart] of cases) {
      const r = await runQpu(...args);
      const what = `${args.join(' ')}`;
      assert.ok(r.code <= 2, `${what}: status ${r.code}`);
      clean(r.err, lineStart, `${what} (stderr)`);
      if (args[0] !== 'asm') clean(r.out, lineStart, `${what} (stdout)`);
    }
  }
});

test("compile -o's qpu emu line names such a file in bash's $'...', which bash reads back to the name", async () => {
  const { spawnSync } = await import('node:child_process');
  for (const name of [...HOSTILE, "quote'and\\backslash\u{E0001}"]) {
    const bin = join(dir, `${name}.bin`);
    const r = await runQpu('compile', join(root, 'examples/gcd.ts'), '--kernel', 'gcd', '-o', bin);
    assert.equal(r.code, 0, r.err);
    const word = /\n {2}qpu emu (\S+) --qpus/.exec(r.err)?.[1];
    assert.ok(word, r.err);
    assert.doesNotMatch(word, RAW);
    assert.equal(spawnSync('bash', ['-c', `printf %s ${word}`], { encoding: 'utf8' }).stdout, bin, word);
  }
});
