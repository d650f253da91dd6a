// V3DLib's Rot3D and HeatMap on the emulator, for bench:published (bench/published.ts): the
// only published times from a Pi 3 whose machine code runs here. V3DLib (wimrijnders/V3DLib,
// QPULib's successor) compiles its kernels at run time; bench/v3dlib/dump.cpp writes the words
// its vc4 back end sends to the QPUs (DIR/rot3d_kernel1.bin, rot3d_kernel2.bin,
// heatmap_vector.bin), and this file runs them as its host does. Facts from V3DLib's source at
// the commits its Doc/Examples.md's times come with (d26c712 for Rot3D, 991f42e for HeatMap):
// - Each QPU's uniforms: its index, the QPU count, the kernel's arguments in declaration order
//   (an int or a float as its bits, an array as its address), then a 0 V3DLib adds and reads
//   (vc4/Invoke.cpp). The code is the same whatever the QPU count.
// - Its arrays come one after another from one heap: Rot3D's x and y (192,000 floats each, x[i]
//   = y[i] = i, rotated by cos and sin of 3.14159f), HeatMap's two 512 x 506 maps. Rot3D's
//   kernel 2 prefetches one vector past each array's end on its last pass.
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
import { readInput, WrongResult } from './cli.ts';

/** The Pi V3DLib's times were taken on. */
export const V3DLIB_MODEL: PiModelName = '3';
/** The files bench/v3dlib/dump.cpp writes. */
export const V3DLIB_FILES = ['rot3d_kernel1.bin', 'rot3d_kernel2.bin', 'heatmap_vector.bin'] as const;
/** V3DLib's heap, from which its arrays come one after another (LibSettings.cpp: 8 MiB). */
const HEAP_BYTES = 8 << 20;
/** A float's bytes. */
const FLOAT = 4;

const words = (dir: string, file: string) => {
  const b = readInput(`${dir}/${file}`);
  return new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
};

/**
 * Runs `program` once on `qpus` QPUs of model 3, as V3DLib launches it: QPU q's uniforms are
 * q, the QPU count, `args(heap)` and a 0, where `heap` is the address of its 8 MiB heap, which
 * `fill` sets up first. Gives the run and the machine, whose memory holds the results.
 */
function launch(program: Uint32Array, qpus: number, args: (heap: number) => number[], fill: (m: Machine, heap: number) => void) {
  const m = new Machine(new GpuMemory(2 * HEAP_BYTES));
  const loaded = m.load(program, 'V3DLib kernel');
  const heap = m.memory.alloc(HEAP_BYTES, 'heap').address;
  fill(m, heap);
  const stream = [...args(heap), 0];
  const uniforms = m.memory.alloc(4 * (2 + stream.length) * qpus, 'uniforms').address;
  const starts = Array.from({ length: qpus }, (_, q) => {
    const at = uniforms + 4 * (2 + stream.length) * q;
    [q, qpus, ...stream].forEach((w, i) => m.memory.writeWord(at + 4 * i, w | 0));
    return at;
  });
  // V3DLib's code reads a register-file register the instruction before wrote, as chips allow.
  return { m, r: m.run(loaded, starts, { maxSteps: Infinity, strict: false, model: V3DLIB_MODEL }) };
}

const qpuCount = (qpus: number) => `${qpus} QPU${qpus > 1 ? 's' : ''}`;

/** Floats of `m`'s memory from byte address `at`. */
const floatsAt = (m: Machine, at: number, n: number) => m.memory.floats.subarray(m.memory.index(at), m.memory.index(at) + n);

/** Whether `got` is within a thousandth of `want` (the QPU rounds toward zero; V3DLib's own test allows 0.001). */
const near = (got: number, want: number) => Math.abs(got - want) <= 1e-3 * Math.max(1, Math.abs(want));

const VERTICES = 192_000;
/** cosf and sinf of 3.14159f, as Rot3D.cpp passes them. */
const [COS, SIN] = [Math.fround(Math.cos(Math.fround(3.14159))), Math.fround(Math.sin(Math.fround(3.14159)))];

/** Rot3D's kernel `kernel` (1 or 2) on `qpus` QPUs: one launch, its result checked. */
export function rot3D(dir: string, kernel: 1 | 2, qpus: number): RunResult {
  let x = 0;
  const y = () => x + FLOAT * VERTICES;
  const { m, r } = launch(
    words(dir, `rot3d_kernel${kernel}.bin`),
    qpus,
    (heap) => [VERTICES, floatBits(COS), floatBits(SIN), heap, heap + FLOAT * VERTICES],
    (m, heap) => {
      x = heap;
      floatsAt(m, x, VERTICES).forEach((_, i, a) => (a[i] = i));
      floatsAt(m, y(), VERTICES).forEach((_, i, a) => (a[i] = i));
    },
  );
  const [xs, ys] = [floatsAt(m, x, VERTICES), floatsAt(m, y(), VERTICES)];
  for (let i = 0; i < VERTICES; i++) {
    const [wx, wy] = [i * COS - i * SIN, i * COS + i * SIN];
    if (!near(xs[i]!, wx) || !near(ys[i]!, wy)) throw new WrongResult(`V3DLib Rot3D kernel ${kernel} on ${qpuCount(qpus)}: vertex ${i} is (${xs[i]}, ${ys[i]}), not (${wx}, ${wy})`);
  }
  return r;
}

