// Operations across QPUs: barrier(), sumQPUs, minQPUs, maxQPUs, andQPUs, orQPUs and scanQPUs,
// on the interpreter and the emulator at -O0 and -O2 (onAll) and on 1 to 12 QPUs, their values
// against plain TypeScript, barriers reused under random interleavings, and the mistakes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  andQPUs, barrier, Float, For, If, index, Int, kernel, maxQPUs, me, minQPUs, numQPUs, orQPUs, Ptr, scanQPUs, semaDec, semaInc, SharedArray, store, sumQPUs, Where,
} from '../../src/index.ts';
import { onAll } from '../helpers/lang.ts';
import { fadd } from '../../src/vc4/arith.ts';

const bitsOf = (x: number) => new Int32Array(new Float32Array([x]).buffer)[0]!;
const floatOf = (bits: number) => new Float32Array(new Int32Array([bits]).buffer)[0]!;

const lanes = (f: (l: number) => number) => Array.from({ length: 16 }, (_, l) => f(l));
/** QPU q's value in lane l in the tests below. */
const intOf = (q: number, l: number) => (Math.imul(q * 16 + l + 1, 0x9e3779b9) >> 3) | 0;

const ints = kernel([Ptr(Int), Ptr(Int)], function acrossInts(inp, out) {
  const x = Int(inp.add(me().shl(4)).load());
  const row = out.add(me().mul(16 * 7));
  row.store(sumQPUs(x));
  row.add(16).store(minQPUs(x));
  row.add(32).store(maxQPUs(x));
  row.add(48).store(andQPUs(x));
  row.add(64).store(orQPUs(x));
  row.add(80).store(scanQPUs(x));
  row.add(96).store(scanQPUs(x, 'exclusive'));
});

for (const qpus of [1, 2, 3, 12]) {
  test(`Int operations across ${qpus} QPU${qpus > 1 ? 's' : ''}: every QPU gets the sum, least, greatest, and, or; each its prefix sums`, () => {
    ints.setNumQPUs(qpus);
    const input = Array.from({ length: 12 * 16 }, (_, i) => intOf(i >> 4, i & 15));
    const [, out] = onAll(ints, () => [SharedArray.from(input, 'int32'), SharedArray.int32(12 * 16 * 7)]);
    const col = (l: number, upTo = qpus) => Array.from({ length: upTo }, (_, q) => intOf(q, l));
    for (let q = 0; q < qpus; q++) {
      const at = (k: number) => Array.from(out.slice(q * 112 + k * 16, q * 112 + k * 16 + 16));
      assert.deepEqual(at(0), lanes((l) => col(l).reduce((a, b) => (a + b) | 0)), `sum, QPU ${q}`);
      assert.deepEqual(at(1), lanes((l) => Math.min(...col(l))));
      assert.deepEqual(at(2), lanes((l) => Math.max(...col(l))));
      assert.deepEqual(at(3), lanes((l) => col(l).reduce((a, b) => a & b)));
      assert.deepEqual(at(4), lanes((l) => col(l).reduce((a, b) => a | b)));
      assert.deepEqual(at(5), lanes((l) => col(l, q + 1).reduce((a, b) => (a + b) | 0)), `inclusive prefix, QPU ${q}`);
      assert.deepEqual(at(6), lanes((l) => col(l, q).reduce((a, b) => (a + b) | 0, 0)), `exclusive prefix, QPU ${q}`);
    }
  });
}

