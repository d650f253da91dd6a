// GPU_FFT on the emulator: Andrew Holme's hand-written FFT shaders for the VideoCore IV (GPU_FFT
// release 3.0, Broadcom's hello_fft demo in raspberrypi/userland, host_applications/linux/apps/
// hello_pi/hello_fft, BSD-3), run unchanged on 8 emulated QPUs the way GPU_FFT's host code drives
// them on a Pi, for forward complex FFTs of 2^8 to 2^20 points (2^21 and 2^22 if asked). Per size:
// the cycle model's time for one FFT, the instructions executed, the relative RMS error as
// GPU_FFT's test program computes it, and each result against a float64 FFT computed here.
//
//   npm run bench:gpu-fft -- --gpu-fft DIR [--sizes 8,10,...] [--json out.json]
//
// DIR is the hello_fft directory (it holds hex/shader_256.hex ... hex/shader_4096k.hex). Nothing
// of GPU_FFT is part of qpu-ts: its machine code is read from DIR, and what its host code does
// is written here anew from these facts of its sources:
// - gpu_fft_shaders.c, hex/: one shader per size, shader_256, _512, _1k, ..., _4096k; a line of
//   a .hex file is one instruction, "0xLOW, 0xHIGH, // assembly".
// - gpu_fft.c (gpu_fft_prepare), gpu_fft.h: 8 QPUs, all started at once on the same code. Two
//   buffers of data_bytes = 1 + ((8 << log2N) | 4095) = 8N + 4096 bytes each (N complex floats,
//   re then im, and guard space), "ping" then "pong", one after the other in one block of GPU
//   memory. QPU q's uniforms: the shared twiddles' address, its own twiddles' address (the shared
//   ones' + 128 bytes x (shared + q x unique), in blocks of 16 complex floats), q, then ping and
//   pong for each job, 0 (no more jobs), and 1 for QPU 0 only (it raises the host interrupt). The
//   input goes in ping; after an odd number of passes the output is in pong, else in ping.
// - gpu_fft_twiddles.c: the passes per size (2 for 2^8-2^11, 3 for 2^12-2^16, 4 for 2^17-2^22)
//   and the twiddle tables' order and contents (PLANS below), computed in double, stored float32;
//   the angle's sign is - for a forward FFT (GPU_FFT_FWD), + for an inverse.
// - hello_fft.c, the test: input all zero but 0.5 at points f and N - f (f = 1 for its first
//   job), run as an inverse FFT, expected output cos(2 pi f i / N); rel_rms_err = sqrt(sum((cos -
//   re)^2 + im^2) / sum(cos^2)). That input is real and even, so its forward FFT is the same
//   cosine: runGpuFft runs it forward and scores it exactly so. gpu_fft.txt publishes ~0.3-1.5 ppm
//   on a Pi and the times of PUBLISHED_MS (Pi 1, batches of 1, host overhead included).
// The second input, pseudo-random in [-1, 1), exercises every point: it is checked against a
// float64 FFT of the same float32 input, and the first against its exact transform, so that a
// wrong emulation cannot pass as rounding (examples/lib/fft-reference.ts).
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Machine, type RunResult } from '../src/emulator/machine.ts';
import { footprint, GpuMemory } from '../src/common/memory.ts';
import { WORD_BYTES } from '../src/vc4/chip.ts';
import { PI_TIMING } from '../src/emulator/timing.ts';
import { BadInput, hexWords, outputFile, runBenchMain, WrongResult } from './cli.ts';
import { fft64, fftErrors, helloSignal, helloTransform, randomSignal, WRONG_FFT } from '../examples/lib/fft-reference.ts';

/** GPU_FFT runs on this many QPUs (GPU_FFT_QPUS). */
export const GPU_FFT_QPUS = 8;
export const MIN_LOG2N = 8;
export const MAX_LOG2N = 22;
/** The sizes run unless --sizes says otherwise: up to 2^20 (2^21 and 2^22 take minutes). */
const DEFAULT_MAX_LOG2N = 20;
/** gpu_fft.c's buffers: data_bytes = 1 + (8N | (GPU_FFT_ALIGN - 1)), the data and guard space to a multiple of 4096 bytes. */
export const GPU_FFT_ALIGN = 4096;
/** Bytes of one complex float (re, im). */
export const COMPLEX_BYTES = 8;
/** Twiddles come in blocks of 16 complex floats (one per lane). */
export const BLOCK_COMPLEX = 16;


// ---------------------------------------------------------------- what the host prepares

