// Memory over long runs: a million runs of one small kernel, then 100,000 small kernels each
// made, run once and dropped, with GPU memory in use (how far allocations reach), the live
// allocations, the programs kept loaded and the host's heap (after a garbage collection) every
// tenth of the way. Flat is right: nothing grows with the number of runs or kernels.
// Run: npm run bench:memory [-- --runs N] [-- --kernels N] [-- --json out.json]
import { writeFileSync } from 'node:fs';
import { index, Int, kernel, Ptr, SharedArray } from '../src/index.ts';
import { emulatorTarget } from '../src/runtime/kernel.ts';
import { gpuMemory } from '../src/runtime/shared-array.ts';

interface Sample {
  phase: 'runs' | 'kernels';
  done: number;
  gpuTop: number;
  gpuHighWater: number;
  allocations: number;
  programs: number;
  heapMB: number;
  seconds: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** A small kernel; `n` makes its code differ from every other's. */
const small = (n: number) =>
  kernel([Ptr(Int), Int], function small(p, k) {
    p.store(Int(index()).add(k).add(n));
  });

async function sample(phase: Sample['phase'], done: number, start: number): Promise<Sample> {
  gc?.();
  await new Promise((r) => setImmediate(r)); // finalizers run
  const use = gpuMemory.use;
  const s: Sample = {
    phase,
    done,
    gpuTop: use.top,
    gpuHighWater: use.highWater,
    allocations: use.live,
    programs: emulatorTarget().loadedPrograms.count,
    heapMB: Math.round(process.memoryUsage().heapUsed / 1e5) / 10,
    seconds: Math.round((performance.now() - start) / 100) / 10,
  };
  console.log(
    `${phase.padEnd(8)} ${done.toLocaleString('en-US').padStart(10)}  GPU in use ${(s.gpuTop / 1024).toFixed(0).padStart(6)} KiB (ever ${(s.gpuHighWater / 1024).toFixed(0)})` +
      `  allocations ${String(s.allocations).padStart(5)}  programs ${String(s.programs).padStart(5)}  heap ${s.heapMB.toFixed(1).padStart(6)} MB  ${s.seconds} s`,
  );
  return s;
}

async function main(argv: string[]): Promise<void> {
  const opt = (name: string, fallback: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  const runs = opt('--runs', 1_000_000);
  const kernels = opt('--kernels', 100_000);
  const json = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : undefined;
  if (!gc) console.log('(no --expose-gc: the heap is measured without collecting first)');
  const out = SharedArray.int32(16);
  const samples: Sample[] = [];
  let start = performance.now();
  const k = small(0);
  for (let i = 0; i < runs; i++) {
    await k(out, i);
    if (i % (runs / 10) === 0 || i === runs - 1) samples.push(await sample('runs', i + 1, start));
  }
  if (out[1] !== runs) throw new Error(`wrong result: ${out[1]}`);
  start = performance.now();
  for (let n = 1; n <= kernels; n++) {
    await small(n)(out, 0);
    if (out[1] !== n + 1) throw new Error(`kernel ${n}: wrong result ${out[1]}`);
    if (n % (kernels / 10) === 0 || n === 1) samples.push(await sample('kernels', n, start));
  }
  if (json) writeFileSync(json, JSON.stringify(samples, null, 2) + '\n');
}

await main(process.argv.slice(2));
