// Kernel runs under an oversight (runtime/oversight.ts, `qpu run`): its options apply where a call
// sets none of its own, and its observer hears each run start, progress and end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { any, Int, kernel, me, Ptr, SharedArray, While } from '../../src/index.ts';
import { type OverseenRun, oversee } from '../../src/runtime/oversight.ts';

const count = kernel([Int, Ptr(Int)], function counted(n, out) {
  const i = Int(0);
  While(any(i.lt(n)), () => i.set(i.add(1)));
  out.add(me().shl(4)).store(i);
});

test("an oversight's options apply where a call sets none, and a call's own (or its named target) win", async () => {
  const out = SharedArray.int32(64);
  const done = oversee({ options: { target: 'interpreter', qpus: 3, maxSteps: undefined }, observer: {} });
  try {
    const r = await count(2, out);
    assert.deepEqual([r.target, r.qpus], ['interpreter', 3]);
    const own = await count(2, out, { qpus: 4, target: 'emulator' });
    assert.deepEqual([own.target, own.qpus], ['emulator', 4]);
    const bound = count.with({ qpus: 2 }).sync(2, out);
    assert.deepEqual([bound.target, bound.qpus], ['interpreter', 2]);
    const named = count.emulateSync([2, out]);
    assert.deepEqual([named.target, named.qpus], ['emulator', 3]);
    assert.equal(count.numQPUs, 1);
  } finally {
    done();
  }
  assert.deepEqual((await count(2, out)).qpus, 1);
});

test("an oversight's observer hears each run start, progress and end, also a run that fails; other kernels are left alone", () => {
  const out = SharedArray.int32(16);
  const heard: string[] = [];
  let steps = 0;
  const done = oversee({
    kernels: (name) => name === 'counted',
    options: {},
    observer: {
      started: (r: OverseenRun) => heard.push(`started ${r.kernel} ${r.target} ${r.qpus} ${r.maxSteps}`),
      progress: (_r, s) => {
        steps = s;
      },
      ended: (r, o) => heard.push(`ended ${r.kernel} ${o.steps} ${o.error === undefined ? 'ok' : 'failed'}${o.cycles === undefined ? '' : ' cycles'}`),
    },
  });
  const other = kernel([Ptr(Int)], function other(p) {
    p.store(1);
  });
  let statements = 0;
  try {
    statements = count.interpretSync([100_000, out], { onProgress: () => {} }).steps;
    assert.equal(steps, statements);
    assert.throws(() => count.emulateSync([100_000, out], { maxSteps: 1000 }), /the step budget of 1,000 instructions ran out/);
    other.interpretSync([out]);
  } finally {
    done();
  }
  assert.deepEqual(heard, [
    'started counted interpreter 1 5000000',
    `ended counted ${statements} ok`,
    'started counted emulator 1 1000',
    'ended counted 1000 failed cycles',
  ]);
});

test('an oversight reaches kernel runs of every copy of qpu-ts in the process (the command\'s and the program\'s)', async () => {
  const mine = await import('../../src/runtime/oversight.ts');
  // The same file under another URL is another module instance, as a second copy of qpu-ts would be.
  const other = (await import(new URL('../../src/runtime/oversight.ts?another-copy', import.meta.url).href)) as typeof mine;
  assert.notEqual(mine.oversee, other.oversee, 'two module instances');
  const done = mine.oversee({ options: { qpus: 3 }, observer: {} });
  try {
    assert.deepEqual(other.overseen('k')?.options, { qpus: 3 });
    other.noteRun();
    assert.equal(mine.runsOverseen(), 1);
  } finally {
    done();
  }
  assert.equal(other.overseen('k'), undefined);
});
