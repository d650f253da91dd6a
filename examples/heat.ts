// Heat flowing across a 2D surface: QPULib's third example, with its Cursor class written as a
// TypeScript class that generates code. A 512x512 plate with QPULib's ten hot spots cools for
// many time steps, each step checked bit for bit against plain TypeScript; the final temperatures
// go to out/heat.png. Run: npx tsx examples/heat.ts [--steps N] [--size S] [--qpus Q]
import {
  Float,
  type FloatVar,
  For,
  gather,
  index,
  Int,
  kernel,
  me,
  numQPUs,
  progressBar,
  Ptr,
  type PtrExpr,
  receive,
  rotate,
  SharedArray,
  store,
  Where,
} from 'qpu-ts';
import { qadd, qmul, qsub } from 'qpu-ts/float';
import { heatColour, Image, writePng } from './lib/png.ts';
import { glibcRand } from './lib/rand.ts';
import { checkSameBits, count, type ExampleOptions, type ExampleResult, qpuList, qpusText, runIfMain, seconds, since, table, type Timing, timed, UsageError, wholeNumber } from './lib/report.ts';

/** The heat dissipation constant. */
export const K = 0.25;

/**
 * A window of three consecutive vectors of a row, prev, current and next, that slides right one
 * vector at a time, gathering ahead so that memory and computation overlap.
 */
class Cursor {
  readonly addr = Ptr(Float)();
  readonly prev = Float();
  readonly current = Float();
  readonly next = Float();

  /** Points the cursor at p and fetches the first vector. */
  init(p: PtrExpr<'float'>): void {
    gather(p);
    this.current.set(0);
    this.addr.set(p.add(16));
  }

  /** Receives the first vector and fetches the second. */
  prime(): void {
    receive(this.next);
    gather(this.addr);
  }

  /** Slides right: receives the next vector and fetches another. */
  advance(): void {
    this.addr.set(this.addr.add(16));
    this.prev.set(this.current);
    gather(this.addr);
    this.current.set(this.next);
    receive(this.next);
  }

  /** Receives the last vector and fetches no more. */
  finish(): void {
    receive(this.next);
  }

  /** The current vector shifted left one element, the next vector's first coming in. */
  shiftLeft(result: FloatVar): void {
    result.set(rotate(this.current, 15));
    const nextRot = Float(rotate(this.next, 15));
    Where(index().eq(15), () => result.set(nextRot));
  }

  /** The current vector shifted right one element, the previous vector's last coming in. */
  shiftRight(result: FloatVar): void {
    result.set(rotate(this.current, 1));
    const prevRot = Float(rotate(this.prev, 1));
    Where(index().eq(0), () => result.set(prevRot));
  }
}

export const step = kernel([Ptr(Float), Ptr(Float), Int, Int, Int], function step(grid, gridOut, pitch, width, height) {
  const row = [new Cursor(), new Cursor(), new Cursor()];
  grid.set(grid.add(pitch.mul(me())).add(index()));

  // Skip the first row of the output grid.
  gridOut.set(gridOut.add(pitch));

  const y = Int(me());
  For(y.lt(height), () => y.set(y.add(numQPUs())), () => {
    // Point p at the output row.
    const p = Ptr(Float)(gridOut.add(y.mul(pitch)));

    // Three cursors for the three input rows.
    for (let i = 0; i < 3; i++) row[i]!.init(grid.add(pitch.mul(i)));
    for (let i = 0; i < 3; i++) row[i]!.prime();

    // One output row.
    const x = Int(0);
    For(x.lt(width), () => x.set(x.add(16)), () => {
      for (let i = 0; i < 3; i++) row[i]!.advance();

      const left = [Float(), Float(), Float()];
      const right = [Float(), Float(), Float()];
      for (let i = 0; i < 3; i++) {
        row[i]!.shiftLeft(right[i]!);
        row[i]!.shiftRight(left[i]!);
      }

      const sum = left[0]!.add(row[0]!.current).add(right[0]!).add(left[1]!).add(right[1]!).add(left[2]!).add(row[2]!.current).add(right[2]!);

      store(row[1]!.current.sub(row[1]!.current.sub(sum.mul(0.125)).mul(K)), p);
      p.set(p.add(16));
    });

    // The cursors are done with this row.
    for (let i = 0; i < 3; i++) row[i]!.finish();

    // Move to the next input rows.
    grid.set(grid.add(pitch.mul(numQPUs())));
  });
});

