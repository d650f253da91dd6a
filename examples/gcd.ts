// Euclid's algorithm on 16 pairs at once: QPULib's first example, versions 1 and 2, each run on
// the emulator, checked against plain TypeScript, and timed (the Pi's estimated time and the
// emulator's). Prints QPULib's 16 lines. Run: npx tsx examples/gcd.ts
import { any, Int, kernel, Ptr, SharedArray, Where, While } from 'qpu-ts';
import { glibcRand } from './lib/rand.ts';
import { check, type ExampleOptions, type ExampleResult, runIfMain, since, type Timing, timed, timingTable, fastest } from './lib/report.ts';

/** Version 1: subtract the smaller from the larger until they are equal. */
export const gcd = kernel([Ptr(Int), Ptr(Int), Ptr(Int)], function gcd(p, q, r) {
  const a = Int(p.load());
  const b = Int(q.load());
  While(any(a.ne(b)), () => {
    Where(a.gt(b), () => a.set(a.sub(b)));
    Where(a.lt(b), () => b.set(b.sub(a)));
  });
  r.store(a);
});

/** Version 2: the loop body unrolled 32 times by a TypeScript loop. */
export const gcdUnrolled = kernel([Ptr(Int), Ptr(Int), Ptr(Int)], function gcdUnrolled(p, q, r) {
  const a = Int(p.load());
  const b = Int(q.load());
  While(any(a.ne(b)), () => {
    for (let i = 0; i < 32; i++) {
      Where(a.gt(b), () => a.set(a.sub(b)));
      Where(a.lt(b), () => b.set(b.sub(a)));
    }
  });
  r.store(a);
});

/** The README's inputs: 100 + rand() % 100 from glibc's rand() after srand(0). */
export function gcdInputs(): { a: Int32Array; b: Int32Array } {
  const rand = glibcRand(0);
  const a = SharedArray.int32(16, 'a');
  const b = SharedArray.int32(16, 'b');
  for (let i = 0; i < 16; i++) {
    a[i] = 100 + (rand() % 100);
    b[i] = 100 + (rand() % 100);
  }
  return { a, b };
}

/** Euclid's algorithm by subtraction, in plain TypeScript. */
export function gcdScalar(a: number, b: number): number {
  while (a !== b) {
    if (a > b) a -= b;
    else b -= a;
  }
  return a;
}

/** Runs both versions on one QPU, checks them against gcdScalar, and prints QPULib's 16 lines and the times. */
export async function main(opts: ExampleOptions = {}): Promise<ExampleResult> {
  const log = opts.log ?? console.log;
  const start = performance.now();
  const { a, b } = gcdInputs();
  const want = Array.from(a, (x, i) => gcdScalar(x, b[i]!));
  const timings: Timing[] = [];
  const r = SharedArray.int32(16, 'r');
  for (const k of [gcd, gcdUnrolled]) {
    r.fill(0);
    k.setNumQPUs(1).code(); // compiled before the clock starts
    timings.push((await timed(k.kernelName, () => k(a, b, r))).timing);
    const wrong = want.findIndex((w, i) => r[i] !== w);
    check(wrong < 0, () => `${k.kernelName}: gcd(${a[wrong]}, ${b[wrong]}) came out as ${r[wrong]}, expected ${want[wrong]}`);
  }
  const shown = opts.brief ? 4 : 16;
  for (let i = 0; i < shown; i++) log(`gcd(${a[i]}, ${b[i]}) = ${r[i]}`);
  if (shown < 16) log(`... and ${16 - shown} more`);
  else log('');
  log('Both versions agree with plain TypeScript. One QPU, 16 pairs in one vector:');
  for (const line of timingTable(timings)) log(`  ${line}`);
  return { name: 'gcd', summary: `16 gcds, e.g. gcd(${a[0]}, ${b[0]}) = ${r[0]}`, pictures: [], timings, headline: fastest(timings), wallSeconds: since(start) };
}

await runIfMain(import.meta.url, 'npx tsx examples/gcd.ts: 16 gcds by versions 1 and 2 of QPULib\'s example', {}, () => main());
