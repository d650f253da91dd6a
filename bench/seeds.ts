// The seed kernels as the benches run them: each kernel of examples/ with the QPU counts and
// inputs the comparisons use, and QPULib's figures for the same kernels (docs/comparisons.md;
// for sha256, the SHA-256 series' hand-written kernel's).
import { gcd, gcdInputs, gcdUnrolled } from '../examples/gcd.ts';
import { glibcRand } from '../examples/lib/rand.ts';
import { heatGrid, step } from '../examples/heat.ts';
import { rot3D_1, rot3D_2, rot3D_3, rot3DArrays } from '../examples/rot3d.ts';
import { roundConstants, sampleMessages, sha256, sha256Inputs } from '../examples/sha256.ts';
import { SharedArray } from '../src/index.ts';
import type { KernelAst } from '../src/source/ast.ts';
import type { ArrayArg } from '../src/runtime/emulate.ts';
import { allocationOf } from '../src/runtime/shared-array.ts';

/**
 * QPULib's figures (docs/comparisons.md): static size and instructions executed per QPU, counted
 * on its compiler's output; time on a Pi as its README publishes it (heat: 2000 steps of 49.34 s,
 * 24.91 s and 20.36 s on 1, 2 and 4 QPUs, a step each); compile time as shipped. Its emulator,
 * built with -O2, measured side by side with qpu-ts on this kind of machine (CPU time of warm
 * runs): operations a second and the whole run's time, by QPU count.
 */
export const QPULIB: Record<
  string,
  {
    static: number;
    executed: Record<number, number>;
    piSeconds?: Record<number, number>;
    compileMs?: number;
    emulator?: Record<number, { opsPerSec: number; runSeconds: number }>;
  }
> = {
  'gcd v1': { static: 90, executed: { 1: 737 }, compileMs: 0.16, emulator: { 1: { opsPerSec: 42e6, runSeconds: 0.013e-3 } } },
  'gcd v2': { static: 276, executed: { 1: 460 } },
  'rot3D v1': { static: 109, executed: { 1: 600_046 }, piSeconds: { 1: 0.04 }, emulator: { 1: { opsPerSec: 48e6, runSeconds: 11.7e-3 } } },
  'rot3D v2': { static: 105, executed: { 1: 420_057 }, piSeconds: { 1: 0.018 }, emulator: { 1: { opsPerSec: 41e6, runSeconds: 9.4e-3 } } },
  'rot3D v3': {
    static: 111,
    executed: { 1: 420_063, 2: 210_072 },
    piSeconds: { 2: 0.016 },
    emulator: { 2: { opsPerSec: 39e6, runSeconds: 9.8e-3 } },
  },
  heat: {
    static: 223,
    executed: { 1: 1_530_198, 2: 765_135, 4: 382_617 },
    piSeconds: { 1: 49.34 / 2000, 2: 24.91 / 2000, 4: 20.36 / 2000 },
    compileMs: 1.7,
    emulator: { 1: { opsPerSec: 35e6, runSeconds: 42.3e-3 }, 4: { opsPerSec: 37e6, runSeconds: 40.1e-3 } },
  },
  // Not QPULib's: the SHA-256 series' hand-written kernel, 3,575 instructions a pass of 16 hashes
  // a QPU, 3.1 Mhash/s on 12 QPUs (a pass in 12 * 16 / 3.1e6 s).
  sha256: { static: 530, executed: { 1: 3575, 12: 3575 }, piSeconds: { 12: (12 * 16) / 3.1e6 } },
};

export interface SeedCase {
  kernel: string;
  qpus: number;
  ast: KernelAst;
  /** Fresh arguments for one run: 32-bit values, and SharedArrays for pointers. */
  args(): (number | Int32Array | Float32Array)[];
}

const N = 192_000;
const theta = 3.14159;

/** A case's arguments as the emulator target takes them: values, and the arrays the kernel may reach. */
export function machineArgs(args: (number | Int32Array | Float32Array)[]): [number[], ArrayArg[]] {
  const arrays: ArrayArg[] = [];
  const values = args.map((a, i) => {
    if (typeof a === 'number') return a;
    const { alloc } = allocationOf(a)!;
    arrays.push({ name: `argument ${i + 1}`, address: alloc.address, bytes: alloc.bytes });
    return alloc.address | 0;
  });
  return [values, arrays];
}

/** rot3D v1 and v2 on several QPUs: every QPU rewrites the same vertices, so their DMA stores race (rule dma-store-race). */
export function strictFor(c: SeedCase): boolean {
  return c.qpus === 1 || !/^rot3D v[12]$/.test(c.kernel);
}

export const SEED_CASES: SeedCase[] = [];
for (const [name, k] of [['gcd v1', gcd], ['gcd v2', gcdUnrolled]] as const)
  SEED_CASES.push({
    kernel: name,
    qpus: 1,
    ast: k.ast,
    args() {
      const { a, b } = gcdInputs();
      return [a, b, SharedArray.int32(16)];
    },
  });
for (const [name, k] of [['rot3D v1', rot3D_1], ['rot3D v2', rot3D_2], ['rot3D v3', rot3D_3]] as const)
  for (const qpus of [1, 2, 12])
    SEED_CASES.push({
      kernel: name,
      qpus,
      ast: k.ast,
      args() {
        const { x, y } = rot3DArrays(N);
        return [N, f32bits(Math.cos(theta)), f32bits(Math.sin(theta)), x, y];
      },
    });
for (const qpus of [1, 12])
  SEED_CASES.push({
    kernel: 'sha256',
    qpus,
    ast: sha256.ast,
    args() {
      const messages = sampleMessages(16 * qpus);
      return [sha256Inputs(messages).blocks, SharedArray.int32(messages.length * 8), roundConstants()];
    },
  });
const grid = heatGrid(496, 504, glibcRand(0), 10);
for (const qpus of [1, 2, 4])
  SEED_CASES.push({ kernel: 'heat', qpus, ast: step.ast, args: () => [grid, SharedArray.float32(grid.length), 512, 496, 504] });

function f32bits(x: number): number {
  return new Int32Array(new Float32Array([x]).buffer)[0]!;
}
