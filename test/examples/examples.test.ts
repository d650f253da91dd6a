// Each example's self-check, as `npx tsx examples/NAME.ts` runs it but at small sizes: the
// kernels on the emulator against plain TypeScript, bit for bit, on several QPU counts; what the
// examples print; the pictures they write (valid PNGs of the right size).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SharedArray } from '../../src/index.ts';
import { main as edges, edgesCheck } from '../../examples/edges.ts';
import { lanesPassFor, main as fft, laneTwiddles, plan, prepareFft, registersPassFor, runFft } from '../../examples/fft.ts';
import { randomSignal } from '../../examples/lib/fft-reference.ts';
import { main as gcd } from '../../examples/gcd.ts';
import { main as hash } from '../../examples/hash.ts';
import { main as heat } from '../../examples/heat.ts';
import { readPng } from '../../examples/lib/png.ts';
import type { ExampleResult } from '../../examples/lib/report.ts';
import { main as mandelbrot, mandelbrot as mandelbrotKernel, mandelbrotScalar, wholeSet } from '../../examples/mandelbrot.ts';
import { main as rot3d } from '../../examples/rot3d.ts';
import { main as sgemm } from '../../examples/sgemm.ts';
import { main as sha256 } from '../../examples/sha256.ts';

const outDir = mkdtempSync(join(tmpdir(), 'qpu-examples-'));
process.on('exit', () => rmSync(outDir, { recursive: true, force: true }));

/** Runs an example quietly into outDir: its result and the lines it printed. */
async function run<O>(main: (o: O & { log: (l: string) => void; outDir: string; progress: boolean }) => Promise<ExampleResult>, opts: O) {
  const lines: string[] = [];
  const result = await main({ ...opts, log: (l) => lines.push(l), outDir, progress: false });
  return { result, text: lines.join('\n') };
}

function picture(path: string, width: number, height: number): void {
  const png = readPng(readFileSync(path));
  assert.deepEqual([png.width, png.height], [width, height], path);
}

function timingsSane(r: ExampleResult, runs: number): void {
  assert.equal(r.timings.length, runs);
  for (const t of r.timings) assert.ok(t.piSeconds > 0 && t.wallSeconds > 0 && t.instructions > 0, JSON.stringify(t));
  assert.ok(r.timings.includes(r.headline));
}

test('hash: MurmurHash3\'s finalizer inlined and as a func agree with plain TypeScript on 1 and 3 QPUs; the func\'s kernel is smaller', async () => {
  const { result, text } = await run(hash, { n: 200, qpus: [1, 3] });
  timingsSane(result, 4);
  const m = /hashInlined: (\d+) instructions; hashCalled: (\d+)/.exec(text);
  assert.ok(m && Number(m[2]) < Number(m[1]) / 2, text);
  assert.match(text, /^200 keys hashed twice, the same as plain TypeScript: /);
});

test("gcd: both versions, QPULib's 16 lines", async () => {
  const { result, text } = await run(gcd, {});
  assert.match(text, /^gcd\(183, 186\) = 3\ngcd\(177, 115\) = 1\n/);
  assert.match(text, /gcd\(129, 102\) = 3\n/);
  assert.match(text, /gcdUnrolled +1 /);
  timingsSane(result, 2);
});

test('rot3D: versions 1 and 2 on 1 QPU, 3 on 1, 2 and 12, bit for bit; the teapot before and after', async () => {
  const { result, text } = await run(rot3d, { vertices: 1920, degrees: 30, qpus: [1, 2, 12] });
  assert.match(text, /1,920 points turned by 30 degrees/);
  timingsSane(result, 5);
  assert.deepEqual(result.timings.map((t) => `${t.kernel}/${t.qpus}`), ['rot3D_1/1', 'rot3D_2/1', 'rot3D_3/1', 'rot3D_3/2', 'rot3D_3/12']);
  picture(result.pictures[0]!, 2 * 480 + 4, 480);
  await assert.rejects(run(rot3d, { vertices: 100 }), /multiple of 384/);
});

