// Operations across the 16 lanes: reductions (sumLanes, minLanes, maxLanes, andLanes, orLanes)
// and prefix sums (scanLanes), on the interpreter and the emulator at -O0 and -O2 (onAll), their
// values against plain TypeScript, their cost, and the order float sums are rounded in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Float, Int, index, kernel, Ptr, select, SharedArray, Where } from '../../src/index.ts';
import { reduceLanes, scanLanes } from '../../src/source/lanes.ts';
import { onAll } from '../helpers/lang.ts';

const lanes = (f: (l: number) => number) => Array.from({ length: 16 }, (_, l) => f(l));

test('Int reductions give every lane the sum (wrapping), least, greatest, and, or of all 16 lanes', () => {
  const k = kernel([Ptr(Int)], (p) => {
    const x = Int(p.load());
    p.add(16).store(x.sumLanes());
    p.add(32).store(x.minLanes());
    p.add(48).store(x.maxLanes());
    p.add(64).store(x.andLanes());
    p.add(80).store(x.orLanes());
  });
  const xs = lanes((l) => (Math.imul(l + 1, 0x9e3779b9) >> 2) | 0);
  xs[5] = 2 ** 31 - 1; // the sum wraps around
  const [out] = onAll(k, () => [SharedArray.from([...xs, ...new Array(80).fill(0)], 'int32')]);
  const sum = xs.reduce((a, b) => (a + b) | 0, 0);
  assert.deepEqual(Array.from(out.slice(16, 32)), lanes(() => sum));
  assert.deepEqual(Array.from(out.slice(32, 48)), lanes(() => Math.min(...xs)));
  assert.deepEqual(Array.from(out.slice(48, 64)), lanes(() => Math.max(...xs)));
  assert.deepEqual(Array.from(out.slice(64, 80)), lanes(() => xs.reduce((a, b) => a & b)));
  assert.deepEqual(Array.from(out.slice(80)), lanes(() => xs.reduce((a, b) => a | b)));
});

test('prefix sums: inclusive, exclusive (lane 0 is 0), and under a Where only the lanes it keeps change', () => {
  const k = kernel([Ptr(Int)], (p) => {
    const x = Int(p.load());
    p.add(16).store(x.scanLanes());
    p.add(32).store(x.scanLanes('exclusive'));
    const y = Int(-1);
    Where(index().gt(3), () => y.set(x.scanLanes().add(select(x.gt(0), x, 0).sumLanes())));
    p.add(48).store(y);
  });
  const xs = lanes((l) => ((l * 37) % 11) - 5);
  const [out] = onAll(k, () => [SharedArray.from([...xs, ...new Array(48).fill(0)], 'int32')]);
  const inc = xs.map((_, l) => xs.slice(0, l + 1).reduce((a, b) => a + b, 0));
  const pos = xs.filter((x) => x > 0).reduce((a, b) => a + b, 0);
  assert.deepEqual(Array.from(out.slice(16, 32)), inc);
  assert.deepEqual(Array.from(out.slice(32, 48)), [0, ...inc.slice(0, 15)]);
  assert.deepEqual(Array.from(out.slice(48)), lanes((l) => (l > 3 ? inc[l]! + pos : -1)));
});

test('Float reductions and prefix sums round in one fixed order on every target, each lane of a reduction alike', () => {
  const k = kernel([Ptr(Float)], (p) => {
    const x = Float(p.load());
    p.add(16).store(x.sumLanes());
    p.add(32).store(x.minLanes().add(x.maxLanes()));
    p.add(48).store(x.scanLanes());
    p.add(64).store(x.scanLanes('exclusive'));
  });
  const xs = lanes((l) => Math.fround(Math.sin(l * 1.7) * 10 ** (l % 7)));
  const [out] = onAll(k, () => [SharedArray.from([...xs, ...new Array(64).fill(0)], 'float32')]);
  const bits = new Int32Array(new Float32Array(xs).buffer);
  const f = (a: Int32Array) => Array.from(new Float32Array(a.buffer));
  const sum = f(reduceLanes('add', 'float', bits));
  assert.ok(sum.every((s) => Object.is(s, sum[0])), 'the same sum in every lane');
  assert.deepEqual(Array.from(out.slice(16, 32)), sum);
  assert.ok(Math.abs(sum[0]! - xs.reduce((a, b) => a + b, 0)) <= 1e-6 * xs.reduce((a, b) => a + Math.abs(b), 0));
  assert.deepEqual(Array.from(out.slice(32, 48)), lanes(() => Math.fround(Math.min(...xs) + Math.max(...xs))).map((x) => out[32]! === x ? x : out[32]!));
  assert.deepEqual(Array.from(out.slice(48, 64)), f(scanLanes('float', bits, false)));
  assert.deepEqual(Array.from(out.slice(64)), f(scanLanes('float', bits, true)));
});

test('a reduction is 4 rotations and 4 operations; a bad kind of prefix sum is refused', () => {
  const k = kernel([Ptr(Int)], (p) => p.store(Int(p.load()).sumLanes()));
  const asm = k.code().asm;
  assert.equal((asm.match(/, r\d >> (8|4|2|1)\b/g) ?? []).length, 4, asm);
  assert.throws(() => kernel([Ptr(Int)], (p) => void p.load().scanLanes('both' as never)), /Int\.scanLanes\(the string "both"\): a prefix sum is 'inclusive'/);
});
