// The bench scripts' command lines (bench/cli.ts): a bad option, a missing directory or shader
// file, or a --json path with nowhere to go ends in one line on standard error and exit status
// 2, before anything runs; a wrong result in one line and status 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BadInput, binWords, outputFile, WrongResult } from '../../bench/cli.ts';
import { checkGpuFftDir, shaderFile } from '../../bench/gpu-fft.ts';
import { checkRelease, RELEASE_1_0 } from '../../bench/published-gpu-fft.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

const bench = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, CI: '1', GPU_FFT_DIR: '', ...env } });

/** Exit status 2 and a one-line message matching `message`, without a stack trace. */
function refused(args: string[], message: RegExp, env?: Record<string, string>): void {
  const r = bench(args, env);
  assert.equal(r.status, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
  assert.match(r.stderr, message);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/);
}

test('bench:published refuses a bad command line in one line, exit status 2', () => {
  refused(['bench/published.ts'], /usage: npm run bench:published/);
  refused(['bench/published.ts', '--gpu-fft-2', '/tmp'], /--gpu-fft-2 needs --gpu-fft too/);
  refused(['bench/published.ts', '--vc4asm-fft', '/tmp'], /--vc4asm-fft needs --gpu-fft too/);
  refused(['bench/published.ts', '--py-videocore', '/nonexistent'], /cannot read \/nonexistent\/sgemm\.bin: ENOENT \(python3 bench\/py-videocore\/assemble\.py/);
  refused(['bench/published.ts', '--gpu-fft', '/nonexistent'], /--gpu-fft \/nonexistent: no such directory/);
  refused(['bench/published.ts', '--gpu-fft-1', '/nonexistent'], /--gpu-fft-1 \/nonexistent: no such directory/);
  refused(['bench/published.ts', '--qpulib', '/nonexistent'], /cannot read \/nonexistent\/rot3d_v1\.bin: ENOENT/);
  refused(['bench/published.ts', '--sha256', ''], /cannot read : ENOENT/);
  refused(['bench/published.ts', '--mandel-qpu', '/nonexistent'], /cannot read \/nonexistent\/gpu_code\.hex: ENOENT \(name a clone of aengelke\/mandel-qpu\)/);
  refused(['bench/published.ts', '--v3dlib', '/nonexistent'], /cannot read \/nonexistent\/rot3d_kernel1\.bin: ENOENT \(bench\/v3dlib\/dump\.cpp writes it\)/);
});

test('bench:fft, bench:gpu-fft and bench:experts refuse a bad command line in one line, exit status 2', () => {
  refused(['bench/fft.ts', '--sizes', '99'], /--sizes 99: sizes from 8 to 20/);
  refused(['bench/fft.ts', '--qpus', '1,2'], /--qpus 1,2: one QPU count/);
  refused(['bench/fft.ts', '--nonsense'], /Unknown option '--nonsense'/);
  refused(['bench/fft.ts', '--gpu-fft', '/nonexistent/hello_fft', '--sizes', '8'], /--gpu-fft \/nonexistent\/hello_fft: no such directory/);
  refused(['bench/gpu-fft.ts'], /usage: npm run bench:gpu-fft/);
  refused(['bench/gpu-fft.ts', '--gpu-fft', '/nonexistent'], /--gpu-fft \/nonexistent: no such directory/);
  refused(['bench/experts.ts', '--json', '/nonexistent/out.json'], /--json \/nonexistent\/out.json: no such directory to write it in/);
  refused(['bench/experts.ts'], /GPU_FFT_DIR=\/nonexistent: no such directory/, { GPU_FFT_DIR: '/nonexistent' });
});

test("a hello_fft directory without a size's shader, or with one that is not a shader, is refused before anything runs", () => {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-gpufft-'));
  try {
    assert.throws(() => checkGpuFftDir(`--gpu-fft ${dir}`, dir, [8]), (e) => e instanceof BadInput && /cannot read GPU_FFT's shader .*shader_256\.hex: ENOENT/.test(e.message));
    mkdirSync(join(dir, 'hex'));
    writeFileSync(join(dir, 'hex/shader_256.hex'), 'not a shader\n');
    assert.throws(() => checkGpuFftDir(`--gpu-fft ${dir}`, dir, [8]), BadInput);
    refused(['bench/gpu-fft.ts', '--gpu-fft', dir, '--sizes', '8'], /shader_256\.hex/);
    // Shaders of every size, but not a release bench:published knows: refused, naming where the release's are.
    for (let log2n = 8; log2n <= 20; log2n++) writeFileSync(shaderFile(dir, log2n), '0x00000000, 0x00000000, // not GPU_FFT\n');
    assert.throws(() => checkRelease('gpu-fft-1', dir, RELEASE_1_0), (e) => e instanceof BadInput && /its shaders are not GPU_FFT 1\.0's, which are in raspberrypi\/userland, .* at commit 5c34cc2/.test(e.message));
    refused(['bench/published.ts', '--gpu-fft', dir], /its shaders are not GPU_FFT 3\.0's/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('outputFile passes a path with a directory to go in and refuses one without; the errors are the bench\'s own', () => {
  assert.equal(outputFile('--json', undefined), undefined);
  assert.equal(outputFile('--json', join(tmpdir(), 'x.json')), join(tmpdir(), 'x.json'));
  assert.throws(() => outputFile('--json', '/nonexistent/x.json'), BadInput);
  assert.ok(!(new WrongResult('x') instanceof BadInput));
});

test('binWords reads whole 64-bit instructions, low word first, and refuses a file that is not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'binwords-'));
  try {
    const file = join(dir, 'k.bin');
    writeFileSync(file, new Uint8Array([1, 0, 0, 0, 2, 0, 0, 0]));
    assert.deepEqual(Array.from(binWords(file)), [1, 2]);
    for (const bytes of [[], [1, 2, 3, 4, 5]]) {
      writeFileSync(file, new Uint8Array(bytes));
      assert.throws(() => binWords(file), (e) => e instanceof BadInput && e.message === `${file}: not 64-bit instructions (${bytes.length} bytes)`);
    }
    assert.throws(() => binWords(join(dir, 'none.bin'), ' (make it so)'), (e) => e instanceof BadInput && /none\.bin: ENOENT \(make it so\)$/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
