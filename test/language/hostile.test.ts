// Bad input to the language and to kernel calls: every mistake is a clear error that names the
// kernel (and the statement), the same on both targets; never a host TypeError, a stack
// overflow without a name, or a run without a limit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as Q from '../../src/index.ts';
import { DslError, frameLocation } from '../../src/dsl/builder.ts';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { DEFAULT_SECONDS, EMULATOR_STEPS, INTERPRETER_STEPS } from '../../src/common/budget.ts';

const { Float, If, Int, kernel, me, mutexLock, Ptr, semaDec, SharedArray, While } = Q;
// The language as plain JavaScript sees it: no types to stop a wrong argument.
const js = Q as unknown as Record<string, (...a: unknown[]) => unknown>;
type Any = Record<string, (...a: unknown[]) => unknown>;

const MISUSES: [string, RegExp, (p: Any, x: Any, f: Any) => unknown][] = [
  ['receive()', /receive needs a variable/, () => js.receive!()],
  ['receive(5)', /receive needs a variable/, () => js.receive!(5)],
  ['If with a number for a block', /a block is a function \(\(\) => \{ \.\.\. \}\), not 5/, (_p, x) => js.If!(x.eq!(1), 5)],
  ['Else with a string', /a block is a function .*not the string "x"/, (_p, x) => (js.If!(x.eq!(1), () => {}) as Any).Else!('x')],
  ['x.add("a")', /Int\.add: expected an Int or a number, got the string "a"/, (_p, x) => x.add!('a')],
  ['x.add(undefined)', /Int\.add: expected an Int or a number, got undefined/, (_p, x) => x.add!(undefined)],
  ['x.set(null)', /Int\.set: expected an Int or a number, got null/, (_p, x) => x.set!(null)],
  ['x.eq({})', /Int\.eq: expected an Int or a number, got an object/, (_p, x) => x.eq!({})],
  ['x.shl(Symbol())', /got a symbol/, (_p, x) => x.shl!(Symbol('s'))],
  ['Int("x")', /Int: expected an Int or a number, got the string "x"/, () => (Int as unknown as (a: unknown) => void)('x')],
  ['Float({})', /Float: expected a Float or a number, got an object/, () => (Float as unknown as (a: unknown) => void)({})],
  ['rotate(5, 1)', /rotate needs an Int or a Float to rotate, not 5/, () => js.rotate!(5, 1)],
  ['rotate(x, "a")', /rotate: expected an Int or a number/, (_p, x) => js.rotate!(x, 'a')],
  ['any(5)', /any needs a vector condition .*not 5/, () => js.any!(5)],
  ['all(x)', /all needs a vector condition/, (_p, x) => js.all!(x)],
  ['c.and(1)', /and needs a vector condition .*not 1/, (_p, x) => (x.eq!(1) as Any).and!(1)],
  ['p.store(undefined)', /Ptr\.store: expected an Int or a number, got undefined/, (p) => p.store!(undefined)],
  ['recip of an Int', /recip needs a Float, not an Int \(convert it with toFloat\(\)\)/, (_p, x) => js.recip!(x)],
  ['exp2(3)', /exp2 needs a Float, not 3/, () => js.exp2!(3)],
];

for (const [name, message, body] of MISUSES)
  test(`language misuse from JavaScript: ${name}`, () => {
    assert.throws(
      () => kernel([Ptr(Int)], function bad(p) {
        body(p as unknown as Any, Int(0) as unknown as Any, Float(0) as unknown as Any);
      }),
      (e: unknown) => e instanceof DslError && /^kernel bad \(.*hostile\.test\.ts:\d+:\d+\): /.test(e.message) && message.test(e.message),
    );
  });