export type Radix = 16 | 32 | 64;
/**
 * One size's twiddles: a base table of radix `base` at angle 0; step tables, each of a radix and
 * an angle step of `factor` x 2 pi / N; and for each QPU q a base table of radix `unique` at
 * angle q x 2 pi / N. A table of radix R is R / 16 blocks. Also the size's passes.
 */
export interface Plan {
  readonly passes: number;
  readonly base: Radix;
  readonly steps: readonly (readonly [Radix, number])[];
  readonly unique: Radix;
}
const Q = GPU_FFT_QPUS;
const PLANS: Readonly<Record<number, Plan>> = {
  8: { passes: 2, base: 16, steps: [[16, Q]], unique: 16 },
  9: { passes: 2, base: 32, steps: [[16, Q]], unique: 16 },
  10: { passes: 2, base: 32, steps: [[32, Q]], unique: 32 },
  11: { passes: 2, base: 64, steps: [[32, Q]], unique: 32 },
  12: { passes: 3, base: 16, steps: [[16, 16], [16, Q]], unique: 16 },
  13: { passes: 3, base: 32, steps: [[16, 16], [16, Q]], unique: 16 },
  14: { passes: 3, base: 32, steps: [[32, 16], [16, Q]], unique: 16 },
  15: { passes: 3, base: 32, steps: [[32, 32], [32, Q]], unique: 32 },
  16: { passes: 3, base: 64, steps: [[32, 32], [32, Q]], unique: 32 },
  17: { passes: 4, base: 32, steps: [[16, 256], [16, 16], [16, Q]], unique: 16 },
  18: { passes: 4, base: 32, steps: [[16, 512], [16, 32], [32, Q]], unique: 32 },
  19: { passes: 4, base: 32, steps: [[16, 1024], [32, 32], [32, Q]], unique: 32 },
  20: { passes: 4, base: 32, steps: [[32, 1024], [32, 32], [32, Q]], unique: 32 },
  21: { passes: 4, base: 64, steps: [[32, 1024], [32, 32], [32, Q]], unique: 32 },
  22: { passes: 4, base: 64, steps: [[64, 1024], [32, 32], [32, Q]], unique: 32 },
};

/** The FFT-16 codelet's lane i works on stage s = bit length of i: multiplier k = 16 >> s of angle, at position m = i - 2^(s-1) (lane 0: neither). */
const codeletK = (i: number) => (i ? 16 >> (32 - Math.clz32(i)) : 0);
const codeletM = (i: number) => (i ? i - (1 << (31 - Math.clz32(i))) : 0);

/**
 * A base table of angles: radix 16 is the codelet's (turn / 16 x k x m + theta x k in lane i); a
 * larger radix R has R / 2 entries turn / R x i + theta, then radix R / 2 at 2 theta. GPU_FFT's
 * radix 64 is only used at angle 0 and adds no theta, which keeps sin's -0 of a forward turn
 * (bit-exact); `theta64` adds it, as vc4asm's host does (bench/vc4asm-fft.ts).
 */
function baseTable(turn: number, radix: number, theta: number, theta64 = false): number[] {
  if (radix === BLOCK_COMPLEX) return Array.from({ length: BLOCK_COMPLEX }, (_, i) => (turn / 16) * codeletK(i) * codeletM(i) + theta * codeletK(i));
  const angle = (i: number) => (radix === 64 && !theta64 ? (turn / radix) * i : (turn / radix) * i + theta);
  return [...Array.from({ length: radix / 2 }, (_, i) => angle(i)), ...baseTable(turn, radix / 2, 2 * theta)];
}

/** A step table, of angle steps (stored as the recurrence's alpha = 2 sin^2(d / 2) and beta = sin d): radix 16 steps theta x k per lane; radix R, R / 2 of theta, then radix R / 2 at 2 theta. */
function stepTable(radix: number, theta: number): number[] {
  if (radix === BLOCK_COMPLEX) return Array.from({ length: BLOCK_COMPLEX }, (_, i) => theta * codeletK(i));
  return [...Array.from({ length: radix / 2 }, () => theta), ...stepTable(radix / 2, 2 * theta)];
}

