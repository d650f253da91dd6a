// One report shape on every target: the fields a program reads exist whatever target ran it,
// the interpreter's and the pi target's cycle-model figures are the compiled code's on the
// inputs as they were (not as the run left them), and `estimate` says when they are computed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { For, Int, index, kernel, Ptr, SharedArray } from '../../src/index.ts';
import { knownRun } from '../../src/runtime/report.ts';

/** Adds 1 to each element, n times over: its running time depends on nothing but n. */
const inc = kernel([Ptr(Int), Int], function inc(p, n) {
  const i = Int(0);
  const x = Int(p.load());
  While_(i, n, () => x.set(x.add(index().and(0).add(1))));
  p.store(x);
});
function While_(i: ReturnType<typeof Int>, n: ReturnType<typeof Int>, body: () => void) {
  For(i.lt(n), () => i.set(i.add(1)), body);
}

for (const target of ['emulator', 'interpreter'] as const)
  test(`the README's expressions work on the ${target}: steps, unit, seconds, run`, async () => {
    const p = SharedArray.int32(16);
    const r = await inc(p, 5, { target });
    assert.deepEqual(Array.from(p), Array(16).fill(5));
    assert.equal(r.target, target);
    assert.equal(r.unit, target === 'interpreter' ? 'statements' : 'instructions');
    assert.equal(r.steps, r.stepsPerQpu.reduce((a, b) => a + b, 0));
    assert.ok(r.steps > 5);
    assert.ok(r.run.total.instructions > 0 && r.seconds === r.run.seconds && r.seconds > 0);
    assert.equal(`${r.run.total.instructions} instructions: ${(r.run.seconds * 1e6).toFixed(3)} us`.includes('NaN'), false);
  });

test("the interpreter's run is the compiled code's on the inputs before the run, computed when first read", async () => {
  const p = SharedArray.int32(16);
  const r = await inc(p, 40, { target: 'interpreter' });
  assert.equal(knownRun(r), undefined, 'nothing computed until asked');
  p.fill(1000); // the estimate must not see what the host did after the run, nor what the run left
  const q = SharedArray.int32(16);
  const e = await inc(q, 40, { target: 'emulator' });
  assert.deepEqual(r.run, e.run);
  assert.deepEqual(Array.from(p), Array(16).fill(1000), 'the estimate ran on copies');
  assert.equal(r.run, r.run, 'computed once');
});

test('estimate: true computes it with the run; estimate: false takes no copy and says so when run is read', async () => {
  const p = SharedArray.int32(16);
  const now = await inc(p, 3, { target: 'interpreter', estimate: true });
  assert.ok(knownRun(now));
  const never = await inc(p, 3, { target: 'interpreter', estimate: false });
  assert.equal(never.steps > 0, true);
  assert.throws(() => never.run, /kernel inc: this run on the interpreter has no cycle-model figures .* it ran with \{ estimate: false \}/);
  assert.throws(() => never.seconds, /estimate: false/);
});

test('a report is read-only', async () => {
  const r = await inc(SharedArray.int32(16), 1, { target: 'interpreter' });
  assert.throws(() => ((r as { steps: number }).steps = 3), TypeError);
  assert.ok(Object.isFrozen(r));
});
