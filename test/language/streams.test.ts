// Broadcast streams: stream(p) and s.next(), each element in every lane. On the interpreter and
// the emulator at -O0 and -O2 (onAll); their misuses on each target; and what -O2 makes of a
// stream's reads (a multiply reading the uniform itself, beside the add of the step before).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Float, For, func, If, index, Int, kernel, me, parallelFor, Ptr, SharedArray, stream, Uint8, Where, type FloatVar } from '../../src/index.ts';
import { onAll } from '../helpers/lang.ts';
import { EmulatorError } from '../../src/emulator/errors.ts';

const floats = (n: number, f: (i: number) => number) => {
  const a = SharedArray.float32(n, 'a');
  for (let i = 0; i < n; i++) a[i] = f(i);
  return a;
};

test('each next is the next element in every lane, read across a loop\'s passes and restarted', () => {
  const k = kernel([Ptr(Float), Ptr(Int), Ptr(Float), Int], function sums(a, b, out, n) {
    const s = stream(a.add(1));
    const acc = Float(0);
    const i = Int(0);
    For(i.lt(n), () => i.set(i.add(1)), () => acc.set(acc.add(s.next().mul(index().toFloat()))));
    out.store(acc);
    // An Int stream, started again each pass: its first two elements, from a moving start.
    const t = Int(0);
    const j = Int(0);
    For(j.lt(3), () => j.set(j.add(1)), () => {
      const u = stream(b.add(j.mul(2)));
      t.set(t.add(u.next().mul(10)).add(u.next()));
    });
    out.add(16).store(t.toFloat());
  });
  const [, , out] = onAll(k, () => [floats(40, (i) => i * 0.5), (() => { const b = SharedArray.int32(8, 'b'); b.set([1, 2, 3, 4, 5, 6, 7, 8]); return b; })(), SharedArray.float32(32, 'out'), 20]);
  let sum = 0;
  for (let i = 1; i <= 20; i++) sum += i * 0.5;
  assert.deepEqual(Array.from(out.subarray(0, 16)), Array.from({ length: 16 }, (_, l) => Math.fround(sum * l)));
  assert.deepEqual(Array.from(out.subarray(16)), new Array(16).fill(12 + 34 + 56));
});

test('each QPU reads its own stream; reads in the arms of an If', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], function own(a, out) {
    const s = stream(a.add(me().mul(4)));
    const x = Int(s.next());
    If(x.gt(5), () => x.set(x.add(s.next()))).Else(() => x.set(x.sub(s.next().mul(2))));
    x.set(x.add(s.next().mul(100)));
    out.add(me().shl(4)).store(x.add(index()));
  }).setNumQPUs(4);
  const [, out] = onAll(k, () => {
    const a = SharedArray.int32(16, 'a');
    for (let i = 0; i < 16; i++) a[i] = 3 * i;
    return [a, SharedArray.int32(64, 'out')];
  });
  for (let q = 0; q < 4; q++) {
    const [x0, x1, x2] = [12 * q, 12 * q + 3, 12 * q + 6];
    const x = (x0 > 5 ? x0 + x1 : x0 - 2 * x1) + 100 * x2;
    assert.deepEqual(Array.from(out.subarray(16 * q, 16 * q + 16)), Array.from({ length: 16 }, (_, l) => x + l));
  }
});

test('at -O2 a stream\'s element goes straight into the multiply, which shares a word with the add before it', () => {
  const k = kernel([Ptr(Float), Ptr(Float)], function fma(a, out) {
    const sums: FloatVar[] = Array.from({ length: 8 }, () => Float(0));
    const b = Float(index().toFloat());
    const s = stream(a);
    for (const x of sums) x.set(x.add(b.mul(s.next())));
    for (let r = 0; r < 8; r++) out.add(16 * r).store(sums[r]!);
  });
  const [, out] = onAll(k, () => [floats(8, (i) => i + 1), SharedArray.float32(128, 'out')]);
  assert.deepEqual(Array.from(out.subarray(16 * 7, 16 * 8)), Array.from({ length: 16 }, (_, l) => 8 * l));
  const asm = k.setOptLevel(2).code().asm;
  const steps = asm.split('\n').filter((l) => /^\s+fadd (r[ab]?\d+), \1, (r\d); fmul \2, r\d, unif$/.test(l));
  assert.ok(steps.length >= 6, `expected paired steps reading unif in\n${asm}`);
  assert.ok(!/mov r\d, unif/.test(asm.split('unif_addr')[1]!), `no copy of a stream's element in\n${asm}`);
});

