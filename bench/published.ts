// The cycle model against timings published for real Pis (docs/timing.md, "The model against
// the Pi"): other people's machine code, run on the emulator as its own host program runs it,
// its results checked, its modelled time set beside the published one.
//
//   npm run bench:published -- [--qpulib DIR] [--sha256 FILE] [--gpu-fft DIR [--gpu-fft-2 DIR] [--vc4asm-fft DIR]]
//     [--gpu-fft-1 DIR] [--py-videocore DIR] [--mandel-qpu DIR ...] [--v3dlib DIR] [--json out.json]
//
// --qpulib DIR: rot3d_v1.bin, rot3d_v2.bin, rot3d_v3.bin and heat_step.bin, QPULib's own code for
//   its Rot3D and HeatMap examples (bench/qpulib/dump.cpp writes them). Published (QPULib's
//   README): rot3D on 192,000 vertices v1 40 ms, v2 18 ms (1 QPU), v3 16 ms (2 QPUs); heat,
//   2000 steps, 49.34 s, 24.91 s and 20.36 s on 1, 2 and 4 QPUs.
// --sha256 FILE: the SHA-256 series' `final` program (QPU/SHA-256/final, its assembler's .bin,
//   or its source after m4, assembled here with --syntax series). Published: 3.1 Mhash/s on 12
//   QPUs.
// --gpu-fft DIR: Broadcom's GPU_FFT (hello_fft's directory; bench/gpu-fft.ts runs it). Published
//   (gpu_fft.txt, release 3.0, Pi 1): each size from 2^8 to 2^20 points in batches of 1, and
//   2^8 to 2^15 in batches of 10, the host's launch included. The launch through the V3D's
//   registers, for batches of up to 5 x 2^12 points, is fitted here: to 2^8's two times, by
//   least squares, with the model's times of a cold job and of one with the code cached (a
//   batch's later jobs); larger batches go through the mailbox, 100 us (bench/published-gpu-
//   fft.ts). 2^20 is fitted too: how a DMA
//   store's cost splits between its fixed part and its rows (QPULib's 16-row stores pin only the
//   sum) was set by it. 2^21 and 2^22 are not run.
// --gpu-fft-2 DIR: GPU_FFT's release 2.0, hello_fft's directory as raspberrypi/userland had it at
//   commit 8f542a1 (2014-12-29; `git archive 8f542a1 host_applications/linux/apps/hello_pi/
//   hello_fft | tar -x`). Its shaders differ from 3.0's at every size; its host code is 3.0's but
//   for the paths to the peripherals, so it runs the same way, with 3.0's launch (and needs
//   --gpu-fft for it). Published (its gpu_fft.txt, Pi 1): 2^8 to 2^21 in batches of 1, 2^8 to
//   2^15 in batches of 10. None is fitted: 22 predictions.
// --gpu-fft-1 DIR: GPU_FFT's release 1.0, hello_fft's directory at raspberrypi/userland commit
//   5c34cc2 (2014-01-30): 2.0's shaders, word for word, and 3.0's host code up to 2^17 points,
//   but launched through the mailbox, "100us" its gpu_fft.txt says, a round figure: the launch is
//   fitted to its 2^8 in batches of 1 (that time less the model's cold run). Published there:
//   2^8 to 2^17 in batches of 1, 2, 5, 10, 20 and 50, on a Pi 1: 1 fitted, 59 predictions
//   (bench/published-gpu-fft.ts).
// --vc4asm-fft DIR: vc4asm's optimised hello_fft, maazl/vc4asm's sample/hello_fft at commit
//   6e64cfd (2015-09-20) with hex/ assembled from its qasm/ by that commit's vc4asm (`vc4asm -V -c
//   hex/shader_256.hex ../../share/vc4.qinc qasm/gpu_fft_256.qasm`, and so on); bench/vc4asm-fft.ts
//   runs it. Published: a user's medians on a Pi 1 B, 2^8 to 2^16 points in batches of 1
//   (maazl/vc4asm issue 5). Its launch below 2^15 points is 3.0's (needs --gpu-fft). 9 predictions.
//   With it, a second table: its time over 3.0's as maazl timed both on his own Pi, 2^8 to 2^16
//   points in batches of 1 and 10, against the model's ratio (bench/published-same-pi.ts): 18
//   predictions of another kind, which a Pi's clocks move far less than its times.
// --py-videocore DIR: py-videocore's SGEMM, DIR/sgemm.bin as bench/py-videocore/assemble.py
//   writes it (bench/py-videocore.ts runs it). Published: 8.32 GFLOPS for 96x363 by 363x3072 on
//   12 QPUs (its author's Qiita article, quoted in doe300/VC4CL issue 91; the README says 8), on
//   a Pi before the Pi 3, launched through the mailbox (100 us, gpu_fft.txt 1.0 and 2.0). Not
//   fitted; run on model 1 (model 2's time is the same: it does not use the system cache).
// --mandel-qpu DIR (may be given again): aengelke/mandel-qpu's Mandelbrot, DIR/gpu_code.hex as
//   the repository holds it at commit 2ad5a8b, 1f10f34 or later (bench/mandel-qpu.ts runs it and
//   tells them apart). Published: 37.151 s at 2ad5a8b, 33.781 s from 1f10f34 on (its README), on a
//   Pi 2 at 250 MHz, 90 launches through the mailbox. Not fitted; run on model 2, the launches
//   shared among the machine's cores (23-26 billion instructions a release: 10-30 minutes).
// --v3dlib DIR: V3DLib's Rot3D (kernels 1 and 2) and HeatMap, DIR/rot3d_kernel1.bin,
//   rot3d_kernel2.bin and heatmap_vector.bin as bench/v3dlib/dump.cpp writes them (bench/v3dlib.ts
//   runs them). Published: wimrijnders/V3DLib's Doc/Examples.md, on a Pi 3 Model B: Rot3D of
//   192,000 vertices, kernel 1 on 1 QPU and kernel 2 on 1, 4, 8 and 12; HeatMap, 1,500 steps of
//   512 x 506 on 1, 2, 4, 8 and 12. Not fitted; run on model 3: 10 predictions.
// None of the programs is part of qpu-ts: they are other projects' code (the series' has no
// licence), so they are read from where the user put them.
//
// Each figure says whether it was used to fit the model's parameters (docs/timing.md says which
// and how); the others are predictions, the test of the model. The goal: every figure within 25%.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Machine, type RunResult } from '../src/emulator/machine.ts';
import { type Allocation, GpuMemory } from '../src/common/memory.ts';
import { STALL_CAUSES } from '../src/emulator/qpu.ts';
import { PI_TIMING } from '../src/emulator/timing.ts';
import { DEFAULT_MODEL, PI_MODELS } from '../src/emulator/models.ts';
import { parseArgs } from 'node:util';
import { BadInput, binWords, outputFile, readInput, runBenchMain } from './cli.ts';
import { samePiFigures } from './published-same-pi.ts';
import { V3DLIB_FILES, v3dlibFigures } from './v3dlib.ts';
import { checkRelease, type Figure, gpuFftFigures, MAILBOX_LAUNCH_US, ReleaseModel, RELEASE_1_0, RELEASE_2_0, RELEASE_3_0, RELEASE_VC4ASM, type Release } from './published-gpu-fft.ts';
import { assemble } from '../src/vc4/asm/assembler.ts';
import { floatBits } from '../src/vc4/tables.ts';
import { readSgemm, runSgemm, SGEMM_FLOPS } from './py-videocore.ts';
import { HEIGHT, MANDEL_MODEL, type MandelKernel, MAX_ITERS, QPUS, readMandel, runMandel, WIDTH } from './mandel-qpu.ts';