test('heat: a small plate for a few steps on 3 QPUs, one step on 1, 5 and 12, bit for bit; the heat map', async () => {
  const { result, text } = await run(heat, { size: 48, steps: 5, qpus: 3, qpuCounts: [1, 5, 12], spots: 6 });
  assert.match(text, /A 48x48 plate, 6 hot spots, 5 time steps on 3 QPUs: exactly/);
  timingsSane(result, 4);
  assert.equal(result.headline.kernel, 'step x 5');
  picture(result.pictures[0]!, 48, 48);
});

test('mandelbrot: escape counts on 1, 3 and 12 QPUs, bit for bit; the picture', async () => {
  const { result, text } = await run(mandelbrot, { width: 64, height: 20, iterations: 40, qpus: [1, 3, 12] });
  assert.match(text, /Escape counts of 1,280 points \(64x20, at most 40 iterations\)/);
  timingsSane(result, 3);
  const [one, , twelve] = result.timings;
  assert.ok(twelve!.piSeconds < one!.piSeconds / 4, 'the Pi time falls with QPUs');
  picture(result.pictures[0]!, 64, 20);
});

test('mandelbrot: the reference interpreter agrees with the plain TypeScript version', () => {
  const view = wholeSet(32, 6, 24);
  const counts = SharedArray.int32(32 * 6);
  mandelbrotKernel.setNumQPUs(2).interpretSync([counts, view.width, view.height, view.left, view.top, view.step, view.maxIter]);
  assert.deepEqual(Array.from(counts), Array.from(mandelbrotScalar(view)));
});

test("sha256: the user's messages first, every hash equal to node:crypto's, on 1 and 3 QPUs", async () => {
  const { result, text } = await run(sha256, { qpus: [1, 3], messages: ['hello world', 'abc'] });
  assert.match(text, /sha256\("hello world"\) = b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9/);
  assert.match(text, /sha256\("abc"\) = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad/);
  timingsSane(result, 2);
  await assert.rejects(run(sha256, { qpus: [1], messages: ['x'.repeat(56)] }), /56 bytes/);
});

test('edges: luminance, histogram, equalisation and Sobel on 1, 3 and 12 QPUs, bit for bit; both pictures', async () => {
  const { result, text } = await run(edges, { size: 96, qpus: [1, 3, 12] });
  assert.match(text, /a rendered scene: 96x72 RGBA8 pixels/);
  assert.match(text, /Every stage on every QPU count gives exactly/);
  timingsSane(result, 3);
  for (const p of result.pictures) picture(p, 96, 72);
});

test('edges: a PNG of the user\'s, and the reference interpreter agreeing with the compiled kernels', async () => {
  const { result } = await run(edges, { size: 48, qpus: [2] });
  const { result: again, text } = await run(edges, { input: result.pictures[0]!, qpus: [4] });
  assert.match(text, /equalised\.png: 48x36 RGBA8 pixels/);
  for (const p of again.pictures) picture(p, 48, 36);
  edgesCheck(40, 2);
});

