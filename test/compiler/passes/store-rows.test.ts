// Runs of stores (compiler/lower-store-rows.ts, pass `rows`): consecutive blocking stores to rows
// one after another in memory become one DMA transfer of several rows, at most as many as the
// QPU's store row and spill rows (vpm-rows.ts) and 8; what breaks a run, the results against the
// interpreter at every level on 1, 2 and 12 QPUs, and a spilling kernel that keeps its spill rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { any, Int, type IntVar, kernel, me, Ptr, SharedArray, store, Uint8, While, index } from '../../../src/index.ts';
import { validate } from '../../../src/vc4/validate.ts';
import { compile } from '../../../src/compiler/driver.ts';

/** How many DMA stores the code starts (writes of vw_addr). */
const transfers = (k: { code(): { asm: string } }) => k.code().asm.split('\n').filter((l) => /\bvw_addr\b/.test(l)).length;

/** n stores of n different vectors to out + 16 j, each QPU its own n rows. */
const rows = (n: number) =>
  kernel([Ptr(Int)], function rows(out) {
    const mine = out.add(me().mul(16 * n));
    for (let j = 0; j < n; j++) mine.add(16 * j).store(index().mul(j + 3).add(me()));
  });

function agree(k: ReturnType<typeof rows>, qpus: number, words: number, opt: 0 | 1 | 2 = 2): void {
  const [want, got] = [SharedArray.int32(words), SharedArray.int32(words)];
  k.setNumQPUs(qpus).setOptLevel(opt).interpretSync([want]);
  k.emulateSync([got]);
  assert.deepEqual(Array.from(got), Array.from(want), `${k.kernelName} on ${qpus} QPUs at -O${opt}`);
  assert.deepEqual(validate(k.code().instrs), [], 'the validator finds nothing');
}

test('rows: 8 stores to consecutive rows are one transfer on 1 and 2 QPUs, two of 4 rows on 12 (its store row and 3 spill rows), 8 at -O0', () => {
  const k = rows(8);
  const seen: Record<string, number> = {};
  for (const qpus of [1, 2, 12])
    for (const opt of [0, 1, 2] as const) {
      agree(k, qpus, 128 * qpus, opt);
      seen[`${qpus}/-O${opt}`] = transfers(k);
    }
  assert.deepEqual(seen, { '1/-O0': 8, '1/-O1': 1, '1/-O2': 1, '2/-O0': 8, '2/-O1': 1, '2/-O2': 1, '12/-O0': 8, '12/-O1': 2, '12/-O2': 2 });
});

test('rows: 12 stores on one QPU are runs of 8 and 4; --passes no-rows leaves one transfer a store', () => {
  const k = rows(12);
  agree(k, 1, 192);
  assert.equal(transfers(k), 2);
  assert.equal(transfers({ code: () => compile(k.ast, { qpus: 1, passes: { rows: false } }) }), 12);
});

test('rows: a different pointer, a gap, a load in a value, a count, a non-blocking store or bytes end a run', () => {
  const k = kernel([Ptr(Int), Ptr(Int), Ptr(Uint8)], function breaks(out, other, bytes) {
    out.store(index());
    out.add(16).store(index().add(1)); // a run of 2
    other.add(32).store(index()); // another pointer
    out.add(48).store(index()); // not right after out + 16
    out.add(64).store(Int(out.load()).add(1)); // reads memory
    out.add(80).store(index(), 5); // a count
    out.add(96).store(index());
    store(index(), out.add(112)); // non-blocking
    bytes.store(index()); // bytes
  });
  const args = () => [SharedArray.int32(128), SharedArray.int32(64), SharedArray.uint8(16)] as [Int32Array, Int32Array, Uint8Array];
  const [want, got] = [args(), args()];
  k.interpretSync(want);
  k.emulateSync(got);
  assert.deepEqual(got.map((a) => Array.from(a)), want.map((a) => Array.from(a)));
  assert.equal(transfers(k), 8, 'one run of two, then each store its own');
});

