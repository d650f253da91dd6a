// aengelke/mandel-qpu on the emulator, for bench:published (bench/published.ts): Alexis
// Engelke's Mandelbrot set on 12 QPUs (BSD-3), timed on a Pi 2, the only published QPU time here
// from a Pi other than the 1. Its machine code is the repository's own gpu_code.hex (vc4asm's
// output of gpu_code.qasm), run unchanged; what its host code does is written here anew from
// these facts of qpu_mandel.c and lqpu.c:
// - The published run: 1920 x 1080 pixels, re from -2 to 2, im from -1.125, 100,000 iterations,
//   maxValue 4 (README). stepSize = (reMax - reMin) / width, in single precision, steps both axes.
// - 1080 / 12 = 90 launches of 12 QPUs; in launch y, QPU i computes line i + 12 y: 120 blocks of
//   16 pixels, each QPU a block at a time, all 12 meeting at semaphores after each block so that
//   QPU 0 stores the 12 rows with one DMA store. So a launch's time is set, block by block, by the
//   slowest of its 12 lines.
// - QPU i's 9 uniforms: i, a debug address (unused), its line's address in the results (12 lines
//   of 1920 words), stepSize, re = reMin, im = imMin + stepSize (i + 12 y) in single precision,
//   maxIters, maxValue, the blocks a line (120). A pixel's result is its iterations before
//   |z|^2 - maxValue >= 0, at most maxIters.
// - The launch is lqpu_execute built without LQPU_DIRECT_EXECUTION (the Makefile does not define
//   it): the mailbox's execute_qpu, whose 100 us bench/published-gpu-fft.ts takes from
//   gpu_fft.txt, asking the firmware not to flush the caches (noflush = 1). The model starts each
//   launch with the instruction cache cold all the same: the kernel's 11 lines of code cost about
//   4 us a launch, 0.4 ms of the 34 s.
// - The time published is the wall clock around the 90 launches (JTimer), on a Pi 2 whose GPU
//   runs at 250 MHz, not overclocked; the host does nothing else between launches.
// A pixel's result is checked, for 8 pixels a launch, against the kernel's own steps in arith.ts
// (the QPU's rounding), so a run that computes something else is an error, not a time.
import { createHash } from 'node:crypto';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { Machine } from '../src/emulator/machine.ts';
import { EmulatorError } from '../src/emulator/errors.ts';
import { footprint, GpuMemory } from '../src/common/memory.ts';
import type { PiModelName } from '../src/emulator/models.ts';
import { fadd, fmul, fsub, negFlag } from '../src/vc4/arith.ts';
import { floatBits } from '../src/vc4/tables.ts';
import { BadInput, hexWords, readInput, WrongResult } from './cli.ts';

export const [WIDTH, HEIGHT, QPUS] = [1920, 1080, 12];
const [RE_MIN, RE_MAX, IM_MIN] = [-2, 2, -1.125];
export const MAX_ITERS = 100_000;
const MAX_VALUE = 4;
const BLOCK = 16;
const UNIFORMS = 9;
const LAUNCHES = HEIGHT / QPUS;
const CHECKED_A_LAUNCH = 8;
/** The Pi it was timed on. */
export const MANDEL_MODEL: PiModelName = '2';

/** A version of gpu_code.hex, told apart by the first 16 hex digits of its words' SHA-256. */
export interface MandelRelease {
  readonly commit: string;
  readonly digest: string;
  /** The README's time at that commit, seconds. */
  readonly seconds: number;
  readonly note: string;
}

export const MANDEL_RELEASES: readonly MandelRelease[] = [
  { commit: '2ad5a8b', digest: '8d76496f03e6ffad', seconds: 37.151, note: 'the first release: 11 instructions an iteration' },
  { commit: '1f10f34', digest: '9cbf50e365e7a6b7', seconds: 33.781, note: '"Eliminate an instruction in the loop": 10 an iteration' },
  { commit: '0cd9083', digest: 'eb8f53221f281285', seconds: 33.781, note: "1f10f34's kernel from a later vc4asm (two instructions encoded otherwise); the README's time, unchanged since 1f10f34" },
];

/** A clone's kernel, read, and which release it is. */
export interface MandelKernel {
  readonly program: Uint32Array;
  readonly release: MandelRelease;
}

/** Reads DIR/gpu_code.hex ("0xLOW, 0xHIGH," lines) and which release it is. */
export function readMandel(dir: string): MandelKernel {
  const file = `${dir}/gpu_code.hex`;
  const program = hexWords(file, readInput(file, ' (name a clone of aengelke/mandel-qpu)').toString('utf8'), "mandel-qpu's kernel");
  const digest = createHash('sha256').update(new Uint8Array(program.buffer)).digest('hex').slice(0, 16);
  const release = MANDEL_RELEASES.find((r) => r.digest === digest);
  if (!release) throw new BadInput(`${file}: not one of mandel-qpu's published kernels (commits ${MANDEL_RELEASES.map((r) => r.commit).join(', ')}); its digest is ${digest}`);
  return { program, release };
}

const f32 = Math.fround;
const STEP = f32(f32(RE_MAX - RE_MIN) / WIDTH);
/** Line `line`'s im, as qpu_mandel.c computes it in single precision. */
const imOf = (line: number) => f32(f32(IM_MIN) + f32(STEP * line));

