// The examples' shared helpers (the bit-for-bit check, tables and durations, pictures) and the
// examples as commands: `npx tsx examples/NAME.ts` runs one, exit status 0 when its check
// passes, 1 when it fails, 2 for a bad command line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Image, heatColour, readPng, writePng } from '../../examples/lib/png.ts';
import { checkSameBits, runIfMain, seconds, SelfCheckError, table } from '../../examples/lib/report.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('checkSameBits: equal patterns pass; one bit off, -0 for +0 or a different length fail, naming the first', () => {
  checkSameBits('x', new Float32Array([1, 2.5, NaN]), new Float32Array([1, 2.5, NaN]));
  const off = new Float32Array([1, 2, 3]);
  new Int32Array(off.buffer)[1]! ^= 1;
  assert.throws(() => checkSameBits('floats', off, new Float32Array([1, 2, 3])), (e: unknown) => e instanceof SelfCheckError && /floats: 1 of 3 values differ.*\[1\]/.test(e.message));
  assert.throws(() => checkSameBits('zero', new Float32Array([-0]), new Float32Array([0])), SelfCheckError);
  assert.throws(() => checkSameBits('ints', new Int32Array(2), new Int32Array(3)), /2 values, expected 3/);
});

test('seconds and table: three digits with a unit; numbers right-aligned, text left', () => {
  assert.deepEqual([seconds(4.76e-5), seconds(0.00864), seconds(0.123456), seconds(1.5), seconds(250)], ['47.6 us', '8.64 ms', '123 ms', '1.50 s', '250 s']);
  assert.deepEqual(table(['name', 'time'], [['a', '1.5 ms'], ['long name', '12.0 ms']]), ['name           time', 'a            1.5 ms', 'long name   12.0 ms']);
});

test('writePng: an image read back is the same size and pixels; the folder is made', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-png-'));
  try {
    const img = new Image(3, 2);
    img.set(2, 1, heatColour(1));
    img.set(5, 5, [1, 2, 3]); // outside: nothing
    const path = writePng(img, 'p.png', join(dir, 'sub'));
    const png = readPng(readFileSync(path));
    assert.deepEqual([png.width, png.height], [3, 2]);
    assert.deepEqual(Array.from(png.data.subarray(20, 24)), [255, 255, 255, 255]);
    assert.deepEqual(Array.from(png.data.subarray(0, 4)), [0, 0, 0, 255]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('runIfMain: a failed self-check sets exit status 1 and says so on standard error', async (t) => {
  const errors = t.mock.method(console, 'error', () => {});
  await runIfMain(pathToFileURL(process.argv[1]!).href, 'usage', {}, async () => {
    throw new SelfCheckError('3 of 16 values differ');
  });
  assert.equal(process.exitCode, 1);
  process.exitCode = 0;
  assert.match(String(errors.mock.calls[0]?.arguments[0]), /self-check FAILED: 3 of 16 values differ/);
  await runIfMain('file:///elsewhere.ts', 'usage', {}, async () => assert.fail('runs only as the main module'));
});

test('runIfMain: an error qpu-ts gives about a kernel is its message on standard error, no stack, exit status 1', async (t) => {
  const errors = t.mock.method(console, 'error', () => {});
  await runIfMain(pathToFileURL(process.argv[1]!).href, 'usage', {}, async () => {
    throw new Error('kernel sgemm in examples/sgemm.ts:44:29 `gather(bAt)`: QPU 8, pc 273: the run stopped after 5 s');
  });
  assert.equal(process.exitCode, 1);
  process.exitCode = 0;
  assert.equal(String(errors.mock.calls[0]?.arguments[0]), 'kernel sgemm in examples/sgemm.ts:44:29 `gather(bAt)`: QPU 8, pc 273: the run stopped after 5 s');
});

/**
 * Runs `node --import tsx ARGS` in `cwd` (the repository unless told), as on CI (no progress
 * bars), with the repository's tsconfig wherever it runs, so that `qpu-ts` is src/, not dist/.
 */
const node = (args: string[], cwd = root) =>
  spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: '1', TSX_TSCONFIG_PATH: join(root, 'tsconfig.json') },
  });

test('an example runs as a command: output, pictures in out/ of the current directory, exit status 0; a bad command line gives 2', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'qpu-cwd-'));
  try {
    const ok = node([join(root, 'examples/mandelbrot.ts'), '--width', '32', '--height', '8', '--iterations', '16', '--qpus', '1,2'], cwd);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /Every QPU count gives exactly the plain TypeScript's counts/);
    assert.match(ok.stdout, /picture: out\/mandelbrot\.png/);
    assert.deepEqual(readPng(readFileSync(join(cwd, 'out/mandelbrot.png'))).width, 32);
    const bad = node(['examples/mandelbrot.ts', '--width', '20']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /multiple of 16/);
    assert.equal(node(['examples/gcd.ts', '--nonsense']).status, 2);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
