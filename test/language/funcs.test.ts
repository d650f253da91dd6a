// func(...): functions compiled once and called with the chip's branch with link. Each kernel
// runs on the interpreter and the emulator at -O0 and -O2 (onAll) and is checked against plain
// TypeScript; the code holds one copy of each body however often it is called; and the mistakes
// (recursion, memory, a kernel variable assigned, a caller's loop left, bad arguments) are
// refused with the func's name and the user's line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  all, barrier, Break, Float, For, func, If, index, Int, kernel, me, parallelFor, Ptr, SharedArray, sumQPUs, Where, While, type IntExpr, type IntVar,
} from '../../src/index.ts';
import { onAll } from '../helpers/lang.ts';

/** The line of this file that holds `text` (messages point at the user's own lines). */
const lineOf = (text: string) => readFileSync(new URL(import.meta.url), 'utf8').split('\n').indexOf(text) + 1;
const lanes = (f: (l: number) => number) => Array.from({ length: 16 }, (_, l) => f(l));
const input = (f: (l: number) => number) => () => [SharedArray.from(lanes(f), 'int32'), SharedArray.int32(16)] as [Int32Array, Int32Array];

const cmpx = func([Int, Int], (a, b) => [a.min(b), a.max(b)]);
const square = func([Int], function square(x) {
  return x.mul(x);
});

test('a func with one result and one with two, called from the kernel: the values of plain TypeScript on every target', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], function calls(p, q) {
    const x = Int(p.load());
    const y = Int(index().mul(3).sub(20));
    const [lo, hi] = cmpx(x, y);
    q.store(square(lo).add(hi));
  });
  const f = (l: number) => l * 5 - 31;
  const [, q] = onAll(k, input(f));
  assert.deepEqual(Array.from(q), lanes((l) => Math.min(f(l), 3 * l - 20) ** 2 + Math.max(f(l), 3 * l - 20)));
});

test('a call inside Where sets its results only in the lanes the Where keeps, and the func\'s own If, While and Where test all 16 lanes', () => {
  // Counts the halvings of a down to 1: a loop whose trip count differs lane by lane.
  const halvings = func([Int], function halvings(a) {
    const n = Int(0);
    const v = Int(a);
    While(v.gt(1), () => {
      Where(v.gt(1), () => {
        v.set(v.shr(1));
        n.set(n.add(1));
      });
    });
    If(n.gt(100), () => n.set(-1));
    return n;
  });
  const k = kernel([Ptr(Int), Ptr(Int)], function masked(p, q) {
    const x = Int(p.load());
    const r = Int(-5);
    Where(x.gt(40), () => r.set(halvings(x)));
    q.store(r);
  });
  const f = (l: number) => l * 97;
  const [, q] = onAll(k, input(f));
  assert.deepEqual(Array.from(q), lanes((l) => (f(l) > 40 ? Math.floor(Math.log2(f(l))) : -5)));
});

test('funcs called in loops, from other funcs, and in any order of first use, with Floats and pointers, read the kernel\'s variables', () => {
  const scale = func([Float, Float], (a, s) => a.mul(s).add(1));
  const twice = func([Float, Float], (a, s) => scale(scale(a, s), s));
  const step = func([Ptr(Int), Int], (p, n) => p.add(n));
  const k = kernel([Ptr(Float), Ptr(Float), Ptr(Int), Ptr(Int)], function loops(inp, out, ip, iq) {
    const s = Float(0.5);
    const x = Float(scale(inp.load(), s)); // scale first, then twice, which calls it
    const i = Int(0);
    For(i.lt(4), () => i.set(i.add(1)), () => {
      x.set(twice(x, s));
    });
    out.store(x);
    const a = Ptr(Int)(step(ip, 16));
    const shifted = func([Int], (v) => v.add(i)); // reads the kernel's i (4 by now)
    iq.store(shifted(a.load()));
  });
  const f = (l: number) => l - 7.25;
  const ints = lanes((l) => l * 11);
  const args = () => [SharedArray.from(lanes(f), 'float32'), SharedArray.float32(16), SharedArray.from([...ints, ...ints.map((v) => v + 1)], 'int32'), SharedArray.int32(16)] as [Float32Array, Float32Array, Int32Array, Int32Array];
  const [, out, , iq] = onAll(k, args);
  const sc = (a: number) => Math.fround(Math.fround(a * 0.5) + 1);
  assert.deepEqual(Array.from(out), lanes((l) => { let x = sc(f(l)); for (let j = 0; j < 8; j++) x = sc(x); return x; }));
  assert.deepEqual(Array.from(iq), lanes((l) => l * 11 + 1 + 4));
});

