// Memory protection: a kernel on the emulator reaches only the arrays it was given (and the
// uniforms and scratch memory its own code needs); a program's code is read-only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gather, index, Int, kernel, Ptr, receive, SharedArray } from '../../src/index.ts';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { BUS_BASE, GpuMemory, READ, READ_WRITE, WRITE } from '../../src/common/memory.ts';
import { gpuMemory } from '../../src/runtime/shared-array.ts';
import { END, runAsm } from '../helpers/emu.ts';

/** Two arrays side by side: `mine` is given to the kernel, `theirs` is the neighbour it must not reach. */
function neighbours() {
  const mine = SharedArray.int32(16, 'mine');
  const theirs = SharedArray.int32(16, 'theirs');
  theirs.fill(7);
  return { mine, theirs, words: (theirs.busAddress - mine.busAddress) / 4 };
}

function fault(run: () => unknown): EmulatorError {
  try {
    run();
  } catch (e) {
    assert.ok(e instanceof EmulatorError, `an EmulatorError, not ${(e as Error).stack}`);
    return e;
  }
  assert.fail('the run should have faulted');
}

test("a load from a neighbouring array is a fault naming the arrays given, QPU, pc and statement", () => {
  const { mine, words } = neighbours();
  const peek = kernel([Ptr(Int), Int], function peek(p, off) {
    p.store(p.add(off).load());
  });
  assert.throws(() => peek.interpretSync([mine, words]), /outside the arrays the kernel was given \(p at/);
  const e = fault(() => peek.emulateSync([mine, words]));
  assert.equal(e.kind, 'fault');
  assert.match(e.message, /^kernel peek in .*isolation\.test\.ts:\d+:\d+ `\*p = \*\(p \+ off\)`: QPU 0, pc \d+ \(.*\): DMA load at 0x[0-9a-f]{8}: inside theirs, outside the arrays kernel peek was given \(p at 0x[0-9a-f]{8}, 64 bytes\)$/);
  assert.deepEqual(Array.from(mine), new Array(16).fill(0));
});

test('a store into a neighbouring array is a fault and leaves it untouched', () => {
  const { mine, theirs, words } = neighbours();
  const poke = kernel([Ptr(Int), Int], function poke(p, off) {
    p.add(off).store(index());
  });
  const e = fault(() => poke.emulateSync([mine, words]));
  assert.match(e.message, /DMA store at .*: inside theirs, outside the arrays kernel poke was given \(p at .*\)$/);
  assert.deepEqual(Array.from(theirs), new Array(16).fill(7));
});

test('a gather from a neighbouring array names the lane', () => {
  const { mine, words } = neighbours();
  const g = kernel([Ptr(Int), Int], function g(p, off) {
    gather(p.add(index().mul(off)));
    const x = Int(0);
    receive(x);
    p.store(x);
  });
  const e = fault(() => g.emulateSync([mine, words]));
  assert.match(e.message, /TMU0 lookup, lane 1, address 0x[0-9a-f]{8}: inside theirs, outside the arrays kernel g was given \(p at .*\)$/);
});

test('every array given can be read and written; an array passed twice too', () => {
  const a = SharedArray.int32(16);
  const b = SharedArray.int32(16);
  a.set(Array.from({ length: 16 }, (_, i) => i * 3));
  const copy = kernel([Ptr(Int), Ptr(Int), Ptr(Int)], function copy(p, q, r) {
    q.store(p.load().add(r.load()));
  });
  copy.emulateSync([a, b, a]);
  assert.deepEqual(Array.from(b), Array.from({ length: 16 }, (_, i) => i * 6));
});

test("a kernel cannot overwrite its own code or uniforms", () => {
  const arr = SharedArray.int32(16);
  const w = kernel([Ptr(Int), Int], function w(p, off) {
    p.add(off).store(index());
  });
  w.emulateSync([arr, 0]); // loads the code and the uniforms
  const code = gpuMemory.allocations.findLast((a) => a.name === 'code of w')!;
  const uniforms = gpuMemory.allocations.findLast((a) => a.name === 'uniforms')!;
  const before = Array.from(gpuMemory.view(code, Int32Array));
  const e1 = fault(() => w.emulateSync([arr, (code.address - arr.busAddress) / 4]));
  assert.match(e1.message, /inside code of w, outside the arrays kernel w was given \(p at [^;]*\)$/);
  assert.deepEqual(Array.from(gpuMemory.view(code, Int32Array)), before);
  const e2 = fault(() => w.emulateSync([arr, (uniforms.address - arr.busAddress) / 4]));
  assert.match(e2.message, /DMA store at .*: inside uniforms, which kernel w may not write, outside the arrays kernel w was given \(p at [^;]*\)$/);
});

test('after a run, the memory is no longer restricted', () => {
  const { mine, theirs } = neighbours();
  const k = kernel([Ptr(Int)], function k(p) {
    p.store(p.load());
  });
  k.emulateSync([mine]);
  gpuMemory.writeWord(theirs.busAddress, 5);
  assert.equal(theirs[0], 5);
});

test('restrict() takes whole allocations and rights no larger than their own', () => {
  const m = new GpuMemory(1 << 20);
  const code = m.alloc(64, 'code', READ);
  const data = m.alloc(64, 'data');
  assert.throws(() => m.restrict([{ name: 'half', address: data.address + 32, bytes: 32, access: READ_WRITE }], 'x'), /not an allocation/);
  m.restrict([{ name: 'code', address: code.address, bytes: 64, access: READ_WRITE }], 'kernel x');
  assert.equal(m.index(code.address, READ) >= 0, true);
  assert.equal(m.index(code.address, WRITE), -1);
  assert.equal(m.index(data.address, READ), -1);
  assert.match(m.describe(data.address), /^inside data, outside the arrays kernel x was given \(code at .*\)$/);
  m.unrestrict();
  assert.equal(m.index(data.address, WRITE) >= 0, true);
  assert.equal(m.index(code.address, WRITE), -1);
});

test('qpu emu: a DMA store over the program\'s own code is a fault (code is read-only)', () => {
  const hello = `
    ldi ra1, 0x1234
    ldi vw_setup, 0xa00
    add vpm, ra1, unif
    ldi vw_setup, 0x88010000
    or vw_addr, unif, 0
    mov -, vw_wait
  ` + END;
  // The first allocation of a fresh machine is its code.
  assert.throws(
    () => runAsm(hello, { uniforms: [1, BUS_BASE] }),
    (e: unknown) => e instanceof EmulatorError && e.kind === 'fault' && /QPU 0, pc 4 .*DMA store at 0xc0100000: inside code, which is read-only/.test(e.message),
  );
  // A TMU read of the code is allowed.
  const r = runAsm(`
    ldi r0, 0
    add tmu0_s, r0, unif
    nop.ldtmu0
    or ra1, r4, 0
  ` + END, { uniforms: [BUS_BASE] });
  assert.equal(r.reg(0, 'ra1')[0], r.machine.memory.readWord(BUS_BASE));
});

test("a kernel cannot read the uniforms buffer, which holds earlier runs' arguments, through a pointer", () => {
  const secret = kernel([Ptr(Int), Int], function secret(p, s) {
    p.store(s);
  });
  secret.emulateSync([SharedArray.int32(16), 0x5ec2e7]);
  const arr = SharedArray.int32(16);
  const spy = kernel([Ptr(Int), Int], function spy(p, off) {
    gather(p.add(index().add(off)));
    const x = Int(0);
    receive(x);
    p.store(x);
  });
  spy.emulateSync([arr, 0]);
  const uniforms = gpuMemory.allocations.findLast((a) => a.name === 'uniforms')!;
  const e = fault(() => spy.emulateSync([arr, (uniforms.address - arr.busAddress) / 4]));
  assert.match(e.message, /TMU0 lookup, lane 0, .*: inside uniforms, which kernel spy may not read, outside the arrays kernel spy was given \(p at [^;]*\)$/);
  assert.ok(!Array.from(arr).includes(0x5ec2e7));
});
