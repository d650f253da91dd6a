// Profiles (`{ profile: true }`, runtime/profile.ts): the figures of known kernels add up to the
// run's totals, per statement, per instruction and per QPU; the verdict names what bounds each
// (instruction issue, the DMA store engine, spills, semaphores, the TMU); the interpreter and
// the emulator give the same profile; the timeline and the annotated assembly; the mistakes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { barrier, Float, For, Int, index, kernel, me, numQPUs, Ptr, select, SharedArray, store, Where, While, any } from '../../src/index.ts';
import { STALL_CAUSES } from '../../src/emulator/report.ts';
import { CYCLE_KINDS } from '../../src/emulator/profile.ts';
import type { KernelProfile } from '../../src/runtime/profile.ts';
import type { RunReport } from '../../src/runtime/report.ts';
import { annotatedAssembly, profileText } from '../../src/runtime/profile-text.ts';
import { timelineSvg } from '../../src/runtime/timeline-svg.ts';

const gcd = kernel([Ptr(Int), Ptr(Int), Ptr(Int)], function gcd(p, q, r) {
  const a = Int(p.load());
  const b = Int(q.load());
  While(any(a.ne(b)), () => {
    Where(a.gt(b), () => a.set(a.sub(b)));
    Where(a.lt(b), () => b.set(b.sub(a)));
  });
  r.store(a);
});

/** The profile's figures add up: statements to the total, instructions to the statements, the total to the run's figures. */
function assertAddsUp(report: RunReport): KernelProfile {
  const p = report.profile!;
  const run = report.run;
  assert.equal(p.total.instructions, run.total.instructions);
  assert.equal(p.total.cycles, run.qpus.reduce((s, q) => s + q.cycles, 0));
  for (const c of STALL_CAUSES) assert.equal(p.total.stalls[c], run.total.stalls[c], c);
  assert.equal(p.statements.reduce((s, x) => s + x.instructions, 0), p.total.instructions);
  assert.equal(p.statements.reduce((s, x) => s + x.cycles, 0), p.total.cycles);
  assert.equal(p.statements.reduce((s, x) => s + x.code, 0), p.instructions.length);
  assert.equal(p.total.slots.both + p.total.slots.add + p.total.slots.mul + p.total.slots.neither, p.total.instructions);
  p.perQpu.forEach((q, i) => {
    assert.equal(q.cycles, run.qpus[i]!.cycles);
    const binned = q.timeline.bins.reduce((s, x) => s + x, 0);
    assert.equal(binned, q.cycles, `QPU ${i}'s timeline holds its cycles`);
  });
  const shares = Object.values(p.verdict.shares).reduce((s, x) => s + x, 0);
  assert.ok(Math.abs(shares - 1) < 1e-9, `the verdict's shares add up to ${shares}`);
  return p;
}

test('gcd: each statement\'s runs are the loop\'s passes, and the run is bound by instruction issue', async () => {
  const a = SharedArray.int32(16, 'a');
  const b = SharedArray.int32(16, 'b');
  const r = SharedArray.int32(16, 'r');
  let passes = 0;
  const x = Int32Array.from({ length: 16 }, (_, i) => 100 + ((i * 37) % 91));
  const y = Int32Array.from({ length: 16 }, (_, i) => 100 + ((i * 53) % 97));
  a.set(x);
  b.set(y);
  for (const u = [...x], v = [...y]; u.some((e, i) => e !== v[i]); passes++)
    for (let i = 0; i < 16; i++) {
      if (u[i]! > v[i]!) u[i]! -= v[i]!;
      if (u[i]! < v[i]!) v[i]! -= u[i]!;
    }
  const report = await gcd(a, b, r, { profile: true });
  const p = assertAddsUp(report);
  const sub = p.statements.find((s) => s.text === 'a = a - b')!;
  assert.match(sub.loc!, /profile\.test\.ts:19:\d+$/);
  assert.equal(sub.instructions, passes);
  // 4 cycles a pass, and the first pass's wait for its line of code (the instruction cache is cold at the start of a run).
  assert.equal(sub.cycles - sub.stalls.icache, 4 * passes);
  assert.equal(p.verdict.bound, 'issue');
  assert.match(p.verdict.text, /^bound by instruction issue: .* in \d+% of their cycles/);
  // The loads, gathered ahead at -O2 (prefetch-loads.ts), wait for the TMU (the second's data
  // arrives while the first line of code is fetched); the store waits for DMA; nothing else waits.
  const load = p.statements.find((s) => s.text === 'a = *p')!;
  assert.ok(load.stalls.tmu > 0);
  assert.deepEqual(p.statements.filter((s) => s.stalls.dma > 0).map((s) => s.text), ['*r = a']);
  assert.deepEqual(p.statements.filter((s) => s.stalls.tmu > 0).map((s) => s.text), ['a = *p']);
});