test('sgemm: A packed and C = A B bit for bit against plain TypeScript on 1, 2 and 12 QPUs, with the GFLOPS the cycle model gives; a size that is no multiple of 32 is refused', async () => {
  const { result, text } = await run(sgemm, { size: 64, qpus: [1, 2, 12] });
  timingsSane(result, 3);
  assert.match(text, /C = A B for 64x64 float32 matrices: every element exactly plain TypeScript's/);
  assert.match(text, /GFLOPS \(model\)\n  packA \+ sgemm +1 /);
  assert.match(result.summary, /^64x64 matrix product, \d+\.\d\d GFLOPS in the cycle model$/);
  await assert.rejects(run(sgemm, { size: 48 }), /sgemm: a size of 48; the kernel needs a multiple of 32/);
});

test('fft: 2^8, 2^9 and 2^11 points (lane passes of radix 64 and 128, registers passes of radix 4 and 8) within a millionth of float64 on 12 QPUs, 2^10 on 1 and 3; a size out of range is refused', async () => {
  const { result, text } = await run(fft, { log2n: [8, 9, 11], qpus: 12 });
  timingsSane(result, 3);
  assert.match(text, /FFT of N complex float32 values on 12 QPUs, checked against float64/);
  assert.match(result.summary, /^FFT of 2,048 points, \d+(\.\d+)? (us|ms) in the cycle model$/);
  for (const m of text.matchAll(/^\s+[\d,]+\s+\d+\s+\S+ \S+\s+[\d,]+\s+(\S+)\s+(\S+)$/gm)) assert.ok(Number(m[1]) < 1e-6 && Number(m[2]) < 1e-6, m[0]);
  assert.equal([...text.matchAll(/e-\d+\s+\d\.\d+e-\d+$/gm)].length, 3, text);
  for (const qpus of [1, 3]) {
    const r = await runFft(10, qpus);
    assert.ok(r.helloRms < 1e-6 && r.randomRms < 1e-6, `2^10 on ${qpus} QPUs: ${r.helloRms}, ${r.randomRms}`);
    assert.equal(r.passes.length, plan(10).length);
  }
  assert.deepEqual(plan(11).map((p) => (p.kind === 'lanes' ? 16 * p.regs : p.r)), [64, 4, 8]);
  assert.deepEqual(plan(16).map((p) => (p.kind === 'lanes' ? 16 * p.regs : p.r)), [128, 8, 8, 8]);
  assert.throws(() => prepareFft(7), /fft: 2\^7 points; the example does 2\^8 to 2\^20/);
  await assert.rejects(run(fft, { log2n: [] }), /fft: no sizes to transform/);
});

test('fft: each kind of pass on the emulator at -O0, -O1 and -O2 is bit for bit the reference interpreter (rows one after another, and p words apart)', () => {
  const n = 2048;
  const input = [SharedArray.float32(n), SharedArray.float32(n)];
  randomSignal(input[0]!, input[1]!);
  const tw = SharedArray.from(laneTwiddles(2), 'float32');
  const twr = [SharedArray.float32(7 * 128), SharedArray.float32(7 * 128)];
  twr.forEach((t, i) => t.forEach((_, k) => (t[k] = Math.fround(Math.sin(k + i)))));
  const lanes = lanesPassFor(2).setNumQPUs(3);
  const [rows, spaced] = [registersPassFor(8, 16).setNumQPUs(3), registersPassFor(8, 128).setNumQPUs(3)];
  const outputs: Float32Array[] = [];
  /** The three passes' outputs, each from `input`, as bits. */
  const results = (emulate: boolean) => {
    const o = [0, 1, 2].map(() => [SharedArray.float32(n), SharedArray.float32(n)] as const);
    outputs.push(...o.flat());
    const [x, y] = [input[0]!, input[1]!];
    const args = [
      [x, y, o[0]![0], o[0]![1], tw, n],
      [x, y, o[1]![0], o[1]![1], twr[0]!, twr[1]!, n],
      [x, y, o[2]![0], o[2]![1], twr[0]!, twr[1]!, n],
    ] as const;
    if (emulate) [lanes.emulateSync(args[0]), rows.emulateSync(args[1]), spaced.emulateSync(args[2])];
    else [lanes.interpretSync(args[0]), rows.interpretSync(args[1]), spaced.interpretSync(args[2])];
    return o.flat().map((a) => Array.from(new Int32Array(a.slice().buffer)));
  };
  const passes = [lanes, rows, spaced];
  try {
    const want = results(false);
    for (const opt of [0, 1, 2] as const) {
      for (const k of passes) k.setOptLevel(opt);
      assert.deepEqual(results(true), want, `-O${opt}`);
    }
  } finally {
    for (const k of passes) k.setOptLevel(2);
    for (const a of [...input, tw, ...twr, ...outputs]) SharedArray.free(a);
  }
});
