// `qpu run`: a user's program run with the command line's options applied to its kernel runs,
// its figures with --stats, its errors at the user's line, and what it refuses.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { QPU_PROCESS, runQpu } from './helpers/cli.ts';

const root = new URL('..', import.meta.url).pathname;
// Inside the repository, so that the programs' `import ... from 'qpu-ts'` finds the sources.
const dir = join(root, 'test', `.tmp-run-${process.pid}`);
mkdirSync(dir, { recursive: true });
after(() => rmSync(dir, { recursive: true, force: true }));

/** `qpu run ARGS` as a process: the program's own output goes to the process's standard output. */
function runProcess(...args: string[]): { code: number | null; out: string; err: string } {
  const [node, ...qpu] = QPU_PROCESS as [string, ...string[]];
  const r = spawnSync(node, [...qpu, 'run', ...args], { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, CI: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

let files = 0;
function program(text: string): string {
  const path = join(dir, `p${files++}.ts`);
  writeFileSync(path, text);
  return path;
}

const SQUARES = `import { Int, index, kernel, Ptr, SharedArray } from 'qpu-ts';
export const squares = kernel([Ptr(Int)], function squares(p) {
  const x = Int(index());
  p.store(x.mul(x));
});
export const other = kernel([Ptr(Int)], function other(p) {
  p.store(Int(7));
});
`;

test('a program runs: its output on standard output, each run\'s figures on standard error with --stats', () => {
  const path = program(`${SQUARES}
const out = SharedArray.int32(16);
const r = await squares(out);
console.log(r.target, r.qpus, Array.from(out).slice(0, 4).join(' '));
`);
  const r = runProcess(path, '--stats');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'emulator 1 0 1 4 9\n');
  assert.match(r.err, /^squares: emulator, 1 QPU: \d+ instructions, [\d,]+ cycles, [\d.]+ us on a Pi 1, [\d.]+ (ms|us|s) here\n$/);
});

test('the options apply to runs that do not set their own; --kernel limits them to one kernel; main gets the words after --', () => {
  const path = program(`${SQUARES}
export async function main(args: string[]) {
  const a = await squares(SharedArray.int32(16));
  const b = await other(SharedArray.int32(16));
  const c = await squares(SharedArray.int32(16), { qpus: 2 });
  console.log(args.join(','), a.target, a.qpus, b.target, b.qpus, c.qpus);
}
`);
  const all = runProcess(path, '--qpus', '4', '--target', 'interpreter', '--', 'x', '-y');
  assert.equal(all.code, 0, all.err);
  assert.equal(all.out, 'x,-y interpreter 4 interpreter 4 2\n');
  const one = runProcess(path, '--qpus', '3', '--kernel', 'other', '--stats');
  assert.equal(one.code, 0, one.err);
  assert.equal(one.out, ' emulator 1 emulator 3 2\n');
  assert.match(one.err, /^other: emulator, 3 QPUs: /);
  assert.equal(one.err.split('\n').length, 2, 'only the runs of other are reported');
});

test('a run past --max-steps stops with how far it got; errors point at the user\'s file', async () => {
  const loop = program(`import { Int, kernel, Ptr, SharedArray, While, any } from 'qpu-ts';
const spin = kernel([Ptr(Int)], function spin(p) {
  const i = Int(0);
  While(any(i.ge(0)), () => i.set(i.add(1)));
  p.store(i);
});
await spin(SharedArray.int32(16));
`);
  const r = await runQpu('run', loop, '--max-steps', '5000');
  assert.equal(r.code, 1);
  assert.match(r.err, /^qpu run: .*p\d+\.ts: kernel spin .*p\d+\.ts:4:\d+ `while any\(i >= 0\)`: .*ran out after 5,000 instructions/);

  const throws = program(`export function main() {\n  throw new Error('no input file');\n}\n`);
  const t = await runQpu('run', throws);
  assert.equal(t.code, 1);
  assert.match(t.err, /^qpu run: .*p\d+\.ts: no input file \(at .*p\d+\.ts:2:9\)\n$/);

  const none = program(`export const x = 1;\n`);
  const n = await runQpu('run', none);
  assert.equal(n.code, 1);
  assert.match(n.err, /ran no kernel: run them at its top level, or export a main function that does/);
});

test('a wrong command line is refused before the program loads', async () => {
  const path = program(`${SQUARES}\nthrow new Error('loaded');\n`);
  for (const [args, message] of [
    [['--target', 'gpu'], /--target gpu: the targets are emulator, interpreter, pi/],
    [['--qpus', '13'], /--qpus 13: expected a whole number from 1 to 12/],
    [['--max-steps', '0'], /--max-steps 0: expected a whole number from 1/],
  ] as const) {
    const r = await runQpu('run', path, ...args);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, message);
  }
  const missing = await runQpu('run', join(dir, 'none.ts'));
  assert.equal(missing.code, 2);
  assert.match(missing.err, /cannot read .*none\.ts: no such file or directory/);
});

test('the program sees process.argv as node would give it, its exit status is passed on, and main runs only when nothing ran', () => {
  const path = program(`${SQUARES}
await squares(SharedArray.int32(16));
console.log(process.argv.slice(2).join(','));
if (process.argv.includes('--fail')) process.exitCode = 1;
export function main() { console.log('main should not run: the program ran a kernel'); }
`);
  const ok = runProcess(path, '--', '-h', '--width', '-2');
  assert.deepEqual([ok.code, ok.out], [0, '-h,--width,-2\n'], ok.err);
  const failed = runProcess(path, '--', '--fail');
  assert.deepEqual([failed.code, failed.out, failed.err], [1, '--fail\n', '']);
});

test('a kernel run nobody awaits that fails, and a main that never settles, are one-line errors', () => {
  const unawaited = program(`import { Int, kernel, Ptr, SharedArray } from 'qpu-ts';
const bad = kernel([Ptr(Int)], function bad(p) {
  p.add(Int(4096)).store(Int(1));
});
void bad(SharedArray.int32(16));
`);
  const r = runProcess(unawaited);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /^qpu run: .*p\d+\.ts: kernel bad in .*p\d+\.ts:3:\d+ .*outside the arrays kernel bad was given/);
  assert.equal(r.err.split('\n').length, 2, r.err);

  const never = program(`${SQUARES}\nexport function main() { return new Promise(() => {}); }\n`);
  const n = runProcess(never);
  assert.equal(n.code, 1);
  assert.equal(n.err, `qpu run: ${never}: its main never finished (a promise that never settles)\n`);
});