/** The twiddles as GPU_FFT lays them out (its `plan`, PLANS unless given): the shared tables, then each QPU's; float32 pairs. Also the shared and per-QPU sizes in blocks. */
export function twiddles(log2n: number, inverse: boolean, plan: Plan = PLANS[log2n]!, theta64 = false): { data: Float32Array; shared: number; unique: number } {
  const turn = (inverse ? 2 : -2) * Math.PI;
  const step = turn / 2 ** log2n;
  const cis = (a: number) => [Math.cos(a), Math.sin(a)];
  const recurrence = (d: number) => [2 * Math.sin(d / 2) ** 2, Math.sin(d)];
  const pairs = [
    ...baseTable(turn, plan.base, 0, theta64).map(cis),
    ...plan.steps.flatMap(([radix, factor]) => stepTable(radix, step * factor).map(recurrence)),
    ...Array.from({ length: GPU_FFT_QPUS }, (_, q) => baseTable(turn, plan.unique, step * q, theta64).map(cis)).flat(),
  ];
  const shared = (plan.base + plan.steps.reduce((s, [radix]) => s + radix, 0)) / BLOCK_COMPLEX;
  return { data: new Float32Array(pairs.flat()), shared, unique: plan.unique / BLOCK_COMPLEX };
}

/** The shader's file in the hello_fft directory: hex/shader_256.hex, ..., shader_1k.hex, ..., shader_4096k.hex. */
export function shaderFile(dir: string, log2n: number): string {
  const n = 2 ** log2n;
  return `${dir}/hex/shader_${n < 1024 ? n : `${n / 1024}k`}.hex`;
}

/** Checks `dir` (named by `what`, e.g. "--gpu-fft DIR") as hello_fft's directory: it exists and holds each size's shader. */
export function checkGpuFftDir(what: string, dir: string, sizes: readonly number[]): string {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new BadInput(`${what}: no such directory`);
  for (const log2n of sizes) readShader(shaderFile(dir, log2n));
  return dir;
}

/** Reads a shader: each line "0xLOW, 0xHIGH, // assembly" is one instruction (blank lines are skipped). */
export function readShader(file: string): Uint32Array {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new BadInput(`cannot read GPU_FFT's shader ${file}: ${code ?? (e as Error).message}${code === 'ENOENT' ? ' (name the hello_fft directory, which holds hex/)' : ''}`);
  }
  const words = hexWords(file, text, 'a GPU_FFT shader');
  if (!words.length) throw new BadInput(`${file}: no instructions`);
  return words;
}

// ---------------------------------------------------------------- running it

/** One size prepared as gpu_fft_prepare does: write `input` (N complex floats), execute, read `output`. */
export interface GpuFft {
  readonly log2n: number;
  readonly input: Float32Array;
  readonly output: Float32Array;
  /** Runs the transform; `warmCode`: with the instruction caches as the last run left them (a batch's later jobs). */
  execute(warmCode?: boolean): RunResult;
}

/** Memory and uniforms for one FFT of 2^log2n points (one job), the shader loaded: GPU_FFT's gpu_fft_prepare on the emulator. */
export function prepareGpuFft(dir: string, log2n: number, inverse = false): GpuFft {
  if (!PLANS[log2n]) throw new BadInput(`GPU_FFT has shaders for 2^${MIN_LOG2N} to 2^${MAX_LOG2N} points, not 2^${log2n}`);
  const program = readShader(shaderFile(dir, log2n));
  const n = 2 ** log2n;
  const dataBytes = 1 + ((COMPLEX_BYTES * n) | (GPU_FFT_ALIGN - 1));
  const tw = twiddles(log2n, inverse);
  // Each QPU's uniforms: the twiddles' addresses, q, one job's ping and pong, 0 (no more jobs), the host interrupt's flag.
  const uniformsOf = (q: number, twid: number, ping: number, pong: number) => [twid, twid + COMPLEX_BYTES * BLOCK_COMPLEX * (tw.shared + q * tw.unique), q, ping, pong, 0, q === 0 ? 1 : 0];
  const unifWords = uniformsOf(0, 0, 0, 0).length;
  const bytes = [program.length * WORD_BYTES, 2 * dataBytes, tw.data.length * WORD_BYTES, GPU_FFT_QPUS * unifWords * WORD_BYTES];
  const m = new Machine(new GpuMemory(bytes.reduce((s, b) => s + footprint(b), 0)));
  const loaded = m.load(program, `GPU_FFT ${n}`);
  // Ping and pong in one block, as on a Pi: the shaders prefetch past a buffer's end into its guard space.
  const data = m.memory.alloc(bytes[1]!, 'ping and pong');
  const twid = m.memory.alloc(bytes[2]!, 'twiddles');
  m.memory.view(twid, Float32Array).set(tw.data);
  const [ping, pong] = [data.address, data.address + dataBytes];
  const unif = m.memory.alloc(bytes[3]!, 'uniforms');
  const unifs = Array.from({ length: GPU_FFT_QPUS }, (_, q) => {
    m.memory.view(unif, Int32Array).set(uniformsOf(q, twid.address, ping, pong), q * unifWords);
    return unif.address + WORD_BYTES * q * unifWords;
  });
  const floats = m.memory.view(data, Float32Array);
  const at = (address: number) => floats.subarray((address - data.address) / 4, (address - data.address) / 4 + 2 * n);
  const passes = PLANS[log2n]!.passes;
  return {
    log2n,
    input: at(ping),
    output: at(passes % 2 ? pong : ping),
    // Not strict: rule gather-after-store would stop pass 2 at its first TMU read of what pass 1
    // stored by DMA. On a Pi that is safe: the host clears the TMU and L2 caches before the run,
    // so a buffer's lines are not cached when first read, and by a third pass a whole pass has
    // gone through the caches since the buffer was last read (GPU_FFT relies on it). Every other
    // strict rule holds for every size (checked with that one rule switched off).
    execute: (warmCode = false) => m.run(loaded, unifs, { maxSteps: Infinity, strict: false, warmCode }),
  };
}