/** Runs `program` on `qpus` QPUs, QPU q reading `uniforms(q)`, after `setup` has filled memory. */
function launch(program: Uint32Array, qpus: number, setup: (m: Machine) => (q: number) => number[], strict = true) {
  const m = new Machine(new GpuMemory(64 * 1024 * 1024));
  const loaded = m.load(program);
  const uniforms = setup(m);
  const addrs = Array.from({ length: qpus }, (_, q) => {
    const u = uniforms(q);
    const a = m.memory.alloc(4 * u.length, `uniforms${q}`);
    u.forEach((w, i) => m.memory.writeWord(a.address + 4 * i, w | 0));
    return a.address;
  });
  return { m, r: m.run(loaded, addrs, { maxSteps: Infinity, strict }) };
}

const stalls = (r: RunResult) => STALL_CAUSES.filter((c) => r.total.stalls[c]).map((c) => `${c} ${r.total.stalls[c]}`).join(', ') || 'none';

// ---------------------------------------------------------------- QPULib

const floats = (m: Machine, a: Allocation, n: number) => m.memory.floats.slice(m.memory.index(a.address), m.memory.index(a.address) + n);
/** Largest relative difference from a float64 reference (QPU floats round toward zero). */
const worst = (got: Float32Array, want: (i: number) => number) => got.reduce((w, g, i) => Math.max(w, Math.abs(g - want(i)) / Math.max(1, Math.abs(want(i)))), 0);