/** The scalar version, in float32 as the QPU rounds (toward zero); columns outside read as 0. */
export function stepScalar(grid: Float32Array, out: Float32Array, pitch: number, width: number, height: number): void {
  const at = (y: number, x: number) => (x < 0 || x >= pitch ? 0 : grid[y * pitch + x]!);
  for (let y = 1; y <= height; y++)
    for (let x = 0; x < width; x++) {
      let s = 0;
      for (const [dy, dx] of [
        [-1, -1],
        [-1, 0],
        [-1, 1],
        [0, -1],
        [0, 1],
        [1, -1],
        [1, 0],
        [1, 1],
      ] as const)
        s = qadd(s, at(y + dy, x + dx));
      const c = at(y, x);
      out[y * pitch + x] = qsub(c, qmul(qsub(c, qmul(s, 0.125)), K));
    }
}

/**
 * A grid of `height` + 2 rows of `pitch` = width + 16 floats (zero columns on the right, a zero
 * row above and below), with hot spots as QPULib's HeatMap test injects them, plus 16 spare
 * floats: the cursors gather one vector past the end of the last row.
 */
export function heatGrid(width: number, height: number, rand: () => number, spots = 10): Float32Array {
  const pitch = width + 16;
  const g = SharedArray.float32((height + 2) * pitch + 16, 'grid');
  for (let i = 0; i < spots; i++) {
    const t = rand() % 256;
    const x = rand() % width;
    const y = 1 + (rand() % height);
    g[y * pitch + x] = 1000 * t;
  }
  return g;
}

/** The steps the example takes unless told: about 40 s on a 2-core machine, half of it the plain TypeScript check. */
export const DEFAULT_STEPS = 400;

export interface HeatOptions extends ExampleOptions {
  /** The plate's width and height (default 512; the width a multiple of 16). */
  readonly size?: number;
  /** Time steps (default DEFAULT_STEPS). */
  readonly steps?: number;
  /** The QPUs the simulation runs on (default 12). */
  readonly qpus?: number;
  /** The QPU counts one step is timed on (default 1, 2, 4, 8 and 12). */
  readonly qpuCounts?: readonly number[];
  /** Hot spots (default 10, as QPULib's HeatMap). */
  readonly spots?: number;
}

/** A plate and its plain TypeScript twin, stepped side by side. */
interface Plates {
  readonly grids: [Float32Array, Float32Array];
  readonly twins: [Float32Array, Float32Array];
  readonly args: readonly [pitch: number, width: number, height: number];
}

/** Simulates, checks and draws the plate; times one step on each QPU count. */
export async function main(opts: HeatOptions = {}): Promise<ExampleResult> {
  const log = opts.log ?? console.log;
  const start = performance.now();
  const { size = 512, steps = DEFAULT_STEPS, qpus = 12, qpuCounts = [1, 2, 4, 8, 12], spots = 10 } = opts;
  const plates = makePlates(size, spots);
  const perStep = await timeOneStep(plates, qpuCounts);
  const run = await simulate(plates, steps, qpus, opts.progress);
  const final = plates.grids[steps % 2]!;
  checkSameBits(`the plate after ${steps} steps on ${qpusText(qpus)}`, final, plates.twins[steps % 2]!);
  const picture = drawPlate(final, plates.args, opts.outDir);
  SharedArray.free(plates.grids[0]);
  SharedArray.free(plates.grids[1]);

  const { hottest, total } = summarise(final);
  const whole: Timing = { ...run, kernel: `step x ${steps}` };
  log(`A ${size}x${size} plate, ${spots} hot spots, ${count(steps)} time steps on ${qpusText(qpus)}: exactly the plain TypeScript's floats.`);
  log(`Hottest point now ${hottest.toFixed(1)} (the spots started at up to 255,000); heat left on the plate ${total.toExponential(4)}.`);
  log(`Whole run on ${qpusText(qpus)}: Pi ${seconds(run.piSeconds)} (cycle model), emulator ${seconds(run.wallSeconds)} (wall).`);
  log(`One step, by QPU count, and ${count(steps)} steps at that rate:`);
  const rows = perStep.map((t) => [String(t.qpus), seconds(t.piSeconds), seconds(t.piSeconds * steps), seconds(t.wallSeconds)]);
  for (const line of table(['QPUs', 'Pi time a step', `Pi time, ${steps} steps`, 'emulator a step (wall)'], rows)) log(`  ${line}`);
  if (size === 512) log(`  (QPULib's README, its own code on a Pi, 512x512: 24.7 ms a step on 1 QPU, 12.5 ms on 2, 10.2 ms on 4)`);
  log(`picture: ${picture}`);
  return {
    name: 'heat',
    summary: `${size}x${size} plate, ${count(steps)} steps, hottest ${hottest.toFixed(1)}`,
    pictures: [picture],
    timings: [...perStep, whole],
    headline: whole,
    wallSeconds: since(start),
  };
}

