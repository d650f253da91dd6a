// Passes invert and flags, made while lowering (lower.ts): a loop tests at the bottom; a Where
// whose body only assigns sets the flags once and writes under them. And lowering's control flow
// at every level.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../../src/compiler/driver.ts';
import { any, Break, For, If, Int, kernel, Ptr, SharedArray, Where, While } from '../../../src/index.ts';
import { lines } from './fixture.ts';

const gcdLike = kernel([Ptr(Int), Ptr(Int)], function g(p, r) {
  const a = Int(p.load());
  const b = Int(p.add(16).load());
  While(any(a.ne(b)), () => {
    Where(a.gt(b), () => a.set(a.sub(b)));
    Where(a.lt(b), () => b.set(b.sub(a)));
  });
  r.store(a);
});

test('invert and flags (in lowering): the loop tests at the bottom; a Where sets flags and writes under them', () => {
  const loop = (o: object) => {
    const ir = lines(compile(gcdLike.ast, { qpus: 1, passes: o }).dump('ir'));
    const top = ir.indexOf('loop0:');
    return ir.slice(top + 1, ir.findIndex((l, k) => k > top && l.startsWith('brr')) + 1);
  };
  // Where by flags: compare, then the subtraction under the condition; the test at the bottom.
  assert.deepEqual(loop({}).map((l) => l.replace(/%\d+/g, '%')), [
    'max.setf nop, %, %',
    'sub.cs %, %, %',
    'max.setf nop, %, %',
    'sub.cs %, %, %',
    'sub.setf nop, %, %',
    'brr.anynz -, loop0',
  ]);
  // Without them: a 0/1 mask tested again, and the test at the top branching out.
  const plain = loop({ invert: false, flags: false });
  assert.deepEqual(plain.map((l) => l.replace(/%\d+/g, '%')), ['sub.setf nop, %, %', 'brr.allz -, endloop1']);
  const masks = (o: object) => lines(compile(gcdLike.ast, { qpus: 1, passes: o }).dump('ir')).filter((l) => l.startsWith('or.setf')).length;
  assert.equal(masks({ flags: false }) - masks({}), 2);
});

const breakInStep = kernel([Ptr(Int)], function breakInStep(r) {
  const j = Int(0);
  const s = Int(0);
  While(any(j.lt(3)), () => {
    const i = Int(0);
    For(any(i.lt(5)), () => (i.set(i.add(1)), If(any(i.eq(2)), () => Break())), () => s.set(s.add(1)));
    j.set(j.add(1));
  });
  r.store(s);
  r.add(16).store(j);
});

test('a Break in a For\'s step leaves that For, on both targets and at every level', () => {
  const want = [...Array(16).fill(6), ...Array(16).fill(3)];
  const r = SharedArray.int32(32);
  breakInStep.interpretSync([r]);
  assert.deepEqual(Array.from(r), want);
  for (const opt of [0, 1, 2] as const) {
    const e = SharedArray.int32(32);
    breakInStep.setOptLevel(opt).emulateSync([e]);
    assert.deepEqual(Array.from(e), want, `-O${opt}`);
  }
  breakInStep.setOptLevel(2);
});
