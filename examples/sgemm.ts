// Matrix multiply, C = A B in float32 (SGEMM without alpha and beta), as py-videocore's
// hand-written SGEMM does it: each QPU keeps a block of C, 32 rows by 16 columns, in 32 vectors
// (lane j of sum r is C[32 bi + r][16 bj + j]); for each k, B's row k comes in through the TMU
// (four rows gathered ahead) and A's 32 values of column k come one at a time as a broadcast
// stream (stream(p), s.next()), so each multiply-add is one instruction: the multiply reads its
// factor straight from the uniform stream, beside the add of the step before. A stream reads
// consecutive words, so A is first packed by a kernel of its own, 32-row panel by panel, column
// after column (ap[bi][kk][r] = A[32 bi + r][kk]), in 16x16 tiles turned round in registers.
// Checked bit for bit against plain TypeScript with the QPU's rounding, and timed: the cycle
// model's Pi time of both kernels and the GFLOPS it stands for (2 m n k floating-point
// operations): 15.75 in the cycle model at 1024x1024 on 12 QPUs (docs/comparisons.md), where
// py-videocore's runs at about 8 on a Pi.
// Run: npx tsx examples/sgemm.ts [--size N] [--qpus 1,12]
import { Float, type FloatVar, For, gather, index, Int, kernel, me, numQPUs, Ptr, receive, rotate, SharedArray, stream, Where } from 'qpu-ts';
import { qadd, qmul } from 'qpu-ts/float';
import { checkSameBits, type ExampleOptions, type ExampleResult, fastest, qpuList, qpusText, runIfMain, since, type Timing, timed, timingTable, UsageError, wholeNumber } from './lib/report.ts';

/** Rows of A, and of C, a QPU's block holds: a panel of A, its values streamed 32 at a time. */
export const PANEL = 32;
/** Columns of C a block holds, and the side of the tiles A is packed in: one vector. */
const LANES = 16;

/**
 * Packs A (m x k, row-major; m a multiple of 32, k of 16) for sgemm: panel after panel of 32
 * rows, each column of a panel (32 values) after the one before, so ap[(bi k + kk) 32 + r] is
 * A[32 bi + r][kk]. QPU q packs 16x16 tiles q, q + numQPUs(), ...: their 16 rows gathered, turned
 * round in registers (each row rotated by its number, then the lanes picked diagonally, then each
 * rotated back), and stored as 16 rows 32 words apart.
 */
export const packA = kernel([Ptr(Float), Ptr(Float), Int, Int], function packA(a, ap, m, k) {
  const across = Int(k.shr(4));
  const tiles = Int(m.shr(4).mul(across));
  const t = Int(me());
  For(t.lt(tiles), () => t.set(t.add(numQPUs())), () => {
    const ti = Int(t.div(across));
    const tj = Int(t.sub(ti.mul(across)));
    const src = Ptr(Float)(a.add(ti.mul(k).shl(4)).add(tj.shl(4)).add(index()));
    const row: FloatVar[] = Array.from({ length: LANES }, () => Float(0));
    for (let r = 0; r < LANES; r++) {
      if (r >= 4) receive(row[r - 4]!);
      gather(src);
      src.set(src.add(k));
    }
    for (let r = LANES - 4; r < LANES; r++) receive(row[r]!);
    // Lane l of row r becomes lane l + r; then column j of the tile is lane l of row l - j, read off diagonally.
    for (let r = 1; r < LANES; r++) row[r]!.set(rotate(row[r]!, r));
    const col: FloatVar[] = Array.from({ length: LANES }, () => Float(0));
    for (let l = 0; l < LANES; l++) Where(index().eq(l), () => col.forEach((c, j) => c.set(row[(l - j) & (LANES - 1)]!)));
    const out = ap.add(ti.shr(1).mul(k).mul(PANEL)).add(tj.mul(LANES * PANEL)).add(ti.and(1).shl(4));
    for (let j = 0; j < LANES; j++) out.add(PANEL * j).store(j ? rotate(col[j]!, LANES - j) : col[j]!);
  });
});

