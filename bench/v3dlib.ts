// V3DLib's Rot3D and HeatMap on the emulator, for bench:published (bench/published.ts): the
// only published times from a Pi 3 whose machine code runs here. V3DLib (wimrijnders/V3DLib,
// QPULib's successor) compiles its kernels at run time; bench/v3dlib/dump.cpp writes the words
// its vc4 back end sends to the QPUs (DIR/rot3d_kernel1.bin, rot3d_kernel2.bin,
// heatmap_vector.bin), and this file runs them as its host does. Facts from V3DLib's source at
// the commits its Doc/Examples.md's times come with (d26c712 for Rot3D, 991f42e for HeatMap; its
// docs/profiling.ods has them run at 6143e90 and 335dde8, whose kernels and library are the
// same; d26c712 moved Rot3D's timer to the launch alone):
// - Each QPU's uniforms: its index, the QPU count, the kernel's arguments in declaration order
//   (an int or a float as its bits, an array as its address), then a 0 V3DLib adds and reads
//   (vc4/Invoke.cpp). The code is the same whatever the QPU count.
// - Its arrays come one after another from one heap: Rot3D's x and y (192,000 floats each, x[i]
//   = y[i] = i, rotated by cos and sin of 3.14159f), HeatMap's two 512 x 506 maps. Rot3D's
//   kernel 2 prefetches one vector past each array's end on its last pass (on a Pi, into the
//   code V3DLib puts after its arrays; here, into the heap's spare room).
// - Rot3D's time is one launch; HeatMap's is 1,500 launches, one a step, the maps swapped each
//   time. Each launch goes through the mailbox (execute_qpu, between two calls that power the
//   QPUs up and down, whose cost no one has published: not counted here).
// - Its times were taken on a Pi 3 Model B (docs/profiling.ods in V3DLib: Raspbian Buster), so
//   the runs are on model 3. None is fitted.
import { Machine, type RunResult } from '../src/emulator/machine.ts';
import { GpuMemory } from '../src/common/memory.ts';
import { floatBits } from '../src/vc4/tables.ts';
import type { PiModelName } from '../src/emulator/models.ts';
import { MAILBOX_LAUNCH_US, type Figure } from './published-gpu-fft.ts';
import { binWords, WrongResult } from './cli.ts';

/** The Pi V3DLib's times were taken on. */
const V3DLIB_MODEL: PiModelName = '3';
/** The files bench/v3dlib/dump.cpp writes. */
export const V3DLIB_FILES = ['rot3d_kernel1.bin', 'rot3d_kernel2.bin', 'heatmap_vector.bin'] as const;
/** V3DLib's heap, from which its arrays come one after another (LibSettings.cpp: 8 MiB). */
const HEAP_BYTES = 8 << 20;
/** A float's bytes. */
const FLOAT = 4;

/** A machine for one launch: `file`'s words loaded, and V3DLib's heap, from which its arrays come one after another. */
function machine(dir: string, file: string) {
  const m = new Machine(new GpuMemory(2 * HEAP_BYTES));
  const loaded = m.load(binWords(`${dir}/${file}`), 'V3DLib kernel');
  return { m, loaded, heap: m.memory.alloc(HEAP_BYTES, 'heap').address };
}

/** Launches `loaded` on `qpus` QPUs of model 3 as V3DLib does: QPU q's uniforms are q, the QPU count, `args` and a 0. */
function run(m: Machine, loaded: ReturnType<Machine['load']>, qpus: number, args: readonly number[]): RunResult {
  const stream = [...args, 0];
  const perQpu = 2 + stream.length;
  const uniforms = m.memory.alloc(4 * perQpu * qpus, 'uniforms').address;
  const starts = Array.from({ length: qpus }, (_, q) => {
    const at = uniforms + 4 * perQpu * q;
    [q, qpus, ...stream].forEach((w, i) => m.memory.writeWord(at + 4 * i, w | 0));
    return at;
  });
  // V3DLib's code reads a register-file register the instruction before wrote, as chips allow.
  return m.run(loaded, starts, { maxSteps: Infinity, strict: false, model: V3DLIB_MODEL });
}

