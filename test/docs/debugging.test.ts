// docs/debugging.md's walk-throughs run as the page shows them. Its `file` blocks are written to
// a folder of their own inside the repository (tsconfig.json's paths map 'qpu-ts' to src/), and
// each `shell` block's first line (`$ qpu ...`, run by bash with `qpu` the command line of this
// checkout) runs there; the rest of the block is what it prints, standard output then standard
// error. A debugger session's `(qpu) COMMAND` lines are the commands it is given (--commands).
// `<!-- shell: approximate LINES -->` (lines of the output, or `all`): numbers on those lines may
// differ (cycle counts change with the compiler and the cycle model; words must not). `...` in a
// line stands for any text (a path that depends on where the tests run).
// DOCS_UPDATE=1 writes what each block printed into the page, where it differs and the block has
// no `...` (its words then need reading again: the page's prose quotes some of the figures).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeBlocks, lineSet } from './markdown.ts';
import { QPU_PROCESS } from '../helpers/cli.ts';
import { HELP } from '../../src/debug/commands.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const DIR = join(ROOT, 'test/docs', `.tmp-debugging-${process.pid}`);
const md = readFileSync(join(ROOT, 'docs/debugging.md'), 'utf8');
const blocks = codeBlocks(md);
const files = blocks.filter((b) => b.marker?.startsWith('file:'));
const shells = blocks.filter((b) => b.marker?.startsWith('shell'));

before(() => {
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, 'tsconfig.json'), JSON.stringify({ extends: '../../../tsconfig.json', include: ['./*.ts', '../../../src/**/*.d.ts'] }));
  for (const f of files) writeFileSync(join(DIR, f.marker!.slice('file:'.length).trim()), f.code);
});
after(() => rmSync(DIR, { recursive: true, force: true }));

/** A line's words with every number blanked: what an approximate line must keep. */
const words = (line: string) => line.replace(/\d[\d,.]*/g, '#');

/** Why `got` is not the output `want` shows, or undefined. */
function mismatch(got: string, want: string, approximate: Set<number> | 'all'): string | undefined {
  const g = got.replace(/\s+$/, '').split('\n');
  const w = want.replace(/\s+$/, '').split('\n');
  if (g.length !== w.length) return `${g.length} lines, not ${w.length}`;
  for (let i = 0; i < w.length; i++) {
    const loose = approximate === 'all' || approximate.has(i + 1);
    const pattern = new RegExp(`^${w[i]!.split('...').map((part) => (loose ? words(part) : part).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    if (!pattern.test(loose ? words(g[i]!) : g[i]!)) return `line ${i + 1}:\n  want ${w[i]}\n  got  ${g[i]}`;
  }
  return undefined;
}

test('the page has its walk-throughs: programs, and the commands that run them', () => {
  assert.ok(files.length >= 5, `${files.length} programs`);
  assert.ok(shells.length >= 6, `${shells.length} commands`);
  assert.ok(shells.some((b) => b.code.includes('(qpu) ')), 'a debugger session');
});

for (const b of shells) {
  const [command, ...out] = b.code.replace(/\n$/, '').split('\n');
  test(`docs/debugging.md:${b.line}: ${command}`, () => {
    assert.match(command!, /^\$ qpu /, `docs/debugging.md:${b.line}: a shell block starts with $ qpu`);
    const commands = out.filter((l) => l.startsWith('(qpu) ')).map((l) => l.slice('(qpu) '.length));
    let line = command!.slice(2);
    if (commands.length) {
      writeFileSync(join(DIR, 'commands.txt'), commands.join('\n') + '\n');
      line += ' --commands commands.txt';
    }
    const qpu = `qpu() { ${QPU_PROCESS.map((x) => `'${x}'`).join(' ')} "$@"; }`;
    const r = spawnSync('bash', ['-c', `${qpu}; ${line}`], { cwd: DIR, encoding: 'utf8', timeout: 120_000, env: { ...process.env, CI: '1' } });
    const m = /^shell(?::\s*approximate\s+(.+))?$/.exec(b.marker!);
    assert.ok(m, `docs/debugging.md:${b.line}: <!-- shell --> or <!-- shell: approximate LINES -->`);
    const approximate = m[1] === undefined ? new Set<number>() : m[1] === 'all' ? ('all' as const) : lineSet(m[1]);
    const why = mismatch(r.stdout + r.stderr, out.join('\n'), approximate);
    if (process.env.DOCS_UPDATE && !b.code.includes('...')) update(b.code, `${command}\n${(r.stdout + r.stderr).replace(/\n*$/, '\n')}`);
    assert.equal(why, undefined, `docs/debugging.md:${b.line}: ${why}\nprinted:\n${r.stdout}${r.stderr}`);
  });
}

/** Replaces a block's text in the page (DOCS_UPDATE). */
function update(was: string, now: string): void {
  const page = readFileSync(join(ROOT, 'docs/debugging.md'), 'utf8');
  if (was !== now && page.includes(was)) writeFileSync(join(ROOT, 'docs/debugging.md'), page.replace(was, now));
}

test("the page's list of the debugger's commands is the debugger's own help", () => {
  const list = blocks.find((b) => b.code.startsWith('commands ('));
  assert.ok(list, 'the commands are listed');
  assert.equal(list.code.replace(/\n$/, ''), HELP);
});

test('the programs type-check', () => {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(DIR, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `tsc:\n${r.stdout}${r.stderr}`);
});
