// TypeScript catches type mistakes in kernels and in calls to them. `npm test` type-checks this
// file: each @ts-expect-error line must be an error, or the check fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Float, gather, Int, kernel, Ptr, receive, rotate, SharedArray, store, Where } from '../../src/index.ts';
import type { FloatType, HostArgs, Kernel, PtrType } from '../../src/index.ts';

/** Never called: the lines below only have to type-check (or fail to, where marked). */
export function typeChecks(): void {
  kernel([Int, Float, Ptr(Int), Ptr(Float)], (n, f, pi, pf) => {
    n.add(1);
    f.mul(0.5);
    // @ts-expect-error a Float where an Int is needed
    n.add(f);
    // @ts-expect-error comparing an Int with a Float
    n.lt(f);
    // @ts-expect-error assigning a Float to an Int variable
    n.set(f);
    // @ts-expect-error storing Floats through a Ptr(Int)
    pi.store(f);
    // @ts-expect-error a non-blocking store of Ints to a Ptr(Float)
    store(n, pf);
    // @ts-expect-error receive needs a variable, not an expression
    receive(n.add(1));
    // @ts-expect-error gather needs a pointer
    gather(n);
    // @ts-expect-error Where takes a vector condition, not a value
    Where(n, () => {});
    const g: typeof pf = pf;
    void g;
    rotate(f, 3).add(1.5);
    // @ts-expect-error a pointer variable holds pointers of its own element type
    Ptr(Int)(pf);
  });
  const k = kernel([Ptr(Int), Float], (p, x) => {
    p.store(x.toInt());
  });
  k.interpretSync([SharedArray.int32(16), 1.5]);
  // @ts-expect-error a Float32Array for a Ptr(Int)
  k.interpretSync([SharedArray.float32(16), 1.5]);
  // @ts-expect-error a missing argument
  k.interpretSync([SharedArray.int32(16)]);
  // @ts-expect-error a string for a Float
  void k(SharedArray.int32(16), 'x');
  // The argument types by name: HostArgs, and Parameters<typeof k> (options last) for the sync calls.
  const args: HostArgs<[PtrType<'int'>, FloatType]> = [SharedArray.int32(16), 1.5];
  k.interpretSync(args);
  const all: Parameters<typeof k> = [SharedArray.int32(16), 2.5, { maxSteps: 100 }];
  k.interpretSync(all);
  k.emulateSync(all);
  const some: Parameters<Kernel<readonly [PtrType<'int'>, FloatType]>> = [SharedArray.int32(16), 2.5];
  k.emulateSync(some, { strict: false });
  // @ts-expect-error HostArgs is exact: a number for a Ptr(Int)
  const wrong: HostArgs<[PtrType<'int'>]> = [1];
  void wrong;
}

test('Parameters<typeof k> ends with options, which interpretSync and emulateSync take there', () => {
  const k = kernel([Ptr(Int), Float], function k(p, x) {
    p.store(x.toInt());
  });
  const p = SharedArray.int32(16);
  const all: Parameters<typeof k> = [p, 7.5, { maxSteps: 1000 }];
  assert.equal(k.interpretSync(all).target, 'interpreter');
  assert.equal(p[0], 7);
  assert.throws(() => k.interpretSync(all, { maxSteps: 5 }), /interpretSync was given options twice/);
  assert.throws(() => k.emulateSync([p, 1, { target: 'interpreter' }]), /emulate\(\) runs on the emulator, but the options say target 'interpreter'|target/);
});

test('type mistakes are compile-time errors (checked by tsc as part of npm test)', () => {
  assert.equal(typeof typeChecks, 'function');
});