test('a func with a loop of its own and a Break inside it; the same func called on every QPU of a run', () => {
  const firstAbove = func([Int, Int], function firstAbove(x, limit) {
    const j = Int(0);
    For(j.lt(32), () => j.set(j.add(1)), () => {
      If(all(x.mul(j).gt(limit)), () => Break());
    });
    return j;
  });
  const k = kernel([Ptr(Int), Ptr(Int)], function perQpu(p, q) {
    const x = Int(p.add(me().shl(4)).load());
    const total = Int(sumQPUs(firstAbove(x, 100)));
    q.add(me().shl(4)).store(total);
    barrier();
  }).setNumQPUs(3);
  const f = (i: number) => 5 + (i % 16) + 3 * (i >> 4);
  const args = () => [SharedArray.from(Array.from({ length: 48 }, (_, i) => f(i)), 'int32'), SharedArray.int32(48)] as [Int32Array, Int32Array];
  const [, q] = onAll(k, args);
  const jOf = (x: readonly number[]) => { for (let j = 0; j < 32; j++) if (x.every((v) => v * j > 100)) return j; return 32; };
  const per = [0, 1, 2].map((qpu) => jOf(lanes((l) => f(qpu * 16 + l))));
  assert.deepEqual(Array.from(q), Array.from({ length: 48 }, () => per.reduce((a, b) => a + b)));
});

test('values live across a call keep their registers, with enough of them that some spill', () => {
  const mix = func([Int, Int], (a, b) => a.mul(31).xor(b.shr(3)).add(a));
  const k = kernel([Ptr(Int), Ptr(Int)], function pressure(p, q) {
    const x = Int(p.load());
    const vs: IntExpr[] = [];
    for (let j = 0; j < 70; j++) vs.push(Int(x.add(j * 977).xor(j)));
    const m = Int(mix(x, vs[3]!));
    let acc: IntExpr = m;
    for (const v of vs) acc = acc.add(mix(v, m));
    q.store(acc);
  });
  const f = (l: number) => l * 1234567;
  const [, q] = onAll(k, input(f));
  const mixTs = (a: number, b: number) => ((Math.imul(a, 31) ^ (b >> 3)) + a) | 0;
  assert.deepEqual(Array.from(q), lanes((l) => {
    const x = f(l);
    const vs = Array.from({ length: 70 }, (_, j) => ((x + j * 977) ^ j) | 0);
    const m = mixTs(x, vs[3]!);
    return vs.reduce((acc, v) => (acc + mixTs(v, m)) | 0, m);
  }));
  assert.ok(k.code().stats.spilled > 0, 'some values spill');
});

test('a func called many times is compiled once: the code grows by a call, not by a copy of the body', () => {
  const body = (a: IntExpr, b: IntExpr) => a.mul(b).add(a.shr(2)).xor(b.mul(7)).min(a.add(b).mul(3));
  const f = func([Int, Int], body);
  const make = (calls: number, real: boolean) =>
    kernel([Ptr(Int)], (p) => {
      const x = Int(p.load());
      for (let j = 0; j < calls; j++) x.set(real ? f(x, j + 1) : body(x, Int(j + 1)));
      p.store(x);
    });
  const size = (calls: number, real: boolean) => make(calls, real).code().instrs.length;
  const perCall = (size(9, true) - size(1, true)) / 8;
  const perInline = (size(9, false) - size(1, false)) / 8;
  assert.ok(perCall <= 8, `a call costs ${perCall} instructions`);
  assert.ok(perInline > perCall + 8, `inlined, each use costs ${perInline}`);
  const k = make(5, true);
  const [p] = onAll(k, () => [SharedArray.from(lanes((l) => l * 3 - 20), 'int32')]);
  const ts = (a: number, b: number) => Math.min((Math.imul(a, b) + (a >> 2)) ^ Math.imul(b, 7), Math.imul(a + b, 3)) | 0;
  assert.deepEqual(Array.from(p), lanes((l) => { let x = l * 3 - 20; for (let j = 0; j < 5; j++) x = ts(x, j + 1); return x; }));
  assert.match(k.code().asm, /brr ra\d*[02468], func_/, 'the call links in an even regfile-A register');
});

