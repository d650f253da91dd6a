// Mistakes are caught where they are made, with the kernel and the statement named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Break,
  CheckError,
  DslError,
  Float,
  gather,
  If,
  index,
  Int,
  InterpreterError,
  kernel,
  Ptr,
  receive,
  semaDec,
  SharedArray,
  Where,
  While,
  type IntVar,
} from '../../src/index.ts';

const HERE = /test\/language\/errors\.test\.ts:\d+:\d+/;

test('language values and statements outside a kernel', () => {
  assert.throws(() => Int(1), { name: 'DslError', message: /^Int can only be used inside a kernel's function, while kernel\(\) builds it \(at .*errors\.test\.ts:27:\d+\)$/ });
  assert.throws(() => index(), /index\(\) can only be used inside a kernel/);
  let leaked: IntVar | undefined;
  kernel([Int], (n) => {
    leaked = n;
  });
  assert.throws(() => leaked!.add(1), /can only be used inside a kernel/);
  assert.throws(
    () =>
      kernel([Int], function other(n) {
        n.set(leaked!);
      }),
    (e: Error) => e instanceof DslError && /kernel other .*uses a value of kernel kernel/.test(e.message) && HERE.test(e.message),
  );
});

test('Where holds only assignments, scatters and nested Where; no loads inside', () => {
  const where = (body: (p: import('../../src/index.ts').PtrVar<'int'>, a: IntVar) => void) =>
    kernel([Ptr(Int)], function w(p) {
      const a = Int(0);
      Where(a.eq(0), () => body(p, a));
    });
  assert.throws(() => where((p, a) => a.set(p.load())), (e: Error) => /kernel w \(.*\): a load \(\*p\) inside Where/.test(e.message) && HERE.test(e.message));
  assert.throws(() => where((_p, a) => If(a.eq(1), () => {})), /If inside Where: only assignments, calls, scatters and nested Where/);
  assert.throws(() => where((_p, a) => While(a.eq(1), () => {})), /While inside Where/);
  assert.throws(() => where((p) => p.store(1)), /inside Where/);
  assert.throws(() => where((p) => gather(p)), /gather inside Where/);
  assert.throws(() => where(() => semaDec(0)), /semaDec inside Where/);
});

test('gathers beyond the FIFO and receives with nothing gathered are found when the kernel is built', () => {
  assert.throws(
    () =>
      kernel([Ptr(Int)], function five(p) {
        for (let i = 0; i < 5; i++) gather(p);
      }),
    (e: Error) => e instanceof CheckError && /kernel five \(.*errors\.test\.ts.*\): `gather\(p\)`: more than 4 gathers outstanding/.test(e.message),
  );
  assert.throws(
    () =>
      kernel([Ptr(Int)], function none() {
        receive(Int());
      }),
    /kernel none .*receive\(Int@\d+:\d+\)`: receive with nothing gathered/,
  );
  assert.throws(
    () =>
      kernel([Ptr(Int), Int], function leaky(p, n) {
        While(n.gt(0), () => gather(p));
      }),
    /each pass of the loop leaves 1 more gathers outstanding, so the FIFO overflows/,
  );
});

test('Break outside a loop, Else misplaced, literals that are not ints, bad semaphores', () => {
  assert.throws(() => kernel([], () => Break()), /Break outside a While or For/);
  assert.throws(
    () =>
      kernel([Int], (n) => {
        const chain = If(n.eq(0), () => {});
        n.set(1);
        chain.Else(() => {});
      }),
    /Else must come right after its If/,
  );
  assert.throws(() => kernel([Int], (n) => n.set(n.add(1.5))), /1\.5 is not a 32-bit integer/);
  assert.throws(() => kernel([], () => semaDec(16)), /there are 16 semaphores, 0 to 15/);
  assert.throws(() => kernel([Int], (n) => n.set(Float(1) as never)), /expected an Int, got a Float/);
});

test('at run time: memory outside the arrays names the QPU, lane and address; deadlocks; endless loops', () => {
  const over = kernel([Ptr(Int)], function over(p) {
    gather(p.add(index().add(1)));
    receive(Int());
  });
  const a = SharedArray.int32(16, 'small');
  assert.throws(
    () => over.interpretSync([a]),
    (e: Error) =>
      e instanceof InterpreterError &&
      /kernel over, QPU 0 \(.*errors\.test\.ts:\d+:\d+, `gather\(p \+ \(index\(\) \+ 1\)\)`\): a read of lane 15 at 0x[0-9a-f]{8} is outside the arrays the kernel was given \(p at 0x[0-9a-f]{8}, 64 bytes\)/.test(e.message),
  );
  const stuck = kernel([], function stuck() {
    semaDec(3);
  });
  assert.throws(() => stuck.setNumQPUs(2).interpretSync([]), /kernel stuck: deadlock: .*QPU 0 in .*errors\.test\.ts:\d+:\d+ `semaDec\(3\)` waits for semaphore 3 to be above 0 \(it is 0\)/);
  const forever = kernel([Int], function forever(n) {
    While(n.ge(0), () => n.set(n.add(1).and(7)));
  });
  assert.throws(() => forever.interpretSync([0], { maxSteps: 10000 }), /kernel forever, QPU 0 .*the step budget of 10,000 statements ran out after 10,000 statements: an endless loop\? pass \{ maxSteps \} to allow more$/);
});

test('host arguments are checked: types, GPU memory, count', async () => {
  const k = kernel([Ptr(Int), Int], function take(p, n) {
    p.store(n);
  });
  assert.throws(() => k.interpretSync([new Int32Array(16), 1] as never), /argument 1 \(p\): this Int32Array is not in GPU memory: make it with SharedArray.int32\(n\)/);
  assert.throws(() => k.interpretSync([SharedArray.float32(16), 1] as never), /argument 1 \(p\): expected a SharedArray of int32/);
  assert.throws(() => k.interpretSync([SharedArray.int32(16), 1.5] as never), /argument 2 \(n\): expected a 32-bit integer \(a number\), got 1.5/);
  await assert.rejects(() => (k as unknown as (...a: unknown[]) => Promise<unknown>)(SharedArray.int32(16)), /takes 2 arguments \(then, optionally, run options such as \{ maxSteps \}\), not 1/);
  assert.throws(() => k.setNumQPUs(13), /setNumQPUs\(13\): 1 to 12 QPUs/);
});
