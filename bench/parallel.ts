// Parallel loops and reductions on 12 QPUs (modelled on the emulator's cycle model, at -O2):
// the sum, least and greatest of 1M floats written with parallelFor and accumulators, beside the
// same written by hand (a For over this QPU's vectors, a semaphore hand-off to QPU 0); a prefix
// sum of 1M ints; a bitonic sort of 64K ints. Each with its modelled time on a Pi and, beside it,
// the time plain TypeScript takes for the same on this machine (the best of REPEATS runs: this
// machine is shared, so the TypeScript figure is a rough guide).
// Run: npm run bench:parallel [-- --json out.json]
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { SharedArray } from '../src/index.ts';
import { bitonicSort, handSum, prefixSum, sumMinMax } from './parallel-kernels.ts';

const QPUS = 12;
const N = 1 << 20;
const SORTED = 1 << 16;
const REPEATS = 5;

/** The best of REPEATS runs of f, in seconds. */
function best(f: () => void): number {
  let t = Infinity;
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    f();
    t = Math.min(t, (performance.now() - t0) / 1000);
  }
  return t;
}

interface Row {
  name: string;
  piSeconds: number;
  typescriptSeconds: number;
  correct: boolean;
}

function reductions(): Row[] {
  const xs = new Float32Array(N).map((_, j) => Math.fround(Math.sin(j) * 1000));
  const args = () => [N, SharedArray.from(xs), SharedArray.float32(3)] as const;
  let ts = [0, 0, 0];
  const tsTime = best(() => {
    let s = 0, lo = Infinity, hi = -Infinity;
    for (let j = 0; j < N; j++) (s += xs[j]!), (lo = Math.min(lo, xs[j]!)), (hi = Math.max(hi, xs[j]!));
    ts = [s, lo, hi];
  });
  return (
    [
      ['sum, min and max of 1M floats, parallelFor', sumMinMax],
      ['the same by hand (For, semaphore hand-off)', handSum],
    ] as const
  ).map(([name, k]) => {
    const a = args();
    const r = k.setNumQPUs(QPUS).emulateSync([...a] as never);
    const [s, lo, hi] = Array.from(a[2]);
    // The float sum rounds in another order than TypeScript's: within a millionth of the total's magnitude.
    const correct = Math.abs(s! - ts[0]!) < 1e-3 * Math.max(1, Math.abs(ts[0]!)) + 1 && lo === ts[1] && hi === ts[2];
    return { name, piSeconds: r.seconds, typescriptSeconds: tsTime, correct };
  });
}

function prefix(): Row {
  const xs = new Int32Array(N).map((_, j) => (Math.imul(j, 2654435761) >> 20) | 0);
  const want = new Int32Array(N);
  const tsTime = best(() => {
    let s = 0;
    for (let j = 0; j < N; j++) want[j] = s = (s + xs[j]!) | 0;
  });
  const out = SharedArray.int32(N);
  const r = prefixSum.setNumQPUs(QPUS).emulateSync([N, SharedArray.from(xs), out]);
  return { name: 'inclusive prefix sum of 1M ints', piSeconds: r.seconds, typescriptSeconds: tsTime, correct: out.every((v, j) => v === want[j]) };
}

function sort(): Row {
  const xs = new Int32Array(SORTED).map((_, j) => Math.imul(j + 1, 2654435761) | 0);
  let want = new Int32Array(0);
  const tsTime = best(() => {
    want = xs.slice().sort();
  });
  const data = SharedArray.from(xs);
  const r = bitonicSort.setNumQPUs(QPUS).emulateSync([SORTED, data]);
  return { name: 'bitonic sort of 64K ints', piSeconds: r.seconds, typescriptSeconds: tsTime, correct: data.every((v, j) => v === want[j]) };
}

const rows = [...reductions(), prefix(), sort()];
const ms = (s: number) => `${(s * 1000).toFixed(3)} ms`;
console.log(`On ${QPUS} QPUs, modelled Pi time (cycle model) and plain TypeScript on this machine (best of ${REPEATS}):`);
for (const r of rows) console.log(`  ${r.name.padEnd(46)} ${ms(r.piSeconds).padStart(12)}   TypeScript ${ms(r.typescriptSeconds).padStart(10)}   ${r.correct ? 'correct' : 'WRONG'}`);
const json = process.argv.indexOf('--json');
if (json > 0) writeFileSync(process.argv[json + 1]!, JSON.stringify(rows, null, 2));
if (rows.some((r) => !r.correct)) process.exitCode = 1;
