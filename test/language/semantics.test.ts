// What each construct of the language means: each test runs on the reference interpreter and,
// compiled at -O0 and -O2, on the emulator, and the three must agree bit for bit (onAll).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  all,
  any,
  Break,
  Float,
  For,
  gather,
  If,
  index,
  Int,
  kernel,
  me,
  mutexLock,
  mutexUnlock,
  numQPUs,
  Ptr,
  receive,
  rotate,
  select,
  semaDec,
  semaInc,
  SharedArray,
  store,
  Where,
  While,
} from '../../src/index.ts';
import type { BoolValue, FloatExpr, IntVar } from '../../src/index.ts';
import { floats, ints, lanes, onAll } from '../helpers/lang.ts';

test('integers: wrap-around add/sub, the 24-bit multiply, shifts by the low 5 bits, signed min/max/compare', () => {
  assert.deepEqual(ints((r) => r.set(index().add(0x7fffffff))), lanes((l) => (l + 0x7fffffff) | 0));
  assert.deepEqual(ints((r) => r.set(Int(-1).mul24(16))), lanes(() => 268435440));
  assert.deepEqual(ints((r) => r.set(Int(0x1000003).mul24(index()))), lanes((l) => 3 * l));
  assert.deepEqual(ints((r) => r.set(Int(1).shl(index().add(32)))), lanes((l) => 1 << l));
  assert.deepEqual(ints((r) => r.set(Int(-64).shr(index()))), lanes((l) => -64 >> l));
  assert.deepEqual(ints((r) => r.set(Int(-64).ushr(index()))), lanes((l) => (-64 >>> l) | 0));
  assert.deepEqual(ints((r) => r.set(Int(1).ror(index()))), lanes((l) => ((1 >>> l) | (1 << (32 - l))) | 0));
  assert.deepEqual(ints((r) => r.set(index().sub(8).min(2).max(-3))), lanes((l) => Math.max(Math.min(l - 8, 2), -3)));
  assert.deepEqual(ints((r) => r.set(index().and(5).or(8).xor(1).not())), lanes((l) => ~(((l & 5) | 8) ^ 1)));
  // Comparisons are true signed comparisons, even where a - b overflows.
  const big = 0x7fffffff;
  assert.deepEqual(
    ints((r) => Where(Int(-2).lt(Int(big)), () => r.set(1))),
    lanes(() => 1),
  );
});

test('floats: the chip\'s arithmetic (toward zero), conversions, special functions', () => {
  assert.deepEqual(floats((r) => r.set(Float(1).add(Float(-2.524354896707238e-29)))), lanes(() => 0.9999999403953552));
  assert.deepEqual(floats((r) => r.set(index().toFloat().mul(0.5))), lanes((l) => l * 0.5));
  assert.deepEqual(ints((r) => r.set(Float(-2.9).toInt())), lanes(() => -2));
  assert.deepEqual(floats((r) => r.set(Float(4).recip())), lanes(() => 0.25));
  assert.deepEqual(floats((r) => r.set(Float(-16).recipsqrt())), lanes(() => 0.25));
  assert.deepEqual(floats((r) => r.set(Float(3).nativeExp2())), lanes(() => 8));
  assert.deepEqual(floats((r) => r.set(Float(-32).nativeLog2())), lanes(() => 5));
  assert.deepEqual(floats((r) => r.set(Float(1.5).min(-2).max(-1))), lanes(() => -1));
  // Float comparison: -0 equals +0.
  assert.deepEqual(ints((r) => Where(Float(0).eq(Float(-0)), () => r.set(1))), lanes(() => 1));
});

test('rotate by a number and by an Int (its lane 0); index, me, numQPUs', () => {
  assert.deepEqual(ints((r) => r.set(rotate(index(), 3))), lanes((l) => (l - 3) & 15));
  assert.deepEqual(ints((r) => r.set(rotate(index(), index().add(15)))), lanes((l) => (l + 1) & 15));
  const k = kernel([Ptr(Int)], (out) => {
    out.add(me().shl(4)).store(me().mul(100).add(numQPUs()));
  });
  const [out] = onAll(k.setNumQPUs(4), () => [SharedArray.int32(64)]);
  assert.deepEqual(Array.from(out), [0, 1, 2, 3].flatMap((q) => lanes(() => q * 100 + 4)));
});

