// Run options: `k(...args, options)` and `k.with(options)` choose the target, the QPU count, the
// step budget, strict mode and a progress callback for one run, without changing the kernel;
// bad options are clear errors naming the kernel; budget errors say how far the run got and how
// to allow more, on both targets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { any, Float, For, Int, kernel, me, Ptr, SharedArray, While, type KernelRunOptions, type Progress } from '../../src/index.ts';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { InterpreterError } from '../../src/source/interpreter.ts';
import { EMULATOR_PROGRESS_EVERY, EMULATOR_STEPS, INTERPRETER_PROGRESS_EVERY, INTERPRETER_STEPS } from '../../src/common/budget.ts';

/** Each QPU counts to n and stores the count in its own 16 elements of out. */
const count = kernel([Int, Ptr(Int)], function count(n, out) {
  const i = Int(0);
  While(any(i.lt(n)), () => i.set(i.add(1)));
  out.add(me().shl(4)).store(i);
});

/** Never ends. */
const spin = kernel([Ptr(Int)], function spin(p) {
  const n = Int(0);
  While(any(n.ge(0)), () => n.set(n.add(1).and(1023)));
  p.store(n);
});

test('k(...args, options) runs with the options, and the kernel keeps its own QPU count', async () => {
  const out = SharedArray.int32(48);
  const r = await count(5, out, { target: 'interpreter', qpus: 3 });
  assert.equal(r.target, 'interpreter');
  assert.equal(r.qpus, 3);
  assert.equal(count.numQPUs, 1);
  assert.deepEqual(Array.from(out), new Array(48).fill(5));
  out.fill(0);
  const e = await count(7, out, { qpus: 2, maxSteps: 1e6, strict: false });
  assert.equal(e.target, 'emulator');
  assert.equal(e.qpus, 2);
  assert.ok(e.run!.total.instructions > 0);
  assert.deepEqual(Array.from(out), [...new Array(32).fill(7), ...new Array(16).fill(0)]);
  // No options, and undefined for options, are the defaults.
  assert.equal((await count(1, out)).target, 'emulator');
  assert.equal((await count(1, out, undefined)).qpus, 1);
});

test('k.with(options) binds options: a callable, .sync, and options at the call win', async () => {
  const out = SharedArray.int32(48);
  const onInterpreter = count.with({ target: 'interpreter', qpus: 2 });
  assert.deepEqual(onInterpreter.options, { target: 'interpreter', qpus: 2 });
  assert.ok(Object.isFrozen(onInterpreter.options));
  const r = await onInterpreter(3, out);
  assert.equal(r.target, 'interpreter');
  assert.equal(r.qpus, 2);
  const s = onInterpreter.sync(4, out);
  assert.equal(s.qpus, 2);
  assert.deepEqual(Array.from(out.subarray(0, 32)), new Array(32).fill(4));
  const more = onInterpreter.sync(2, out, { qpus: 3 });
  assert.equal(more.qpus, 3);
  assert.equal(more.target, 'interpreter');
  // Without qpus, the kernel's count at the time of the call.
  const plain = count.with({ maxSteps: 1e6 });
  count.setNumQPUs(3);
  try {
    assert.equal(plain.sync(1, out).qpus, 3);
  } finally {
    count.setNumQPUs(1);
  }
});

test('the calls that name a target take options too, and say so when the options name another', async () => {
  const out = SharedArray.int32(48);
  assert.equal((await count.interpret(2, out, { qpus: 2 })).qpus, 2);
  assert.equal((await count.emulate(2, out, { qpus: 2, strict: true })).qpus, 2);
  assert.equal(count.interpretSync([2, out], { qpus: 3 }).qpus, 3);
  assert.equal(count.emulateSync([2, out], { qpus: 3, target: 'emulator' } as KernelRunOptions).qpus, 3);
  await assert.rejects(
    () => count.interpret(2, out, { target: 'emulator' } as KernelRunOptions),
    { name: 'TypeError', message: "kernel count: interpret() runs on the interpreter, but the options say target 'emulator'; call the kernel itself to choose the target" },
  );
  assert.throws(
    () => count.emulateSync([2, out], { target: 'interpreter' } as KernelRunOptions),
    { message: "kernel count: emulate() runs on the emulator, but the options say target 'interpreter'; call the kernel itself to choose the target" },
  );
});