test('the interpreter\'s profile is the compiled code\'s, the same as the emulator\'s', async () => {
  const a = SharedArray.int32(16, 'a').fill(12);
  const b = SharedArray.int32(16, 'b').fill(18);
  const r = SharedArray.int32(16, 'r');
  const emu = (await gcd(a, b, r, { profile: true, target: 'emulator' })).profile!;
  const interp = await gcd(a, b, r, { profile: true, target: 'interpreter' });
  assertAddsUp(interp);
  assert.deepEqual(
    interp.profile!.statements.map(({ interpreted: _, ...s }) => s),
    emu.statements,
  );
  assert.equal(interp.profile!.verdict.text, emu.verdict.text);
  // Beside them, the times each statement ran on the interpreter: 12 and 18 meet after 2 passes.
  const ran = (text: string) => interp.profile!.statements.find((s) => s.text === text)!.interpreted;
  assert.equal(ran('a = a - b'), 2);
  assert.equal(ran('while any(a != b)'), 3);
  assert.equal(emu.statements[0]!.interpreted, undefined);
  assert.match(profileText(interp.profile!), /^ran: the times the statement ran on the interpreter/m);
});

/**
 * A 3-point average over rows, split over the QPUs, written twice (to dst and to the copy after
 * it): each row's two stores go through the one DMA store engine, which they keep busier than its
 * one load keeps the load engine.
 */
const smooth = kernel([Ptr(Float), Ptr(Float), Int, Int], function smooth(src, dst, width, rows) {
  const y = Int(me());
  For(y.lt(rows), () => y.set(y.add(numQPUs())), () => {
    const x = Int(0);
    For(x.lt(width), () => x.set(x.add(16)), () => {
      const at = y.mul(width).add(x);
      const v = Float((src.add(at).add(index())).load());
      // Enough work that one QPU issues longer than the engine stores, and twelve do not.
      for (let i = 0; i < 12; i++) v.set(v.mul(v).mul(0.5).add(0.25));
      store(v, dst.add(at));
      store(v, dst.add(at).add(width.mul(rows)));
    });
  });
});

test('a kernel whose stores outrun the DMA store engine on 12 QPUs: the verdict names the engine and the scaling its floor', async () => {
  const width = 64;
  const rows = 48;
  const src = SharedArray.float32(width * rows + 16, 'src').fill(1.5);
  const dst = SharedArray.float32(2 * width * rows, 'dst');
  const one = assertAddsUp(await smooth(src, dst, width, rows, { profile: true, qpus: 1 }));
  const twelve = assertAddsUp(await smooth(src, dst, width, rows, { profile: true, qpus: 12 }));
  assert.equal(twelve.verdict.bound, 'dma');
  assert.match(twelve.verdict.text, /^bound by the DMA store engine, which all QPUs share: it was busy \d+% of the run/);
  assert.ok(twelve.dmaBusy.store >= 0.9 * twelve.cycles);
  const floor = twelve.verdict.scaling.find((s) => s.qpus === 12)!;
  assert.equal(floor.by, 'dma store');
  assert.equal(one.verdict.bound, 'issue', one.verdict.text);
  // The DMA waits are in the statements that move memory: the second store waits for the first to leave, the load for the last store.
  const waiting = twelve.statements.filter((s) => s.stalls.dma > 0.1 * twelve.total.stalls.dma);
  assert.deepEqual(waiting.map((s) => s.text).sort(), ['store(v, (dst + ((y * width) + x)) + (width * rows))', 'v = *((src + ((y * width) + x)) + index())']);
});