function rot3D(dir: string, v: number, qpus: number, publishedMs: number): Figure {
  const n = 192_000;
  const [c, s] = [Math.fround(Math.cos(3.14159)), Math.fround(Math.sin(3.14159))];
  let x!: Allocation, y!: Allocation;
  // QPULib's uniforms: the QPU's index, the QPU count, then the arguments in reverse order
  // (rot3D(n, cos, sin, x, y)). Its v2 and v3 prefetch one vector past the end: 64 words spare.
  const { m, r } = launch(binWords(`${dir}/rot3d_v${v}.bin`), qpus, (m) => {
    x = m.memory.alloc(4 * (n + 64), 'x');
    y = m.memory.alloc(4 * (n + 64), 'y');
    for (let i = 0; i < n; i++) {
      m.memory.floats[m.memory.index(x.address) + i] = i;
      m.memory.floats[m.memory.index(y.address) + i] = Math.fround(i / 2 - 1000);
    }
    return (q) => [q, qpus, y.address, x.address, floatBits(s), floatBits(c), n];
  });
  const err = worst(floats(m, x, n), (i) => i * c - (i / 2 - 1000) * s);
  if (err > 1e-5) throw new Error(`QPULib rot3D v${v}: wrong result (relative error ${err})`);
  const ms = r.seconds * 1e3;
  return { name: `QPULib rot3D v${v}, ${qpus} QPU${qpus > 1 ? 's' : ''}`, published: `${publishedMs} ms`, modelled: `${ms.toFixed(1)} ms`, ratio: ms / publishedMs, fitted: true, detail: stalls(r) };
}

function heat(dir: string, qpus: number, published2000: number): Figure {
  const [w, h, pitch] = [496, 504, 512];
  let map!: Allocation, out!: Allocation;
  const init = (i: number) => ((i * 2654435761) >>> 0) % 1000;
  const { m, r } = launch(binWords(`${dir}/heat_step.bin`), qpus, (m) => {
    // Rows 0 and h + 1 are borders; the kernel reads a vector past the last row: 64 words spare.
    map = m.memory.alloc(4 * ((h + 2) * pitch + 64), 'map');
    out = m.memory.alloc(4 * ((h + 2) * pitch + 64), 'mapOut');
    const f = m.memory.floats;
    for (let y = 1; y <= h; y++) for (let x = 0; x < w; x++) f[m.memory.index(map.address) + y * pitch + x] = init(y * pitch + x);
    return (q) => [q, qpus, h, w, pitch, out.address, map.address];
  });
  const at = (y: number, x: number) => (x < 0 || x >= w || y < 1 || y > h ? 0 : Math.fround(init(y * pitch + x)));
  const want = (i: number) => {
    const [y, x] = [Math.floor(i / pitch), i % pitch];
    if (y < 1 || y > h || x >= w) return 0;
    let sum = 0;
    for (const [dy, dx] of [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]] as const) sum += at(y + dy, x + dx);
    return at(y, x) - 0.25 * (at(y, x) - sum / 8);
  };
  const err = worst(floats(m, out, (h + 2) * pitch), want);
  if (err > 1e-5) throw new Error(`QPULib heat: wrong result (relative error ${err})`);
  const ms = r.seconds * 1e3;
  const pub = (published2000 / 2000) * 1e3;
  return { name: `QPULib heat step, ${qpus} QPU${qpus > 1 ? 's' : ''}`, published: `${pub.toFixed(2)} ms`, modelled: `${ms.toFixed(2)} ms`, ratio: ms / pub, fitted: true, detail: stalls(r) };
}

// ---------------------------------------------------------------- the SHA-256 series

