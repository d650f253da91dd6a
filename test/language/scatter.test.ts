// Scatters: scatter(p, x), scatterAdd(p, x) and atomicAdd(p, x), each lane at its own address.
// On the interpreter and the emulator at -O0 and -O2 (onAll), on one QPU and on 12 racing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atomicAdd, Float, For, index, Int, kernel, me, mutexLock, mutexUnlock, Ptr, scatter, scatterAdd, SharedArray, Where } from '../../src/index.ts';
import { onAll } from '../helpers/lang.ts';

test('scatter writes each lane to its own address; a later lane wins an address two share', () => {
  const k = kernel([Ptr(Int), Ptr(Float)], (out, f) => {
    const i = Int(index());
    scatter(out.add(i.mul(5).rem(16)), i.mul(100).sub(3)); // a permutation
    scatter(out.add(Int(16).add(i.shr(2))), i); // four lanes to each address: the last wins
    scatter(f.add(Int(15).sub(i)), i.toFloat().mul(0.25));
  });
  const [out, f] = onAll(k, () => [SharedArray.int32(20), SharedArray.float32(16)]);
  const want = new Array(20).fill(0);
  for (let i = 0; i < 16; i++) want[(i * 5) % 16] = i * 100 - 3;
  for (let i = 0; i < 16; i++) want[16 + (i >> 2)] = i;
  assert.deepEqual(Array.from(out), want);
  assert.deepEqual(Array.from(f), Array.from({ length: 16 }, (_, i) => (15 - i) * 0.25));
});

test('in a Where, only its lanes write; the others leave memory (and their addresses) alone', () => {
  const k = kernel([Ptr(Int)], (out) => {
    const i = Int(index());
    // The lanes outside the Where point far outside the array: they must not be used.
    const at = Int(i.add(1000000));
    Where(i.and(1).eq(0), () => at.set(i));
    Where(i.and(1).eq(0), () => {
      scatter(out.add(at), i.add(7));
      Where(i.lt(8), () => scatterAdd(out.add(at), Int(100)));
    });
  });
  const [out] = onAll(k, () => [SharedArray.from<Int32Array>(new Array(16).fill(-1))]);
  assert.deepEqual(Array.from(out), Array.from({ length: 16 }, (_, i) => (i % 2 ? -1 : i + 7 + (i < 8 ? 100 : 0))));
});

test('scatterAdd counts every lane, lanes sharing an address included: a histogram of one vector', () => {
  const k = kernel([Ptr(Int), Ptr(Int), Ptr(Float)], (data, hist, fs) => {
    const v = Int(data.load());
    scatterAdd(hist.add(v), Int(1));
    scatterAdd(fs.add(v.and(1)), v.toFloat().mul(0.5));
  });
  const values = [3, 1, 3, 3, 0, 7, 7, 1, 3, 2, 2, 5, 3, 0, 6, 3];
  const [, hist, fs] = onAll(k, () => [SharedArray.from<Int32Array>(values), SharedArray.int32(8), SharedArray.from<Float32Array>(new Float32Array([10, 20]))]);
  const want = new Array(8).fill(0);
  for (const v of values) want[v]++;
  assert.deepEqual(Array.from(hist), want);
  const sum = (odd: number) => values.filter((v) => (v & 1) === odd).reduce((a, v) => a + v * 0.5, 0);
  assert.deepEqual(Array.from(fs), [10 + sum(0), 20 + sum(1)]);
});

test('atomicAdd: 12 QPUs adding to the same counters all count (with the mutex)', () => {
  const k = kernel([Ptr(Int), Ptr(Int), Int], (data, hist, n) => {
    const i = Int(me().mul(16));
    For(i.lt(n), () => i.set(i.add(16 * 12)), () => {
      const v = Int(data.add(i).load());
      atomicAdd(hist.add(v.and(15)), v.shr(4).add(1));
    });
  }).setNumQPUs(12);
  const n = 16 * 12 * 3;
  const values = Array.from({ length: n }, (_, i) => (i * 2654435761) >>> 20);
  const [, hist] = onAll(k, () => [SharedArray.from<Int32Array>(values), SharedArray.int32(16), n]);
  const want = new Array(16).fill(0);
  for (const v of values) want[v & 15] += (v >> 4) + 1;
  assert.deepEqual(Array.from(hist), want);
});

test('bad scatters: a lane outside the arrays is named, atomicAdd holding the mutex already is refused', () => {
  const outside = kernel([Ptr(Int)], (out) => scatter(out.add(index().mul(2)), Int(1)));
  for (const run of [() => outside.interpretSync([SharedArray.int32(16)]), () => outside.emulateSync([SharedArray.int32(16)])])
    assert.throws(run, /lane 8|outside|not given/);
  const relock = kernel([Ptr(Int)], (out) => {
    mutexLock();
    atomicAdd(out.add(index()), Int(1));
    mutexUnlock();
  });
  for (const run of [() => relock.interpretSync([SharedArray.int32(16)]), () => relock.emulateSync([SharedArray.int32(16)])])
    assert.throws(run, /mutex/);
  assert.throws(() => kernel([Ptr(Int)], (out) => scatter(3 as never, out.load())), /scatter needs a Ptr/);
});