const BAD: [string, unknown, typeof TypeError, string][] = [
  ['a number', 5, TypeError, 'run options are an object such as { maxSteps: 1e9 }, not 5'],
  ['an array', [], TypeError, 'run options are an object such as { maxSteps: 1e9 }, not an Array'],
  ['a misspelt name', { maxstep: 10 }, TypeError, 'no run option is called "maxstep" (maxSteps?): the options are target, qpus, maxSteps, strict, onProgress, estimate, timeoutMs, interleave, sfu, profile, model'],
  ['unknown names', { qpu: 2, colour: 'red' }, TypeError, 'no run options are called "qpu" (qpus?), "colour": the options are target, qpus, maxSteps, strict, onProgress, estimate, timeoutMs, interleave, sfu, profile, model'],
  ['a target', { target: 'gpu' }, TypeError, `target must be 'emulator', 'interpreter' or 'pi', not the string "gpu"`],
  ['13 QPUs', { qpus: 13 }, RangeError, 'qpus must be 1 to 12, not 13'],
  ['0 QPUs', { qpus: 0 }, RangeError, 'qpus must be 1 to 12, not 0'],
  ['1.5 QPUs', { qpus: 1.5 }, RangeError, 'qpus must be 1 to 12, not 1.5'],
  ['"2" QPUs', { qpus: '2' }, RangeError, 'qpus must be 1 to 12, not the string "2"'],
  ['a negative budget', { maxSteps: -1 }, RangeError, 'maxSteps must be a whole number of steps from 0 up (or Infinity), not -1'],
  ['strict as a string', { strict: 'yes' }, TypeError, 'strict must be true or false, not the string "yes"'],
  ['onProgress as a number', { onProgress: 5 }, TypeError, 'onProgress must be a function ((p) => { ... }), not 5'],
];

test('bad run options are errors that name the kernel and the option, from every entry point', async () => {
  const out = SharedArray.int32(48);
  const before = Array.from(out);
  for (const [what, options, Kind, message] of BAD) {
    const expected = { name: Kind.name, message: `kernel count: ${message}` };
    assert.throws(() => count.with(options as KernelRunOptions), expected, `with: ${what}`);
    assert.throws(() => count.interpretSync([1, out], options as KernelRunOptions), expected, `interpretSync: ${what}`);
    if (typeof options === 'object' && !Array.isArray(options)) {
      await assert.rejects(() => count(1, out, options as KernelRunOptions), expected, `call: ${what}`);
      assert.throws(() => count.with({}).sync(1, out, options as KernelRunOptions), expected, `with, then sync: ${what}`);
    }
  }
  // A last argument that is not a plain object is not options: the count is wrong.
  await assert.rejects(() => (count as unknown as (...a: unknown[]) => Promise<unknown>)(1, out, 5), {
    name: 'TypeError',
    message: 'kernel count takes 2 arguments (then, optionally, run options such as { maxSteps }), not 3',
  });
  assert.deepEqual(Array.from(out), before, 'nothing ran');
  assert.throws(() => count.setNumQPUs(13), { name: 'RangeError', message: 'kernel count: setNumQPUs(13): 1 to 12 QPUs' });
});

test('onProgress on the interpreter: every 65,536 statements, then once at the end', () => {
  const out = SharedArray.int32(48);
  const seen: Progress[] = [];
  const r = count.interpretSync([100_000, out], { qpus: 2, onProgress: (p) => seen.push(p) });
  const total = r.steps;
  assert.equal(total, r.stepsPerQpu.reduce((a, b) => a + b, 0));
  const periodic = seen.slice(0, -1);
  assert.equal(periodic.length, Math.floor(total / INTERPRETER_PROGRESS_EVERY));
  periodic.forEach((p, i) => assert.deepEqual(p, { target: 'interpreter', steps: (i + 1) * INTERPRETER_PROGRESS_EVERY, maxSteps: INTERPRETER_STEPS, done: false }));
  assert.deepEqual(seen.at(-1), { target: 'interpreter', steps: total, maxSteps: INTERPRETER_STEPS, done: true });
});