// ---------------------------------------------------------------- checking it

/** GPU_FFT's interleaved complex floats (re, im, re, im, ...) as split arrays. */
function split(x: Float32Array): { re: Float32Array; im: Float32Array } {
  const n = x.length / 2;
  const out = { re: new Float32Array(n), im: new Float32Array(n) };
  for (let i = 0; i < n; i++) [out.re[i], out.im[i]] = [x[2 * i]!, x[2 * i + 1]!];
  return out;
}
/** Split arrays into GPU_FFT's interleaved complex floats. */
function interleave(into: Float32Array, { re, im }: { re: Float32Array; im: Float32Array }): void {
  for (let i = 0; i < re.length; i++) [into[2 * i], into[2 * i + 1]] = [re[i]!, im[i]!];
}

/** How a host prepares one transform of 2^log2n points from hello_fft's directory: prepareGpuFft, or another host's (bench/vc4asm-fft.ts). */
export type Prepare = (dir: string, log2n: number) => GpuFft;

/** Runs GPU_FFT forward on a signal (examples/lib/fft-reference.ts) and measures its output against `want` (or a float64 FFT of the input). */
function transform(prepare: Prepare, dir: string, log2n: number, signal: (re: Float32Array, im: Float32Array) => void, want?: { re: Float64Array; im: Float64Array }) {
  const fft = prepare(dir, log2n);
  const x = { re: new Float32Array(2 ** log2n), im: new Float32Array(2 ** log2n) };
  signal(x.re, x.im);
  interleave(fft.input, x);
  const r = fft.execute();
  const got = split(fft.output);
  const exact = want ?? fft64(x.re, x.im);
  // Once more with the code in the instruction caches, as a batch's later jobs run (the data's values do not change the time).
  const warm = fft.execute(true);
  return { r, warm, ...fftErrors(got.re, got.im, exact.re, exact.im) };
}

export interface GpuFftFigures {
  /** The cycle model's time for one FFT on a Pi, and its cycles. */
  piSeconds: number;
  /** The time of one more, with the code in the instruction caches (a batch's later jobs; their data is cold). */
  warmSeconds: number;
  cycles: number;
  /** Instructions executed, over all QPUs. */
  instructions: number;
  qpus: number;
  /** hello_fft's rel_rms_err for its test (f = 1), run forward. */
  relRms: number;
  /** The largest point's error against the exact transform, relative to the largest output. */
  worst: number;
  /** The pseudo-random signal's errors against a float64 FFT of the same float32 values. */
  random: { relRms: number; worst: number };
}

/**
 * GPU_FFT's 2^log2n shader on hello_fft's test signal (0.5 at points 1 and N - 1; its transform
 * cos(2 pi i / N)), scored as hello_fft scores it, and on a pseudo-random one against float64;
 * a WrongResult when either is beyond rounding (a wrong emulation or setup): any error above
 * `check.wrong` (WRONG_FFT unless said; `check.name` names the shaders in the message). The
 * host is GPU_FFT's own (prepareGpuFft) unless `check.prepare` says otherwise.
 */
