// The memory model of compiled kernels (docs/compiler.md, "Memory"): blocking loads see every
// store before them (DMA reads memory itself), so a mutex-protected counter works on 12 QPUs;
// a gather of memory the run has stored is an error, because on a Pi the TMU's caches may hold
// the old value; an address that is not a multiple of 4 is an error on both targets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gather, index, Int, kernel, me, mutexLock, mutexUnlock, Ptr, receive, SharedArray } from '../../src/index.ts';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { interpret } from '../../src/source/interpreter.ts';
import { emulatorTarget } from '../../src/runtime/kernel.ts';
import { gpuMemory } from '../../src/runtime/shared-array.ts';
import { runAsm } from '../helpers/emu.ts';

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

test('a pointer 2 bytes into an array: both targets refuse it with the same words (strict); a chip and non-strict runs align down', () => {
  // The language cannot make such a pointer (Ptr.add counts elements); a kernel's argument can.
  const kernels = {
    load: kernel([Ptr(Int), Ptr(Int)], function viaLoad(p, out) {
      out.store(Int(p.load()));
    }),
    gather: kernel([Ptr(Int), Ptr(Int)], function viaGather(p, out) {
      gather(p.add(index()));
      const x = Int();
      receive(x);
      out.store(x);
    }),
    store: kernel([Ptr(Int), Ptr(Int)], function viaStore(p, out) {
      p.store(index());
      out.store(index());
    }),
  };
  const [buf, out] = [SharedArray.int32(32), SharedArray.int32(16)];
  const address = (a: Int32Array) => (a as unknown as { busAddress: number }).busAddress;
  const regions = [
    { name: 'p', address: address(buf), bytes: 128 },
    { name: 'out', address: address(out), bytes: 64 },
  ];
  const args = [address(buf) + 2, address(out)];
  const at = (address(buf) + 2).toString(16);
  for (const [how, k] of Object.entries(kernels)) {
    const words = `a ${how === 'store' ? 'write' : 'read'} of lane 0 at 0x${at} is not a multiple of 4`;
    assert.throws(() => interpret(k.ast, { qpus: 1, args, memory: gpuMemory, arrays: regions }), (e: Error) => e.message.endsWith(words), `${how}: the interpreter`);
    assert.throws(
      () => emulatorTarget().run(k.code(), args, regions),
      (e: unknown) => e instanceof EmulatorError && e.kind === 'fault' && e.message.endsWith(words) && e.where !== undefined,
      `${how}: the emulator`,
    );
  }
  // Not strict, the emulator does what a chip does: the TMU and DMA ignore the low two bits.
  buf.set(Array.from({ length: 32 }, (_, i) => 100 + i));
  emulatorTarget().run(kernels.load.code(), args, regions, { strict: false });
  assert.deepEqual(Array.from(out), Array.from({ length: 16 }, (_, i) => 100 + i));
});

test('machine code keeps the hardware\'s aligning down (Guide p. 41), strict or not, unless the run asks for aligned addresses', () => {
  const src = `mov r0, unif\nadd tmu0_s, r0, 2\nnop.ldtmu0\nmov r1, r4\nnop.tend\nnop\nnop\n`;
  const opts = { buffers: { buf: [7, 8] }, uniforms: ['@buf'] };
  assert.deepEqual(runAsm(src, opts).reg(0, 'r1'), new Array(16).fill(7));
  assert.throws(() => runAsm(src, { ...opts, aligned: true }), /^EmulatorError: QPU 0, pc 1 \(add tmu0_s, r0, 2\): a read of lane 0 at 0x[0-9a-f]{8} is not a multiple of 4$/);
});