test("the README's first kernel runs on every target qpu run offers (one report shape everywhere)", () => {
  const readme = program(`import { Int, index, kernel, Ptr, SharedArray } from 'qpu-ts';
const squares = kernel([Ptr(Int)], function squares(p) {
  const x = Int(index());
  p.store(x.mul(x));
});
const out = SharedArray.int32(16);
const report = await squares(out);
console.log(Array.from(out).join(' '));
console.log(\`\${report.run.total.instructions} instructions: \${(report.run.seconds * 1e6).toFixed(3)} us on a Pi\`);
`);
  for (const target of ['emulator', 'interpreter']) {
    const r = runProcess(readme, '--target', target);
    assert.equal(r.code, 0, `${target}: ${r.err}`);
    assert.match(r.out, /^0 1 4 9 16 .* 225\n\d+ instructions: \d+\.\d{3} us on a Pi\n$/, target);
  }
});

test('--interleave SEED runs every kernel of the program in that random interleaving: a race shows for some seeds', () => {
  const racy = program(`import { If, Int, kernel, me, Ptr, SharedArray } from 'qpu-ts';
const race = kernel([Ptr(Int), Ptr(Int)], function race(p, q) {
  If(me().eq(0), () => p.store(Int(7))).Else(() => q.store(p.load()));
}).setNumQPUs(2);
const p = SharedArray.int32(16), q = SharedArray.int32(16);
await race(p, q);
console.log(q[0]);
`);
  const seen = new Set<string>();
  for (let seed = 1; seed <= 12 && seen.size < 2; seed++) {
    const r = runProcess(racy, '--target', 'interpreter', '--interleave', String(seed));
    assert.equal(r.code, 0, r.err);
    seen.add(r.out.trim());
  }
  assert.deepEqual([...seen].sort(), ['0', '7'], 'the load sees the store under some seeds and not under others');
  const bad = runProcess(racy, '--interleave', 'x');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--interleave/);
});

test('--sfu chip runs every kernel with the SFU off as a chip\'s: a quotient by recip() alone goes wrong, on both targets alike', () => {
  const naive = program(`import { Float, Int, kernel, Ptr, SharedArray } from 'qpu-ts';
const q = kernel([Ptr(Int)], function q(p) {
  const a = Int(p.load());
  p.store(a.toFloat().mul(Float(3).recip()).toInt());
});
const p = SharedArray.int32(16);
for (let l = 0; l < 16; l++) p[l] = 3000 * (l + 1);
await q(p);
console.log(Array.from(p).join(' '));
`);
  const want = Array.from({ length: 16 }, (_, l) => 1000 * (l + 1)).join(' ');
  const out = (target: string, ...more: string[]) => {
    const r = runProcess(naive, '--target', target, ...more);
    assert.equal(r.code, 0, r.err);
    return r.out.trim();
  };
  assert.equal(out('emulator'), want);
  const chip = out('emulator', '--sfu', 'chip');
  assert.notEqual(chip, want);
  assert.equal(out('interpreter', '--sfu', 'chip'), chip);
  const bad = runProcess(naive, '--sfu', 'fast');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--sfu fast: the modes are exact, chip/);
});

test('--profile prints each run\'s profile; --profile-dir writes its statements, annotated assembly and timeline; a bad directory is refused first', () => {
  const path = program(`${SQUARES}
const out = SharedArray.int32(16);
await squares(out);
await other(out, { target: 'interpreter' });
`);
  const r = runProcess(path, '--profile');
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /^profile of kernel squares on 1 QPU: \d+ instructions, [\d,]+ cycles \([\d.]+ us on a Pi\)\nbound by /);
  assert.match(r.err, /\.tmp-run-\d+\/p\d+\.ts:4:\d+  \*p = x \* x\n/, 'the store statement, where the user wrote it');
  assert.match(r.err, /\n\nprofile of kernel other on 1 QPU: .*\(the cycle model's run of its compiled code: the run was on the interpreter\)\n/);
  const profiles = join(dir, 'prof');
  const w = runProcess(path, '--profile-dir', profiles);
  assert.equal(w.code, 0, w.err);
  assert.match(w.err, /profile written to .*squares-1\.txt and .*squares-1\.svg\n/);
  const text = readFileSync(join(profiles, 'squares-1.txt'), 'utf8');
  assert.match(text, /^profile of kernel squares/);
  assert.match(text, /runs\s+cycles\s+%\s+pc\s+instruction\n/);
  assert.match(readFileSync(join(profiles, 'other-2.svg'), 'utf8'), /^<svg /);
  writeFileSync(join(profiles, 'plain'), '');
  const bad = runProcess(path, '--profile-dir', join(profiles, 'plain', 'x'));
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^qpu run: --profile-dir .*plain\/x.*: /);
  assert.equal(bad.out, '');
});