test('select chooses lane by lane, between Ints, Floats, Ptrs and numbers, inside Where and in conditions', () => {
  assert.deepEqual(ints((r) => r.set(select(index().lt(5), index(), 100))), lanes((l) => (l < 5 ? l : 100)));
  // The destination is one of the values, either way round.
  assert.deepEqual(ints((r) => (r.set(index()), r.set(select(index().ge(8), r.mul(2), r)))), lanes((l) => (l >= 8 ? 2 * l : l)));
  assert.deepEqual(ints((r) => (r.set(index()), r.set(select(index().ge(8), 7, r)))), lanes((l) => (l >= 8 ? 7 : l)));
  // Nested, on a combined condition, and on the float order (-0 equals 0).
  const nested = ints((r) => r.set(select(index().lt(4).or(index().gt(12)), select(index().eq(0), -1, 1), select(index().lt(8), 2, 3))));
  assert.deepEqual(nested, lanes((l) => (l < 4 || l > 12 ? (l === 0 ? -1 : 1) : l < 8 ? 2 : 3)));
  assert.deepEqual(floats((r) => r.set(select(Float(0).eq(Float(-0)), Float(1.5), 2.5))), lanes(() => 1.5));
  // Inside Where, whose own flags the select must not disturb, and in an If's condition.
  const masked = ints((r) => {
    const i = Int(index());
    Where(i.lt(10), () => r.set(select(i.lt(5), i.add(100), i.add(200)))).Else(() => r.set(select(i.eq(12), 1, 2)));
  });
  assert.deepEqual(masked, lanes((l) => (l < 10 ? (l < 5 ? l + 100 : l + 200) : l === 12 ? 1 : 2)));
  assert.deepEqual(ints((r) => If(any(select(index().lt(8), index(), 0).eq(15)), () => r.set(1)).Else(() => r.set(2))), lanes(() => 2));
  // Between two pointers: each lane loads through its own choice (gather).
  const k = kernel([Ptr(Int), Ptr(Int), Ptr(Int)], (a, b, out) => {
    gather(select(index().lt(8), a.add(index()), b.add(index())));
    const x = Int(0);
    receive(x);
    out.store(x);
  });
  const filled = (f: (l: number) => number) => {
    const a = SharedArray.int32(16);
    a.set(lanes(f));
    return a;
  };
  const [, , out] = onAll(k, () => [filled((l) => l), filled((l) => 100 + l), SharedArray.int32(16)]);
  assert.deepEqual(Array.from(out), lanes((l) => (l < 8 ? l : 100 + l)));
});

