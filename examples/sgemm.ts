// Matrix multiply, C = A B in float32 (SGEMM without alpha and beta): the QPUs share out C's
// 16x16 blocks, each kept in 16 vectors while the 16 rows of A and one row of B at a time come in
// through the TMUs. Checked bit for bit against plain TypeScript with the QPU's rounding, and
// timed: the cycle model's Pi time and the GFLOPS it stands for (2 m n k floating-point
// operations). py-videocore's hand-written SGEMM runs at about 8 GFLOPS on a Pi; this kernel,
// 5.96 in the cycle model at 1024x1024 on 12 QPUs (docs/comparisons.md).
// Run: npx tsx examples/sgemm.ts [--size N] [--qpus 1,12]
import { Float, type FloatVar, For, gather, index, Int, kernel, me, numQPUs, Ptr, receive, SharedArray } from 'qpu-ts';
import { qadd, qmul } from 'qpu-ts/float';
import { checkSameBits, type ExampleOptions, type ExampleResult, fastest, qpuList, qpusText, runIfMain, since, type Timing, timed, timingTable, UsageError, wholeNumber } from './lib/report.ts';

/** Rows and columns of C a QPU computes at a time, and the k's of A's rows it holds at once. */
const BLOCK = 16;

/**
 * C (m x n) = A (m x k) B (k x n), every matrix row-major and every size a multiple of 16. QPU q
 * computes blocks q, q + numQPUs(), ... of C in row-major order of the blocks; each block is 16
 * sums, lane j of sum r being C[16 bi + r][16 bj + j], over k in steps of 16: A's 16 rows of those
 * k's gathered four in flight, then B's 16 rows one at a time, four gathered ahead, each added
 * into every sum times one lane of A's row broadcast.
 */
export const sgemm = kernel([Ptr(Float), Ptr(Float), Ptr(Float), Int, Int, Int], function sgemm(a, b, c, m, n, k) {
  const across = Int(n.shr(4));
  const blocks = Int(m.shr(4).mul(across));
  const blk = Int(me());
  For(blk.lt(blocks), () => blk.set(blk.add(numQPUs())), () => {
    const bi = Int(blk.div(across));
    const bj = Int(blk.sub(bi.mul(across)));
    const sum: FloatVar[] = Array.from({ length: BLOCK }, () => Float(0));
    const aRow: FloatVar[] = Array.from({ length: BLOCK }, () => Float(0));
    const bRow = Float(0);
    const aAt = Ptr(Float)(a.add(bi.mul(k).shl(4)).add(index())); // A[16 bi][0], lane by lane
    const bAt = Ptr(Float)(b.add(bj.shl(4)).add(index())); // B[0][16 bj], lane by lane
    const aNext = Ptr(Float)(aAt);
    const bNext = Ptr(Float)(bAt);
    const k0 = Int(0);
    For(k0.lt(k), () => k0.set(k0.add(BLOCK)), () => {
      aNext.set(aAt);
      for (let r = 0; r < BLOCK; r++) {
        if (r >= 4) receive(aRow[r - 4]!);
        gather(aNext);
        aNext.set(aNext.add(k));
      }
      for (let r = BLOCK - 4; r < BLOCK; r++) receive(aRow[r]!);
      for (let kk = 0; kk < 4; kk++) {
        gather(bNext);
        bNext.set(bNext.add(n));
      }
      for (let kk = 0; kk < BLOCK; kk++) {
        receive(bRow);
        if (kk + 4 < BLOCK) {
          gather(bNext);
          bNext.set(bNext.add(n));
        }
        for (let r = 0; r < BLOCK; r++) sum[r]!.set(sum[r]!.add(aRow[r]!.lane(kk).mul(bRow)));
      }
      aAt.set(aAt.add(BLOCK));
    });
    const out = c.add(bi.mul(n).shl(4)).add(bj.shl(4));
    for (let r = 0; r < BLOCK; r++) out.add(n.mul(r)).store(sum[r]!);
  });
});

/** C = A B in plain TypeScript, each sum in the kernel's order with the QPU's rounding. */
export function sgemmScalar(a: Float32Array, b: Float32Array, m: number, n: number, k: number): Float32Array {
  const c = new Float32Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let q = 0; q < k; q++) s = qadd(s, qmul(a[i * k + q]!, b[q * n + j]!));
      c[i * n + j] = s;
    }
  return c;
}

/** An r x c matrix of values in [-1, 1], the same every run. */
export function matrix(rows: number, cols: number, salt: number, name: string): Float32Array {
  const x = SharedArray.float32(rows * cols, name);
  for (let i = 0; i < x.length; i++) x[i] = Math.fround((((i * 37 + salt * 101) % 257) - 128) / 128);
  return x;
}

export interface SgemmOptions extends ExampleOptions {
  /** m = n = k (default 128): a multiple of 16. */
  readonly size?: number;
  /** The QPU counts to run on (default 1 and 12). */
  readonly qpus?: readonly number[];
}

/** Multiplies two size x size matrices on each QPU count, checks C against sgemmScalar, prints the time and GFLOPS. */
export async function main(opts: SgemmOptions = {}): Promise<ExampleResult> {
  const log = opts.log ?? console.log;
  const start = performance.now();
  const { size = 128, qpus = [1, 12] } = opts;
  if (size % BLOCK) throw new UsageError(`sgemm: a size of ${size}; the kernel needs a multiple of ${BLOCK}`);
  const a = matrix(size, size, 1, 'A');
  const b = matrix(size, size, 2, 'B');
  const want = sgemmScalar(a, b, size, size, size);
  const timings: Timing[] = [];
  for (const q of qpus) {
    const c = SharedArray.float32(size * size, 'C');
    sgemm.setNumQPUs(q).code(); // compiled before the clock starts
    timings.push((await timed('sgemm', () => sgemm(a, b, c, size, size, size, { maxSteps: Infinity }))).timing);
    checkSameBits(`C on ${qpusText(q)}`, c, want);
    SharedArray.free(c);
  }
  const flops = 2 * size ** 3;
  const gflops = (t: Timing) => (flops / t.piSeconds / 1e9).toFixed(2);
  log(`C = A B for ${size}x${size} float32 matrices: every element exactly plain TypeScript's (QPU rounding); C[0][0] = ${want[0]!.toFixed(4)}`);
  for (const line of timingTable(timings, { header: 'GFLOPS (model)', cell: gflops })) log(`  ${line}`);
  return { name: 'sgemm', summary: `${size}x${size} matrix product, ${gflops(fastest(timings))} GFLOPS in the cycle model`, pictures: [], timings, headline: fastest(timings), wallSeconds: since(start) };
}

await runIfMain(
  import.meta.url,
  'npx tsx examples/sgemm.ts [--size N] [--qpus 1,12]: C = A B for N x N float32 matrices, checked and timed',
  { size: { type: 'string' }, qpus: { type: 'string' } },
  (v) =>
    main({
      size: v.size === undefined ? undefined : wholeNumber('size', v.size as string),
      qpus: v.qpus === undefined ? undefined : qpuList(v.qpus as string),
    }),
);