test('Float sums across QPUs round in QPU order, ((v0 + v1) + v2) ..., on every target; an exclusive prefix on QPU 0 is +0', () => {
  const k = kernel([Ptr(Float), Ptr(Float)], function acrossFloats(inp, out) {
    const x = Float(inp.add(me().shl(4)).load());
    const row = out.add(me().mul(16 * 5));
    row.store(sumQPUs(x));
    row.add(16).store(minQPUs(x));
    row.add(32).store(maxQPUs(x));
    row.add(48).store(scanQPUs(x));
    row.add(64).store(scanQPUs(x, 'exclusive'));
  }).setNumQPUs(5);
  // Magnitudes far apart, so that another order would round differently; -0 in QPU 0's lane 3.
  const input = Array.from({ length: 80 }, (_, i) => ((i >> 4) % 2 ? -1 : 1) * 1.1 ** ((i * 37) % 300) * (1 + (i & 15) / 7));
  input[3] = -0;
  const [, out] = onAll(k, () => [SharedArray.from(new Float32Array(input)), SharedArray.float32(80 * 5)]);
  // The chip's fadd rounds toward zero (vc4/arith.ts): another order, or JavaScript's rounding, gives other bits.
  const f = Math.fround;
  const col = (l: number, upTo = 5) => Array.from({ length: upTo }, (_, q) => f(input[q * 16 + l]!));
  const fold = (xs: number[]) => floatOf(xs.slice(1).reduce((a, b) => fadd(a, bitsOf(b)), bitsOf(xs[0]!)));
  for (let q = 0; q < 5; q++) {
    const at = (k: number) => Array.from(out.slice(q * 80 + k * 16, q * 80 + k * 16 + 16));
    assert.deepEqual(at(0), lanes((l) => fold(col(l))));
    assert.deepEqual(at(1), lanes((l) => Math.min(...col(l))));
    assert.deepEqual(at(2), lanes((l) => Math.max(...col(l))));
    assert.deepEqual(at(3), lanes((l) => fold(col(l, q + 1))));
    assert.deepEqual(at(4), lanes((l) => (q === 0 ? 0 : fold(col(l, q)))));
  }
  assert.ok(Object.is(out[64 + 3], 0), 'the exclusive prefix on QPU 0 is +0');
  assert.ok(Object.is(out[48 + 3], -0), 'the inclusive prefix on QPU 0 is its own value, -0');
});

/** Rounds of: each QPU writes its slot, a barrier, each reads its neighbour's, a barrier (so no slot is written while read). */
const rounds = kernel([Ptr(Int), Ptr(Int)], function rounds(buf, out) {
  const acc = Int(index());
  const i = Int(0);
  For(i.lt(6), () => i.set(i.add(1)), () => {
    buf.add(me().shl(4)).store(acc.mul(3).add(me()).add(i));
    barrier();
    const next = Int(me().add(1));
    If(next.ge(Int(numQPUs())), () => next.set(0));
    acc.set(acc.add(buf.add(next.shl(4)).load()));
    barrier();
  });
  out.add(me().shl(4)).store(sumQPUs(acc));
});


/** The same in plain TypeScript. */
function roundsWant(qpus: number): number[] {
  let acc = Array.from({ length: qpus }, () => lanes((l) => l));
  for (let i = 0; i < 6; i++) {
    const slot = acc.map((a, q) => a.map((x) => (Math.imul(x, 3) + q + i) | 0));
    acc = acc.map((a, q) => a.map((x, l) => (x + slot[(q + 1) % qpus]![l]!) | 0));
  }
  return lanes((l) => acc.reduce((s, a) => (s + a[l]!) | 0, 0));
}

test('barriers reused in a loop: the same result on every target, and under 40 random interleavings on each', async () => {
  for (const qpus of [2, 4, 12]) {
    rounds.setNumQPUs(qpus);
    const [, out] = onAll(rounds, () => [SharedArray.int32(12 * 16), SharedArray.int32(12 * 16)]);
    for (let q = 0; q < qpus; q++) assert.deepEqual(Array.from(out.slice(q * 16, q * 16 + 16)), roundsWant(qpus), `${qpus} QPUs, QPU ${q}`);
  }
  const want = roundsWant(4);
  for (const target of ['interpreter', 'emulator'] as const)
    for (let seed = 0; seed < 40; seed++) {
      const out = SharedArray.int32(64);
      await rounds(SharedArray.int32(64), out, { qpus: 4, target, interleave: seed });
      for (let q = 0; q < 4; q++) assert.deepEqual(Array.from(out.slice(q * 16, q * 16 + 16)), want, `${target}, seed ${seed}, QPU ${q}`);
    }
});