test('neg, abs, clz, unsigned comparisons and bit casts, at the edges of the int range', () => {
  const v = [0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 12345, -7, 0x10000, 0x80, 3, -3, 255, -256, 2 ** 30, 5, -(2 ** 30)];
  const inputs = (r: IntVar) => {
    r.set(0);
    v.forEach((x, l) => Where(index().eq(l), () => r.set(x)));
  };
  assert.deepEqual(ints((r) => (inputs(r), r.set(r.neg()))), v.map((x) => -x | 0));
  assert.deepEqual(ints((r) => (inputs(r), r.set(r.abs()))), v.map((x) => Math.abs(x) | 0));
  assert.deepEqual(ints((r) => (inputs(r), r.set(r.clz()))), v.map((x) => Math.clz32(x)));
  const u = (x: number) => x >>> 0;
  const w = v.map((_, l) => v[(l + 5) & 15]!);
  for (const [op, f] of [['ult', (a: number, b: number) => u(a) < u(b)], ['ule', (a: number, b: number) => u(a) <= u(b)], ['ugt', (a: number, b: number) => u(a) > u(b)], ['uge', (a: number, b: number) => u(a) >= u(b)]] as const)
    assert.deepEqual(ints((r) => (inputs(r), r.set(select(r[op](rotate(r, 11)), 1, 0)))), v.map((x, l) => (f(x, w[l]!) ? 1 : 0)), op);
  assert.deepEqual(ints((r) => (inputs(r), r.set(r.umin(rotate(r, 11))))), v.map((x, l) => (u(x) < u(w[l]!) ? x : w[l]!)));
  assert.deepEqual(ints((r) => (inputs(r), r.set(r.umax(rotate(r, 11))))), v.map((x, l) => (u(x) > u(w[l]!) ? x : w[l]!)));
  // The destination among the operands, and under Where (whose own flags umin must not disturb).
  assert.deepEqual(ints((r) => (inputs(r), Where(index().lt(8), () => r.set(rotate(r, 11).umin(r))))), v.map((x, l) => (l < 8 ? (u(w[l]!) < u(x) ? w[l]! : x) : x)));
  // A float's bits and back; abs clears the sign bit, of -0 and NaN too.
  assert.deepEqual(ints((r) => (inputs(r), r.set(r.asFloat().asInt()))), v);
  const bits = ints((r) => (inputs(r), r.set(r.asFloat().abs().asInt())));
  assert.deepEqual(bits, v.map((x) => x & 0x7fffffff)); // a selection, not arithmetic: denormals keep their bits
  assert.deepEqual(floats((r) => r.set(Float(-2.5).abs().add(Float(0).abs()))), lanes(() => 2.5));
});

test('trunc, floor, ceil and round are Math\'s on float32, fract is x - floor(x), -0, halves, large values, infinities and NaN included', () => {
  const xs = [0.5, -0.5, 1.5, -1.5, 2, -2, 0, -0, 8388607.5, -8388607.5, 2 ** 23, 1e30, -1e30, Infinity, -Infinity, 3.75];
  const run = (f: (x: FloatExpr) => FloatExpr) =>
    floats((r) => {
      xs.forEach((x, l) => Where(index().eq(l), () => r.set(x)));
      r.set(f(r));
    });
  for (const [name, f] of [['trunc', Math.trunc], ['floor', Math.floor], ['ceil', Math.ceil], ['round', Math.round]] as const)
    assert.deepEqual(run((x) => x[name]()).map((y) => Object.is(y, -0) ? '-0' : y), xs.map((x) => (Object.is(f(Math.fround(x)), -0) ? '-0' : f(Math.fround(x)))), name);
  const fract = run((x) => x.fract());
  xs.forEach((x, l) => assert.equal(fract[l], Number.isFinite(x) ? Math.fround(x) - Math.floor(Math.fround(x)) : NaN, `fract(${x})`));
  assert.deepEqual(floats((r) => r.set(Float(-2.5).round().add(Float(0.49999997).round()))), lanes(() => -2));
  // isNaN and isFinite, on every kind of pattern: NaNs of both signs and payloads, infinities, zeros, denormals.
  const patterns = [0x7fc00000, 0xffc00000 | 0, 0x7f800001, 0x7f800000, 0xff800000 | 0, 0, 0x80000000 | 0, 1, 0x7f7fffff, 0x3f800000, 0xbf800000 | 0, 0x7fffffff, -1, 0x00800000, 12345, 0x4b000000];
  const classify = (f: (x: FloatExpr) => BoolValue) =>
    ints((r) => {
      const x = Int(0);
      patterns.forEach((b, l) => Where(index().eq(l), () => x.set(b)));
      r.set(select(f(x.asFloat()), 1, 0));
    });
  const asFloat = (b: number) => new Float32Array(new Int32Array([b]).buffer)[0]!;
  assert.deepEqual(classify((x) => x.isNaN()), patterns.map((b) => (Number.isNaN(asFloat(b)) ? 1 : 0)));
  assert.deepEqual(classify((x) => x.isFinite()), patterns.map((b) => (Number.isFinite(asFloat(b)) ? 1 : 0)));
  const nan = floats((r) => r.set(Int(0x7fc00000).asFloat().floor()));
  assert.ok(nan.every(Number.isNaN));
});