/**
 * C (m x n) = A B from A packed by packA (ap) and B (k x n, row-major); m a multiple of 32, n and
 * k of 16. QPU q computes blocks q, q + numQPUs(), ... of C, 32 x 16 each, in row-major order of
 * the blocks: A's panel is one stream, read 32 values a k; B's 16 columns come a row at a time,
 * four gathered ahead; the last four k's gather nothing more.
 */
export const sgemm = kernel([Ptr(Float), Ptr(Float), Ptr(Float), Int, Int, Int], function sgemm(ap, b, c, m, n, k) {
  const across = Int(n.shr(4));
  const blocks = Int(m.div(PANEL).mul(across));
  const blk = Int(me());
  For(blk.lt(blocks), () => blk.set(blk.add(numQPUs())), () => {
    const bi = Int(blk.div(across));
    const bj = Int(blk.sub(bi.mul(across)));
    const sum: FloatVar[] = Array.from({ length: PANEL }, () => Float(0));
    const bNext = Ptr(Float)(b.add(bj.shl(4)).add(index()));
    const panel = stream(ap.add(bi.mul(k).mul(PANEL)));
    const gatherB = () => {
      gather(bNext);
      bNext.set(bNext.add(n));
    };
    // One k: B's row k (gathered four earlier) times each of A's 32 values of column k, into the sums.
    const step = (ahead: boolean) => {
      const bRow = Float(0);
      receive(bRow);
      if (ahead) gatherB();
      for (const s of sum) s.set(s.add(bRow.mul(panel.next())));
    };
    for (let kk = 0; kk < 4; kk++) gatherB();
    const k0 = Int(4);
    For(k0.lt(k), () => k0.set(k0.add(4)), () => {
      for (let kk = 0; kk < 4; kk++) step(true);
    });
    for (let kk = 0; kk < 4; kk++) step(false);
    const out = c.add(bi.mul(n).mul(PANEL)).add(bj.shl(4));
    sum.forEach((s, r) => out.add(n.mul(r)).store(s));
  });
});

/** A (m x k) packed as packA packs it, in plain TypeScript. */
export function packScalar(a: Float32Array, m: number, k: number): Float32Array {
  const ap = new Float32Array(m * k);
  for (let i = 0; i < m; i++) for (let kk = 0; kk < k; kk++) ap[(Math.floor(i / PANEL) * k + kk) * PANEL + (i % PANEL)] = a[i * k + kk]!;
  return ap;
}

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
  /** m = n = k (default 128): a multiple of 32. */
  readonly size?: number;
  /** The QPU counts to run on (default 1 and 12). */
  readonly qpus?: readonly number[];
}

/** Multiplies two size x size matrices on each QPU count (packing A, then the product), checks A's packing and C against plain TypeScript, prints the time and GFLOPS. */
export async function main(opts: SgemmOptions = {}): Promise<ExampleResult> {
  const log = opts.log ?? console.log;
  const start = performance.now();
  const { size = 128, qpus = [1, 12] } = opts;
  if (size % PANEL) throw new UsageError(`sgemm: a size of ${size}; the kernel needs a multiple of ${PANEL}`);
  const a = matrix(size, size, 1, 'A');
  const b = matrix(size, size, 2, 'B');
  const want = sgemmScalar(a, b, size, size, size);
  const timings: Timing[] = [];
  for (const q of qpus) {
    const ap = SharedArray.float32(size * size, 'A packed');
    const c = SharedArray.float32(size * size, 'C');
    packA.setNumQPUs(q).code(); // compiled before the clock starts
    sgemm.setNumQPUs(q).code();
    const pack = (await timed('packA', () => packA(a, ap, size, size))).timing;
    checkSameBits(`A packed on ${qpusText(q)}`, ap, packScalar(a, size, size));
    const product = (await timed('sgemm', () => sgemm(ap, b, c, size, size, size, { maxSteps: Infinity }))).timing;
    checkSameBits(`C on ${qpusText(q)}`, c, want);
    timings.push({ ...product, kernel: 'packA + sgemm', piSeconds: pack.piSeconds + product.piSeconds, wallSeconds: pack.wallSeconds + product.wallSeconds, instructions: pack.instructions + product.instructions });
    for (const x of [ap, c]) SharedArray.free(x);
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
