// The compiler's dumps that docs/compiler.md shows are what the compiler prints today. Each such
// block follows a marker naming the command that prints it:
//   <!-- dump: qpu compile examples/rot3d.ts --kernel rot3D_2 --dump ir -->
// and shows an excerpt of its output: `...` on a line of its own stands for any lines left out,
// the lines between must be the output's, consecutive and in order, and `# ...` after an
// instruction (spaces before it) is the document's comment. Indentation counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeBlocks } from './markdown.ts';
import { runQpu } from '../helpers/cli.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const DOC = 'docs/compiler.md';

/** The block's lines in runs: each run's lines consecutive in the output, the runs in order. */
function runs(block: string): string[][] {
  const out: string[][] = [[]];
  for (const raw of block.replace(/\n$/, '').split('\n')) {
    if (raw.trim() === '...') {
      out.push([]);
      continue;
    }
    out[out.length - 1]!.push(raw.trim().startsWith('#') ? raw.trimEnd() : raw.replace(/\s+#.*$/, '').trimEnd());
  }
  return out.filter((r) => r.length > 0);
}

/** Where the excerpt does not match the output (undefined: it does). */
export function excerptMismatch(output: string, block: string): string | undefined {
  const lines = output.split('\n').map((l) => l.trimEnd());
  let from = 0;
  for (const run of runs(block)) {
    let at = -1;
    for (let k = from; k + run.length <= lines.length && at < 0; k++) if (run.every((l, j) => lines[k + j] === l)) at = k;
    if (at < 0) return `these lines are not in the output${from ? ' after the lines before them' : ''}, in this order:\n${run.join('\n')}`;
    from = at + run.length;
  }
  return undefined;
}

const blocks = codeBlocks(readFileSync(join(ROOT, DOC), 'utf8'));

test('every dump docs/compiler.md shows is what the compiler prints', async () => {
  const dumps = blocks.filter((b) => b.marker?.startsWith('dump: qpu '));
  assert.ok(dumps.length >= 8, `only ${dumps.length} dumps marked`);
  for (const b of dumps) {
    const args = b.marker!.slice('dump: qpu '.length).split(/\s+/).map((a) => (/^examples\//.test(a) ? join(ROOT, a) : a));
    const r = await runQpu(...args);
    assert.equal(r.code, 0, `${DOC}:${b.line}: ${b.marker}: ${r.err}`);
    const why = excerptMismatch(r.out, b.code);
    assert.equal(why, undefined, `${DOC}:${b.line}: ${b.marker}: ${why}\n\nthe output:\n${r.out}`);
  }
});

test('every block of IR, assembly or a kernel in docs/compiler.md has its command marked', () => {
  const shown = blocks.filter((b) => b.lang === '' && /^\s*(loop\d+:|kernel \w+\(|# loads pipelined|\s+\w+(\.\w+)* %\d+)/m.test(b.code));
  assert.ok(shown.length >= 8);
  for (const b of shown) assert.match(b.marker ?? '', /^dump: qpu compile /, `${DOC}:${b.line}: a dump with no <!-- dump: qpu compile ... --> marker`);
});

test('an excerpt matches only the output in order, consecutive between its gaps', () => {
  const out = 'a:\n    x %1\n    y %2   \n    z\nb:\n    w\n';
  assert.equal(excerptMismatch(out, '    x %1        # a comment\n    y %2\n...\n    w\n'), undefined);
  assert.equal(excerptMismatch(out, 'a:\n...\nb:\n'), undefined);
  assert.match(excerptMismatch(out, '    x %1\n    z\n')!, /not in the output/);
  assert.match(excerptMismatch(out, 'b:\n...\na:\n')!, /after the lines before them/);
  assert.match(excerptMismatch(out, 'x %1\n')!, /not in the output/, 'indentation counts');
});