test('x.lane(n) broadcasts lane n, by a number or an Int (its lane 0, modulo 16), inside Where too', () => {
  assert.deepEqual(ints((r) => r.set(index().mul(3).add(1).lane(5))), lanes(() => 16));
  assert.deepEqual(ints((r) => r.set(index().lane(0).add(index().lane(15)))), lanes(() => 15));
  assert.deepEqual(ints((r) => r.set(index().mul(2).lane(index().add(18)))), lanes(() => 4)); // 18 mod 16 = 2
  assert.deepEqual(floats((r) => r.set(index().toFloat().mul(0.5).lane(7))), lanes(() => 3.5));
  const masked = ints((r) => {
    const i = Int(index().mul(10));
    Where(i.ge(50), () => r.set(i.lane(index().add(3)))).Else(() => r.set(i.lane(1).lane(9)));
  });
  assert.deepEqual(masked, lanes((l) => (l >= 5 ? 30 : 10)));
  assert.throws(() => kernel([Ptr(Int)], () => void index().lane(16)), /Int\.lane\(16\): lanes are numbered 0 to 15/);
});

test('select refuses values of two types, and two non-integer numbers, at the user\'s line', () => {
  assert.throws(() => kernel([Ptr(Int)], () => void select(index().lt(1), Int(1), Float(1) as never)), /select between an Int and a Float: both values must have one type/);
  assert.throws(() => kernel([Ptr(Int)], () => void select(index().lt(1), 1.5, 2)), /between two numbers it makes an Int; write Float\(1\.5\)/);
  assert.throws(() => kernel([Ptr(Int), Ptr(Float)], (p, q) => void select(index().lt(1), p, q as never)), /both must be the same kind of Ptr/);
  assert.throws(() => kernel([Ptr(Int)], () => void select(true as never, 1, 2)), /select needs a vector condition/);
});

test('Where / Else nest and mask assignments lane by lane', () => {
  const r = ints((r) => {
    const i = Int(index());
    Where(i.lt(8), () => {
      Where(i.lt(4), () => r.set(1)).Else(() => r.set(2));
    }).Else(() => r.set(3));
  });
  assert.deepEqual(r, lanes((l) => (l < 4 ? 1 : l < 8 ? 2 : 3)));
  const b = ints((r) => Where(index().lt(3).or(index().gt(12)).and(index().ne(0)).not(), () => r.set(9)));
  assert.deepEqual(b, lanes((l) => (!((l < 3 || l > 12) && l !== 0) ? 9 : 0)));
});

test('If / Else on any and all; a plain condition means any', () => {
  assert.deepEqual(ints((r) => If(any(index().eq(5)), () => r.set(1)).Else(() => r.set(2))), lanes(() => 1));
  assert.deepEqual(ints((r) => If(all(index().eq(5)), () => r.set(1)).Else(() => r.set(2))), lanes(() => 2));
  assert.deepEqual(ints((r) => If(index().gt(14), () => r.set(7))), lanes(() => 7));
});

test('While, For and Break', () => {
  assert.deepEqual(
    ints((r) => {
      const i = Int(0);
      For(i.lt(10), () => i.set(i.add(1)), () => r.set(r.add(i)));
    }),
    lanes(() => 45),
  );
  assert.deepEqual(
    ints((r) => {
      While(all(r.lt(100)), () => {
        r.set(r.add(index().add(1)));
        If(any(r.gt(50)), () => Break());
      });
    }),
    lanes((l) => (l + 1) * Math.ceil(51 / 16)),
  );
  // A Break in a For's step leaves that For: two rounds of the body, then out.
  assert.deepEqual(
    ints((r) => {
      const i = Int(0);
      For(i.lt(5), () => (i.set(i.add(1)), If(any(i.eq(2)), () => Break())), () => r.set(r.add(1)));
    }),
    lanes(() => 2),
  );
});

