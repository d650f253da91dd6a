// Float division and square root (and, as it grows, the math library): on the interpreter and on
// the emulator at -O0 and -O2 (onAll), bit for bit; within the ulps docs/language.md documents
// (bench/accuracy.ts measures them over dense sweeps), with the exact SFU and with the chip's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Float, kernel, Ptr, SharedArray } from '../../src/index.ts';
import { onAll } from '../helpers/lang.ts';
import { unaryRow } from '../../src/source/ops.ts';

const f32 = (x: number) => Math.fround(x);
/** Ulps between two floats of one sign. */
const ulps = (a: number, b: number) => {
  const view = new Float32Array([a, b]);
  const i = new Int32Array(view.buffer);
  return Math.abs(i[0]! - i[1]!);
};

const xs = [1, 2, 3, 0.1, 1e-30, 3.4e30, 7, 9.99, 100, 0.5, 12345.678, 1e10, 2.5e-5, 1.5, 64, 0.3333];
const ys = [3, 7, -1.5, 0.7, 2e-10, 5.5e3, -7, 3.33, 0.001, 0.25, -0.1, 3e-5, 17, 1.5, 8, 11];

const both = kernel([Ptr(Float), Ptr(Float), Ptr(Float)], (px, py, out) => {
  const x = Float(px.load());
  const y = Float(py.load());
  out.store(x.div(y));
  out.add(16).store(x.sqrt());
  out.add(32).store(y.sqrt());
  out.add(48).store(x.div(4));
});

test('div and sqrt agree on every target and are within 2 ulps of the correctly rounded results', () => {
  const [, , out] = onAll(both, () => [SharedArray.from<Float32Array>(new Float32Array(xs)), SharedArray.from<Float32Array>(new Float32Array(ys)), SharedArray.float32(64)]);
  xs.forEach((x, l) => {
    const [fx, fy] = [f32(x), f32(ys[l]!)];
    assert.ok(ulps(out[l]!, f32(fx / fy)) <= 2, `${fx} / ${fy}: ${out[l]}`);
    assert.ok(ulps(out[16 + l]!, f32(Math.sqrt(fx))) <= 2, `sqrt ${fx}: ${out[16 + l]}`);
    if (fy > 0) assert.ok(ulps(out[32 + l]!, f32(Math.sqrt(fy))) <= 2, `sqrt ${fy}`);
    else assert.ok(Number.isNaN(out[32 + l]), `sqrt ${fy} is NaN`);
    assert.ok(ulps(out[48 + l]!, f32(fx / 4)) <= 2, `${fx} / 4`);
  });
});

test('with the chip\'s SFU, div and sqrt stay within 7 and 4 ulps, the same on the interpreter and the emulator', () => {
  const run = (how: 'interpretSync' | 'emulateSync') => {
    const out = SharedArray.float32(64);
    both[how]([SharedArray.from<Float32Array>(new Float32Array(xs)), SharedArray.from<Float32Array>(new Float32Array(ys)), out], { sfu: 'chip' });
    return out;
  };
  const out = run('interpretSync');
  assert.deepEqual(Array.from(run('emulateSync')), Array.from(out));
  xs.forEach((x, l) => {
    const [fx, fy] = [f32(x), f32(ys[l]!)];
    assert.ok(ulps(out[l]!, f32(fx / fy)) <= 7, `${fx} / ${fy}: ${out[l]}`);
    assert.ok(ulps(out[16 + l]!, f32(Math.sqrt(fx))) <= 4, `sqrt ${fx}: ${out[16 + l]}`);
  });
});

test('sqrt\'s and div\'s special values: 0, -0, infinities, NaN, negatives', () => {
  const specials = [0, -0, Infinity, -Infinity, NaN, -1, 4, 1e-38, 2, -2, 1, 0, 8, 3, Infinity, 1];
  const divisors = [0, 2, 2, 2, 2, Infinity, 0, 1, -0, 4, -Infinity, 5, 2, 3, 0, 1];
  const k = kernel([Ptr(Float), Ptr(Float), Ptr(Float)], (px, py, out) => {
    const x = Float(px.load());
    out.store(x.sqrt());
    out.add(16).store(x.div(Float(py.load())));
  });
  const [, , out] = onAll(k, () => [SharedArray.from<Float32Array>(new Float32Array(specials)), SharedArray.from<Float32Array>(new Float32Array(divisors)), SharedArray.float32(32)]);
  const sq = Array.from(out.slice(0, 16));
  assert.deepEqual(sq.slice(0, 6).map(String), ['0', 'NaN', 'Infinity', 'NaN', 'NaN', 'NaN']);
  assert.equal(sq[6], 2);
  const q = Array.from(out.slice(16));
  assert.equal(q[0], 0); // 0 / 0: 0 (the chip's fmul of a zero)
  assert.equal(q[1], 0); // -0 / 2 computes as 0
  assert.equal(q[2], Infinity);
  assert.equal(q[5], 0); // -1 / infinity
  assert.equal(q[6], Infinity); // 4 / 0
});

