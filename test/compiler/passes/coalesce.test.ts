// Pass coalesce (regalloc.ts copyTarget, emit.ts): a value copied to or from another it does not
// interfere with takes that value's register, and the copy, a move onto itself, goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../../src/compiler/driver.ts';
import { For, index, Int, kernel, Ptr, SharedArray } from '../../../src/index.ts';

test('coalesce: a copy whose two values do not interfere shares one register and goes', () => {
  const k = kernel([Int, Ptr(Int)], function copies(n, p) {
    const a = Int(index());
    const b = Int(0);
    const i = Int(0);
    For(i.lt(n), () => i.set(i.add(1)), () => {
      b.set(a); // a's old value dies here, and b dies in a's new one
      a.set(b.mul24(b).add(i));
    });
    p.store(a);
  });
  const loop = (coalesce: boolean) => {
    const c = compile(k.ast, { qpus: 1, opt: 1, passes: { coalesce, acc: false } });
    return c.asm.split('loop0:')[1]!.split('endloop')[0]!;
  };
  assert.match(loop(false), /mov r[ab]\d+, r[ab]\d+/);
  assert.doesNotMatch(loop(true), /mov r[ab]\d+, r[ab]\d+/);
  const want = SharedArray.int32(16);
  const got = SharedArray.int32(16);
  k.interpretSync([5, want]);
  k.setOptLevel(1).emulateSync([5, got]);
  k.setOptLevel(2);
  assert.deepEqual(Array.from(got), Array.from(want));
});

test('coalesce: values that interfere keep their copy', () => {
  // b is read after a changes: the two live at once, and the copy stays.
  const k = kernel([Int, Ptr(Int)], function both(n, p) {
    const a = Int(index());
    const b = Int(0);
    const i = Int(0);
    For(i.lt(n), () => i.set(i.add(1)), () => {
      b.set(a);
      a.set(a.add(i));
      p.store(b.add(a));
    });
  });
  const c = compile(k.ast, { qpus: 1, opt: 1, passes: { acc: false } });
  assert.match(c.asm.split('loop0:')[1]!.split('endloop')[0]!, /mov r[ab]\d+, r[ab]\d+/);
});