test('rows: a kernel that spills keeps spill rows for its registers: its runs are compiled again shorter rather than spill to memory', () => {
  // 55 values live through a loop on 12 QPUs: two spill. A run of 4 rows would take all 3 spill
  // rows and send them to memory; compiled again, the run takes 2 rows and they stay in the VPM.
  const k = kernel([Ptr(Int)], function spilling(out) {
    const vs: IntVar[] = [];
    for (let i = 0; i < 55; i++) vs.push(Int(index().mul(i + 1).add(me())));
    const i = Int(0);
    While(any(i.lt(2)), () => {
      for (let j = 0; j < vs.length; j++) vs[j]!.set(vs[j]!.add(vs[(j + 1) % vs.length]!));
      i.set(i.add(1));
    });
    const mine = out.add(me().mul(64));
    for (let j = 0; j < 4; j++) mine.add(16 * j).store(vs[j]!.add(vs[j + 4]!));
  });
  const c = k.setNumQPUs(12).setOptLevel(2).code();
  assert.deepEqual([c.stats.spilled, c.stats.spilledToMemory], [2, 0]);
  assert.equal(transfers(k), 2, 'two runs of 2 rows');
  assert.equal(compile(k.ast, { qpus: 12, runRows: 4 }).stats.spilledToMemory, 0);
  const [want, got] = [SharedArray.int32(64 * 12), SharedArray.int32(64 * 12)];
  k.interpretSync([want]);
  k.emulateSync([got]);
  assert.deepEqual(Array.from(got), Array.from(want));
});

test('rows: stores spaced out by a constant step of 16 words or more are one transfer with a memory stride; overlapping rows, uneven steps and steps past the stride field are not', () => {
  /** Stores to out + c + step j for the given steps between them, each QPU from its own row. */
  const spaced = (steps: readonly number[]) =>
    kernel([Ptr(Int)], function spaced(out) {
      const mine = out.add(me().mul(16));
      let at = 0;
      mine.store(index().add(100));
      for (const [j, s] of steps.entries()) mine.add((at += s)).store(index().mul(j + 2).add(me()));
    });
  // [steps, transfers, QPUs]: on 12 QPUs the QPUs' rows interleave, 16 words each, so the steps
  // there are multiples of 12 rows and no two QPUs write one row.
  const cases: [readonly number[], number, number][] = [
    [[48, 48, 48], 1, 1], // a column of 4 rows, 48 words apart: one transfer
    [[192, 192, 192], 1, 12], // 12 QPUs' rows between them: one transfer on 12 QPUs
    [[192, 192, 192, 192, 192, 192, 192], 2, 12], // 8 rows: two runs of 4 on 12 QPUs
    [[8, 8, 8], 4, 1], // rows that overlap: each store its own
    [[48, 64, 48], 2, 1], // uneven steps: a run of 2 (0, 48), then another (112, 160)
    [[20000, 20000], 3, 1], // 19,984 words between rows: past the stride's 16 bits
  ];
  for (const [steps, want, qpus] of cases)
    for (const opt of [1, 2] as const) {
      const k = spaced(steps);
      agree(k, qpus, 16 * qpus + steps.reduce((a, b) => a + b, 0) + 16, opt);
      assert.equal(transfers(k), want, `steps ${steps.join(', ')} on ${qpus} QPUs at -O${opt}`);
    }
});

test('rows: stores to p + x r for an Int x known only at run time are one transfer when 16 <= x <= 16,399 in every lane, else each its own; the same memory either way', () => {
  // Six rows of a matrix x words wide, from row 1 (out + x * 1, ...) or from row 0 (out itself).
  const matrix = (from: number) =>
    kernel([Ptr(Int), Int], function matrix(out, x) {
      for (let r = from; r < from + 6; r++) (r === 0 ? out : out.add(x.mul(r))).store(index().add(100 * r));
    });
  for (const from of [0, 1]) {
    const k = matrix(from);
    for (const x of [16, 20, 16399, 3, 0, 16400])
      for (const opt of [0, 2] as const) {
        const words = x * (from + 6) + 16;
        const [want, got] = [SharedArray.int32(words), SharedArray.int32(words)];
        k.setOptLevel(opt).interpretSync([want, x]);
        k.emulateSync([got, x]);
        assert.deepEqual(Array.from(got), Array.from(want), `x = ${x}, from row ${from}, -O${opt}`);
        for (const a of [want, got]) SharedArray.free(a);
      }
    // At -O2 one transfer and its six rows one by one, behind a test of x.
    assert.equal(transfers(k.setOptLevel(2)), 7);
    assert.match(k.code().asm, /rowbyrow/);
    assert.equal(transfers(k.setOptLevel(0)), 6);
  }
  // A different x, or rows out of order, end the run.
  const uneven = kernel([Ptr(Int), Int, Int], function uneven(out, x, y) {
    out.add(x).store(index());
    out.add(x.mul(2)).store(index());
    out.add(y.mul(3)).store(index());
    out.add(x.mul(5)).store(index());
  });
  assert.equal(transfers(uneven.setOptLevel(2)), 1 + 2 + 1 + 1);
});