const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
/** SHA-256's round constants: the fractional parts of the cube roots of the first 64 primes. */
const K = (() => {
  const primes: number[] = [];
  for (let p = 2; primes.length < 64; p++) if (primes.every((q) => p % q)) primes.push(p);
  return primes.map((p) => {
    const r = Math.cbrt(p);
    return Number((BigInt(Math.floor(r * 2 ** 48)) >> 16n) & 0xffffffffn);
  });
})();

function sha256(file: string): Figure {
  const program = file.endsWith('.bin') ? binWords(file) : assemble(readInput(file).toString('utf8'), { syntax: 'series', file }).words;
  const [qpus, perQpu] = [12, 16];
  // 192 messages of 10 to 55 bytes, each padded into one 512-bit block.
  const messages = Array.from({ length: qpus * perQpu }, (_, i) => Buffer.from(`message ${i} `.padEnd(10 + (i % 46), 'x')));
  const blocks = messages.map((msg) => {
    const b = Buffer.alloc(64);
    msg.copy(b);
    b[msg.length] = 0x80;
    b.writeBigUInt64BE(BigInt(msg.length * 8), 56);
    return Array.from({ length: 16 }, (_, j) => b.readUInt32BE(4 * j));
  });
  // The host's layout: K, then each QPU's 16 hashes (8 words each), then its 16 blocks. The
  // uniforms: K, this QPU's hashes, its blocks, and how many passes to make.
  let data!: Allocation;
  const run = (passes: number) =>
    launch(program, qpus, (m) => {
      data = m.memory.alloc(4 * (64 + (128 + 256) * qpus), 'data');
      const at = (i: number) => data.address + 4 * i;
      K.forEach((k, i) => m.memory.writeWord(at(i), k | 0));
      blocks.forEach((blk, j) => {
        H0.forEach((v, i) => m.memory.writeWord(at(64 + 8 * j + i), v | 0));
        blk.forEach((v, i) => m.memory.writeWord(at(64 + 128 * qpus + 16 * j + i), v | 0));
      });
      return (q) => [at(0), at(64 + 128 * q), at(64 + 128 * qpus + 256 * q), passes];
      // Not strict: its lookups prefetch one word past K, the first word of QPU 0's hashes, which
      // that QPU stores (rule gather-after-store); the value is never used, so on a Pi it is harmless.
    }, false);
  // One pass hashes each message once: check every hash. Its time, from cold caches, is what one
  // launch of 192 hashes takes (as qpu-ts's sha256 example runs in npm run bench).
  const one = run(1);
  messages.forEach((msg, j) => {
    const got = Array.from({ length: 8 }, (_, i) => (one.m.memory.readWord(data.address + 4 * (64 + 8 * j + i)) >>> 0).toString(16).padStart(8, '0')).join('');
    if (got !== createHash('sha256').update(msg).digest('hex')) throw new Error(`SHA-256 series: message ${j} hashes to ${got}`);
  });
  // Per pass: the difference between runs of 5 and 20 passes (the QPUs settle within a few).
  const [a, b] = [run(5).r, run(20).r];
  const cycles = (b.cycles - a.cycles) / 15;
  const mhash = (qpus * perQpu) / (cycles / PI_TIMING.clockHz) / 1e6;
  const instrs = (b.qpus[0]!.instructions - a.qpus[0]!.instructions) / 15;
  return {
    name: 'SHA-256 series, 12 QPUs',
    published: '3.1 Mhash/s',
    modelled: `${mhash.toFixed(2)} Mhash/s`,
    ratio: 3.1 / mhash,
    // It bounds the TMU's cache-hit latency (docs/timing.md), so it counts as used.
    fitted: true,
    detail: `${instrs} instructions and ${cycles.toFixed(0)} cycles a pass per QPU; ${stalls(b)} (20 passes); one pass from cold caches, one launch of 192 hashes: ${((one.r.cycles / PI_TIMING.clockHz) * 1e6).toFixed(1)} us`,
  };
}

// ---------------------------------------------------------------- py-videocore's SGEMM

