// `qpu compile --explain` and `k.code().explain()` (compiler/explain.ts): registers and where
// the most values are live, what spilled and where to, each loop's pipelining or why not, pairing
// and delay slots, and the warnings: spills to memory on several QPUs, loops that wait for loads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { For, Float, Int, index, kernel, me, numQPUs, Ptr, While, any } from '../../src/index.ts';
import { compile } from '../../src/compiler/driver.ts';
import { runQpu } from '../helpers/cli.ts';

const gcd = kernel([Ptr(Int), Ptr(Int), Ptr(Int)], function gcd(p, q, r) {
  const a = Int(p.load());
  const b = Int(q.load());
  While(any(a.ne(b)), () => {
    a.set(a.sub(b));
  });
  r.store(a);
});

/** A loop of loads over a, with (when `first`) a store before it, and a loop inside another. */
function loops(first: boolean) {
  return kernel([Ptr(Float), Ptr(Float), Int], function loops(a, b, n) {
    if (first) b.store(Float(0));
    const i = Int(me().mul(16));
    For(i.lt(n), () => i.set(i.add(numQPUs().mul(16))), () => {
      const x = Float(a.add(i).load());
      b.add(i).store(x.mul(2));
    });
    const j = Int(0);
    For(j.lt(4), () => j.set(j.add(1)), () => {
      const k = Int(0);
      For(k.lt(n), () => k.set(k.add(16)), () => b.add(k).store(Float(a.add(k).load())));
    });
  });
}

/** 70 values live at once: more than the registers hold. */
const crowded = kernel([Ptr(Int)], function crowded(out) {
  const vs = Array.from({ length: 70 }, (_, i) => Int(index().mul(i + 3).add(me())));
  let sum = Int(0);
  for (let i = vs.length - 1; i >= 0; i--) sum = Int(sum.add(vs[i]!.mul(vs[(i * 7) % 70]!)));
  out.add(me().mul(16)).store(sum);
});

test('a While loop is not pipelined, and the text says why; registers, pairing and delay slots are counted', () => {
  const c = gcd.code();
  const x = c.explanation;
  assert.equal(x.instructions, c.instrs.length);
  assert.deepEqual(x.spills, []);
  assert.equal(x.loops!.length, 1);
  assert.match(x.loops![0]!.why!, /^a While loop/);
  assert.ok(x.pairing!.pairs > 0);
  assert.equal(x.delaySlots.slots, 3 * x.delaySlots.branches);
  const text = c.explain();
  assert.match(text, /^kernel gcd, compiled for 1 QPU: \d+ instructions, \d+ of them nops\n/);
  assert.match(text, /explain\.test\.ts:13:3  while any\(a != b\)\n    not pipelined: a While loop/);
  assert.match(text, /nothing spilled/);
  assert.match(text, /\d+ branches: \d+ of \d+ delay slots do work/);
  assert.doesNotMatch(text, /warnings:/);
});

test('which loops are pipelined, and why the others are not: a store before, a loop inside another', () => {
  const piped = loops(false).code().explanation.loops!;
  assert.deepEqual(piped[0]!.pipelined, { loads: 1, ahead: 4, copied: true });
  assert.match(piped[1]!.why!, /^a statement before it stores/);
  const nested = kernel([Ptr(Float), Int], function nested(a, n) {
    const j = Int(0);
    For(j.lt(n), () => j.set(j.add(16)), () => {
      const k = Int(0);
      For(k.lt(4), () => k.set(k.add(1)), () => a.add(j).store(Float(a.add(j).load()).add(1)));
    });
  }).code().explanation.loops!;
  assert.match(nested[0]!.why!, /^its body holds a loop \(.*explain\.test\.ts:\d+:7\)/);
  assert.match(piped[2]!.why!, /inside another loop or block/);
  const c = loops(true).code();
  assert.match(c.explanation.loops![0]!.why!, /^a statement before it stores/);
  const text = c.explain();
  assert.match(text, /warnings:\n  the loop at .*explain\.test\.ts:24:5 waits for each of its loads: not pipelined, a statement before it stores/);
  const o0 = compile(loops(false).ast, { qpus: 1, opt: 0 });
  assert.equal(o0.explanation.loops, undefined);
  assert.match(o0.explain(), /loops \(load pipelining, -O2\):\n  the pass is off\n/);
  assert.match(o0.explain(), /pairing is off/);
});

test('spills: to VPM rows on one QPU; on twelve, to memory through DMA, with a warning', () => {
  const one = compile(crowded.ast, { qpus: 1 }).explanation;
  assert.ok(one.spills.length > 0);
  assert.ok(one.spills.every((s) => s.to !== 'memory'), 'none to memory');
  assert.ok(one.spills.some((s) => s.to === 'vpm'));
  assert.ok(one.registers.pressure > 64);
  const c = compile(crowded.ast, { qpus: 12 });
  const memory = c.explanation.spills.filter((s) => s.to === 'memory');
  assert.ok(memory.length > 0);
  assert.ok(memory.some((s) => /^Int@\d+:\d+#\d+$/.test(s.name)), memory.map((s) => s.name).join(', '));
  assert.match(c.explain(), new RegExp(`warnings:\\n  ${memory.length} values spilled to memory on 12 QPUs: every reload and store waits for the DMA engines`));
  assert.doesNotMatch(compile(crowded.ast, { qpus: 1 }).explain(), /warnings:/);
});

test('qpu compile --explain prints the explanation; with --dump it is refused', async () => {
  const r = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '--explain', '--qpus', '2');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^kernel gcd, compiled for 2 QPUs: /);
  assert.match(r.out, /not pipelined: a While loop/);
  const bad = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '--explain', '--dump', 'ir');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--explain or --dump: one at a time/);
});
