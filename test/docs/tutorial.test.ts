// Every TypeScript block of docs/tutorial.md runs and prints what the text says it prints.
// Each block is marked (see markdown.ts): `run` blocks are complete programs, `file` blocks
// modules they import, and an `output` block after a program is what it must print. The blocks
// are written to a folder inside the repository, so that tsconfig.json's paths map 'qpu-ts' to
// src/ as they do for the examples, run one at a time with tsx, type-checked, and removed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Block, codeBlocks, lineSet, outputMatches } from './markdown.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const DIR = join(ROOT, 'test/docs', `.tmp-tutorial-${process.pid}`);
const md = readFileSync(join(ROOT, 'docs/tutorial.md'), 'utf8');
const blocks = codeBlocks(md);

interface Program {
  name: string;
  block: Block;
  output?: { text: string; approximate: Set<number>; line: number };
}

/** The tutorial's programs and modules, with the output shown after each program. */
function programs(): { runs: Program[]; files: Program[] } {
  const runs: Program[] = [];
  const files: Program[] = [];
  for (const b of blocks) {
    const m = b.marker && /^(run|file|output)(?::\s*(.*))?$/.exec(b.marker);
    if (b.lang === 'ts' || b.lang === 'typescript') {
      assert.ok(m && (m[1] === 'run' || m[1] === 'file'), `docs/tutorial.md:${b.line}: a TypeScript block without <!-- run: NAME.ts --> or <!-- file: NAME.ts -->`);
      const name = m[2]!;
      assert.match(name, /^[\w-]+\.ts$/, `docs/tutorial.md:${b.line}: a block's name is a file name ending in .ts`);
      assert.ok(![...runs, ...files].some((p) => p.name === name), `docs/tutorial.md:${b.line}: ${name} is used twice`);
      (m[1] === 'run' ? runs : files).push({ name, block: b });
    } else if (m && m[1] === 'output') {
      const last = runs.at(-1);
      assert.ok(last && last.block.line < b.line && !last.output, `docs/tutorial.md:${b.line}: an output block must follow its program`);
      const approx = m[2] === undefined ? undefined : /^approximate\s+(.+)$/.exec(m[2]);
      assert.ok(m[2] === undefined || approx, `docs/tutorial.md:${b.line}: <!-- output --> or <!-- output: approximate LINES -->`);
      last.output = { text: b.code, approximate: approx ? lineSet(approx[1]!) : new Set(), line: b.line };
    } else {
      assert.ok(!m, `docs/tutorial.md:${b.line}: a ${b.marker} marker on a ${b.lang || 'plain'} block`);
    }
  }
  return { runs, files };
}

const { runs, files } = programs();

before(() => {
  mkdirSync(DIR, { recursive: true });
  for (const p of [...runs, ...files]) writeFileSync(join(DIR, p.name), p.block.code);
});
after(() => rmSync(DIR, { recursive: true, force: true }));

test('the tutorial has programs, and every module is imported by one', () => {
  assert.ok(runs.length >= 5, `only ${runs.length} programs`);
  for (const f of files) {
    const base = f.name.replace(/\.ts$/, '');
    assert.ok(
      runs.some((r) => r.block.code.includes(`'./${base}.ts'`) || r.block.code.includes(`"./${base}.ts"`)),
      `docs/tutorial.md:${f.block.line}: no program imports ${f.name}`,
    );
  }
});

for (const p of runs) {
  test(`docs/tutorial.md:${p.block.line}: ${p.name} runs${p.output ? ' and prints what the text shows' : ''}`, () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(DIR, p.name)], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, `${p.name} exited with ${r.status} (${r.signal ?? 'no signal'}):\n${r.stderr}`);
    if (p.output) {
      const why = outputMatches(r.stdout, p.output.text, p.output.approximate);
      assert.equal(why, undefined, `${p.name}, output at docs/tutorial.md:${p.output.line}: ${why}\nprinted:\n${r.stdout}`);
    }
  });
}

test('the tutorial type-checks', () => {
  writeFileSync(join(DIR, 'tsconfig.json'), JSON.stringify({ extends: '../../../tsconfig.json', include: ['./*.ts', '../../../src/**/*.d.ts'] }));
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(DIR, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `tsc:\n${r.stdout}${r.stderr}`);
});
