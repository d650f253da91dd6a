// parallelFor: one- and two-dimensional index spaces over 1 to 12 QPUs, every count of elements
// around a vector's (the last vector's lanes past the end touch nothing), accumulations into
// outer variables, the body's own loops, gathers and scatters in the last vector, load
// pipelining of the whole vectors, and the mistakes; on the interpreter and the emulator at
// -O0 and -O2 (onAll).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { any, barrier, Break, Float, For, gather, If, Int, kernel, me, parallelFor, Ptr, receive, scatter, select, SharedArray, sumQPUs, While, Where } from '../../src/index.ts';
import { onAll } from '../helpers/lang.ts';
import { fadd } from '../../src/vc4/arith.ts';

const saxpy = kernel([Int, Float, Ptr(Float), Ptr(Float)], function saxpy(n, a, x, y) {
  parallelFor(n, (i) => {
    y.add(i).store(a.mul(x.add(i).load()).add(y.add(i).load()));
  });
});

test('a one-dimensional parallelFor runs its body once for each of n elements, whatever n and the QPU count; nothing past n is read or written', () => {
  for (const qpus of [1, 2, 3, 12])
    for (const n of [0, 1, 15, 16, 17, 31, 33, 200, 16 * 12 + 5]) {
      saxpy.setNumQPUs(qpus);
      // Arrays of exactly n elements (the interpreter refuses a word outside them; a SharedArray has one at least).
      const m = Math.max(n, 1);
      const [, , , y] = onAll(saxpy, () => [n, 2, SharedArray.from(new Float32Array(m).map((_, j) => j)), SharedArray.from(new Float32Array(m).map((_, j) => 1000 - j))]);
      assert.deepEqual(Array.from(y), Array.from({ length: m }, (_, j) => (j < n ? 1000 + j : 1000)), `${n} elements on ${qpus} QPUs`);
    }
});

test('the whole vectors of a one-dimensional parallelFor are load-pipelined (pass pipeline)', () => {
  const dump = saxpy.setNumQPUs(12).code().dump('pipeline');
  assert.match(dump, /loads pipelined in 1 loop/);
});

test('accumulations into outer variables: sums, least, greatest, and, or over every element, added to the value before, on every QPU', () => {
  const k = kernel([Int, Ptr(Int), Ptr(Float), Ptr(Int)], function totals(n, xs, fs, out) {
    const sum = Int(7);
    const least = Int(1000);
    const most = Float(-5);
    const bits = Int(0);
    const both = Int(-1);
    const fsum = Float(0.5);
    parallelFor(n, (i) => {
      const v = Int(xs.add(i).load());
      const f = Float(fs.add(i).load());
      sum.set(sum.add(v));
      Where(v.gt(0), () => least.set(least.min(v)));
      most.set(f.max(most));
      bits.set(bits.or(Int(1).shl(v.and(31))));
      both.set(both.and(v.or(0x100)));
      fsum.set(fsum.add(f));
    });
    out.add(me().mul(6)).store(sum, 1);
    out.add(me().mul(6).add(1)).store(least, 1);
    out.add(me().mul(6).add(2)).store(most.asInt(), 1);
    out.add(me().mul(6).add(3)).store(bits, 1);
    out.add(me().mul(6).add(4)).store(both, 1);
    out.add(me().mul(6).add(5)).store(fsum.asInt(), 1);
  });
  for (const qpus of [1, 4, 12])
    for (const n of [1, 20, 300]) {
      k.setNumQPUs(qpus);
      const xs = Array.from({ length: n }, (_, j) => ((j * 7919) % 211) - 50);
      const fs = Array.from({ length: n }, (_, j) => Math.fround(((j * 31) % 17) * 0.25 - 1));
      const [, , , out] = onAll(k, () => [n, SharedArray.from(xs, 'int32'), SharedArray.from(new Float32Array(fs)), SharedArray.int32(12 * 6)]);
      const positive = xs.filter((v) => v > 0);
      for (let q = 0; q < qpus; q++) {
        const got = Array.from(out.slice(q * 6, q * 6 + 6));
        assert.equal(got[0], xs.reduce((a, b) => (a + b) | 0, 7));
        assert.equal(got[1], Math.min(1000, ...positive));
        assert.equal(new Float32Array(new Int32Array([got[2]!]).buffer)[0], Math.max(-5, ...fs));
        assert.equal(got[3], xs.reduce((a, v) => a | (1 << (v & 31)), 0));
        assert.equal(got[4], xs.reduce((a, v) => a & (v | 0x100), -1));
      }
    }
});

