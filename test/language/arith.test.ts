// Integer arithmetic beyond one instruction: the 32-bit multiply, on the interpreter and on the
// emulator at -O0 and -O2 (onAll). test/compiler/passes/ranges.test.ts and induction.test.ts
// check the cheaper code the compiler makes of it where it can.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { index, Int, kernel, Ptr, SharedArray } from '../../src/index.ts';
import { ints, lanes, onAll } from '../helpers/lang.ts';

test('Int.mul is the low 32 bits of the product (Math.imul); mul24 is the chip\'s 24-bit multiply', () => {
  assert.deepEqual(ints((r) => r.set(Int(-8).mul(100))), lanes(() => -800));
  assert.deepEqual(ints((r) => r.set(Int(-8).mul24(100))), lanes(() => 1677720800));
  const xs = [0, 1, -1, 0x7fffffff, -(2 ** 31), 0x1000000, 0xffffff, 123456789, -987654321, 65536, 46341, 3, -3, 0x12345678, 7, 255];
  const k = kernel([Ptr(Int), Ptr(Int)], (io, out) => {
    const a = Int(io.load());
    const b = Int(a.lane(3).add(index()));
    out.store(a.mul(b));
    out.add(16).store(a.mul(a));
    out.add(32).store(a.mul(-7));
    out.add(48).store(a.mul(index()));
    out.add(64).store(index().mul(a).mul(1024));
  });
  const [, out] = onAll(k, () => [SharedArray.from<Int32Array>(xs), SharedArray.int32(80)]);
  const want = [
    ...xs.map((a, l) => Math.imul(a, (xs[3]! + l) | 0)),
    ...xs.map((a) => Math.imul(a, a)),
    ...xs.map((a) => Math.imul(a, -7)),
    ...xs.map((a, l) => Math.imul(a, l)),
    ...xs.map((a, l) => Math.imul(Math.imul(l, a), 1024)),
  ];
  assert.deepEqual(Array.from(out), want);
});

test('div, rem, udiv and urem truncate as JavaScript does, by Ints, constants and 0, at the edges of the int range', () => {
  const xs = [0, 7, -7, 0x7fffffff, -(2 ** 31), 1, -1, 100, 123456789, -987654321, 0xffff, 3, 65535, -65536, 2, 1000000007];
  const ys = [2, 2, 2, -1, -1, 0, 7, -7, 10, 3, 0x10000, 0x7fffffff, 16, 255, -(2 ** 31), 1];
  const ops = ['div', 'rem', 'udiv', 'urem'] as const;
  const js = {
    div: (a: number, b: number) => (b === 0 ? 0 : Math.trunc(a / b) | 0),
    rem: (a: number, b: number) => (b === 0 ? 0 : a % b | 0),
    udiv: (a: number, b: number) => (b === 0 ? 0 : Math.trunc((a >>> 0) / (b >>> 0)) | 0),
    urem: (a: number, b: number) => (b === 0 ? 0 : (a >>> 0) % (b >>> 0) | 0),
  };
  const k = kernel([Ptr(Int), Ptr(Int), Ptr(Int)], (pa, pb, out) => {
    const a = Int(pa.load());
    const b = Int(pb.load());
    ops.forEach((op, j) => {
      out.add(64 * j).store(a[op](b)); // by an Int
      out.add(64 * j + 16).store(a[op](10)); // by a constant
      out.add(64 * j + 32).store(a[op](-16)); // by a negative power of two
      out.add(64 * j + 48).store(a.and(0xfff)[op](7)); // a small dividend by a constant: one mul24
    });
  });
  const [, , out] = onAll(k, () => [SharedArray.from<Int32Array>(xs), SharedArray.from<Int32Array>(ys), SharedArray.int32(256)]);
  const want = ops.flatMap((op) => [...xs.map((a, l) => js[op](a, ys[l]!)), ...xs.map((a) => js[op](a, 10)), ...xs.map((a) => js[op](a, -16)), ...xs.map((a) => js[op](a & 0xfff, 7))]);
  assert.deepEqual(Array.from(out), want);
  assert.deepEqual(ints((r) => r.set(Int(-7).div(2))), lanes(() => -3));
  assert.deepEqual(ints((r) => r.set(Int(-7).rem(2))), lanes(() => -1));
});