test('loads and stores through pointers; pointer arithmetic counts elements', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], (src, dst) => {
    const v = Int(src.add(16).load());
    dst.store(v.add(1));
    dst.add(16).store(src.load());
  });
  const [, dst] = onAll(k, () => [SharedArray.from(Int32Array.from({ length: 32 }, (_, i) => i * 10)), SharedArray.int32(32)]);
  assert.deepEqual(Array.from(dst), [...lanes((l) => (16 + l) * 10 + 1), ...lanes((l) => l * 10)]);
});

test('gather and receive: per-lane addresses, results in order; store does not block', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], (src, dst) => {
    gather(src.add(index().mul(2)));
    gather(src.add(Int(15).sub(index())));
    const a = Int();
    const b = Int();
    receive(a);
    receive(b);
    store(a.add(b.shl(8)), dst);
  });
  const [, dst] = onAll(k, () => [SharedArray.from(Int32Array.from({ length: 32 }, (_, i) => i)), SharedArray.int32(16)]);
  assert.deepEqual(Array.from(dst), lanes((l) => 2 * l + ((15 - l) << 8)));
});

test('semaphores order QPUs; the mutex makes a critical section', () => {
  // QPU 0 writes; the others wait on semaphore 1 and read it.
  const k = kernel([Ptr(Int)], (buf) => {
    If(me().eq(0), () => {
      buf.store(index().add(40));
      for (let i = 1; i < 4; i++) semaInc(1);
    }).Else(() => {
      semaDec(1);
      buf.add(me().shl(4)).store(Int(buf.load()).add(me()));
    });
  });
  const [buf] = onAll(k.setNumQPUs(4), () => [SharedArray.int32(64)]);
  assert.deepEqual(Array.from(buf.slice(48)), lanes((l) => l + 43));
  const counter = kernel([Ptr(Int)], (c) => {
    mutexLock();
    c.store(Int(c.load()).add(1));
    mutexUnlock();
  });
  const [c] = onAll(counter.setNumQPUs(12), () => [SharedArray.int32(16)]);
  assert.deepEqual(Array.from(c), lanes(() => 12));
});

test('the mutex locked twice, or unlocked unheld, is the same error on both targets', () => {
  const relock = kernel([Ptr(Int)], function relock(p) {
    mutexLock();
    mutexLock();
    p.store(me());
    mutexUnlock();
  });
  const unheld = kernel([Ptr(Int)], function unheld(p) {
    p.store(me());
    mutexUnlock();
  });
  for (const [k, name, stmt, text] of [
    [relock, 'relock', 'mutexLock()', /this QPU locks the mutex it already holds: a mutex read waits until the mutex is free \(Guide p\. 24\)/],
    [unheld, 'unheld', 'mutexUnlock()', /this QPU unlocks the mutex without holding it/],
  ] as const) {
    const buf = SharedArray.int32(16);
    for (const run of [() => k.interpretSync([buf]), () => k.emulateSync([buf])])
      assert.throws(
        run,
        (e: Error & { rule?: string }) =>
          e.message.includes(`kernel ${name}`) && e.message.includes(`\`${stmt}\``) && text.test(e.message) && e.rule === `mutex-${name === 'relock' ? 'relock' : 'unlock-unheld'}`,
      );
  }
});

test('a kernel prints as text (its AST)', () => {
  const k = kernel([Ptr(Int), Int], function addAll(p, n) {
    const s = Int(0);
    const i = Int(0);
    While(any(i.lt(n)), () => {
      s.set(s.add(p.add(i).load()));
      i.set(i.add(16));
    });
    Where(s.gt(0), () => s.set(s.mul(2)));
    p.store(s);
  });
  assert.equal(
    k.dump(),
    [
      'kernel addAll(p: int*, n: int)',
      '  s = 0',
      '  i = 0',
      '  while any(i < n)',
      '    s = s + *(p + i)',
      '    i = i + 16',
      '  where s > 0',
      '    s = s * 2',
      '  *p = s',
      '',
    ].join('\n'),
  );
});