function pyVideocore(dir: string): Figure {
  const r = runSgemm(readSgemm(dir), DEFAULT_MODEL);
  const seconds = r.seconds + MAILBOX_LAUNCH_US / 1e6;
  const gflops = SGEMM_FLOPS / seconds / 1e9;
  return {
    name: "py-videocore's SGEMM, 96x363 by 363x3072, 12 QPUs",
    published: '8.32 GFLOPS',
    modelled: `${gflops.toFixed(2)} GFLOPS`,
    ratio: 8.32 / gflops,
    fitted: false,
    detail: `${r.total.instructions} instructions, ${(r.seconds * 1e3).toFixed(2)} ms on the QPUs + ${MAILBOX_LAUNCH_US} us launch; ${stalls(r)}`,
  };
}

// ---------------------------------------------------------------- mandel-qpu

async function mandelQpu({ program, release }: MandelKernel): Promise<Figure> {
  const t0 = performance.now();
  // Minutes of work: a line every 10 launches on standard error, so that the run is seen to go on.
  const progress = (done: number, of: number) => done % 10 === 0 && done < of && console.error(`mandel-qpu at ${release.commit}: ${done} of ${of} launches (${((performance.now() - t0) / 60e3).toFixed(1)} min)`);
  const launches = await runMandel(program, MANDEL_MODEL, { onLaunch: progress });
  const qpuSeconds = launches.reduce((s, r) => s + r.seconds, 0);
  const seconds = qpuSeconds + (launches.length * MAILBOX_LAUNCH_US) / 1e6;
  const slowest = launches.reduce((a, b) => (b.seconds > a.seconds ? b : a));
  const instructions = launches.reduce((s, r) => s + r.instructions, 0);
  return {
    name: `mandel-qpu at ${release.commit}, ${WIDTH}x${HEIGHT}, ${MAX_ITERS.toLocaleString('en')} iterations, ${QPUS} QPUs, on ${PI_MODELS[MANDEL_MODEL].short}`,
    published: `${release.seconds} s`,
    modelled: `${seconds.toFixed(3)} s`,
    ratio: seconds / release.seconds,
    fitted: false,
    detail: `${release.note}; ${(instructions / 1e9).toFixed(2)}G instructions in ${launches.length} launches, ${qpuSeconds.toFixed(3)} s on the QPUs (the slowest launch, lines ${QPUS * slowest.y}-${QPUS * slowest.y + QPUS - 1}, ${slowest.seconds.toFixed(3)} s) + ${launches.length} x ${MAILBOX_LAUNCH_US} us launches; emulated in ${((performance.now() - t0) / 60e3).toFixed(1)} min`,
  };
}

// ---------------------------------------------------------------- main

/** How close a modelled time must be to the published one (issue 28's goal). */
const WITHIN = 0.25;
const within = (f: Figure) => Math.abs(f.ratio - 1) <= WITHIN;

const USAGE =
  'usage: npm run bench:published -- [--qpulib DIR] [--sha256 FILE] [--gpu-fft DIR [--gpu-fft-2 DIR] [--vc4asm-fft DIR]] [--gpu-fft-1 DIR] [--py-videocore DIR] [--mandel-qpu DIR ...] [--v3dlib DIR] [--json out.json]  (see the top of bench/published.ts)';

type Option = 'qpulib' | 'sha256' | 'gpu-fft' | 'gpu-fft-2' | 'gpu-fft-1' | 'vc4asm-fft' | 'py-videocore' | 'v3dlib' | 'json';
type Values = Partial<Record<Option, string>> & { 'mandel-qpu'?: string[] };

/** GPU_FFT's releases: the option that names each one's hello_fft directory. */
const RELEASES: readonly (readonly [Option, Release])[] = [
  ['gpu-fft', RELEASE_3_0],
  ['gpu-fft-2', RELEASE_2_0],
  ['gpu-fft-1', RELEASE_1_0],
  ['vc4asm-fft', RELEASE_VC4ASM],
];

