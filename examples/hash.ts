// Hashing with a function compiled once (func): MurmurHash3's 32-bit finalizer applied twice to
// every element of an array, on the QPUs with parallelFor, in two versions: the finalizer as a
// plain TypeScript function (its statements copied at each use) and as a func (one body, called
// with the QPU's branch with link). Both are checked against plain TypeScript and timed; the
// func's kernel is smaller. Run: npx tsx examples/hash.ts [--n N] [--qpus Q]
import { func, Int, type IntExpr, kernel, parallelFor, Ptr, SharedArray } from 'qpu-ts';
import { check, type ExampleOptions, type ExampleResult, fastest, qpuList, runIfMain, since, timed, type Timing, timingTable, wholeNumber } from './lib/report.ts';

/** MurmurHash3's finalizer: every bit of the result depends on every bit of h. */
export function fmix(h: IntExpr): IntExpr {
  const x = Int(h);
  x.set(x.xor(x.ushr(16)));
  x.set(x.mul(0x85ebca6b | 0));
  x.set(x.xor(x.ushr(13)));
  x.set(x.mul(0xc2b2ae35 | 0));
  return x.xor(x.ushr(16));
}

/** The same body, compiled once and called. */
export const fmixCalled = func([Int], fmix);

/** out[i] = fmix(fmix(keys[i]) ^ salt) for i < n, with `mix` as the finalizer. */
function hashKernel(name: string, mix: (h: IntExpr) => IntExpr) {
  return kernel(
    [Ptr(Int), Ptr(Int), Int, Int],
    (keys, out, n, salt) => {
      parallelFor(n, (i) => {
        out.add(i).store(mix(mix(keys.add(i).load()).xor(salt)));
      });
    },
    { name },
  );
}
export const hashInlined = hashKernel('hashInlined', fmix);
export const hashCalled = hashKernel('hashCalled', fmixCalled);

/** The finalizer in plain TypeScript. */
export function fmixScalar(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

export interface HashOptions extends ExampleOptions {
  /** Elements to hash (default 4096). */
  readonly n?: number;
  readonly qpus?: readonly number[];
}

/** Runs both versions on each QPU count, checks them against fmixScalar, and prints their sizes and times. */
export async function main(opts: HashOptions = {}): Promise<ExampleResult> {
  const log = opts.log ?? console.log;
  const start = performance.now();
  const n = opts.n ?? 4096;
  const salt = 0x9e3779b9 | 0;
  const keys = SharedArray.from(Array.from({ length: n }, (_, i) => Math.imul(i, 2654435761)), 'int32');
  const want = Array.from(keys, (k) => fmixScalar(fmixScalar(k) ^ salt));
  const out = SharedArray.int32(n);
  const timings: Timing[] = [];
  for (const qpus of opts.qpus ?? [1, 12]) {
    for (const k of [hashInlined, hashCalled]) {
      out.fill(0);
      k.setNumQPUs(qpus).code();
      timings.push((await timed(k.kernelName, () => k(keys, out, n, salt))).timing);
      const wrong = want.findIndex((w, i) => out[i] !== w);
      check(wrong < 0, () => `${k.kernelName} on ${qpus} QPUs: element ${wrong} hashed to ${out[wrong]}, expected ${want[wrong]}`);
    }
  }
  const size = (k: typeof hashInlined) => k.code().instrs.length;
  log(`${n} keys hashed twice, the same as plain TypeScript: ${out[0]} ${out[1]} ${out[2]} ...`);
  log(`hashInlined: ${size(hashInlined)} instructions; hashCalled: ${size(hashCalled)} (the finalizer's body once)`);
  for (const line of timingTable(timings)) log(`  ${line}`);
  return { name: 'hash', summary: `${n} keys hashed, e.g. ${out[0]}`, pictures: [], timings, headline: fastest(timings), wallSeconds: since(start) };
}

await runIfMain(
  import.meta.url,
  'npx tsx examples/hash.ts [--n N] [--qpus Q,...]: MurmurHash3\'s finalizer, inlined and as a func',
  { n: { type: 'string' }, qpus: { type: 'string' } },
  (v) => main({ n: v.n === undefined ? undefined : wholeNumber('--n', v.n as string), qpus: v.qpus === undefined ? undefined : qpuList(v.qpus as string) }),
);