test('misusing a stream: messages on the interpreter, the same rule on the emulator', () => {
  const run = (k: { interpretSync(a: never): unknown }, args: unknown[]) => () => k.interpretSync(args as never);
  const a = floats(16, (i) => i);
  const before = kernel([Ptr(Float), Ptr(Float)], function early(p, out) {
    const s = stream(p);
    const t = stream(p.add(4));
    out.store(t.next());
    out.store(s.next());
  });
  assert.throws(run(before, [a, SharedArray.float32(16)]), /kernel early, QPU 0 .*s\.next\(\) reads `stream\(p\)` \(.*streams\.test\.ts:\d+:\d+\), but `stream\(p \+ 4\)` \(.*\) has started on this QPU since/);
  const lanes = kernel([Ptr(Float), Ptr(Float)], function lanes(p, out) {
    out.store(stream(p.add(index())).next());
  });
  assert.throws(run(lanes, [a, SharedArray.float32(16)]), /a stream starts at one address, and lane 0's is 0x[0-9a-f]+ but lane 1's 0x[0-9a-f]+/);
  const past = kernel([Ptr(Float), Ptr(Float)], function past(p, out) {
    const s = stream(p.add(15));
    const x = Float(s.next());
    out.store(x.add(s.next()));
  });
  assert.throws(run(past, [a, SharedArray.float32(16)]), /a stream's read at 0x[0-9a-f]+ is outside the arrays the kernel was given/);
  assert.throws(() => past.setOptLevel(2).emulateSync([a, SharedArray.float32(16)] as never), (e: Error) => e instanceof EmulatorError && e.kind === 'fault' && /uniform read at 0x[0-9a-f]+: .*outside the arrays kernel past was given/.test(e.message));
  const stale = kernel([Ptr(Float)], function stale(p) {
    p.store(Float(2));
    p.add(16).store(stream(p.add(3)).next());
  });
  const rule = /\[stream-after-store\] a stream's read at 0x[0-9a-f]+, which this run has already stored to: on a Pi it may return the old value from the uniforms cache/;
  assert.throws(run(stale, [floats(32, () => 0)]), rule);
  for (const O of [0, 2] as const)
    assert.throws(() => stale.setOptLevel(O).emulateSync([floats(32, () => 0)] as never), (e: Error) => e instanceof EmulatorError && e.rule === 'stream-after-store' && rule.test(e.message) && /uniforms cache; a stream may only read/.test(e.message));
});

test('a stream is refused where it cannot work, naming the kernel and the line', () => {
  const line = /streams\.test\.ts:\d+:\d+/.source;
  assert.throws(() => kernel([Ptr(Float)], function w(p) { Where(index().lt(3), () => void stream(p)); }), new RegExp(`kernel w \\(.*${line}\\): stream inside Where`));
  assert.throws(() => kernel([Ptr(Float)], function w2(p) { const s = stream(p); Where(index().lt(3), () => void s.next()); }), /kernel w2 .*s\.next\(\) inside Where/);
  assert.throws(() => kernel([Ptr(Float), Int], function par(p, n) { parallelFor(n, () => void stream(p)); }), /kernel par .*stream inside parallelFor/);
  assert.throws(() => kernel([Ptr(Float), Int], function par2(p, n) { const s = stream(p); parallelFor(n, () => void s.next()); }), /kernel par2 .*s\.next\(\) inside parallelFor/);
  assert.throws(() => kernel([Ptr(Uint8)], function bytes(p) { stream(p as never); }), /kernel bytes .*stream reads 32-bit words, and a Ptr\(Uint8\) points to 8-bit elements/);
  assert.throws(() => kernel([Ptr(Float)], function inFunc(p) { const f = func([Float], (x) => { stream(p); return x; }); f(Float(1)); }), /kernel inFunc .*stream inside func/);
  assert.throws(() => kernel([Ptr(Float)], function none() { stream(3 as never); }), /kernel none .*stream needs a Ptr, not 3/);
});

test('a stream\'s read stays before a store that overwrites its word, at every level (the scheduler and direct keep it there)', () => {
  // A review's repro: read p[3], then store over p[0..15]; v used once (direct) and twice (the scheduler).
  const once = kernel([Ptr(Int), Ptr(Int)], function once(p, out) {
    const v = stream(p.add(3)).next();
    p.store(index().add(1000));
    out.store(v.add(1));
  });
  const twice = kernel([Ptr(Int), Ptr(Int)], function twice(p, out) {
    const v = stream(p.add(3)).next();
    p.store(index().add(1000));
    out.store(v.shl(index()).add(v));
  });
  const args = () => [SharedArray.from(Array.from({ length: 64 }, (_, i) => i), 'int32'), SharedArray.int32(16)] as [Int32Array, Int32Array];
  assert.deepEqual(Array.from(onAll(once, args)[1]), new Array(16).fill(4));
  assert.deepEqual(Array.from(onAll(twice, args)[1]), Array.from({ length: 16 }, (_, l) => (3 << l) + 3));
});

test('a compiled stream that runs past its array names the stream\'s statement, as the interpreter does', () => {
  const past = kernel([Ptr(Float), Ptr(Float), Int], function past(p, out, n) {
    const s = stream(p.add(14));
    const acc = Float(0);
    const i = Int(0);
    For(i.lt(n), () => i.set(i.add(1)), () => acc.set(acc.add(s.next().mul(index().toFloat()))));
    out.store(acc);
  });
  const args = () => [floats(16, (i) => i), SharedArray.float32(16), 4] as never;
  assert.throws(() => past.interpretSync(args()), /`next@\d+:\d+ = next\(\)`\): a stream's read at/);
  for (const O of [0, 2] as const)
    assert.throws(() => past.setOptLevel(O).emulateSync(args()), (e: Error) => /kernel past in .*streams\.test\.ts:\d+:\d+ `next@\d+:\d+ = next\(\)`: QPU 0, pc \d+ .*uniform read at/.test(e.message));
});