test('many values live across a sum over 12 QPUs (spilled to the VPM around its reads) keep their values', () => {
  const k = kernel([Ptr(Int)], function pressure(out) {
    const vs = Array.from({ length: 40 }, (_, j) => Int(index().mul(j + 1).add(me())));
    const t = sumQPUs(vs[0]!.add(vs[39]!));
    let s: ReturnType<typeof Int> | undefined;
    for (const v of vs) s = s ? Int(s.add(v.xor(t))) : Int(v.xor(t));
    out.add(me().shl(4)).store(s!);
  }).setNumQPUs(12);
  const [out] = onAll(k, () => [SharedArray.int32(12 * 16)]);
  const t = lanes((l) => Array.from({ length: 12 }, (_, q) => l * 1 + q + l * 40 + q).reduce((a, b) => a + b));
  for (let q = 0; q < 12; q++)
    assert.deepEqual(Array.from(out.slice(q * 16, q * 16 + 16)), lanes((l) => Array.from({ length: 40 }, (_, j) => (l * (j + 1) + q) ^ t[l]!).reduce((a, b) => (a + b) | 0)));
});

test('a barrier makes this QPU\'s non-blocking stores visible to the QPUs that go on after it', () => {
  const k = kernel([Ptr(Int)], function handOver(buf) {
    If(me().eq(1), () => store(index().add(500), buf.add(16)));
    barrier();
    If(me().eq(0), () => buf.store(Int(buf.add(16).load()).mul(2)));
  }).setNumQPUs(2);
  const [buf] = onAll(k, () => [SharedArray.int32(32)]);
  assert.deepEqual(Array.from(buf.slice(0, 16)), lanes((l) => (l + 500) * 2));
});

test('mistakes: QPUs at different meetings, too few free semaphores, a meeting in a Where, a Float to andQPUs', async () => {
  const split = kernel([Ptr(Int)], function split(out) {
    If(me().eq(0), () => barrier());
    out.add(me().shl(4)).store(sumQPUs(Int(1)));
  }).setNumQPUs(2);
  assert.throws(() => split.interpretSync([SharedArray.int32(32)]), /kernel split, QPU 1 .*sumQPUs.*this is a sumQPUs of ints, but QPU 0 waits at .*`barrier\(\)` \(a barrier\): every QPU must reach the same operation across QPUs/);
  // Compiled, the QPUs wait for ever: the emulator says where each one is.
  await assert.rejects(split(SharedArray.int32(32), { target: 'emulator' }), /kernel split: deadlock: .*QPU 0 .*waits for semaphore 15/);
  // One QPU finishes while another waits at a barrier.
  const alone = kernel([], function alone() {
    If(me().eq(1), () => barrier());
  }).setNumQPUs(2);
  assert.throws(() => alone.interpretSync([]), /deadlock: .*QPU 0 has finished the kernel; QPU 1 in .*`barrier\(\)` waits for every QPU to reach a barrier \(1 of 2 there\)/);
  assert.throws(
    () =>
      kernel([], function full() {
        for (let n = 0; n < 14; n++) If(me().eq(99), () => (semaInc(n), semaDec(n)));
        barrier();
      }),
    /kernel full \(.*\): `barrier\(\)`: barrier\(\) and the operations across QPUs need two semaphores the kernel's semaInc and semaDec leave free; it uses 14 of the 15/,
  );
  assert.throws(() => kernel([], () => Where(index().lt(3), () => barrier())), /barrier inside Where/);
  assert.throws(() => kernel([], () => void andQPUs(Float(1) as never)), /andQPUs combines Ints \(bits\), not a Float/);
  assert.throws(() => kernel([], () => void scanQPUs(Int(1), 'both' as never)), /kind is 'inclusive' or 'exclusive', not the string "both"/);
  assert.throws(() => kernel([], () => void sumQPUs('x' as never)), /sumQPUs combines an Int or a Float over the QPUs, not the string "x"/);
});