/** 70 values live at once: more than the registers hold, so the compiler spills some. */
const crowded = kernel([Ptr(Int)], function crowded(out) {
  const vs = Array.from({ length: 70 }, (_, i) => Int(index().mul(i + 3).add(me())));
  let sum = Int(0);
  for (let i = vs.length - 1; i >= 0; i--) sum = Int(sum.add(vs[i]!.mul(vs[(i * 7) % 70]!)));
  out.add(me().mul(16)).store(sum);
});

test('spill code is counted apart; on several QPUs it waits for the shared DMA engines', async () => {
  const out = SharedArray.int32(16 * 12, 'out');
  const p = assertAddsUp(await crowded(out, { profile: true, qpus: 12 }));
  assert.ok(p.total.spillInstructions > 0, 'the kernel spills');
  assert.ok(p.total.spillCycles > 0);
  assert.ok(p.instructions.some((i) => i.spill));
  assert.ok(p.verdict.shares.spills > 0);
  assert.match(annotatedAssembly(p), /; spill\n/);
});

/** QPU 0 works long while the others wait for it at a barrier. */
const uneven = kernel([Ptr(Int)], function uneven(out) {
  const x = Int(index());
  const n = Int(0);
  While(any(n.lt(select(me().eq(0), 400, 0))), () => {
    x.set(x.mul(3).add(1));
    n.set(n.add(1));
  });
  barrier();
  out.add(me().mul(16)).store(x);
});

test('QPUs that wait at a barrier for a slower one: the verdict is the semaphores, and the timeline shows it', async () => {
  const out = SharedArray.int32(16 * 4, 'out');
  const p = assertAddsUp(await uneven(out, { profile: true, qpus: 4 }));
  assert.equal(p.verdict.bound, 'semaphore');
  assert.ok(p.perQpu[1]!.stalls.semaphore > p.perQpu[1]!.busy);
  const svg = timelineSvg(p);
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal((svg.match(/<text[^>]*>QPU \d+<\/text>/g) ?? []).length, 4);
  assert.ok(svg.includes('fill="#c0392b"'), 'semaphore waits are drawn');
  assert.ok(svg.trimEnd().endsWith('</svg>'));
});

test('the text: the verdict, the costliest statements first with their locations, each QPU; the assembly annotated', async () => {
  const a = SharedArray.int32(16, 'a').fill(40);
  const b = SharedArray.int32(16, 'b').fill(12);
  const r = SharedArray.int32(16, 'r');
  const p = (await gcd(a, b, r, { profile: true })).profile!;
  const text = profileText(p);
  const lines = text.split('\n');
  assert.match(lines[0]!, /^profile of kernel gcd on 1 QPU: [\d,]+ instructions, [\d,]+ cycles \([\d.]+ us on a Pi\)$/);
  assert.equal(lines[1], p.verdict.text);
  assert.match(text, /profile\.test\.ts:\d+:\d+  while any\(a != b\)/);
  assert.match(text, /\n\s+[\d,]+\s+100\.0%.*total\n/);
  const asm = annotatedAssembly(p).split('\n');
  const rows = asm.filter((l) => /^\s*[\d,]+\s+[\d,]+\s+[\d.]+%\s+\d+\s/.test(l));
  assert.equal(rows.length, p.instructions.length);
  assert.ok(asm.some((l) => /^\s+loop\d+:$/.test(l)), 'labels are shown');
  assert.ok(asm.some((l) => /^\s+; .*a = a - b$/.test(l)), 'statements head their instructions');
});

test('profile options: wrong values are refused with the kernel\'s name', async () => {
  const a = SharedArray.int32(16, 'a');
  await assert.rejects(() => gcd(a, a, a, { profile: 'yes' as unknown as boolean }), /kernel gcd: profile must be true or false, not the string "yes"/);
  await assert.rejects(() => gcd(a, a, a, { profile: true, target: 'interpreter', estimate: false }), /kernel gcd: on the interpreter, a profile is of the cycle model's run, which \{ estimate: false \} turns off/);
  // Without the option, no profile and no slower run.
  assert.equal((await gcd(a, a, a)).profile, undefined);
  assert.equal(CYCLE_KINDS.length, 1 + STALL_CAUSES.length);
});