/** "N QPU(s)". */
const qpuCount = (qpus: number) => `${qpus} QPU${qpus > 1 ? 's' : ''}`;

/** Floats of `m`'s memory from byte address `at`. */
const floatsAt = (m: Machine, at: number, n: number) => m.memory.floats.subarray(m.memory.index(at), m.memory.index(at) + n);

/** Whether `got` is within `tolerance` of `want`, relatively (of at least 1). */
const near = (got: number, want: number, tolerance: number) => Math.abs(got - want) <= tolerance * Math.max(1, Math.abs(want));

const VERTICES = 192_000;
/** cosf and sinf of 3.14159f, as Rot3D.cpp passes them. */
const COS = Math.fround(Math.cos(Math.fround(3.14159)));
const SIN = Math.fround(Math.sin(Math.fround(3.14159)));
/**
 * Rot3D's check. With cos -1 and sin 2.5e-6 a vertex (i, i) goes to about (-i, -i), and the
 * sin term is 2.5e-6 of it: 1e-6 tells a rotation that drops it or swaps x and y from one that
 * rounds toward zero, as the QPU does (a few units in the last place, about 1e-7 each).
 */
const ROT3D_TOLERANCE = 1e-6;

/** Rot3D's kernel `kernel` (1 or 2) on `qpus` QPUs: one launch, its result checked. */
export function rot3D(dir: string, kernel: 1 | 2, qpus: number): RunResult {
  const { m, loaded, heap } = machine(dir, `rot3d_kernel${kernel}.bin`);
  const x = heap;
  const y = heap + FLOAT * VERTICES;
  const xs = floatsAt(m, x, VERTICES);
  const ys = floatsAt(m, y, VERTICES);
  xs.forEach((_, i) => (xs[i] = ys[i] = i));
  const r = run(m, loaded, qpus, [VERTICES, floatBits(COS), floatBits(SIN), x, y]);
  for (let i = 0; i < VERTICES; i++) {
    const wantX = i * COS - i * SIN;
    const wantY = i * COS + i * SIN;
    if (!near(xs[i]!, wantX, ROT3D_TOLERANCE) || !near(ys[i]!, wantY, ROT3D_TOLERANCE))
      throw new WrongResult(`V3DLib Rot3D kernel ${kernel} on ${qpuCount(qpus)}: vertex ${i} is (${xs[i]}, ${ys[i]}), not (${wantX}, ${wantY})`);
  }
  return r;
}

const WIDTH = 512;
const HEIGHT = 506;
const CELLS = WIDTH * HEIGHT;
/** HeatMap.cpp's K. */
const K = 0.25;
/** The published runs' steps, one launch each. */
const HEAT_STEPS = 1500;
/** A map's starting value at cell `i`: a hash, so that neighbours differ and a misplaced read shows. */
const cell = (i: number) => ((i * 2654435761) >>> 0) % 1000;
/** What HeatMap's step makes of the starting map at row `y`, column `x`: 0 on the rows it does not write (0 and the last two) and on the side columns. */
function heatWant(y: number, x: number): number {
  if (y < 1 || y >= HEIGHT - 2 || x === 0 || x === WIDTH - 1) return 0;
  const at = (dy: number, dx: number) => cell((y + dy) * WIDTH + x + dx);
  const sum = at(-1, -1) + at(-1, 0) + at(-1, 1) + at(0, -1) + at(0, 1) + at(1, -1) + at(1, 0) + at(1, 1);
  return at(0, 0) - K * (at(0, 0) - sum * 0.125);
}