/** QPULib's plate: hot spots from glibc's rand() after srand(0), and its twin for the check. */
function makePlates(size: number, spots: number): Plates {
  if (size % 16) throw new UsageError(`heat: a plate ${size} wide; the width must be a multiple of 16`);
  const a = heatGrid(size, size, glibcRand(0), spots);
  const b = SharedArray.float32(a.length, 'out');
  return { grids: [a, b], twins: [a.slice(), new Float32Array(a.length)], args: [size + 16, size, size] };
}

/** One step from the starting plate on each QPU count (timed warm, as the simulation's steps run), each checked against stepScalar. */
async function timeOneStep({ grids, twins, args }: Plates, qpuCounts: readonly number[]): Promise<Timing[]> {
  stepScalar(twins[0], twins[1], ...args);
  const out = SharedArray.float32(grids[0].length, 'step');
  const timings: Timing[] = [];
  for (const q of qpuCounts) {
    await step.setNumQPUs(q)(grids[0], out, ...args); // compiled and translated before the clock starts
    // Each count starts from the zeros the first did, so that its check sees only what it wrote.
    out.fill(0);
    timings.push((await timed('step', () => step(grids[0], out, ...args))).timing);
    checkSameBits(`one step on ${qpusText(q)}`, out, twins[1]);
  }
  SharedArray.free(out);
  return timings;
}

/** `steps` steps on `qpus` QPUs, the plain TypeScript version stepping alongside; a progress bar on a terminal. */
async function simulate({ grids, twins, args }: Plates, steps: number, qpus: number, progress?: boolean): Promise<Omit<Timing, 'kernel'>> {
  step.setNumQPUs(qpus).code();
  const bar = progress === false ? { update() {}, stop() {} } : progressBar('heat', steps, { unit: 'steps' });
  let [piSeconds, wallSeconds, instructions] = [0, 0, 0];
  try {
    for (let s = 0; s < steps; s++) {
      const [from, to] = [s % 2, (s + 1) % 2];
      const { timing } = await timed('step', () => step(grids[from]!, grids[to]!, ...args));
      stepScalar(twins[from]!, twins[to]!, ...args);
      piSeconds += timing.piSeconds;
      wallSeconds += timing.wallSeconds;
      instructions += timing.instructions;
      bar.update(s + 1, `Pi ${seconds(piSeconds)}`);
    }
  } finally {
    bar.stop();
  }
  return { qpus, piSeconds, wallSeconds, instructions };
}

/** The hottest point and the total heat. */
function summarise(grid: Float32Array): { hottest: number; total: number } {
  let [hottest, total] = [0, 0];
  for (const v of grid) [hottest, total] = [Math.max(hottest, v), total + v];
  return { hottest, total };
}

/** The plate's temperatures as a heat map on a log scale: the hottest point white, a thousandth of it and colder black. */
function drawPlate(grid: Float32Array, [pitch, width, height]: Plates['args'], outDir?: string): string {
  const img = new Image(width, height);
  const top = Math.log10(summarise(grid).hottest || 1);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const v = grid[(y + 1) * pitch + x]!;
      img.set(x, y, heatColour(v > 0 ? 1 + (Math.log10(v) - top) / DECADES : 0));
    }
  return writePng(img, 'heat.png', outDir);
}

/** How many powers of ten below the hottest point the heat map spans. */
const DECADES = 3;

/** The one QPU count --qpus gives. */
function oneCount(text: string): number {
  const qpus = qpuList(text);
  if (qpus.length !== 1) throw new UsageError(`--qpus ${text}: the simulation runs on one QPU count`);
  return qpus[0]!;
}

await runIfMain(
  import.meta.url,
  `npx tsx examples/heat.ts [--steps N] [--size S] [--qpus Q] [--spots N]: QPULib's heat example (default ${DEFAULT_STEPS} steps, 512x512, 12 QPUs, 10 spots)`,
  { steps: { type: 'string' }, size: { type: 'string' }, qpus: { type: 'string' }, spots: { type: 'string' } },
  (v) => {
    const num = (name: string, min = 1) => (v[name] === undefined ? undefined : wholeNumber(name, v[name] as string, min));
    return main({ steps: num('steps', 0), size: num('size', 16), qpus: v.qpus === undefined ? undefined : oneCount(v.qpus as string), spots: num('spots', 0) });
  },
);
