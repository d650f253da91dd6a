// Kernels' code in GPU memory (src/runtime/emulate.ts): a program stays loaded while it is run,
// and is freed when its kernel is garbage-collected, or when the programs kept take more than
// their share of GPU memory (the least recently run first; run again, it is loaded again). So
// making kernels in a loop, or running one a million times, keeps GPU memory use flat.
// `npm run bench:memory` runs the long versions: a million runs, 100,000 kernels.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { index, Int, kernel, Ptr, SharedArray } from '../../src/index.ts';
import { GpuMemory, PAGE } from '../../src/common/memory.ts';
import { CODE_SHARE, EmulatorTarget } from '../../src/runtime/emulate.ts';
import { emulatorTarget } from '../../src/runtime/kernel.ts';
import { gpuMemory } from '../../src/runtime/shared-array.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A tiny kernel, made anew each call (a new Compiled, with its own code). */
const tiny = (n: number) =>
  kernel([Ptr(Int), Int], function tiny(p, k) {
    p.store(Int(index()).add(k).add(n));
  });

/** Lets finalizers run: garbage collection, then a turn of the event loop (twice, for stragglers). */
async function collect(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
}

test('200 kernels run in turn on a 1 MiB GPU memory: the least recently run programs make room, and one run again is loaded again', () => {
  const memory = new GpuMemory(1 << 20);
  const target = new EmulatorTarget(memory);
  const p = memory.alloc(64, 'p');
  const out = memory.view(p, Int32Array);
  const kernels = Array.from({ length: 200 }, (_, n) => tiny(n));
  const run = (n: number) => {
    target.run(kernels[n]!.code(), [p.address | 0, 1], [{ name: 'p', address: p.address, bytes: 64 }]);
    assert.equal(out[3], 4 + n);
  };
  for (let n = 0; n < kernels.length; n++) {
    run(n);
    run(n); // loaded already: only its place in the queue changes
  }
  // Each program is a page and its guard page.
  assert.equal(target.loadedPrograms.bytes, target.loadedPrograms.count * 2 * PAGE);
  // Without freeing, 200 programs of a page and a guard page would need 1.6 MB.
  assert.ok(target.loadedPrograms.bytes <= memory.maxBytes * CODE_SHARE, `${target.loadedPrograms.bytes} bytes of code kept`);
  assert.ok(memory.use.highWater <= memory.maxBytes * CODE_SHARE + 8 * PAGE + 64 * 1024, `${memory.use.highWater} bytes reached`);
  run(0); // long since unloaded: loaded again
  run(199);
});

test('the code of kernels that are garbage-collected is freed', async () => {
  const out = SharedArray.int32(16);
  await tiny(0)(out, 1); // the uniforms and the first program in place
  await collect();
  const before = { ...gpuMemory.use, programs: emulatorTarget().loadedPrograms.count };
  for (let n = 1; n <= 100; n++) await tiny(n)(out, 1);
  assert.equal(out[0], 101);
  assert.equal(emulatorTarget().loadedPrograms.count, before.programs + 100);
  await collect();
  assert.ok(emulatorTarget().loadedPrograms.count <= before.programs + 1, `${emulatorTarget().loadedPrograms.count} programs still loaded`);
  assert.ok(gpuMemory.use.top <= before.top + 2 * PAGE, `GPU memory in use went from ${before.top} to ${gpuMemory.use.top} bytes`);
});

test('20,000 runs of one kernel: GPU memory and the heap stay flat', async () => {
  const k = tiny(0);
  const out = SharedArray.int32(16);
  await k(out, 0);
  await collect();
  const before = { gpu: gpuMemory.use.top, live: gpuMemory.use.live, heap: process.memoryUsage().heapUsed };
  for (let i = 0; i < 20_000; i++) await k(out, i);
  assert.equal(out[0], 19_999);
  await collect();
  // No more than before (the code of the kernels of the tests before may have been freed since).
  assert.ok(gpuMemory.use.top <= before.gpu && gpuMemory.use.live <= before.live, `GPU memory: ${JSON.stringify(gpuMemory.use)}, before ${JSON.stringify(before)}`);
  const grew = process.memoryUsage().heapUsed - before.heap;
  assert.ok(grew < 4 << 20, `the heap grew by ${grew} bytes`);
});