export function runGpuFft(dir: string, log2n: number, check: { name: string; wrong: number; prepare?: Prepare } = { name: 'GPU_FFT', wrong: WRONG_FFT }): GpuFftFigures {
  const prepare = check.prepare ?? prepareGpuFft;
  const hello = transform(prepare, dir, log2n, helloSignal, helloTransform(2 ** log2n));
  const random = transform(prepare, dir, log2n, randomSignal);
  const figures = { piSeconds: hello.r.seconds, warmSeconds: hello.warm.seconds, cycles: hello.r.cycles, instructions: hello.r.total.instructions, qpus: hello.r.qpus.length, relRms: hello.relRms, worst: hello.worst, random: { relRms: random.relRms, worst: random.worst } };
  if ([hello.relRms, hello.worst, random.relRms, random.worst].some((e) => !(e <= check.wrong)))
    throw new WrongResult(`${check.name} 2^${log2n}: wrong result (hello_fft test: rel RMS ${hello.relRms}, worst ${hello.worst}; random input: rel RMS ${random.relRms}, worst ${random.worst})`);
  return figures;
}

// ---------------------------------------------------------------- main

/** gpu_fft.txt (release 3.0): per-transform runtimes in ms on a Pi 1 with the system (L2) cache, batches of 1, host overhead included. */
export const PUBLISHED_MS: Readonly<Record<number, number>> = {
  8: 0.033, 9: 0.049, 10: 0.07, 11: 0.12, 12: 0.25, 13: 0.61, 14: 1.2, 15: 3.5, 16: 7.0, 17: 17, 18: 43, 19: 97, 20: 194, 21: 388, 22: 786,
};

/** gpu_fft.txt (release 3.0): the same, in batches of 10 transforms a launch (the table stops at 2^15). */
export const PUBLISHED_BATCH10_MS: Readonly<Record<number, number>> = { 8: 0.017, 9: 0.029, 10: 0.049, 11: 0.11, 12: 0.27, 13: 0.66, 14: 1.2, 15: 3.3 };

interface Row extends GpuFftFigures {
  log2n: number;
  publishedMs: number;
}

const sci = (x: number) => x.toExponential(1);
const ms = (s: number) => (s * 1e3 < 1 ? (s * 1e3).toFixed(4) : (s * 1e3).toFixed(2));

function parseSizes(text: string | undefined): number[] {
  if (text === undefined) return Array.from({ length: DEFAULT_MAX_LOG2N - MIN_LOG2N + 1 }, (_, i) => MIN_LOG2N + i);
  const sizes = text.split(',').map((s) => Number(s.trim()));
  const bad = sizes.find((s) => !Number.isInteger(s) || !PLANS[s]);
  if (bad !== undefined) throw new BadInput(`--sizes takes log2 N from ${MIN_LOG2N} to ${MAX_LOG2N}, comma-separated, not ${text}`);
  return sizes;
}

const USAGE = 'usage: npm run bench:gpu-fft -- --gpu-fft DIR [--sizes 8,10,...] [--json out.json]  (DIR: hello_fft, holding hex/shader_*.hex; see the top of bench/gpu-fft.ts)';

/** The command line, every file it names checked before anything runs. */
function options(argv: string[]): { dir: string; sizes: number[]; json: string | undefined } {
  let values: { 'gpu-fft'?: string; sizes?: string; json?: string };
  try {
    values = parseArgs({ args: argv, options: { 'gpu-fft': { type: 'string' }, sizes: { type: 'string' }, json: { type: 'string' } } }).values;
  } catch (e) {
    throw new BadInput(`${(e as Error).message}; ${USAGE}`);
  }
  const { 'gpu-fft': dir, json } = values;
  if (!dir) throw new BadInput(USAGE);
  const sizes = parseSizes(values.sizes);
  checkGpuFftDir(`--gpu-fft ${dir}`, dir, sizes);
  outputFile('--json', json);
  return { dir, sizes, json };
}

function main(argv: string[]): void {
  const { dir, sizes, json } = options(argv);
  console.log('| log2 N | modelled time (ms) | GPU_FFT published, Pi 1 (ms) | instructions | rel RMS error (hello_fft) | worst error (hello_fft signal, vs its exact transform) | random input: rel RMS | random input: worst |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  const rows = sizes.map((log2n) => {
    const r: Row = { log2n, ...runGpuFft(dir, log2n), publishedMs: PUBLISHED_MS[log2n]! };
    console.log(`| ${log2n} | ${ms(r.piSeconds)} | ${r.publishedMs} | ${r.instructions} | ${sci(r.relRms)} | ${sci(r.worst)} | ${sci(r.random.relRms)} | ${sci(r.random.worst)} |`);
    return r;
  });
  if (!json) return;
  try {
    writeFileSync(json, JSON.stringify({ timing: PI_TIMING, qpus: GPU_FFT_QPUS, rows }, null, 2) + '\n');
  } catch (e) {
    throw new BadInput(`cannot write ${json}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

await runBenchMain(import.meta.url, main);
