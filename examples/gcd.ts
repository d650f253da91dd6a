// Euclid's algorithm on 16 pairs at once: QPULib's first example, versions 1 and 2.
// Run: npx tsx examples/gcd.ts
import { any, Int, kernel, Ptr, SharedArray, Where, While } from 'qpu-ts';
import { glibcRand } from './rand.ts';

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

if (import.meta.url === `file://${process.argv[1]}`) {
  const { a, b } = gcdInputs();
  const r = SharedArray.int32(16, 'r');
  await gcd(a, b, r);
  for (let i = 0; i < 16; i++) console.log(`gcd(${a[i]}, ${b[i]}) = ${r[i]}`);
}
