// The memory model of compiled kernels (docs/compiler.md, "Memory"): blocking loads see every
// store before them (DMA reads memory itself), so a mutex-protected counter works on 12 QPUs;
// a gather of memory the run has stored is an error, because on a Pi the TMU's caches may hold
// the old value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gather, index, Int, kernel, me, mutexLock, mutexUnlock, Ptr, receive, SharedArray } from '../../src/index.ts';

test('a counter behind the mutex counts every QPU on the emulator, as on the interpreter', () => {
  const counter = kernel([Ptr(Int)], function counter(c) {
    mutexLock();
    c.store(Int(c.load()).add(me().add(1)));
    mutexUnlock();
  });
  for (const qpus of [1, 2, 4, 12]) {
    const a = SharedArray.int32(16);
    const b = SharedArray.int32(16);
    counter.setNumQPUs(qpus).interpretSync([a]);
    counter.emulateSync([b]);
    const want = (qpus * (qpus + 1)) / 2;
    assert.deepEqual(Array.from(a), new Array(16).fill(want), `interpreter, ${qpus} QPUs`);
    assert.deepEqual(Array.from(b), new Array(16).fill(want), `emulator, ${qpus} QPUs`);
  }
});

test('a load right after a store of the same words sees the stored values', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], function reload(buf, out) {
    buf.store(index().mul(3));
    out.store(Int(buf.load()).add(1));
  });
  const [buf, out] = [SharedArray.int32(16), SharedArray.int32(16)];
  k.emulateSync([buf, out]);
  assert.deepEqual(Array.from(out), Array.from({ length: 16 }, (_, l) => 3 * l + 1));
});

test('gathering what the run has stored is an error that explains the TMU cache', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], function regather(buf, out) {
    buf.store(index());
    gather(buf.add(index()));
    const x = Int();
    receive(x);
    out.store(x);
  });
  assert.throws(() => k.interpretSync([SharedArray.int32(16), SharedArray.int32(16)]), /kernel regather, QPU 0 .*a gather of lane 0 at 0x[0-9a-f]+, which this run has already stored to: on a Pi it may return the old value/);
});
