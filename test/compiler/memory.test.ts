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

test('the emulator (strict, the default) stops such a gather with the interpreter\'s rule and message; a later run may gather it', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], function regather(buf, out) {
    buf.store(index());
    gather(buf.add(index()));
    const x = Int();
    receive(x);
    out.store(x);
  });
  const [buf, out] = [SharedArray.int32(16), SharedArray.int32(16)];
  const busAddress = (buf as unknown as { busAddress: number }).busAddress;
  const message = `[gather-after-store] a gather of lane 0 at 0x${busAddress.toString(16)}, which this run has already stored to: on a Pi it may return the old value from the texture unit's cache; load it with a blocking load instead (docs/language.md, "Memory")`;
  const both = { interpreter: '', emulator: '' };
  for (const target of ['interpreter', 'emulator'] as const)
    assert.throws(
      () => k.with({ target }).sync(buf, out),
      (e: Error & { rule?: string }) => {
        both[target] = e.message;
        return e.rule === 'gather-after-store' && e.message.endsWith(message);
      },
      target,
    );
  // The same statement named on both targets.
  assert.match(both.interpreter, /^kernel regather, QPU 0 \(.*memory\.test\.ts:\d+:\d+, `gather\(buf \+ index\(\)\)`\): /);
  assert.match(both.emulator, /^kernel regather in .*memory\.test\.ts:\d+:\d+ `gather\(buf \+ index\(\)\)`: QPU 0, pc \d+ \(/);
  // Non-strict runs read what memory holds now.
  k.emulateSync([buf, out], { strict: false });
  assert.deepEqual(Array.from(out), Array.from({ length: 16 }, (_, l) => l));
  // Storing in one run and gathering in the next is right: the host clears the caches between runs.
  const store = kernel([Ptr(Int)], function store(b) {
    b.store(index().mul(5));
  });
  const regatherLater = kernel([Ptr(Int), Ptr(Int)], function later(b, o) {
    gather(b.add(index()));
    const x = Int();
    receive(x);
    o.store(x);
  });
  for (const target of ['interpreter', 'emulator'] as const) {
    store.with({ target }).sync(buf);
    regatherLater.with({ target }).sync(buf, out);
    assert.deepEqual(Array.from(out), Array.from({ length: 16 }, (_, l) => 5 * l), target);
  }
});

test('gathering words next to stored ones, or stored by an earlier run, is not flagged', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], function beside(buf, out) {
    buf.store(index());
    gather(buf.add(index().add(16)));
    const x = Int();
    receive(x);
    out.store(x);
  });
  const [buf, out] = [SharedArray.int32(32), SharedArray.int32(16)];
  buf.fill(7);
  for (const target of ['interpreter', 'emulator'] as const) {
    k.with({ target }).sync(buf, out);
    assert.deepEqual(Array.from(out), new Array(16).fill(7), target);
  }
});
