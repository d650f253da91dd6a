// py-videocore's SGEMM on the emulator, for bench:published (bench/published.ts): Koichi
// Nakamura's hand-scheduled single-precision matrix multiply (nineties/py-videocore,
// examples/sgemm.py, MIT), whose 8.32 GFLOPS for 96x363 by 363x3072 on 12 QPUs is one of the
// fastest published QPU kernels. Its machine code is assembled by py-videocore's own assembler
// (bench/py-videocore/assemble.py writes sgemm.bin) and run unchanged; what its host code does is
// written here anew from these facts of examples/sgemm.py (master 5643470):
// - p = 96, q = 363, r = 3072, alpha = beta = 1: C = alpha A B + beta C, float32, row-major,
//   no padding. 12 threads: the rows in p_div = 2 parts, the columns in r_div = 6.
// - Its Driver allocates C, A and B, then the uniforms, back to back in one page-aligned area
//   (videocore/driver.py); the kernel's TMU prefetch reads the word after a row of A, which for
//   A's last row is B's first.
// - Thread t's 14 uniforms: the address of its own first uniform (the kernel points
//   uniforms_address back at word 10 to read alpha and beta again), its 16-row blocks h (the
//   last part takes what is left), q, its 64-column blocks w (likewise), the addresses of A's,
//   B's and C's first element of its block, the row strides of A, B and C in bytes, alpha's and
//   beta's bits, t, and the thread count. Thread 0 raises the host interrupt when all are done.
// - The time published counts 2pqr + 3pr flops over the time of drv.execute: the mailbox's launch
//   (about 100 us) and the kernel. The host flushes the caches first (noflush = 0).
import { Machine, type RunResult } from '../src/emulator/machine.ts';
import { footprint, GpuMemory } from '../src/common/memory.ts';
import type { PiModelName } from '../src/emulator/models.ts';
import { floatBits } from '../src/vc4/tables.ts';
import { binWords, WrongResult } from './cli.ts';

const [P, Q, R] = [96, 363, 3072];
const [P_DIV, R_DIV] = [2, 6];
const THREADS = P_DIV * R_DIV;
const UNIFORMS = 14;
const BLOCK_ROWS = 16;
const BLOCK_COLS = 64;
/** What the author's example counts as its work: 2pqr + 3pr. */
export const SGEMM_FLOPS = 2 * P * Q * R + 3 * P * R;

/** Reads DIR/sgemm.bin, the kernel as py-videocore assembles it. */
export function readSgemm(dir: string): Uint32Array {
  return binWords(`${dir}/sgemm.bin`, ' (python3 bench/py-videocore/assemble.py TREE DIR writes it)');
}

/** Deterministic values in [-1, 1): the example uses a normal distribution; the time does not depend on them. */
function values(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1);
}

/** One run of the example's 96x363 by 363x3072 on `model`, its result checked against float64. */
export function runSgemm(program: Uint32Array, model: PiModelName): RunResult {
  const [a, b, c] = [values(P * Q, 1), values(Q * R, 2), values(P * R, 3)];
  const bytes = 4 * (P * R + P * Q + Q * R + THREADS * UNIFORMS);
  const m = new Machine(new GpuMemory(footprint(bytes) + footprint(8 * program.length)));
  const loaded = m.load(program, 'py-videocore sgemm');
  const area = m.memory.alloc(bytes, 'C, A, B and the uniforms');
  const words = m.memory.view(area, Int32Array);
  const floats = m.memory.view(area, Float32Array);
  const [cAt, aAt, bAt, uAt] = [0, P * R, P * R + P * Q, P * R + P * Q + Q * R];
  floats.set(c, cAt);
  floats.set(a, aAt);
  floats.set(b, bAt);
  const address = (word: number) => area.address + 4 * word;
  const h = Math.ceil(P / (BLOCK_ROWS * P_DIV));
  const w = Math.ceil(R / (BLOCK_COLS * R_DIV));
  const starts: number[] = [];
  for (let i = 0; i < P_DIV; i++)
    for (let j = 0; j < R_DIV; j++) {
      const t = i * R_DIV + j;
      const [row, col] = [i * BLOCK_ROWS * h, j * BLOCK_COLS * w];
      const own = uAt + t * UNIFORMS;
      const rows = i === P_DIV - 1 ? (P - row) / BLOCK_ROWS : h;
      const cols = j === R_DIV - 1 ? (R - col) / BLOCK_COLS : w;
      const u = [address(own), rows, Q, cols, address(aAt + row * Q), address(bAt + col), address(cAt + row * R + col), 4 * Q, 4 * R, 4 * R, floatBits(1), floatBits(1), t, THREADS];
      u.forEach((x, k) => (words[own + k] = x | 0));
      starts.push(address(own));
    }
  // Not strict: the TMU prefetch past a row of A reads what is there (the next row, or B).
  const r = m.run(loaded, starts, { maxSteps: Infinity, strict: false, model });
  const got = m.memory.view(area, Float32Array).subarray(cAt, cAt + P * R);
  // Each error against the sum of its terms' sizes: the QPU's adds and multiplies round toward
  // zero, up to 2^-23 of a term each, so 363 of them stay below about 4.3e-5 of that sum; a
  // wrong row or column is off by a good part of it.
  let worst = 0;
  for (let i = 0; i < P; i++)
    for (let j = 0; j < R; j++) {
      let [want, size] = [c[i * R + j]!, Math.abs(c[i * R + j]!)];
      for (let k = 0; k < Q; k++) {
        const x = a[i * Q + k]! * b[k * R + j]!;
        want += x;
        size += Math.abs(x);
      }
      worst = Math.max(worst, Math.abs(got[i * R + j]! - want) / size);
    }
  if (!(worst <= 1e-4)) throw new WrongResult(`py-videocore sgemm: wrong result (largest error ${worst} of the sum of its terms' sizes)`);
  return r;
}