test('a func\'s variables belong to its body: the kernel, or another func, that kept one and reads or sets it is refused at the statement', () => {
  let kept: IntExpr | undefined;
  const keep = func([Int, Int], function keep(a, b) {
    kept = b;
    return a.sub(b.mul(3));
  });
  const refused = (build: () => void, re: RegExp) => assert.throws(build, (e: Error) => e.name === 'DslError' && re.test(e.message), re.source);
  refused(() => kernel([Ptr(Int)], function reads(p) {
    const first = Int(keep(p.load(), index()));
    p.store(first.add(kept!));
  }), /\(.*funcs\.test\.ts:\d+:\d+\): the kernel reads b, a variable of func keep \(kept from its body\): a func's variables belong to its body; return the value from the func instead/);
  refused(() => kernel([Ptr(Int)], function sets(p) {
    const first = Int(keep(p.load(), index()));
    (kept as IntVar).set(first);
    p.store(first);
  }), /the kernel sets b, a variable of func keep/);
  const peek = func([Int], function peek(x) {
    return x.add(kept!);
  });
  refused(() => kernel([Ptr(Int)], function other(p) {
    p.store(peek(keep(p.load(), 1)));
  }), /func peek returns b, a variable of func keep/);
});

test('a func\'s result that repeats a value of its body, read by a func laid out before it (pass cse renames every read)', () => {
  const k = kernel([Ptr(Int)], function resultTwice(p) {
    const base = Int(p.load());
    const inner = func([Int], function inner(a) {
      const t = Int(base);
      return [base, t.add(a)];
    });
    const outer = func([Int], function outer(a) {
      const [x, y] = inner(a);
      return x.add(y);
    });
    p.store(outer(index()));
  });
  const [p] = onAll(k, () => [SharedArray.from(lanes((l) => 100 * l), 'int32')]);
  assert.deepEqual(Array.from(p), lanes((l) => 200 * l + l));
});

test('k.dump() shows the call and the func\'s body', () => {
  const k = kernel([Ptr(Int)], function shown(p) {
    const x = Int(p.load());
    const [lo, hi] = cmpx(x, 3);
    p.store(lo.add(hi));
  });
  const text = k.dump();
  assert.match(text, /lo, hi = cmpx\(x, 3\)/);
  assert.match(text, /func cmpx\(a: int, b: int\)\n  return min\(a, b\), max\(a, b\)/);
});

test('the mistakes: recursion, memory, a kernel variable assigned, a caller\'s loop, waiting for QPUs, bad arguments and results', () => {
  const refuses = (build: () => void, re: RegExp) => assert.throws(build, (e: Error) => e.name === 'DslError' && re.test(e.message) && /funcs\.test\.ts:\d+/.test(e.message), re.source);
  let again: (x: IntExpr) => IntExpr = (x) => x;
  const rec = func([Int], function rec(x) {
    return again(x);
  });
  again = (x) => rec(x);
  refuses(() => kernel([Ptr(Int)], (p) => p.store(rec(p.load()))), /func rec calls itself/);
  const reads = func([Ptr(Int)], function reads(p) {
    return p.load();
  });
  refuses(() => kernel([Ptr(Int)], (p) => p.store(reads(p))), /a load \(\*p\) inside func reads/);
  const writes = func([Ptr(Int)], function writes(p) {
    p.store(1);
    return Int(1);
  });
  refuses(() => kernel([Ptr(Int)], (p) => p.store(writes(p))), /a store \(\*p = x\) inside func writes/);
  refuses(() => kernel([Ptr(Int)], (p) => {
    const n = Int(0);
    const bump = func([Int], function bump(x) {
      n.set(x);
      return x;
    });
    p.store(bump(3));
  }), new RegExp(`funcs\\.test\\.ts:${lineOf('      n.set(x);')}:\\d+\\): func bump assigns n, a variable of the kernel`));
  refuses(() => kernel([Ptr(Int)], (p) => {
    const i = Int(0);
    While(i.lt(3), (loop) => {
      const leave = func([Int], function leave(x) {
        Break(loop);
        return x;
      });
      i.set(leave(i.add(1)));
    });
    p.store(i);
  }), /Break outside a While or For \(a Break or Continue in func leave reaches only loops inside it\)/);
  const waits = func([Int], function waits(x) {
    barrier();
    return x;
  });
  refuses(() => kernel([Ptr(Int)], (p) => p.store(waits(1))), /barrier\(\) inside func waits/);
  refuses(() => kernel([Ptr(Int)], (p) => p.store((cmpx as unknown as (x: number) => IntExpr[])(1)[0]!)), /cmpx takes 2 arguments, not 1/);
  refuses(() => kernel([Ptr(Int)], (p) => p.store(square(Float(1) as never))), /square\(\.\.\.\) argument 1: expected an Int, got a Float/);
  const nothing = func([Int], function nothing() {
    return undefined as never;
  });
  refuses(() => kernel([Ptr(Int)], (p) => p.store(nothing(1))), /func nothing returns nothing/);
  refuses(() => kernel([Ptr(Int)], (p) => {
    const i = Int(0);
    const inc = func([Int], function inc(x) {
      return x.add(1);
    });
    While(inc(i).lt(5), () => i.set(i.add(1)));
    p.store(i);
  }), /While's condition reads inc\.result, from the call of func inc just before the loop, and nothing the loop assigns: a call in a condition runs once/);
  const clamp = func([Int], function clamp(x) {
    return x.min(10);
  });
  const bounded = kernel([Ptr(Int)], function bounded(p) {
    const i = Int(0);
    const s = Int(0);
    While(i.lt(clamp(p.load())), () => (s.set(s.add(i)), i.set(i.add(1)))); // a bound from a func: i changes
    p.store(s);
  });
  const [out] = onAll(bounded, () => [SharedArray.from(lanes((l) => l), 'int32')]);
  assert.deepEqual(Array.from(out), lanes(() => 45));
  refuses(() => kernel([Int, Ptr(Int)], (n, p) => {
    const s = Int(1000);
    const peek = func([Int], function peek(x) {
      return s.add(x.mul(0));
    });
    parallelFor(n, (i) => {
      p.add(i).store(peek(i));
      s.set(s.add(1));
    });
  }), /parallelFor's body reads s \(in func peek\), which it accumulates/);
  function selfish(x: IntExpr): IntExpr {
    return selfish(x.add(1)); // the TypeScript function, not the func: the host's stack runs out
  }
  const fs = func([Int], selfish);
  refuses(() => kernel([Ptr(Int)], (p) => p.store(fs(1))), /func selfish ran out of the host's stack while its body was built: does the body call its own TypeScript function \(selfish\)/);
  let g: (x: IntExpr) => IntExpr = (x) => x;
  const f1 = func([Int], function f1(x) {
    return g(x);
  });
  g = func([Int], function g1(x) {
    return f1(x);
  });
  refuses(() => kernel([Ptr(Int)], (p) => p.store(f1(1))), /func f1 calls itself \(f1 calls g1 calls f1\)/);
  let chain: (x: IntExpr) => IntExpr = (x) => x.add(1);
  for (let d = 0; d < 18; d++) {
    const inner = chain;
    chain = func([Int], (x) => inner(x).mul(3), { name: `level${d}` });
  }
  const deep = kernel([Ptr(Int)], (p) => p.store(chain(p.load())));
  assert.throws(() => deep.code(), /funcs called inside funcs too deeply: each call under way keeps its return address in an even register of regfile A/);
  assert.throws(() => func([Int, 'Int' as never], (a) => a), /func .*: parameter 2's type must be Int, Float or a Ptr/);
  assert.throws(() => square(1), /can only be used inside a kernel's function/);
});