test('a float sum adds each lane\'s elements in order, then the lanes by the reduction tree, then the QPUs in order, then the value before', () => {
  const k = kernel([Int, Ptr(Float), Ptr(Float)], function floatSum(n, fs, out) {
    const s = Float(100);
    parallelFor(n, (i) => {
      s.set(s.add(fs.add(i).load()));
    });
    out.store(s, 1);
  }).setNumQPUs(3);
  const n = 100;
  const fs = Array.from({ length: n }, (_, j) => Math.fround(1.7 ** ((j * 13) % 40) * (j % 2 ? -1 : 1)));
  const [, , out] = onAll(k, () => [n, SharedArray.from(new Float32Array(fs)), SharedArray.float32(1)]);
  // The same order in plain TypeScript, with the chip's fadd (toward zero).
  const bits = (x: number) => new Int32Array(new Float32Array([x]).buffer)[0]!;
  const add = (a: number, b: number) => new Float32Array(new Int32Array([fadd(bits(a), bits(b))]).buffer)[0]!;
  const perQpu = [0, 1, 2].map((q) => {
    const lane = Array.from({ length: 16 }, () => 0);
    for (let v = q; v * 16 < n; v += 3) for (let l = 0; l < 16 && v * 16 + l < n; l++) lane[l] = add(lane[l]!, fs[v * 16 + l]!);
    let x = lane;
    for (const k of [8, 4, 2, 1]) x = x.map((a, l) => add(a, x[(l - k) & 15]!));
    return x[0]!;
  });
  assert.equal(out[0], add(100, add(add(perQpu[0]!, perQpu[1]!), perQpu[2]!)));
});

test('a two-dimensional parallelFor covers every (x, y) once, rows over the QPUs', () => {
  const k = kernel([Int, Int, Ptr(Int), Ptr(Int)], function grid(w, h, inp, out) {
    const total = Int(0);
    parallelFor([w, h], (x, y) => {
      const at = Int(y.mul(w).add(x));
      const v = Int(inp.add(at).load());
      out.add(at).store(v.mul(x).add(y));
      total.set(total.add(v));
    });
    If(me().eq(0), () => out.add(w.mul(h)).store(total, 1));
  });
  for (const qpus of [1, 5, 12])
    for (const [w, h] of [[1, 1], [17, 5], [40, 13], [16, 2]] as const) {
      k.setNumQPUs(qpus);
      const inp = Array.from({ length: w * h }, (_, j) => (j * 37) % 101);
      const [, , , out] = onAll(k, () => [w, h, SharedArray.from(inp, 'int32'), SharedArray.int32(w * h + 1)]);
      const want = inp.map((v, j) => v * (j % w) + Math.floor(j / w));
      assert.deepEqual(Array.from(out.slice(0, w * h)), want, `${w} x ${h} on ${qpus} QPUs`);
      assert.equal(out[w * h], inp.reduce((a, b) => a + b, 0));
    }
});

test('in the last vector, loops test only the lanes below n; gathers and scatters act only there', () => {
  // The lanes past n load 0, so their limit is 1000: were they tested, the While would run to its Break at 51 passes.
  const k = kernel([Int, Ptr(Int), Ptr(Int), Ptr(Int)], function perElement(n, xs, out, idx) {
    const passes = Int(0);
    parallelFor(n, (i) => {
      const v = Int(xs.add(i).load());
      const limit = Int(select(v.eq(0), 1000, v));
      const c = Int(0);
      const k = Int(0);
      While(any(c.lt(limit)), () => {
        Where(c.lt(limit), () => c.set(c.add(1)));
        k.set(k.add(1));
        If(k.gt(50), () => Break());
      });
      passes.set(passes.add(k));
      // A gather from each element's own index, and a scatter to a mirrored place.
      gather(xs.add(idx.add(i).load()));
      const g = Int(0);
      receive(g);
      scatter(out.add(Int(n).sub(1).sub(i)), c.add(g.mul(100)));
    });
    If(me().eq(0), () => out.add(n).store(passes, 1));
  });
  for (const qpus of [1, 3])
    for (const n of [5, 16, 21]) {
      k.setNumQPUs(qpus);
      const xs = Array.from({ length: n }, (_, j) => ((j * 5) % 9) + 1);
      const idx = Array.from({ length: n }, (_, j) => (j * 3) % n);
      const [, , out] = onAll(k, () => [n, SharedArray.from(xs, 'int32'), SharedArray.int32(n + 1), SharedArray.from(idx, 'int32')]);
      const want = Array.from({ length: n }, (_, j) => xs[n - 1 - j]! + xs[idx[n - 1 - j]!]! * 100);
      assert.deepEqual(Array.from(out.slice(0, n)), want, `${n} on ${qpus}`);
      // Each element's passes: the greatest limit of its vector's elements.
      const passes = xs.reduce((a, _, j) => a + Math.max(...xs.slice(j & ~15, Math.min((j & ~15) + 16, n))), 0);
      assert.equal(out[n], passes);
    }
});