async function main(argv: string[]): Promise<void> {
  let v: Values;
  try {
    const string = { type: 'string' } as const;
    const options = { qpulib: string, sha256: string, 'gpu-fft': string, 'gpu-fft-2': string, 'gpu-fft-1': string, 'vc4asm-fft': string, 'py-videocore': string, v3dlib: string, 'mandel-qpu': { type: 'string', multiple: true }, json: string } as const;
    v = parseArgs({ args: argv, options }).values;
  } catch (e) {
    throw new BadInput(`${(e as Error).message}; ${USAGE}`);
  }
  const { qpulib: dir, sha256: sha, 'gpu-fft': fftDir, 'py-videocore': pyvcDir, v3dlib } = v;
  const json = outputFile('--json', v.json);
  for (const option of ['gpu-fft-2', 'vc4asm-fft'] as const)
    if (v[option] !== undefined && fftDir === undefined) throw new BadInput(`--${option} needs --gpu-fft too: GPU_FFT's launch is fitted to release 3.0's times; ${USAGE}`);
  const releases = RELEASES.flatMap(([option, release]) => (v[option] !== undefined ? [{ dir: checkRelease(option, v[option]!, release), release }] : []));
  const mandelDirs = v['mandel-qpu'] ?? [];
  if (dir === undefined && sha === undefined && pyvcDir === undefined && v3dlib === undefined && !releases.length && !mandelDirs.length) throw new BadInput(USAGE);
  if (pyvcDir !== undefined) readSgemm(pyvcDir);
  if (v3dlib !== undefined) for (const file of V3DLIB_FILES) readInput(`${v3dlib}/${file}`, ' (bench/v3dlib/dump.cpp writes it)');
  const mandels = mandelDirs.map(readMandel);
  const figures: Figure[] = [];
  if (dir !== undefined) {
    figures.push(rot3D(dir, 1, 1, 40), rot3D(dir, 2, 1, 18), rot3D(dir, 3, 2, 16));
    for (const [qpus, s] of [[1, 49.34], [2, 24.91], [4, 20.36]] as const) figures.push(heat(dir, qpus, s));
  }
  if (sha !== undefined) figures.push(sha256(sha));
  const g3 = fftDir === undefined ? undefined : new ReleaseModel(fftDir, RELEASE_3_0, undefined);
  const models = releases.map(({ dir: at, release }) => (release === RELEASE_3_0 ? g3! : new ReleaseModel(at, release, g3)));
  for (const model of models) figures.push(...gpuFftFigures(model));
  if (pyvcDir !== undefined) figures.push(pyVideocore(pyvcDir));
  if (v3dlib !== undefined) figures.push(...v3dlibFigures(v3dlib, stalls));
  for (const kernel of mandels) figures.push(await mandelQpu(kernel));
  console.log(`The cycle model (${PI_MODELS[DEFAULT_MODEL].board}, but where a figure names another) against published times\n`);
  console.log('| program | published | modelled | modelled time / published | fitted to it | within 25% | detail |\n|---|---:|---:|---:|:-:|:-:|---|');
  for (const f of figures) console.log(`| ${f.name} | ${f.published} | ${f.modelled} | ${f.ratio.toFixed(2)} | ${f.fitted ? 'yes' : ''} | ${within(f) ? 'yes' : '**no**'} | ${f.detail} |`);
  const predicted = figures.filter((f) => !f.fitted);
  console.log(
    `\n${figures.length} figures, ${figures.length - predicted.length} used for fitting; within 25%: ${figures.filter(within).length} of all, ${predicted.filter(within).length} of the ${predicted.length} predicted`,
  );
  const vc = models.find((m) => m.release === RELEASE_VC4ASM);
  const samePi = vc && g3 ? samePiFigures(vc, g3) : [];
  if (samePi.length) printSamePi(samePi);
  if (json) writeFileSync(json, JSON.stringify({ timing: PI_TIMING, figures, samePi }, null, 2) + '\n');
}

/** The second table: vc4asm's FFT over GPU_FFT 3.0 on maazl's Pi, his ratio and the model's. */
function printSamePi(samePi: Figure[]): void {
  console.log("\nTwo programs on one Pi: vc4asm's GPU_FFT over GPU_FFT 3.0, as maazl timed both (his Pi's clocks unknown), against the model's ratio (bench/published-same-pi.ts)\n");
  console.log('| programs | published ratio | modelled ratio | modelled / published | within 25% | detail |\n|---|---:|---:|---:|:-:|---|');
  for (const f of samePi) console.log(`| ${f.name} | ${f.published} | ${f.modelled} | ${f.ratio.toFixed(2)} | ${within(f) ? 'yes' : '**no**'} | ${f.detail} |`);
  console.log(`\n${samePi.length} ratios, none used for fitting; within 25%: ${samePi.filter(within).length}`);
}

await runBenchMain(import.meta.url, main);