test('host arguments of the wrong kind say what they are', () => {
  const k = kernel([Int, Float, Ptr(Int)], function f(n, _x, p) {
    p.store(n);
  });
  const a = SharedArray.int32(16);
  const call = (args: unknown[]) => () => k.interpretSync(args as never);
  assert.throws(call([1n, 1, a]), /argument 1 \(n\): expected a 32-bit integer \(a number\), got the bigint 1n$/);
  assert.throws(call(['1', 1, a]), /argument 1 \(n\): expected a 32-bit integer \(a number\), got the string "1"$/);
  assert.throws(call([1, '1.5', a]), /argument 2 \(_x\): expected a number, got the string "1.5"$/);
  assert.throws(call([1, 1, new Float32Array(4)]), /argument 3 \(p\): expected a SharedArray of int32 \(SharedArray\.int32\), got a Float32Array$/);
  assert.throws(call([1, 1, {}]), /argument 3 \(p\): expected a SharedArray of int32 .*, got an object$/);
});

test('blocks nested deeper than the host stack are a DslError naming the kernel', () => {
  assert.throws(
    () =>
      kernel([Ptr(Int)], function deep(p) {
        const x = Int(0);
        const nest = (d: number): void => {
          if (d === 0) x.set(x.add(1));
          else If(x.ge(0), () => nest(d - 1));
        };
        nest(30_000);
        p.store(x);
      }),
    (e: unknown) => e instanceof DslError && /^kernel deep: blocks nested \d+ deep when the host's stack ran out/.test(e.message),
  );
});

const spin = kernel([Ptr(Int)], function spin(p) {
  const x = Int(0);
  While(x.ge(0), () => x.set(x.add(1).and(1023)));
  p.store(x);
});

test('maxSteps is checked the same way on both targets', () => {
  const a = SharedArray.int32(16);
  for (const bad of [NaN, -1, 1.5, '10', -Infinity]) {
    const expected = new RegExp(`^kernel spin: maxSteps must be a whole number of steps from 0 up \\(or Infinity\\), not ${bad === '10' ? '"10"' : String(bad)}$`);
    assert.throws(() => spin.interpretSync([a], { maxSteps: bad as number }), (e: unknown) => e instanceof RangeError && expected.test(e.message));
    assert.throws(() => spin.emulateSync([a], { maxSteps: bad as number }), (e: unknown) => e instanceof RangeError && expected.test(e.message));
  }
});

test('the default budgets stop a runaway kernel on both targets and say how far it got', () => {
  const a = SharedArray.int32(16);
  // A tight loop meets the step budget in about 4 s; on a slow or busy machine the time limit may come first.
  const n = (x: number) => x.toLocaleString('en-US');
  const time = `the run stopped after ${DEFAULT_SECONDS} s, the time limit of a run given no maxSteps`;
  assert.throws(
    () => spin.interpretSync([a]),
    new RegExp(`(the step budget of ${n(INTERPRETER_STEPS)} statements ran out after|${time}, having run) [\\d,]+ statements: an endless loop\\? pass \\{ maxSteps \\} to (allow more|run longer)$`),
  );
  assert.throws(
    () => spin.emulateSync([a]),
    (e: unknown) =>
      e instanceof EmulatorError && e.kind === 'budget' &&
      new RegExp(`^kernel spin in .*: (the step budget of ${n(EMULATOR_STEPS)} instructions ran out after|${time}, having run) [\\d,]+ instructions, [\\d,]+ cycles \\([\\d.]+ m?s on a Pi\\): an endless loop\\? pass \\{ maxSteps \\} to (allow more|run longer)$`).test(e.message),
  );
});

test('a runaway whose steps are slow stops at the default time limit; an explicit maxSteps has none', () => {
  const a = SharedArray.int32(16);
  // One statement of 2,000 operations: the statement budget alone would take minutes.
  const heavy = kernel([Ptr(Int)], function heavy(p) {
    const v = Int(0);
    While(v.ge(0), () => {
      let x = v.add(0);
      for (let i = 0; i < 2000; i++) x = x.add(i);
      v.set(x.and(7));
    });
    p.store(v);
  });
  const t = performance.now();
  assert.throws(() => heavy.interpretSync([a]), new RegExp(`kernel heavy, QPU 0 .*: the run stopped after ${DEFAULT_SECONDS} s, the time limit of a run given no maxSteps, having run [\\d,]+ statements: an endless loop\\? pass \\{ maxSteps \\} to run longer$`));
  assert.ok(performance.now() - t < (DEFAULT_SECONDS + 5) * 1000);
  assert.throws(() => heavy.interpretSync([a], { maxSteps: 1000 }), /the step budget of 1,000 statements ran out/);
});

