// Pass induction (AST -> AST, compiler/induction.ts): a loop counter's product with a
// loop-invariant value becomes a running sum, exactly, also where the counter is advanced under
// Where and the product wraps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../../src/compiler/driver.ts';
import { For, index, Int, kernel, me, numQPUs, Ptr, SharedArray, Where } from '../../../src/index.ts';
import { onAll } from '../../helpers/lang.ts';

const k = kernel([Ptr(Int), Int, Int], function rows(out, pitch, n) {
  const y = Int(me().sub(3));
  const acc = Int(0);
  For(y.lt(n), () => y.set(y.add(numQPUs().add(4))), () => {
    acc.set(acc.add(y.mul(pitch)));
    Where(index().lt(5), () => y.set(y.add(1)));
  });
  out.store(acc.add(y.mul(pitch)));
});

/** The kernel in plain TypeScript on one QPU: the loop runs while any lane's y is below n. */
function expected(pitch: number, n: number): number[] {
  const ys = Array.from({ length: 16 }, () => -3);
  const acc = ys.map(() => 0);
  while (ys.some((y) => y < n))
    for (let l = 0; l < 16; l++) {
      acc[l] = (acc[l]! + Math.imul(ys[l]!, pitch)) | 0;
      if (l < 5) ys[l]!++;
      ys[l] = ys[l]! + 5;
    }
  return acc.map((a, l) => (a + Math.imul(ys[l]!, pitch)) | 0);
}

test('the product becomes a sum advanced beside the counter, in the Where too, and the results are exact when it wraps', () => {
  const dump = compile(k.ast, { qpus: 1 }).dump('induction');
  assert.match(dump, /# 1 product as running sums/);
  // Before the loop, the product and its step for the counter's step (its step of 1 in the Where is pitch itself).
  const before = dump.slice(0, dump.indexOf('  for '));
  assert.equal(before.match(/ \* /g)?.length, 2, dump);
  assert.match(dump, /v3_times\d+ = v3_times\d+ \+ pitch/);
  for (const pitch of [3, -70000, 0x7654321, -(2 ** 31)]) {
    const [out] = onAll(k, () => [SharedArray.int32(16), pitch, 40]);
    assert.deepEqual(Array.from(out), expected(pitch, 40), `pitch ${pitch}`);
  }
});

test('products that stay: of two values the loop changes, of a counter by a power of two, and with pass induction off', () => {
  const other = kernel([Ptr(Int), Int], (out, x) => {
    const i = Int(0);
    For(i.lt(4), () => i.set(i.add(1)), () => {
      x.set(x.mul(i)); // x changes in the loop
      out.store(i.mul(8)); // a shift
    });
  });
  assert.match(compile(other.ast, { qpus: 1 }).dump('induction'), /# 0 products as running sums/);
  assert.match(compile(k.ast, { qpus: 1, passes: { induction: false } }).dump('induction'), /pass induction is off/);
});

test('a product of the counter and a product of the counter (c * k * c) is not a sum: its inner product is one, which the loop advances (fuzz seed 7082360)', () => {
  const k = kernel([Ptr(Int)], function square(out) {
    const v = Int(0);
    For(v.lt(48), () => v.set(v.add(16)), () => {
      out.add(v).store(v.mul(-654).mul(v));
    });
  });
  assert.match(k.code().dump('induction'), /^# 1 product as running sums/);
  const [out] = onAll(k, () => [SharedArray.int32(48)]);
  assert.deepEqual([0, 16, 32].map((i) => out[i]), [0, 16, 32].map((v) => Math.imul(Math.imul(v, -654), v)));
});