test('onProgress on the emulator: instructions, cycles and seconds about every million instructions, then at the end', () => {
  const out = SharedArray.int32(48);
  const seen: Progress[] = [];
  const r = count.emulateSync([1_000_000, out], { maxSteps: 1e9, onProgress: (p) => seen.push(p) }).run!;
  const last = seen.at(-1)!;
  assert.deepEqual(last, { target: 'emulator', steps: r.total.instructions, maxSteps: 1e9, cycles: r.cycles, seconds: r.seconds, done: true });
  // One report as the run passes each multiple of EMULATOR_PROGRESS_EVERY, found where the run reads the clock.
  const periodic = seen.slice(0, -1);
  const multiples = Math.floor(r.total.instructions / EMULATOR_PROGRESS_EVERY);
  assert.ok(periodic.length === multiples || periodic.length === multiples - 1, `${periodic.length} reports for ${r.total.instructions} instructions`);
  periodic.forEach((p, i) => {
    assert.equal(p.done, false);
    assert.ok(p.steps >= (i + 1) * EMULATOR_PROGRESS_EVERY && p.steps < (i + 1) * EMULATOR_PROGRESS_EVERY + 65536, `report ${i}: ${p.steps}`);
    assert.ok(p.cycles! > 0 && p.cycles! <= last.cycles!);
    assert.equal(p.seconds, p.cycles! / 250e6);
  });
});

test('onProgress hears the end of a run that stops at an error; a callback that throws stops the run', () => {
  const a = SharedArray.int32(16);
  for (const target of ['interpreter', 'emulator'] as const) {
    const seen: Progress[] = [];
    assert.throws(() => spin.with({ target, maxSteps: 100_000, onProgress: (p) => seen.push(p) }).sync(a), /the step budget/);
    assert.deepEqual(
      { ...seen.at(-1)!, cycles: undefined, seconds: undefined },
      { target, steps: 100_000, maxSteps: 100_000, done: true, cycles: undefined, seconds: undefined },
    );
    let calls = 0;
    const stop = new Error('cancelled');
    assert.throws(
      () =>
        spin.with({
          target,
          maxSteps: Infinity,
          onProgress: () => {
            calls++;
            throw stop;
          },
        }).sync(a),
      (e: unknown) => e === stop,
    );
    assert.equal(calls, 1, `${target}: not called again after it threw`);
  }
});

test('a budget error on the emulator says how far the run got, in instructions, cycles and time on a Pi, and how to allow more', () => {
  const a = SharedArray.int32(16);
  const loop = '`while any\\(n >= 0\\)`|`n = \\(n \\+ 1\\) & 1023`';
  assert.throws(
    () => spin.with({ maxSteps: 1_000_000 }).sync(a),
    (e: unknown) =>
      e instanceof EmulatorError &&
      e.kind === 'budget' &&
      new RegExp(
        `^kernel spin in test/runtime/run-options\\.test\\.ts:\\d+:\\d+ (${loop}): QPU 0, pc \\d+ \\([^)]*\\): ` +
          `the step budget of 1,000,000 instructions ran out after 1,000,000 instructions, [\\d,]+ cycles \\(\\d+(\\.\\d+)? ms on a Pi\\): ` +
          `an endless loop\\? pass \\{ maxSteps \\} to allow more$`,
      ).test(e.message),
  );
  assert.throws(
    () => spin.emulateSync([a], { maxSteps: 10_000, qpus: 2 }),
    (e: unknown) => e instanceof EmulatorError && / ran out after 10,000 instructions \(QPU 0 [\d,]+, QPU 1 [\d,]+\), [\d,]+ cycles \([\d.]+ µs on a Pi\): /.test(e.message),
  );
});

test('a budget error on the interpreter says how far the run got, in statements, and how to allow more', () => {
  const a = SharedArray.int32(16);
  assert.throws(
    () => spin.interpretSync([a], { maxSteps: 1000 }),
    (e: unknown) =>
      e instanceof InterpreterError &&
      /^kernel spin, QPU 0 \(test\/runtime\/run-options\.test\.ts:\d+:\d+, `(while any\(n >= 0\)|n = \(n \+ 1\) & 1023)`\): the step budget of 1,000 statements ran out after 1,000 statements: an endless loop\? pass \{ maxSteps \} to allow more$/.test(
        e.message,
      ),
  );
  assert.throws(() => spin.interpretSync([a], { maxSteps: 1000, qpus: 2 }), / ran out after 1,000 statements \(QPU 0 1,000, QPU 1 0\): /);
  // Given more, the same kernel runs on: a count that ends within the budget finishes.
  const out = SharedArray.int32(48);
  assert.throws(() => count.interpretSync([10_000, out], { maxSteps: 1000 }), /the step budget of 1,000 statements ran out/);
  assert.equal(count.interpretSync([10_000, out], { maxSteps: 100_000 }).stepsPerQpu[0]! > 1000, true);
  assert.equal(EMULATOR_STEPS > 0 && INTERPRETER_STEPS > 0, true);
});

