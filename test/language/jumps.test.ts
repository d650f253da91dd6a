// Break and Continue, of the innermost loop or of an outer one through its handle (the loop a
// body receives), on the interpreter and the emulator at -O0 and -O2 (onAll), and the mistakes
// the builder refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Break, Continue, For, gather, If, index, Int, kernel, Ptr, receive, SharedArray, Where, While } from '../../src/index.ts';
import { onAll } from '../helpers/lang.ts';

const lanes = (f: (l: number) => number) => Array.from({ length: 16 }, (_, l) => f(l));

test('Continue goes on to a For\'s step and a While\'s test; Break and Continue of an outer loop leave the inner ones', () => {
  const k = kernel([Ptr(Int)], (out) => {
    // Sum of i < 10 but 3 and 7, by a Continue in a For.
    const s = Int(0);
    const i = Int(0);
    For(i.lt(10), () => i.set(i.add(1)), () => {
      If(i.eq(3).or(i.eq(7)), () => Continue());
      s.set(s.add(i));
    });
    out.store(s);
    // A While whose Continue skips the rest of a pass (the counter goes first).
    const w = Int(0);
    const t = Int(0);
    While(w.lt(8), () => {
      w.set(w.add(1));
      If(w.and(1).eq(0), () => Continue());
      t.set(t.add(w.mul(index().add(1))));
    });
    out.add(16).store(t);
    // Nested: Continue(outer) from the inner loop skips the rest of the outer pass; Break(outer) ends both.
    const a = Int(0);
    const b = Int(0);
    const hits = Int(0);
    For(a.lt(6), () => a.set(a.add(1)), (outer) => {
      b.set(0);
      While(b.lt(5), () => {
        b.set(b.add(1));
        If(b.eq(a), () => Continue(outer));
        If(a.eq(5), () => Break(outer));
        hits.set(hits.add(1));
      });
      hits.set(hits.add(100));
    });
    out.add(32).store(hits.add(a.mul(1000)));
  });
  const [out] = onAll(k, () => [SharedArray.int32(48)]);
  assert.deepEqual(Array.from(out.slice(0, 16)), lanes(() => 45 - 3 - 7));
  assert.deepEqual(Array.from(out.slice(16, 32)), lanes((l) => (1 + 3 + 5 + 7) * (l + 1)));
  // a = 0: 5 hits and the +100 (b never equals 0); a = 1-4: a - 1 hits, then Continue(outer);
  // a = 5: Break(outer) at once, a left at 5.
  let hits = 5 + 100;
  for (let a = 1; a <= 4; a++) hits += a - 1;
  assert.deepEqual(Array.from(out.slice(32)), lanes(() => hits + 5 * 1000));
});

test('a loop whose Continue skips a receive is left to the run-time FIFO check, as a Break is', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], (src, out) => {
    const i = Int(0);
    const v = Int(0);
    For(i.lt(4), () => i.set(i.add(1)), () => {
      gather(src.add(index()));
      receive(v);
      If(i.eq(2), () => Continue());
      out.add(i.mul(16)).store(v.add(i));
    });
  });
  const [, out] = onAll(k, () => [SharedArray.from(lanes((l) => l * 3), 'int32'), SharedArray.int32(64)]);
  assert.deepEqual(Array.from(out.slice(32, 48)), lanes(() => 0));
  assert.deepEqual(Array.from(out.slice(48)), lanes((l) => l * 3 + 3));
});

test('the gather count check follows a branch that jumps away, and a Break in a For\'s step', () => {
  // The Continue's branch receives its gather and leaves: the If does not leave two counts.
  const cont = kernel([Ptr(Int), Ptr(Int)], (src, out) => {
    const x = Int(0);
    const s = Int(0);
    const i = Int(0);
    For(i.lt(4), () => i.set(i.add(1)), () => {
      gather(src.add(index()));
      If(i.eq(1), () => {
        receive(x);
        Continue();
      });
      receive(x);
      s.set(s.add(x));
    });
    out.store(s);
  });
  const [, out] = onAll(cont, () => [SharedArray.from(lanes((l) => l + 1), 'int32'), SharedArray.int32(16)]);
  assert.deepEqual(Array.from(out), lanes((l) => 3 * (l + 1)));
  // A Break in the step leaves a gather outstanding: the count after the loop is not known, so no error now.
  const step = kernel([Ptr(Int), Ptr(Int)], (src, out) => {
    const x = Int(0);
    const i = Int(0);
    For(i.lt(4), () => {
      If(i.eq(2), () => Break());
      receive(x);
      i.set(i.add(1));
    }, () => gather(src.add(index())));
    receive(x);
    out.store(x.add(i));
  });
  const [, out2] = onAll(step, () => [SharedArray.from(lanes((l) => l * 5), 'int32'), SharedArray.int32(16)]);
  assert.deepEqual(Array.from(out2), lanes((l) => l * 5 + 2));
});

test('mistakes: a jump outside a loop, in a Where, to a loop that has ended, a Continue in its For\'s step', () => {
  assert.throws(() => kernel([Ptr(Int)], () => Continue()), /Continue outside a While or For/);
  assert.throws(() => kernel([Ptr(Int)], (p) => {
    const i = Int(0);
    While(i.lt(3), () => Where(index().lt(2), () => Break()));
    p.store(i);
  }), /Break inside Where/);
  assert.throws(() => kernel([Ptr(Int)], () => {
    const i = Int(0);
    let first: unknown;
    While(i.lt(3), (loop) => {
      first = loop;
      i.set(i.add(1));
    });
    While(i.lt(6), () => Break(first as never));
  }), /Break\(loop\): that While does not hold this statement/);
  assert.throws(() => kernel([Ptr(Int)], () => {
    const i = Int(0);
    For(i.lt(3), () => {
      i.set(i.add(1));
      Continue();
    }, () => {});
  }), /Continue in its For's step/);
  assert.throws(() => kernel([Ptr(Int)], () => {
    const i = Int(0);
    While(i.lt(3), () => Break(3 as never));
  }), /Break\(3\): give it the loop its body received/);
});