test('sqrt gives a NaN for every pattern from +infinity\'s up but +infinity, negative powers of two and -infinity too', () => {
  const sqrt = unaryRow('sqrt')!.fn;
  const isNaN32 = (bits: number) => (bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0;
  const check = (bits: number) => {
    const r = sqrt(bits | 0);
    if ((bits | 0) === 0x7f800000) assert.equal(r, 0x7f800000);
    else if (!isNaN32(r)) assert.fail(`sqrt of pattern 0x${(bits >>> 0).toString(16)} gave 0x${(r >>> 0).toString(16)}`);
  };
  for (let b = 0x7f800000; b <= 0xffffffff; b += 4099) check(b);
  for (let e = 0; e < 256; e++) check((0x80000000 | (e << 23)) >>> 0); // every negative with a zero mantissa
  check(0x7f800000);
});

test('sin, cos, exp and log agree on every target and are within their documented ulps', () => {
  const xs = [0.5, -0.5, 1, 3.14159, -3.14159, 100, -1000, 12345.6, 1e-3, 2, 10, -20, 80, -80, 0.1, 7];
  const k = kernel([Ptr(Float), Ptr(Float)], (px, out) => {
    const x = Float(px.load());
    out.store(x.sin());
    out.add(16).store(x.cos());
    out.add(32).store(x.exp());
    out.add(48).store(x.abs().log());
  });
  const [, out] = onAll(k, () => [SharedArray.from<Float32Array>(new Float32Array(xs)), SharedArray.float32(64)]);
  const within = (got: number, want: number, most: number, what: string) => assert.ok(ulps(got, f32(want)) <= most || Math.abs(got - want) < 1e-37, `${what}: ${got}, not ${f32(want)}`);
  xs.forEach((x, l) => {
    const fx = f32(x);
    within(out[l]!, Math.sin(fx), 5, `sin ${fx}`);
    within(out[16 + l]!, Math.cos(fx), 5, `cos ${fx}`);
    within(out[32 + l]!, Math.exp(fx), 2, `exp ${fx}`);
    within(out[48 + l]!, Math.log(Math.abs(fx)), 2, `log ${Math.abs(fx)}`);
  });
});

test('exp and log at the edges: overflow, underflow, 0, negatives, infinities', () => {
  const xs = [89, 100, -88, -1000, Infinity, -Infinity, 0, -0, 88.7, -87.3, 1e-45, -1, 1, Infinity, 1e38, 3];
  const k = kernel([Ptr(Float), Ptr(Float)], (px, out) => {
    const x = Float(px.load());
    out.store(x.exp());
    out.add(16).store(x.log());
  });
  const [, out] = onAll(k, () => [SharedArray.from<Float32Array>(new Float32Array(xs)), SharedArray.float32(32)]);
  const e = Array.from(out.slice(0, 16));
  assert.deepEqual(e.slice(0, 8), [Infinity, Infinity, 0, 0, Infinity, 0, 1, 1]);
  assert.ok(ulps(e[8]!, f32(Math.exp(f32(88.7)))) <= 2 && ulps(e[9]!, f32(Math.exp(f32(-87.3)))) <= 2);
  const g = Array.from(out.slice(16));
  assert.deepEqual(g.slice(4, 8).map(String), ['Infinity', 'NaN', '-Infinity', '-Infinity']);
  assert.deepEqual(g.slice(10, 13).map(String), ['-Infinity', 'NaN', '0']);
});

test('tan, asin, acos, atan, atan2, exp2, log2, pow, sinh, cosh and tanh agree on every target, within their ulps', () => {
  const xs = [0.5, -0.5, 0.9, -0.99, 0.1, 1e-3, 0.3, -0.7, 0.25, 0.999, -0.2, 0.6, 0.05, -0.05, 0.75, 1];
  const ys = [2, 3, -1.5, 0.5, 10, 100, -3, 7.5, 0.001, 1, 4, -8, 2.5, 6, -0.25, 12];
  const unary = ['tan', 'asin', 'acos', 'atan', 'exp2', 'sinh', 'cosh', 'tanh'] as const;
  const k = kernel([Ptr(Float), Ptr(Float), Ptr(Float)], (px, py, out) => {
    const x = Float(px.load());
    const y = Float(py.load());
    unary.forEach((f, j) => out.add(16 * j).store(x.mul(3)[f]()));
    out.add(16 * 8).store(y.abs().log2());
    out.add(16 * 9).store(x.atan2(y));
    out.add(16 * 10).store(y.abs().pow(x.mul(2)));
    out.add(16 * 11).store(x.asin().add(x.acos()));
  });
  const [, , out] = onAll(k, () => [SharedArray.from<Float32Array>(new Float32Array(xs)), SharedArray.from<Float32Array>(new Float32Array(ys)), SharedArray.float32(16 * 12)]);
  const most = { tan: 7, asin: 5, acos: 5, atan: 3, exp2: 1, sinh: 3, cosh: 2, tanh: 2 };
  const exact = { tan: Math.tan, asin: Math.asin, acos: Math.acos, atan: Math.atan, exp2: (v: number) => 2 ** v, sinh: Math.sinh, cosh: Math.cosh, tanh: Math.tanh };
  xs.forEach((x, l) => {
    const x3 = f32(f32(x) * 3);
    unary.forEach((f, j) => {
      const want = exact[f](x3);
      if (Number.isNaN(want)) assert.ok(Number.isNaN(out[16 * j + l]), `${f}(${x3}) is NaN`);
      else assert.ok(ulps(out[16 * j + l]!, f32(want)) <= most[f], `${f}(${x3}): ${out[16 * j + l]}, not ${f32(want)}`);
    });
    const y = f32(ys[l]!);
    assert.ok(ulps(out[16 * 8 + l]!, f32(Math.log2(Math.abs(y)))) <= 3, `log2 ${y}`);
    assert.ok(ulps(out[16 * 9 + l]!, f32(Math.atan2(f32(x), y))) <= 3, `atan2(${x}, ${y})`);
    assert.ok(ulps(out[16 * 10 + l]!, f32(Math.pow(Math.abs(y), f32(f32(x) * 2)))) <= 60, `pow(${Math.abs(y)}, ${2 * x})`);
    assert.ok(Math.abs(out[16 * 11 + l]! - Math.PI / 2) < 1e-6, `asin + acos of ${x}`);
  });
});

test('pow\'s signs and zeros, atan2\'s quadrants, asin and acos outside [-1, 1]', () => {
  const k = kernel([Ptr(Float), Ptr(Float), Ptr(Float)], (px, py, out) => {
    const x = Float(px.load());
    const y = Float(py.load());
    out.store(x.pow(y));
    out.add(16).store(y.atan2(x));
    out.add(32).store(x.asin());
  });
  const xs = [-2, -2, -2, 0, 0, 0, 4, 1, -1, 1, -1, -0, 2, 3, 0.5, -3];
  const ys = [3, 2, 0.5, 2, -2, 0, 0.5, 100, 1, -1, -1, 0, 0, 1, -1, -1];
  const [, , out] = onAll(k, () => [SharedArray.from<Float32Array>(new Float32Array(xs)), SharedArray.from<Float32Array>(new Float32Array(ys)), SharedArray.float32(48)]);
  const p = Array.from(out.slice(0, 16));
  assert.deepEqual(p.slice(0, 8).map(String), ['-8', '4', 'NaN', '0', 'Infinity', '1', '2', '1']);
  const a = Array.from(out.slice(16, 32));
  xs.forEach((x, l) => assert.ok(Math.abs(a[l]! - Math.atan2(ys[l]!, x)) < 1e-6 || (x === 0 && ys[l] === 0), `atan2(${ys[l]}, ${x}): ${a[l]}`));
  assert.ok(Number.isNaN(out[32]) && Number.isNaN(out[33]) && Number.isNaN(out[47]), 'asin(-2), asin(-3): NaN');
});
