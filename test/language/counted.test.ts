// Loads and stores of the first k lanes (p.load(k), p.store(x, k)): arrays whose length is no
// multiple of 16 need no padding. On the interpreter and the emulator at -O0 and -O2 (onAll).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Float, For, index, Int, kernel, Ptr, SharedArray } from '../../src/index.ts';
import { onAll } from '../helpers/lang.ts';

const saxpy = kernel([Int, Float, Ptr(Float), Ptr(Float)], function saxpy(n, a, x, y) {
  const i = Int(0);
  For(i.lt(n), () => i.set(i.add(16)), () => {
    const left = Int(n.sub(i));
    const xs = Float(x.add(i).load(left));
    const ys = Float(y.add(i).load(left));
    y.add(i).store(a.mul(xs).add(ys), left);
  });
});

test('saxpy over n elements, n no multiple of 16, on arrays of exactly n: nothing past the end is read or written', () => {
  for (const n of [1, 5, 16, 17, 37, 64]) {
    const [, , , y] = onAll(saxpy, () => [n, 2, SharedArray.from<Float32Array>(new Float32Array(Array.from({ length: n }, (_, i) => i))), SharedArray.from<Float32Array>(new Float32Array(n).fill(1))]);
    assert.deepEqual(Array.from(y), Array.from({ length: n }, (_, i) => 2 * i + 1), `n = ${n}`);
  }
});

test('the count is lane 0 of an Int, clamped to 0..16: lanes past it load 0 and store nothing', () => {
  const k = kernel([Ptr(Int), Ptr(Int), Int], (src, dst, c) => {
    const v = Int(src.load(c));
    dst.store(v.add(100), c.add(index()));
    dst.add(16).store(src.load(c.sub(20)).add(1)); // mostly a count below 0: nothing read, all 0
    dst.add(32).store(src.load(c.add(30)), 99); // above 16: all 16
  });
  for (const c of [0, 3, 15, 16, 40, -4]) {
    const [, out] = onAll(k, () => [SharedArray.from<Int32Array>(Array.from({ length: 16 }, (_, i) => i + 1)), SharedArray.from<Int32Array>(new Array(48).fill(-7)), c]);
    const n = Math.min(Math.max(c, 0), 16);
    assert.deepEqual(Array.from(out.slice(0, 16)), Array.from({ length: 16 }, (_, i) => (i < n ? i + 1 + 100 : -7)), `count ${c}`);
    const m = Math.min(Math.max(c - 20, 0), 16);
    assert.deepEqual(Array.from(out.slice(16, 32)), Array.from({ length: 16 }, (_, i) => (i < m ? i + 2 : 1)));
    assert.deepEqual(Array.from(out.slice(32)), Array.from({ length: 16 }, (_, i) => (Math.min(Math.max(c + 30, 0), 16) > i ? i + 1 : 0)));
  }
});

test('a load past the end of an array without a count is still refused, with the count it is not', () => {
  const full = kernel([Ptr(Float), Ptr(Float)], (x, y) => y.store(x.load()));
  const x = SharedArray.float32(5);
  assert.throws(() => full.emulateSync([x, SharedArray.float32(16)]), /outside|beyond|not given/);
  const counted = kernel([Ptr(Float), Ptr(Float), Int], (src, y, n) => y.store(src.load(n), n));
  const out = SharedArray.float32(5);
  counted.emulateSync([SharedArray.from<Float32Array>(new Float32Array([1, 2, 3, 4, 5])), out, 5]);
  assert.deepEqual(Array.from(out), [1, 2, 3, 4, 5]);
});