const [WIDTH, HEIGHT] = [512, 506];
const CELLS = WIDTH * HEIGHT;
/** HeatMap.cpp's K. */
const K = 0.25;
/** The published runs' steps, one launch each. */
export const HEAT_STEPS = 1500;
const cell = (i: number) => ((i * 2654435761) >>> 0) % 1000;

/** One step of HeatMap on `qpus` QPUs, from the heap's first map to its second (`odd`: the other way), its result checked. */
export function heatStep(dir: string, qpus: number, odd: boolean): RunResult {
  let [from, to] = [0, 0];
  const { m, r } = launch(
    words(dir, 'heatmap_vector.bin'),
    qpus,
    () => [from, to, HEIGHT, WIDTH],
    (m, heap) => {
      const maps = [heap, heap + FLOAT * CELLS];
      [from, to] = odd ? [maps[1]!, maps[0]!] : [maps[0]!, maps[1]!];
      floatsAt(m, from, CELLS).forEach((_, i, a) => (a[i] = cell(i)));
    },
  );
  // Rows 1 to HEIGHT - 3 are written (the kernel's loop stops short of the last two); columns 0 and WIDTH - 1 are 0.
  const [got, at] = [floatsAt(m, to, CELLS), (y: number, x: number) => cell(y * WIDTH + x)];
  for (let y = 1; y < HEIGHT - 2; y++)
    for (let x = 0; x < WIDTH; x++) {
      let want = 0;
      if (x > 0 && x < WIDTH - 1) {
        const sum = at(y - 1, x - 1) + at(y - 1, x) + at(y - 1, x + 1) + at(y, x - 1) + at(y, x + 1) + at(y + 1, x - 1) + at(y + 1, x) + at(y + 1, x + 1);
        want = at(y, x) - K * (at(y, x) - sum * 0.125);
      }
      if (!near(got[y * WIDTH + x]!, want)) throw new WrongResult(`V3DLib HeatMap on ${qpuCount(qpus)}: cell (${y}, ${x}) is ${got[y * WIDTH + x]}, not ${want}`);
    }
  return r;
}

/** V3DLib's Doc/Examples.md, Pi 3 Model B: Rot3D's seconds by kernel and QPU count, HeatMap's (1,500 steps) by QPU count. */
const PUBLISHED_ROT3D: readonly (readonly [1 | 2, number, number])[] = [[1, 1, 0.032531], [2, 1, 0.015441], [2, 4, 0.013367], [2, 8, 0.013368], [2, 12, 0.013386]];
const PUBLISHED_HEAT: readonly (readonly [number, number])[] = [[1, 58.48], [2, 29.67], [4, 16.26], [8, 16.24], [12, 16.25]];

const ms = (s: number) => `${(s * 1e3).toPrecision(4)} ms`;

/** The ten Pi 3 figures, from the kernels in `dir`. Each launch adds the mailbox's 100 us. */
export function v3dlibFigures(dir: string, stalls: (r: RunResult) => string): Figure[] {
  const launchS = MAILBOX_LAUNCH_US / 1e6;
  const rot = PUBLISHED_ROT3D.map(([kernel, qpus, published]): Figure => {
    const r = rot3D(dir, kernel, qpus);
    const modelled = r.seconds + launchS;
    return { name: `V3DLib Rot3D kernel ${kernel}, ${qpuCount(qpus)}, on Pi 3`, published: ms(published), modelled: ms(modelled), ratio: modelled / published, fitted: false, detail: `${r.total.instructions} instructions, ${ms(r.seconds)} on the QPUs + ${MAILBOX_LAUNCH_US} us launch; ${stalls(r)}` };
  });
  const heat = PUBLISHED_HEAT.map(([qpus, published]): Figure => {
    const [even, odd] = [heatStep(dir, qpus, false), heatStep(dir, qpus, true)];
    const step = (even.seconds + odd.seconds) / 2 + launchS;
    const modelled = step * HEAT_STEPS;
    return { name: `V3DLib HeatMap, 1,500 steps of 512 x 506, ${qpuCount(qpus)}, on Pi 3`, published: `${published} s`, modelled: `${modelled.toFixed(2)} s`, ratio: modelled / published, fitted: false, detail: `a step: ${even.total.instructions} instructions, ${ms(even.seconds)} on the QPUs (${ms(odd.seconds)} the other way) + ${MAILBOX_LAUNCH_US} us launch; ${stalls(even)}` };
  });
  return [...rot, ...heat];
}
