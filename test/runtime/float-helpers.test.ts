// qpu-ts/float's helpers against the kernel's own operations, on the interpreter and on the
// emulator at -O0 and -O2, over every class of operand: both signs, zeros, denormals (which the
// QPU reads as zero), normal magnitudes from tiny to huge, infinities and NaNs. A helper that
// differs from the chip in one bit on one pair fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { For, Float, Int, kernel, Ptr, SharedArray } from '../../src/index.ts';
import { qadd, qfloat, qfloat32, qint, qmax, qmin, qmul, qsub } from '../../src/float.ts';
import { bitsToFloat, floatBits } from '../../src/vc4/tables.ts';

const MAGNITUDES = [0, 1e-45, 1e-39, 1.1754943508222875e-38, 1e-30, 0.1, 0.5, 1, 1.5, 2, 3, 1e7, 16777217, 2147483520, 2147483648, 3e9, 1e30, 3.4028234663852886e38, Infinity];
/** Both signs of each magnitude, and NaNs of both signs and two payloads. */
const CLASSES = [...MAGNITUDES, ...MAGNITUDES.map((m) => -m), NaN, bitsToFloat(0xffc00000), bitsToFloat(0x7f800001)];

const OPS = [
  ['qadd', qadd, (x: Float, y: Float) => x.add(y)],
  ['qsub', qsub, (x: Float, y: Float) => x.sub(y)],
  ['qmul', qmul, (x: Float, y: Float) => x.mul(y)],
  ['qmin', qmin, (x: Float, y: Float) => x.min(y)],
  ['qmax', qmax, (x: Float, y: Float) => x.max(y)],
] as const;
type Float = ReturnType<typeof Float>;

/** out[k * n + i] = OPS[k](a[i], b[i]); toInt(a[i]) and toFloat(ia[i]) after them. */
const everyOp = kernel([Ptr(Float), Ptr(Float), Ptr(Int), Ptr(Float), Ptr(Int), Int], function everyOp(a, b, ia, out, ints, n) {
  const i = Int(0);
  For(i.lt(n), () => i.set(i.add(16)), () => {
    const x = Float(a.add(i).load());
    const y = Float(b.add(i).load());
    OPS.forEach(([, , f], k) => out.add(i.add(n.mul(k))).store(f(x, y)));
    out.add(i.add(n.mul(OPS.length))).store(Int(ia.add(i).load()).toFloat());
    ints.add(i).store(x.toInt());
  });
});

function operands() {
  const a: number[] = [];
  const b: number[] = [];
  for (const x of CLASSES) for (const y of CLASSES) (a.push(x), b.push(y));
  while (a.length % 16) (a.push(0), b.push(0));
  // Integers for toFloat: each class's bits, and values that round when made floats.
  const ia = a.map((x, i) => (i % 3 === 0 ? floatBits(x) | 0 : i % 3 === 1 ? Math.trunc(x) | 0 : 0x7fffffff - i));
  return { a, b, ia };
}

const bitsOf = (x: number) => floatBits(x) >>> 0;

for (const [target, opt] of [['interpreter', 2], ['emulator', 0], ['emulator', 2]] as const) {
  test(`every float helper gives the kernel's own bits (${target}${target === 'emulator' ? ` -O${opt}` : ''})`, async () => {
    const { a, b, ia } = operands();
    const n = a.length;
    const A = SharedArray.from(new Float32Array(a)), B = SharedArray.from(new Float32Array(b)), IA = SharedArray.from(new Int32Array(ia));
    const out = SharedArray.float32(n * (OPS.length + 1)), ints = SharedArray.int32(n);
    await everyOp.setOptLevel(opt)(A, B, IA, out, ints, n, { target });
    const wrong: string[] = [];
    for (let i = 0; i < n; i++) {
      const x = A[i]!, y = B[i]!;
      OPS.forEach(([name, helper], k) => {
        const got = bitsOf(helper(x, y)), want = bitsOf(out[k * n + i]!);
        if (got !== want) wrong.push(`${name}(${x}, ${y}) = ${helper(x, y)}, the kernel computes ${out[k * n + i]}`);
      });
      if (bitsOf(qfloat(IA[i]!)) !== bitsOf(out[OPS.length * n + i]!)) wrong.push(`qfloat(${IA[i]}) = ${qfloat(IA[i]!)}, the kernel computes ${out[OPS.length * n + i]}`);
      if (qint(x) !== ints[i]) wrong.push(`qint(${x}) = ${qint(x)}, the kernel computes ${ints[i]}`);
    }
    assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} results differ`);
  });
}

test('qmin and qmax order negative operands as numbers (they used to compare unsigned patterns)', () => {
  assert.equal(qmax(-3, 1), 1);
  assert.equal(qmin(-3, 1), -3);
  assert.equal(qmin(-Infinity, 1), -Infinity);
  assert.equal(qmax(-Infinity, -1), -1);
  assert.equal(Object.is(qmin(-0, 0), -0), true); // a tie: min gives its first operand
});

test('qfloat32 is what a Float32Array holds, as float arithmetic reads it: zeros and denormals as +0', () => {
  for (const x of CLASSES) {
    const want = Math.abs(Math.fround(x)) < 1.1754943508222875e-38 ? 0 : Math.fround(x); // zeros and denormals read as +0
    if (Number.isNaN(x)) assert.ok(Number.isNaN(qfloat32(x)));
    else assert.equal(qfloat32(x), want, `qfloat32(${x})`);
  }
});
