// Errors in compiled kernels name the kernel and the statement the failing instruction came
// from, as well as the QPU, pc and instruction; a kernel the QPU cannot run fails to compile
// with the kernel named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { any, index, Int, kernel, Ptr, SharedArray, While } from '../../src/index.ts';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { CompileError } from '../../src/compiler/errors.ts';
import { InterpreterError } from '../../src/source/interpreter.ts';

test('an endless loop on the emulator names the kernel, the loop and where it was written', () => {
  const k = kernel([Ptr(Int)], function runaway(p) {
    const i = Int(0);
    While(any(i.ge(0)), () => i.set(i.add(1)));
    p.store(i);
  });
  assert.throws(
    () => k.emulateSync([SharedArray.int32(16)], { maxSteps: 50_000 }),
    (e: unknown) =>
      e instanceof EmulatorError &&
      e.kind === 'budget' &&
      /^kernel runaway in .*errors\.test\.ts:\d+:\d+ `while any\(i >= 0\)`: QPU 0, pc \d+ \(/.test(e.message) &&
      e.where?.qpu === 0,
  );
});

test('a store outside memory on the emulator names the statement and the address', () => {
  const k = kernel([Ptr(Int)], function far(p) {
    p.add(1000).store(index());
  });
  assert.throws(
    () => k.emulateSync([SharedArray.int32(16)]),
    (e: unknown) => e instanceof EmulatorError && e.kind === 'fault' && /kernel far in .*`\*\(p \+ 1000\) = index\(\)`: QPU 0, pc \d+ \([^)]*vw_addr[^)]*\): DMA store at 0x[0-9a-f]+: 3936 bytes past the end/.test(e.message),
  );
});

test('an expression nested too deeply for the host stack is an error naming the kernel, not a crash', () => {
  const k = kernel([Ptr(Int)], function deep(p) {
    let e = index();
    for (let i = 0; i < 30_000; i++) e = e.add(i & 7);
    p.store(e);
  });
  const deep = /^kernel deep: expressions or blocks nested too deeply to (compile|run)/;
  assert.throws(() => k.code(), (e: unknown) => e instanceof CompileError && deep.test(e.message));
  assert.throws(() => k.interpretSync([SharedArray.int32(16)]), (e: unknown) => e instanceof InterpreterError && deep.test(e.message));
});