test("a deadlock names each waiting QPU's statement, and the end-of-kernel barrier in the user's terms", () => {
  const out = SharedArray.int32(32);
  const stuck = kernel([Ptr(Int)], function stuck(p) {
    If(me().eq(1), () => semaDec(0));
    p.add(me().mul(16)).store(me());
  }).setNumQPUs(2);
  assert.throws(() => stuck.interpretSync([out]), /deadlock.*QPU 1 in .*hostile\.test\.ts:\d+:\d+ `semaDec\(0\)` waits for semaphore 0 to be above 0 \(it is 0\)$/);
  assert.throws(
    () => stuck.emulateSync([out]),
    (e: unknown) =>
      e instanceof EmulatorError && e.kind === 'deadlock' && !/semaphore 15|pc \d/.test(e.message) &&
      /^kernel stuck: deadlock: every QPU still running waits on another: QPU 0 has finished the kernel and waits for every other QPU to finish it; QPU 1 in .*hostile\.test\.ts:\d+:\d+ `semaDec\(0\)` waits for semaphore 0 to be above 0 \(it is 0\)$/.test(e.message),
  );
  // On 3 QPUs, QPU 2 finishes too: both targets list every QPU, in order.
  const three = SharedArray.int32(48);
  const finished = 'QPU 2 has finished the kernel$';
  const waits = 'QPU 1 in .*hostile\\.test\\.ts:\\d+:\\d+ `semaDec\\(0\\)` waits for semaphore 0 to be above 0 \\(it is 0\\); ';
  assert.throws(() => stuck.interpretSync([three], { qpus: 3 }), new RegExp(`: deadlock: every QPU still running waits on another: QPU 0 has finished the kernel; ${waits}${finished}`));
  assert.throws(() => stuck.emulateSync([three], { qpus: 3 }), new RegExp(`: deadlock: every QPU still running waits on another: QPU 0 has finished the kernel and waits for every other QPU to finish it; ${waits}${finished}`));
  const hog = kernel([Ptr(Int)], function hog(p) {
    mutexLock();
    p.add(me().mul(16)).store(me());
  }).setNumQPUs(2);
  assert.throws(() => hog.emulateSync([out]), /QPU 1 in .* `mutexLock\(\)` waits for the mutex, held by QPU 0$/);
});

test('stack frames are read in linear time, whatever the length of the names in them', () => {
  assert.deepEqual(frameLocation('    at f (file:///a/b.ts:3:5)'), { file: 'file:///a/b.ts', line: '3', col: '5' });
  assert.deepEqual(frameLocation('    at /a/b c.ts:10:2'), { file: '/a/b c.ts', line: '10', col: '2' });
  assert.deepEqual(frameLocation('    at weird (name) (/a/b.ts:1:1)'), { file: '/a/b.ts', line: '1', col: '1' });
  assert.equal(frameLocation('    at async Promise.all (index 0)'), undefined);
  const t = performance.now();
  assert.equal(frameLocation(`    at ${'('.repeat(200_000)}`), undefined);
  const name = 'k' + 'x'.repeat(256 * 1024);
  const body = new Function('Int', `return function ${name}(p) { p.store(Int(1)); }`)(Int) as (p: unknown) => void;
  const k = kernel([Ptr(Int)], body);
  k.interpretSync([SharedArray.int32(16)]);
  assert.ok(performance.now() - t < 5000, 'a 256 KiB function name costs no more than a short one');
});