/** A pixel's result as the kernel computes it, step by step with the QPU's rounding (arith.ts). */
export function pixelIterations(re: number, im: number, maxIters: number): number {
  const [reC, imC, limit, two] = [re, im, floatBits(MAX_VALUE), floatBits(2)];
  let [x, y] = [reC, imC];
  let [r0, r1] = [fmul(x, x), fmul(y, y)];
  let [r3, r2] = [fadd(r0, r1), fmul(x, y)];
  for (let n = 0; ; ) {
    if (!negFlag(fsub(r3, limit))) return n;
    r2 = fmul(r2, two);
    const d = fsub(r0, r1);
    y = fadd(r2, imC);
    if (++n === maxIters) return n;
    x = fadd(d, reC);
    [r1, r0] = [fmul(y, y), fmul(x, x)];
    [r3, r2] = [fadd(r0, r1), fmul(x, y)];
  }
}

/** The re of column `col`: the kernel's re + elem_num x stepSize, then + 16 stepSize a block. */
function reOf(col: number): number {
  let re = fadd(floatBits(RE_MIN), fmul(floatBits(STEP), floatBits(col % BLOCK)));
  const stride = fmul(floatBits(STEP), floatBits(16));
  for (let b = 0; b < Math.floor(col / BLOCK); b++) re = fadd(re, stride);
  return re;
}

export interface LaunchResult {
  readonly y: number;
  readonly cycles: number;
  /** The cycles at the model's V3D clock. */
  readonly seconds: number;
  readonly instructions: number;
}

/** Launch `y` of the published run (maxIters given for tests), its results spot-checked. */
export function runLaunch(program: Uint32Array, y: number, model: PiModelName, maxIters = MAX_ITERS): LaunchResult {
  const columns = WIDTH / BLOCK;
  const bytes = 4 * QPUS * (UNIFORMS + WIDTH);
  const m = new Machine(new GpuMemory(footprint(bytes) + footprint(4 * program.length)));
  const loaded = m.load(program, 'mandel-qpu');
  const area = m.memory.alloc(bytes, 'uniforms and results');
  const words = m.memory.view(area, Int32Array);
  const results = area.address + 4 * QPUS * UNIFORMS;
  const starts = Array.from({ length: QPUS }, (_, i) => {
    const u = [i, 0, results + 4 * i * WIDTH, floatBits(STEP), floatBits(RE_MIN), floatBits(imOf(i + QPUS * y)), maxIters, floatBits(MAX_VALUE), columns];
    words.set(u.map((w) => w | 0), i * UNIFORMS);
    return area.address + 4 * i * UNIFORMS;
  });
  const r = m.run(loaded, starts, { maxSteps: Infinity, model });
  const out = words.subarray(QPUS * UNIFORMS);
  for (let k = 0; k < CHECKED_A_LAUNCH; k++) {
    const [i, col] = [(y * 5 + k * 7) % QPUS, (y * 977 + k * 251) % WIDTH];
    const want = pixelIterations(reOf(col), floatBits(imOf(i + QPUS * y)), maxIters);
    if (out[i * WIDTH + col] !== want) throw new WrongResult(`mandel-qpu: line ${i + QPUS * y}, column ${col}: ${out[i * WIDTH + col]} iterations, the kernel's steps give ${want}`);
  }
  return { y, cycles: r.cycles, seconds: r.seconds, instructions: r.total.instructions };
}

/** What a worker posts: a launch done, then its launches, or why it stopped (`wrong`: a wrong result or an error the emulator reported, one line each). */
type WorkerReply = { done: number } | { results: LaunchResult[] } | { error: string; wrong: boolean };

/** How runMandel runs: its worker threads, and for tests fewer iterations and launches. */
export interface MandelRun {
  readonly jobs?: number;
  readonly maxIters?: number;
  readonly launches?: number;
  /** Hears of each launch done: the launches done so far, of all. */
  readonly onLaunch?: (done: number, of: number) => void;
}

/**
 * Every launch of the published run on `model`, shared among `jobs` worker threads (each launch
 * is a machine of its own; by default one a core); the first failure stops them all.
 */
export async function runMandel(program: Uint32Array, model: PiModelName, { jobs = availableParallelism(), maxIters = MAX_ITERS, launches = LAUNCHES, onLaunch }: MandelRun = {}): Promise<LaunchResult[]> {
  let done = 0;
  const entry = new URL('../src/cli/tsx-worker.mjs', import.meta.url);
  const share = (k: number) => Array.from({ length: launches }, (_, y) => y).filter((y) => y % jobs === k);
  const workers = Array.from({ length: Math.min(jobs, launches) }, (_, k) => new Worker(entry, { workerData: { module: import.meta.url, mandel: { program, model, maxIters, ys: share(k) } } }));
  const part = (w: Worker) =>
    new Promise<LaunchResult[]>((resolve, reject) => {
      w.on('message', (m: WorkerReply) => {
        if ('done' in m) onLaunch?.(++done, launches);
        else if ('results' in m) resolve(m.results);
        else reject(m.wrong ? new WrongResult(m.error) : new Error(m.error));
      });
      w.once('error', reject);
      w.once('exit', (code) => reject(new Error(`mandel-qpu: a worker stopped (exit code ${code}) before its launches were done`)));
    });
  try {
    return (await Promise.all(workers.map(part))).flat().sort((a, b) => a.y - b.y);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

const port = parentPort;
if (!isMainThread && port && (workerData as { mandel?: unknown } | undefined)?.mandel) {
  const { program, model, maxIters, ys } = (workerData as { mandel: { program: Uint32Array; model: PiModelName; maxIters: number; ys: number[] } }).mandel;
  let reply: WorkerReply;
  try {
    reply = {
      results: ys.map((y) => {
        const r = runLaunch(program, y, model, maxIters);
        port.postMessage({ done: y } satisfies WorkerReply);
        return r;
      }),
    };
  } catch (e) {
    reply = { error: (e as Error).message, wrong: e instanceof WrongResult || e instanceof EmulatorError };
  }
  port.postMessage(reply);
}
