// glibc's rand() after srand(seed), reproduced exactly, so that the examples print what
// QPULib's README shows (its C++ examples call srand(0) and rand()). glibc's random() is an
// additive feedback generator with 31 words of state, seeded by a linear congruential
// generator, whose first 310 outputs are discarded; srand(0) seeds it like srand(1).

export function glibcRand(seed: number): () => number {
  const r: number[] = new Array(34);
  r[0] = seed === 0 ? 1 : seed | 0;
  for (let i = 1; i < 31; i++) {
    // 16807 * r[i-1] % 2147483647, computed without overflow (Schrage's method, as glibc does).
    const hi = Math.trunc(r[i - 1]! / 127773);
    const lo = r[i - 1]! % 127773;
    let word = 16807 * lo - 2836 * hi;
    if (word < 0) word += 2147483647;
    r[i] = word;
  }
  const state = r.slice(0, 31);
  let front = 3;
  let rear = 0;
  const next = () => {
    const v = (state[front]! + state[rear]!) | 0;
    state[front] = v;
    front = (front + 1) % 31;
    rear = (rear + 1) % 31;
    return v >>> 1;
  };
  for (let i = 0; i < 310; i++) next();
  return next;
}
