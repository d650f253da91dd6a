// assert(cond, message, values) in kernels: what holds costs a few instructions and changes
// nothing; what fails stops the run with the same report on the interpreter and on compiled code
// at -O0 and -O2 (the kernel, the place, the message, the QPUs and lanes, the named values); a
// QPU that fails leaves the others waiting at a barrier without hiding the assertion; scratch
// memory shared with spilled registers; `assertions: false`; and the mistakes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assert as kassert, barrier, Float, For, gather, index, Int, kernel, KernelAssertionError, me, parallelFor, Ptr, receive, SharedArray, sumQPUs, Where,
} from '../../src/index.ts';
import { onAll } from '../helpers/lang.ts';

/** Runs k on the interpreter and the emulator at -O0 and -O2 with fresh arguments; each must throw a KernelAssertionError, whose messages are returned. */
function failures(k: { interpretSync(a: never): unknown; emulateSync(a: never): unknown; setOptLevel(o: 0 | 2): unknown }, args: () => unknown[]): string[] {
  const out: string[] = [];
  for (const run of [() => k.interpretSync(args() as never), () => (k.setOptLevel(0), k.emulateSync(args() as never)), () => (k.setOptLevel(2), k.emulateSync(args() as never))]) {
    try {
      run();
      assert.fail('the run did not fail');
    } catch (e) {
      assert.ok(e instanceof KernelAssertionError, String(e));
      out.push(e.message);
    }
  }
  return out;
}

const checked = kernel([Int, Ptr(Int), Ptr(Float)], function checked(n, p, f) {
  const x = Int(p.load());
  const y = Float(f.load());
  kassert(x.lt(n), 'x below n', { x, n, y, p });
  p.store(x.add(1));
});

test('an assertion that holds changes nothing, on every target', () => {
  const [, p] = onAll(checked, () => [100, SharedArray.from(Array.from({ length: 16 }, (_, l) => l * 3), 'int32'), SharedArray.float32(16)]);
  assert.deepEqual(Array.from(p), Array.from({ length: 16 }, (_, l) => l * 3 + 1));
});

test('one that fails stops the run with the place, the message, the lanes and the named values (Ints, Floats, Ptrs), the same on every target', () => {
  const args = () => [40, SharedArray.from(Array.from({ length: 16 }, (_, l) => l * 3), 'int32'), SharedArray.from(new Float32Array(16).map((_, l) => l / 4))];
  const messages = failures(checked, args);
  for (const m of messages) {
    assert.match(m, /^kernel checked: assertion failed at .*assert\.test\.ts:\d+:\d+, `assert\(x < n, "x below n", \{ x: x, n: n, y: y, p: p \}\)`: x below n\n {2}QPU 0, lanes 14 15: x = 42 45; n = 40 \(in each\); y = 3\.5 3\.75; p = 0x[0-9a-f]+ \(in each\)$/);
  }
  // The pointer's address differs between runs (fresh arrays); the rest is the same.
  const strip = (m: string) => m.replace(/0x[0-9a-f]+/g, 'ADDR');
  assert.equal(strip(messages[1]!), strip(messages[0]!));
  assert.equal(strip(messages[2]!), strip(messages[0]!));
});

test('a QPU that fails leaves the others waiting at a barrier: compiled code still reports the assertion, with every QPU that failed it', () => {
  const k = kernel([Ptr(Int)], function meet(p) {
    const x = Int(me().mul(10).add(index()));
    kassert(x.ne(23), 'not 23', { x });
    barrier();
    p.add(me().shl(4)).store(sumQPUs(x));
  }).setNumQPUs(4);
  const [interpreted, ...compiled] = failures(k, () => [SharedArray.int32(64)]);
  // The interpreter stops at the first QPU it runs that fails; compiled code lets each QPU reach it.
  assert.match(interpreted!, /`assert\(x != 23, "not 23", \{ x: x \}\)`: not 23\n {2}QPU 1, lane 13: x = 23$/);
  for (const m of compiled) assert.match(m, /: not 23\n {2}QPU 1, lane 13: x = 23\n {2}QPU 2, lane 3: x = 23$/);
});

test('in a parallelFor the lanes past the end never fail; the message shows the assertion as written', () => {
  const k = kernel([Int, Ptr(Int)], function tail(n, p) {
    parallelFor(n, (i) => {
      const v = Int(p.add(i).load());
      kassert(v.lt(100), 'small', { i, v });
      p.add(i).store(v.add(1));
    });
  }).setNumQPUs(2);
  const fill = (bad?: number) => (): [number, Int32Array] => [21, SharedArray.from(Array.from({ length: 21 }, (_, j) => (j === bad ? 500 : j)), 'int32')];
  const [, p] = onAll(k, fill());
  assert.equal(p[20], 21);
  for (const m of failures(k, fill(19))) assert.match(m, /`assert\(v < 100, "small", \{ i: parallelFor\.i \+ index\(\), v: v \}\)`: small\n {2}QPU 1, lane 3: i = 19; v = 500$/);
});