/** Never called: run options are typed (tsc checks this file as part of npm test). */
export function typeChecks(): void {
  const a = SharedArray.int32(16);
  void spin(a, { maxSteps: 10, qpus: 2, target: 'interpreter', strict: false, onProgress: (p) => p.steps + p.maxSteps + (p.cycles ?? 0) });
  void spin.with({ qpus: 2 })(a);
  spin.with({ qpus: 2 }).sync(a, { maxSteps: 5 });
  // @ts-expect-error an unknown option
  void spin(a, { maxStep: 10 });
  // @ts-expect-error a target that does not exist
  void spin(a, { target: 'gpu' });
  // @ts-expect-error qpus is a number
  void spin.with({ qpus: '2' });
  // @ts-expect-error the target of interpret() is the interpreter
  void spin.interpret(a, { target: 'emulator' });
  // @ts-expect-error options come after all the arguments
  void spin({ maxSteps: 10 }, a);
}

test('a run cannot start inside another run (from its onProgress): a clear error, and both kernels stay usable', () => {
  const out = SharedArray.int32(48);
  for (const target of ['interpreter', 'emulator'] as const) {
    let inner: unknown;
    count.with({ target, maxSteps: Infinity, onProgress: () => {
      try {
        count.interpretSync([1, out]);
      } catch (e) {
        inner ??= e;
      }
    } }).sync(target === 'emulator' ? 300_000 : 40_000, out);
    assert.ok(inner instanceof Error && inner.message === 'kernel count: cannot run while kernel count runs (from its onProgress callback); run it after', String(inner));
  }
  assert.equal(count.interpretSync([3, out]).stepsPerQpu.length, 1);
});

test('an option given as undefined is an option not given: it hides neither k.with\'s nor an oversight\'s', async () => {
  const bound = spin.with({ maxSteps: 1000 });
  assert.throws(() => bound.sync(SharedArray.int32(16), { maxSteps: undefined }), /the step budget of 1,000 instructions ran out/);
  const r = await count.with({ qpus: 2 })(1, SharedArray.int32(48), { qpus: undefined, target: undefined });
  assert.deepEqual([r.qpus, r.target], [2, 'emulator']);
});

test('a progress callback that fails in its last report does not hide the run\'s own error', () => {
  for (const target of ['emulator', 'interpreter'] as const)
    assert.throws(
      () => spin.with({ target, maxSteps: 5000, onProgress: (p: Progress) => { if (p.done) throw new Error('the UI failed'); } }).sync(SharedArray.int32(16)),
      (e: unknown) => (e instanceof EmulatorError || e instanceof InterpreterError) && /step budget of 5,000/.test(e.message),
      target,
    );
});

test('a DMA race between QPUs in a kernel says what it means for a kernel', async () => {
  // Every QPU does every element: saxpy written for one QPU, run on 2 (in a random interleaving:
  // in the QPUs' clock order the two happen to stay clear of each other's stores).
  const saxpy = kernel([Int, Float, Ptr(Float), Ptr(Float)], function saxpy(n, a, x, y) {
    const i = Int(0);
    For(i.lt(n), () => i.set(i.add(16)), () => {
      y.add(i).store(a.mul(x.add(i).load()).add(y.add(i).load()));
    });
  });
  const n = 64000;
  await assert.rejects(
    saxpy(n, 2, SharedArray.float32(n), SharedArray.float32(n), { qpus: 2, interleave: 1 }),
    /`\*\(y \+ i\) = \(a \* \*\(x \+ i\)\) \+ \*\(y \+ i\)`.*\[dma-store-race\].*; in a kernel this means two QPUs store to, or one loads from, the same memory in one run: give each QPU its own part of the arrays \(me\(\), numQPUs\(\)\)/,
  );
});