test('a sum over QPUs after a parallelFor, and a For inside its body, as any other code', () => {
  const k = kernel([Int, Ptr(Int), Ptr(Int)], function inner(n, xs, out) {
    const mine = Int(0);
    const s = Int(0);
    parallelFor(n, (i) => {
      const v = Int(xs.add(i).load());
      const j = Int(0);
      const t = Int(0);
      For(j.lt(3), () => j.set(j.add(1)), () => t.set(t.add(v.mul(j))));
      s.set(s.add(t));
    });
    mine.set(sumQPUs(Int(1)));
    If(me().eq(0), () => (out.store(s, 1), out.add(1).store(mine, 1)));
  }).setNumQPUs(4);
  const xs = Array.from({ length: 77 }, (_, j) => j - 30);
  const [, , out] = onAll(k, () => [77, SharedArray.from(xs, 'int32'), SharedArray.int32(2)]);
  assert.deepEqual(Array.from(out), [xs.reduce((a, b) => a + 3 * b, 0), 4]);
});

test('mistakes: an outer variable assigned, accumulated two ways or read; a Break out of the body; nested parallelFor; a barrier inside', () => {
  const outerAssigned = () =>
    kernel([Int], function bad(n) {
      const s = Int(0);
      parallelFor(n, (i) => {
        s.set(i);
      });
    });
  assert.throws(outerAssigned, /kernel bad \(.*parallel\.test\.ts:\d+:\d+\): parallelFor's body assigns s \(.*parallel\.test\.ts:\d+:\d+\), made outside it: each QPU and lane has its own copy, so an outer variable may only accumulate \(s\.set\(s\.add\(x\)\), or min, max, and, or\)/);
  const twoWays = () =>
    kernel([Int], function bad(n) {
      const s = Int(0);
      parallelFor(n, (i) => {
        s.set(s.add(i));
        s.set(s.max(i));
      });
    });
  assert.throws(twoWays, /accumulates s by both add and max: one operation per variable/);
  const read = () =>
    kernel([Int], function bad(n) {
      const s = Int(0);
      parallelFor(n, (i) => {
        s.set(s.add(i));
        If(s.gt(3), () => {});
      });
    });
  assert.throws(read, /reads s, which it accumulates: its value is a part of the total until the loop ends; read it after/);
  assert.throws(() => kernel([Int], (n) => parallelFor(n, () => Break())), /a Break \(.*parallel\.test\.ts:\d+:\d+\) in a parallelFor's body must be inside a loop of the body/);
  assert.throws(() => kernel([Int], (n) => parallelFor(n, () => parallelFor(n, () => {}))), /parallelFor inside parallelFor/);
  assert.throws(() => kernel([Int], (n) => parallelFor(n, () => barrier())), /barrier\(\) \(.*parallel\.test\.ts:\d+:\d+\) inside parallelFor: the QPUs run different numbers of its elements/);
  assert.throws(() => kernel([Int], (n) => parallelFor([n, n, n] as never, () => {})), /takes two sizes, not 3/);
  assert.throws(() => kernel([Int], (n) => Where(n.gt(0), () => parallelFor(n, () => {}))), /parallelFor inside Where/);
});

test('in the last block a load that does not depend on the element (a table) reads its 16 words; a size near -2^31 runs no element (found in review)', () => {
  const k = kernel([Int, Ptr(Int), Ptr(Int)], function table(n, coef, y) {
    parallelFor(n, (i) => {
      y.add(i).store(Int(coef.load()).lane(5).add(i));
    });
  }).setNumQPUs(2);
  const [, , y] = onAll(k, () => [20, SharedArray.from(Array.from({ length: 16 }, (_, j) => 100 + j), 'int32'), SharedArray.int32(20)]);
  assert.deepEqual(Array.from(y), Array.from({ length: 20 }, (_, j) => 105 + j));
  const none = kernel([Int, Ptr(Int)], function none(n, out) {
    parallelFor(n, (i) => out.add(i).store(i));
    parallelFor([n, 3], (x) => out.add(x).store(x));
  });
  for (const n of [-2147483648, -2147483643, -1, 0]) onAll(none, () => [n, SharedArray.int32(16)]);
});
