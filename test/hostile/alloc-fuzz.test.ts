// The fuzz suite, long-running allocation: what a program that lives for hours does to GPU
// memory, compressed. Seeded random sequences of SharedArrays of every size made, filled and
// freed in any order, kernels made, run on both targets and dropped, runs that fail, arrays
// freed while others are in use. Fails on GPU memory running out while little is live, on
// memory reaching far beyond what was ever live at once, on an array whose contents change
// without a run writing them (a reused page handed out twice, or not zeroed), on a freed
// array a kernel still accepts, and on any error but the expected ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { index, Int, kernel, Ptr, SharedArray } from '../../src/index.ts';
import { footprint } from '../../src/common/memory.ts';
import { gpuMemory } from '../../src/runtime/shared-array.ts';
import { type Fuzz, fuzzLoop } from '../helpers/hostile.ts';

interface Live {
  readonly a: Int32Array;
  /** What every element was filled with. */
  readonly tag: number;
  /** What the first 16 hold: the tag plus what kernels added. */
  value: number;
}

/** A kernel made now (the program keeps making them): adds k to the first 16 elements. */
function adder(k: number) {
  return kernel([Ptr(Int)], function adder(p) {
    p.store(Int(p.load()).add(index().mul(0).add(k)));
  });
}

/** One long life: `steps` random operations; the most bytes live at once. */
function life(f: Fuzz, steps: number): number {
  const live: Live[] = [];
  let liveBytes = 0;
  let most = 0;
  let tag = 1;
  const check = (x: Live, why: string) => {
    for (let i = 0; i < x.a.length; i += i < 16 ? 1 : Math.max(1, x.a.length >> 4))
      if (x.a[i] !== (i < 16 ? x.value : x.tag)) assert.fail(`array ${x.tag}, ${why}: element ${i} is ${x.a[i]}, not ${i < 16 ? x.value : x.tag}`);
  };
  for (let s = 0; s < steps; s++) {
    const op = f.int(10);
    if (op < 4 || live.length === 0) {
      // From one element to 1 MiB, over the orders of magnitude.
      const n = Math.max(16, Math.floor(2 ** (4 + f.int(1600) / 100)));
      const a = SharedArray.int32(n);
      assert.ok(a.every((v) => v === 0), 'a new array is zeroed');
      const x: Live = { a, tag, value: tag };
      a.fill(tag++);
      live.push(x);
      liveBytes += footprint(n * 4);
      most = Math.max(most, liveBytes);
    } else if (op < 7) {
      const [x] = live.splice(f.int(live.length), 1);
      check(x!, 'before it is freed');
      SharedArray.free(x!.a);
      liveBytes -= footprint(x!.a.length * 4);
      assert.throws(() => adder(1).with({}).sync(x!.a), /this SharedArray was freed/);
    } else {
      const x = live[f.int(live.length)]!;
      const k = 1 + f.int(5);
      const target = f.chance(0.5) ? 'emulator' : 'interpreter';
      adder(k).with({ target }).sync(x.a);
      x.value += k;
      check(x, `after a kernel added ${k} on the ${target}`);
    }
    // Every so often, every array still holds what it should: no page was handed out twice.
    if (s % 64 === 0) for (const x of live) check(x, 'later');
  }
  for (const x of live) SharedArray.free(x.a);
  return most;
}

test('long-running allocation: arrays and kernels made, run and dropped at random stay in bounded memory, each array its own', async () => {
  const before = gpuMemory.use.highWater;
  let most = 0;
  const n = await fuzzLoop(9_000_000, 40, 6000, (f) => {
    most = Math.max(most, life(f, 300));
  });
  assert.ok(n >= 5, `only ${n} lives in the time`);
  const { highWater } = gpuMemory.use;
  // The arrays, the kernels' code (freed past an eighth of GPU memory, or when collected) and the uniforms.
  assert.ok(highWater - before <= 2 * most + gpuMemory.maxBytes / 8, `GPU memory reached ${highWater} bytes (${before} before) with at most ${most} live in arrays`);
});