test('failure records share scratch memory with registers spilled to memory (12 QPUs, many live values)', () => {
  const k = kernel([Ptr(Int)], function pressure(out) {
    const vs = Array.from({ length: 90 }, (_, j) => Int(index().mul(j + 1).add(me())));
    let s = Int(0);
    for (const v of vs) s = Int(s.add(v.xor(vs[3]!)));
    kassert(s.ne(-1), 'spilled', { first: vs[0]!, last: vs[89]! });
    for (const v of vs) s = Int(s.add(v));
    out.add(me().shl(4)).store(s);
  }).setNumQPUs(12);
  const [out] = onAll(k, () => [SharedArray.int32(12 * 16)]);
  assert.ok(k.code().stats.spilledToMemory > 0, `${k.code().stats.spilledToMemory} values spilled to memory`);
  const want = (l: number, q: number) => {
    const vs = Array.from({ length: 90 }, (_, j) => l * (j + 1) + q);
    return vs.reduce((a, v) => (a + (v ^ vs[3]!)) | 0, 0) + vs.reduce((a, v) => a + v, 0);
  };
  for (const q of [0, 5, 11]) assert.deepEqual(Array.from(out.slice(q * 16, q * 16 + 16)), Array.from({ length: 16 }, (_, l) => want(l, q) | 0));
});

test('a held assertion costs a few instructions: its flags, a branch and the branch\'s 3 delay slots (5)', () => {
  const loop = (withAssert: boolean) =>
    kernel([Ptr(Int)], (p) => {
      const r = Int(index());
      const i = Int(0);
      For(i.lt(64), () => i.set(i.add(1)), () => {
        if (withAssert) kassert(r.ne(-7));
        r.set(r.add(i));
      });
      p.store(r);
    });
  const steps = (k: ReturnType<typeof loop>) => k.emulateSync([SharedArray.int32(16)]).stepsPerQpu[0]!;
  const per = (steps(loop(true)) - steps(loop(false))) / 64;
  assert.ok(per <= 5.5, `${per} instructions an assertion`);
});

test('kernel(..., { assertions: false }) leaves them out, on every target: the code is the code without them', () => {
  const off = kernel(
    [Int, Ptr(Int)],
    function plain(n, p) {
      kassert(n.lt(0), 'never');
      p.store(n);
    },
    { assertions: false },
  );
  const none = kernel([Int, Ptr(Int)], function plain(n, p) {
    p.store(n);
  });
  assert.equal(off.code().asm, none.code().asm);
  const [, p] = onAll(off, () => [5, SharedArray.int32(16)]);
  assert.equal(p[0], 5);
});

test('mistakes: an assertion in a Where, a value that is no Int, Float or Ptr, a message that is no string, a bad option', () => {
  assert.throws(() => kernel([Int], (n) => Where(n.gt(0), () => kassert(n.lt(5)))), /assert inside Where/);
  assert.throws(() => kernel([Int], (n) => kassert(n.lt(5), 'm', { n: 3 as never })), /assert\(\.\.\., \{ n \}\): n is not an Int, a Float or a Ptr but 3/);
  assert.throws(() => kernel([Int], (n) => kassert(n.lt(5), 7 as never)), /the message is a string, not 7/);
  assert.throws(() => kernel([Int], (n) => kassert(5 as never)), /assert needs a vector condition/);
  assert.throws(() => kernel([Int], () => {}, { assertions: 'no' as never }), /option assertions is true \(the default\) or false, not the string "no"/);
  assert.throws(() => kernel([Int], () => {}, { asserts: false } as never), /kernel\(\) has no option called "asserts"/);
});

test('an assertion the compiler copied (a parallelFor\'s last block) reports every QPU that failed it; one with gathers outstanding is refused (found in review)', () => {
  const k = kernel([Int, Ptr(Int)], function copies(n, p) {
    parallelFor(n, (i) => {
      kassert(i.lt(3), 'small', { i });
      p.add(i).store(i);
    });
  }).setNumQPUs(2);
  k.setOptLevel(2);
  assert.throws(() => k.emulateSync([20, SharedArray.int32(20)]), /: small\n {2}QPU 0, lanes 3 4 .* 15: i = 3 4 .* 15\n {2}QPU 1, lanes 0 1 2 3: i = 16 17 18 19$/);
  assert.throws(
    () =>
      kernel([Ptr(Int)], function outstanding(p) {
        gather(p.add(index()));
        kassert(index().lt(16));
        receive(Int(0));
      }),
    /`assert\(index\(\) < 16\)`: an assertion with 1 gather outstanding: receive it first \(a QPU that fails an assertion ends there\)/,
  );
});

test('a failed assertion that a pass rewrote (a product of the loop counter as a running sum) reports the assertion as written (fuzz seed 8003968)', () => {
  const k = kernel([Int, Ptr(Int)], function rewritten(n, p) {
    const i = Int(0);
    For(i.lt(8), () => i.set(i.add(1)), () => {
      kassert(i.mul(n).lt(50), 'bound', { i });
      p.store(i);
    });
  });
  for (const m of failures(k, () => [20, SharedArray.int32(16)])) assert.match(m, /`assert\(\(i \* n\) < 50, "bound", \{ i: i \}\)`: bound\n {2}QPU 0, lanes 0 .* 15: i = 3 \(in each\)$/);
});
