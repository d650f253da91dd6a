// Pass ranges (in lowering, compiler/ranges.ts): Int values' intervals, and a multiply whose
// operands are known to fit in 24 bits lowered to one mul24.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../../src/compiler/driver.ts';
import { For, index, Int, kernel, me, numQPUs, Ptr, type IntExpr, type PtrExpr } from '../../../src/index.ts';
import { type Range, variableRanges } from '../../../src/compiler/ranges.ts';

/** How many mul24 the kernel's final code has, with pass ranges on and off. */
function muls(build: (x: IntExpr, out: PtrExpr<'int'>) => void): { on: number; off: number } {
  const k = kernel([Int, Ptr(Int)], (x, out) => build(x, out));
  const count = (ranges: boolean) => (compile(k.ast, { qpus: 1, passes: { ranges } }).asm.match(/mul24/g) ?? []).length;
  return { on: count(true), off: count(false) };
}

test('a multiply is one mul24 where both operands fit in 24 bits, two where one does, three otherwise; a power of two is a shift', () => {
  assert.deepEqual(muls((_x, out) => out.store(me().mul(index()))), { on: 1, off: 3 });
  assert.deepEqual(muls((x, out) => out.store(x.mul(index()))), { on: 2, off: 3 });
  assert.deepEqual(muls((x, out) => out.store(x.mul(x))), { on: 3, off: 3 });
  assert.deepEqual(muls((x, out) => out.store(x.mul(64))), { on: 0, off: 3 });
  assert.deepEqual(muls((x, out) => out.store(x.and(0xffff).mul(x.ushr(20)))), { on: 1, off: 3 });
});

test('variables\' intervals: every value assigned joined with 0; parameters unknown; a growing counter widens to unknown', () => {
  const k = kernel([Int], (n) => {
    const a = Int(me().add(3)); // 0 .. 14
    const b = Int(index().mul(numQPUs())); // 0 .. 180
    const c = Int(0);
    For(c.lt(10), () => c.set(c.add(1)), () => a.set(a.max(b.min(20)))); // a grows to 20
    const d = Int(n.and(255)); // 0 .. 255
    const e = Int(n.add(1)); // unknown
    void d;
    void e;
  });
  const r: (Range | undefined)[] = variableRanges(k.ast);
  assert.deepEqual(r, [undefined, { lo: 0, hi: 20 }, { lo: 0, hi: 180 }, undefined, { lo: 0, hi: 255 }, undefined]);
});
