// Freeing an array while a kernel runs with it (from the run's onProgress callback) is refused
// the same way on every target: the error names the array, the kernel and the parameter, the run
// stops with it, and once the run is over the array frees as usual. Without this, the
// interpreter finished with a wrong sum and no error, and the other targets ran on freed memory.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { For, Int, kernel, Ptr, SharedArray } from '../../src/index.ts';
import type { KernelRunOptions } from '../../src/index.ts';
import { endPiSession, usePiDevice } from '../../src/pi/session.ts';
import { TestPiDevice } from '../helpers/pi-test-device.ts';

after(() => usePiDevice(undefined));

/** Sums p's first 16 elements `times` times, lane by lane, into out: long enough for onProgress. */
const sum = kernel([Ptr(Int), Ptr(Int), Int], function sum(p, out, times) {
  const s = Int(0);
  const i = Int(0);
  For(i.lt(times), () => i.set(i.add(1)), () => s.set(s.add(p.load())));
  out.store(s);
});

const cases: [string, KernelRunOptions, number][] = [
  ['the interpreter', { target: 'interpreter' }, 40_000],
  ['the emulator', { target: 'emulator' }, 200_000],
  ['the pi target (its estimate on the emulator calls onProgress during the run)', { target: 'pi', estimate: true }, 200_000],
  ['the pi target (onProgress at the end)', { target: 'pi' }, 1_000],
];

for (const [where, options, times] of cases)
  test(`SharedArray.free from onProgress on ${where} is refused and stops the run; the array frees once the run is over`, async () => {
    if (options.target === 'pi') usePiDevice(() => new TestPiDevice());
    try {
      const p = SharedArray.int32(16, 'data');
      p.fill(1);
      const out = SharedArray.int32(16, 'total');
      let calls = 0;
      const onProgress = () => {
        calls++;
        SharedArray.free(p);
      };
      await assert.rejects(sum(p, out, times, { ...options, onProgress }), (e: unknown) => {
        assert.ok(e instanceof Error, String(e));
        assert.equal(e.message, 'SharedArray.free(data): kernel sum has it as its argument p, which is running: free it after the run has ended (not from its onProgress callback)');
        return true;
      });
      assert.equal(calls, 1, 'a callback that throws is not called again');
      assert.deepEqual(Array.from(p), new Array(16).fill(1), 'the array is still there');
      await sum(p, out, 10, options);
      assert.deepEqual(Array.from(out), new Array(16).fill(10));
      SharedArray.free(p); // the run is over
      await assert.rejects(sum(p, out, 10, options), /argument 1 \(p\): this SharedArray was freed/);
      // An array the run does not hold frees during it.
      const other = SharedArray.int32(16);
      await sum(out, out, 1, { ...options, onProgress: () => SharedArray.free(other) });
    } finally {
      endPiSession();
    }
  });
