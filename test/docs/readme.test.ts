// README.md's first kernel runs and prints what the README shows (a changing figure, the line
// of instructions and time, may differ by a quarter), and its links and pictures resolve.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeBlocks, lineSet, links, outputMatches } from './markdown.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const DIR = join(ROOT, 'test/docs', `.tmp-readme-${process.pid}`);
const md = readFileSync(join(ROOT, 'README.md'), 'utf8');
after(() => rmSync(DIR, { recursive: true, force: true }));

test('the first kernel of README.md runs and prints what the README shows', () => {
  const blocks = codeBlocks(md);
  const program = blocks.find((b) => b.marker === 'run: first-kernel.ts');
  assert.ok(program, 'README.md has a block marked <!-- run: first-kernel.ts -->');
  const output = blocks[blocks.indexOf(program) + 1];
  const approx = output?.marker && /^output(?::\s*approximate\s+(.+))?$/.exec(output.marker);
  assert.ok(output && approx, 'its output follows, marked <!-- output --> or <!-- output: approximate LINES -->');
  assert.ok(program.code.split('\n').filter((l) => l.trim() !== '').length <= 11, 'a first kernel in about ten lines');
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, 'first-kernel.ts'), program.code);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(DIR, 'first-kernel.ts')], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const why = outputMatches(r.stdout, output.code, approx[1] ? lineSet(approx[1]) : new Set());
  assert.equal(why, undefined, `${why}\nprinted:\n${r.stdout}`);
});

test("README.md's links to files in the repository resolve", () => {
  for (const l of links(md)) {
    if (/^[a-z]+:/i.test(l.target) || l.target.startsWith('#')) continue;
    assert.ok(existsSync(join(ROOT, l.target.split('#')[0]!)), `README.md:${l.line}: ${l.target} does not exist`);
  }
});