/** One step of HeatMap on `qpus` QPUs, from the heap's first map to its second (`odd`: the other way), its result checked. */
export function heatStep(dir: string, qpus: number, odd: boolean): RunResult {
  const { m, loaded, heap } = machine(dir, 'heatmap_vector.bin');
  const maps = [heap, heap + FLOAT * CELLS];
  const from = odd ? maps[1]! : maps[0]!;
  const to = odd ? maps[0]! : maps[1]!;
  floatsAt(m, from, CELLS).forEach((_, i, a) => (a[i] = cell(i)));
  const r = run(m, loaded, qpus, [from, to, HEIGHT, WIDTH]);
  const got = floatsAt(m, to, CELLS);
  for (let y = 0; y < HEIGHT; y++)
    for (let x = 0; x < WIDTH; x++) {
      const want = heatWant(y, x);
      if (!near(got[y * WIDTH + x]!, want, 1e-3)) throw new WrongResult(`V3DLib HeatMap on ${qpuCount(qpus)}: cell (${y}, ${x}) is ${got[y * WIDTH + x]}, not ${want}`);
    }
  return r;
}

/** V3DLib's Doc/Examples.md, Pi 3 Model B: Rot3D's seconds by kernel and QPU count, HeatMap's (1,500 steps) by QPU count. */
const PUBLISHED_ROT3D: readonly (readonly [1 | 2, number, number])[] = [[1, 1, 0.032531], [2, 1, 0.015441], [2, 4, 0.013367], [2, 8, 0.013368], [2, 12, 0.013386]];
const PUBLISHED_HEAT: readonly (readonly [number, number])[] = [[1, 58.48], [2, 29.67], [4, 16.26], [8, 16.24], [12, 16.25]];

/** "12.34 ms". */
const ms = (s: number) => `${(s * 1e3).toPrecision(4)} ms`;
/** A launch through the mailbox, in seconds. */
const LAUNCH_S = MAILBOX_LAUNCH_US / 1e6;

/** Rot3D's figure: one launch. */
function rot3DFigure(dir: string, [kernel, qpus, published]: readonly [1 | 2, number, number], stalls: (r: RunResult) => string): Figure {
  const r = rot3D(dir, kernel, qpus);
  const modelled = r.seconds + LAUNCH_S;
  const detail = `${r.total.instructions} instructions, ${ms(r.seconds)} on the QPUs + ${MAILBOX_LAUNCH_US} us launch; ${stalls(r)}`;
  return { name: `V3DLib Rot3D kernel ${kernel}, ${qpuCount(qpus)}, on Pi 3`, published: ms(published), modelled: ms(modelled), ratio: modelled / published, fitted: false, detail };
}

/** HeatMap's figure: 1,500 launches, a step each, half of them each way between the maps. */
function heatFigure(dir: string, [qpus, published]: readonly [number, number], stalls: (r: RunResult) => string): Figure {
  const even = heatStep(dir, qpus, false);
  const odd = heatStep(dir, qpus, true);
  const modelled = ((even.seconds + odd.seconds) / 2 + LAUNCH_S) * HEAT_STEPS;
  const detail = `a step: ${even.total.instructions} instructions, ${ms(even.seconds)} on the QPUs (${ms(odd.seconds)} the other way) + ${MAILBOX_LAUNCH_US} us launch; ${stalls(even)}`;
  return { name: `V3DLib HeatMap, 1,500 steps of 512 x 506, ${qpuCount(qpus)}, on Pi 3`, published: `${published} s`, modelled: `${modelled.toFixed(2)} s`, ratio: modelled / published, fitted: false, detail };
}

/** The ten Pi 3 figures, from the kernels in `dir` (`stalls` describes a run's stalls). */
export function v3dlibFigures(dir: string, stalls: (r: RunResult) => string): Figure[] {
  return [...PUBLISHED_ROT3D.map((p) => rot3DFigure(dir, p, stalls)), ...PUBLISHED_HEAT.map((p) => heatFigure(dir, p, stalls))];
}
