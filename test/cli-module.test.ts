// The user's module under qpu compile and qpu run: exports that look like kernels but were not
// made by kernel(...) are refused by name (exit 1), and a module that leaves a timer running
// does not keep the command from exiting once its work is done.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { QPU_PROCESS, runQpu } from './helpers/cli.ts';

const root = new URL('..', import.meta.url).pathname;
// Inside the repository, so that the modules' `import ... from 'qpu-ts'` finds the sources.
const dir = join(root, 'test', `.tmp-module-${process.pid}`);
mkdirSync(dir, { recursive: true });
after(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function module(text: string): string {
  const path = join(dir, `m${files++}.ts`);
  writeFileSync(path, text);
  return path;
}

const KERNEL = `import { Int, index, kernel, Ptr, SharedArray } from 'qpu-ts';
export const squares = kernel([Ptr(Int)], function squares(p) {
  const x = Int(index());
  p.store(x.mul(x));
});
`;

test('qpu compile refuses exports that look like kernels, naming them, with status 1', async () => {
  const lookAlikes: [string, string][] = [
    ['export const fake = Object.assign(() => {}, { kernelName: "fake", ast: {}, code: 1 });', 'fake (it has kernelName, ast and code)'],
    [
      'export const fake = Object.assign(() => {}, { kernelName: "fake", ast: { name: "fake", params: [], vars: [], body: [{}] }, code: () => ({}), numQPUs: 1, setNumQPUs() { return fake; }, setOptLevel() { return fake; } });',
      'fake (it has kernelName, ast and code)',
    ],
    ['export const k = { kernelName: "k" };', 'k (it has kernelName)'],
    ['export function helper() {}\nhelper.code = 3;', 'helper (it has code)'],
  ];
  for (const [text, named] of lookAlikes) {
    const path = module(text);
    const r = await runQpu('compile', path);
    assert.equal(r.code, 1, `${text}: ${r.err}`);
    assert.equal(r.err, `qpu compile: ${path} exports no kernel: ${named} looks like one, but was not made by kernel(...)\n`, text);
  }
});

test('beside a real kernel, a look-alike is ignored unless --kernel names it', async () => {
  const path = module(`${KERNEL}export const fake = Object.assign(() => {}, { kernelName: 'fake', ast: {}, code: 1 });\n`);
  const ok = await runQpu('compile', path);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /\.tend/);
  const named = await runQpu('compile', path, '--kernel', 'fake');
  assert.deepEqual([named.code, named.out], [1, '']);
  assert.equal(named.err, `qpu compile: --kernel fake: ${path} exports fake, which looks like a kernel (it has kernelName, ast and code), but was not made by kernel(...)\n`);
});

test('an export whose properties cannot even be looked at is no kernel, and no crash', async () => {
  const path = module(`export const trap = new Proxy(() => {}, { has() { throw new Error('no'); }, get() { throw new Error('no'); } });\n`);
  const r = await runQpu('compile', path);
  assert.equal(r.code, 1, r.err);
  assert.equal(r.err, `qpu compile: ${path} exports no kernel (make one with kernel(...) and export it)\n`);
});

/** `qpu ARGS` as a process, killed (a failure) if it has not ended within 30 s. */
function qpuProcess(...args: string[]) {
  const [node, ...qpu] = QPU_PROCESS as [string, ...string[]];
  const t = performance.now();
  const r = spawnSync(node, [...qpu, ...args], { cwd: root, encoding: 'utf8', timeout: 30_000, env: { ...process.env, CI: '1' } });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr, ms: performance.now() - t };
}

test('a module that leaves a timer running: qpu compile and qpu run end when their work is done', () => {
  const interval = module(`${KERNEL}setInterval(() => {}, 1000);\n`);
  const compiled = qpuProcess('compile', interval);
  assert.deepEqual([compiled.signal, compiled.code], [null, 0], compiled.err);
  assert.match(compiled.out, /\.tend/);
  // Top-level code: the run, its output, then the end, whatever the interval.
  const ran = qpuProcess('run', module(`${KERNEL}setInterval(() => {}, 1000);\nconst out = SharedArray.int32(16);\nawait squares(out);\nconsole.log(Array.from(out).join(' ').repeat(20000));\n`));
  assert.deepEqual([ran.signal, ran.code], [null, 0], ran.err);
  assert.equal(ran.out.length, '0 1 4 9 16 25 36 49 64 81 100 121 144 169 196 225'.length * 20000 + 1, 'all its output, written before the end');
  // main: the command ends once main has settled, not when an unawaited 10-minute timeout fires.
  const main = qpuProcess(
    'run',
    module(`${KERNEL}export async function main() {\n  setTimeout(() => console.log('too late'), 600_000);\n  const out = SharedArray.int32(16);\n  await squares(out);\n  console.log(out[3]);\n}\n`),
  );
  assert.deepEqual([main.signal, main.code, main.out], [null, 0, '9\n'], main.err);
  // The program's own exit status still counts.
  const status = qpuProcess('run', module(`${KERNEL}setInterval(() => {}, 1000);\nawait squares(SharedArray.int32(16));\nprocess.exitCode = 4;\n`));
  assert.deepEqual([status.signal, status.code], [null, 4], status.err);
});
