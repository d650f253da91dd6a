// Prefetching straight-line loads (compiler/prefetch-loads.ts, part of pass `pipeline`): a run
// of word loads at the same address in every lane becomes TMU gathers issued four ahead; runs
// after a store, with lane-varying addresses, with addresses the run computes, or of bytes
// stand as written; and the results are the interpreter's on the emulator at -O0 and -O2, on 1
// and 12 QPUs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Float, For, index, Int, type IntExpr, kernel, me, Ptr, SharedArray, Uint8 } from '../../../src/index.ts';
import { pipelineLoads } from '../../../src/compiler/pipeline-loads.ts';
import type { KernelAst } from '../../../src/source/ast.ts';
import { printKernel } from '../../../src/source/print.ts';
import { lines } from './fixture.ts';

function after(ast: KernelAst): { text: string[]; prefetched: number } {
  const r = pipelineLoads(ast);
  return { text: lines(printKernel(r.ast)), prefetched: r.prefetched };
}

/** Six loads of a QPU's rows, summed and stored: the run the pass gathers ahead. */
const six = kernel([Ptr(Int), Ptr(Int)], function six(a, out) {
  const base = a.add(me().shl(7));
  const xs = [0, 1, 2, 3, 4, 5].map((j) => Int(base.add(16 * j).load()));
  out.add(me().shl(4)).store(xs.slice(1).reduce<IntExpr>((s, x) => s.add(x), xs[0]!));
});

test('prefetch: a run of six loads becomes four gathers, then each receive followed by the next gather', () => {
  const r = after(six.ast);
  assert.equal(r.prefetched, 6);
  const text = r.text.join('\n');
  const row = (j: number) => `gather\\(\\(\\(a \\+ \\(me\\(\\) << 7\\)\\) \\+ ${16 * j}\\) \\+ index\\(\\)\\)\\n`;
  assert.match(text, new RegExp(`^${[0, 1, 2, 3].map(row).join('')}receive\\(v2\\)\\n${row(4)}receive\\(v3\\)\\n${row(5)}receive\\(v4\\)\\nreceive\\(v5\\)\\nreceive\\(v6\\)\\nreceive\\(v7\\)\\n`, 'm'));
});

test('prefetch: the results are the interpreter\'s, on 1 and 12 QPUs, at -O0 and -O2', () => {
  for (const qpus of [1, 12]) {
    const args = () => [SharedArray.from(Array.from({ length: 128 * qpus }, (_, j) => (j * 2654435761) | 0), 'int32'), SharedArray.int32(16 * qpus)] as [Int32Array, Int32Array];
    const want = args();
    six.setNumQPUs(qpus).interpretSync(want);
    for (const opt of [0, 2] as const) {
      const got = args();
      six.setNumQPUs(qpus).setOptLevel(opt).emulateSync(got);
      assert.deepEqual(Array.from(got[1]), Array.from(want[1]), `${qpus} QPUs, -O${opt}`);
    }
  }
  six.setOptLevel(2).setNumQPUs(1);
});

test('prefetch: loads after a store, at addresses that differ between lanes or that the run computes, or of bytes, stand as written', () => {
  const afterStore = kernel([Ptr(Int)], function afterStore(a) {
    a.store(Int(1));
    const x = Int(a.add(16).load());
    a.add(32).store(x);
  });
  const varying = kernel([Ptr(Int)], function varying(a) {
    const x = Int(a.add(me().scanLanes('exclusive')).load());
    a.add(32).store(x);
  });
  const chained = kernel([Ptr(Int)], function chained(a) {
    const x = Int(a.load());
    const y = Int(a.add(x.lane(0)).load());
    a.add(32).store(y);
  });
  const bytes = kernel([Ptr(Uint8), Ptr(Int)], function bytes(b, out) {
    out.store(Int(b.load()));
  });
  assert.equal(after(afterStore.ast).prefetched, 0);
  assert.equal(after(varying.ast).prefetched, 0);
  // Two runs of one: the second's address reads the first's value, so it is gathered after that is received.
  assert.deepEqual(after(chained.ast), { prefetched: 2, text: lines(`
    kernel chained(a: int*)
      gather(a + index())
      receive(v1)
      gather((a + v1.lane(0)) + index())
      receive(v2)
      *(a + 32) = v2`) });
  assert.equal(after(bytes.ast).prefetched, 0);
  for (const k of [afterStore, varying, bytes]) assert.deepEqual(after(k.ast).text, lines(printKernel(k.ast)), k.kernelName);
  for (const k of [afterStore, varying, chained]) {
    const args = () => [SharedArray.from(Array.from({ length: 48 }, (_, j) => (j * 7) % 13), 'int32')] as [Int32Array];
    const [want, got] = [args(), args()];
    k.interpretSync(want);
    k.emulateSync(got);
    assert.deepEqual(Array.from(got[0]), Array.from(want[0]), k.kernelName);
  }
});

test('prefetch: a loop after a run of loads is still pipelined (the FIFO is empty again)', () => {
  const both = kernel([Int, Ptr(Int), Ptr(Int)], function both(n, a, b) {
    const k = Int(b.load());
    const i = Int(0);
    For(i.lt(n), () => i.set(i.add(16)), () => a.add(i).store(Int(a.add(i).load()).add(k)));
  });
  const r = pipelineLoads(both.ast);
  assert.equal(r.prefetched, 1);
  assert.equal(r.loops, 1);
  const args = () => [64, SharedArray.from(Array.from({ length: 64 }, (_, j) => j), 'int32'), SharedArray.from(Array.from({ length: 16 }, (_, j) => 100 * j), 'int32')] as [number, Int32Array, Int32Array];
  const [want, got] = [args(), args()];
  both.interpretSync(want);
  both.emulateSync(got);
  assert.deepEqual(Array.from(got[1]), Array.from(want[1]));
});

test('prefetch: an address from a reduction of Floats stands as written (fmin keeps each lane\'s own zero: the lanes may differ)', () => {
  // -0 in lanes 0-7 and +0 in lanes 8-15: minLanes leaves each half its own zero, so m is 1 in
  // lanes 0-7 and 0 in lanes 8-15, and the load (at lane 0's address) is not a gather.
  const zeros = kernel([Ptr(Int), Ptr(Int)], function zeros(a, out) {
    const z = Float(index().ushr(3).xor(1).shl(31).asFloat());
    const m = Int(z.minLanes().asInt().ushr(31));
    out.store(Int(a.add(m).load()));
    out.add(16).store(m);
  });
  assert.equal(after(zeros.ast).prefetched, 0);
  const args = () => [SharedArray.from(Array.from({ length: 32 }, (_, j) => 100 + j), 'int32'), SharedArray.int32(32)] as [Int32Array, Int32Array];
  const [want, got] = [args(), args()];
  zeros.interpretSync(want);
  zeros.emulateSync(got);
  assert.deepEqual(Array.from(got[1]), Array.from(want[1]));
  // An Int reduction is the same in every lane: its address is gathered.
  const sums = kernel([Ptr(Int), Ptr(Int)], function sums(a, out) {
    out.store(Int(a.add(index().sumLanes().and(7)).load()));
  });
  assert.equal(after(sums.ast).prefetched, 1);
});
