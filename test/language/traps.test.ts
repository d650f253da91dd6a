// Traps a user fell into without any error (issue 22): a kernel call whose results were read
// before the run, async or generator bodies that built a kernel cut short, holes and forged types
// in a signature that shifted parameters onto locals, forged values, a stack that started inside
// qpu-ts, and source files named by a stack frame that could hang or exhaust the host. Each is
// now a clear error, or the results are there, on every target.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import * as Q from '../../src/index.ts';
import { DslError } from '../../src/dsl/builder.ts';
import { lanes } from '../helpers/lang.ts';

const { Float, If, index, Int, kernel, Ptr, SharedArray, Where, While } = Q;
const js = Q as unknown as Record<string, (...a: unknown[]) => unknown>;
const HERE = /traps\.test\.ts:\d+:\d+/;

const squares = kernel([Ptr(Int)], function squares(p) {
  const x = Int(index());
  p.store(x.mul(x));
});

for (const target of ['interpreter', 'emulator'] as const)
  test(`a kernel call's arrays hold the results when the call returns, awaited or not (${target})`, () => {
    const out = SharedArray.int32(16);
    const done = squares(out, { target }); // no await
    assert.deepEqual(Array.from(out), lanes((l) => l * l));
    return done.then((r) => assert.equal(r.target, target));
  });

test("a failed run's error rejects the call's Promise, thrown by nobody at the call", async () => {
  const over = kernel([Ptr(Int)], function over(p) {
    p.add(1000).store(1);
  });
  const out = SharedArray.int32(16);
  let promise: Promise<unknown> | undefined;
  assert.doesNotThrow(() => (promise = over(out)));
  await assert.rejects(promise!, /kernel over/);
});

const DEFERRED: [string, RegExp, () => unknown][] = [
  ['an async kernel function', /the kernel's function is an async function: .*remove async and await/, () => kernel([Ptr(Int)], async function k(p) { await 0; p.store(1); })],
  ['a kernel function returning a Promise', /the kernel's function returned a Promise/, () => kernel([Ptr(Int)], function k(p) { return Promise.resolve().then(() => p.store(1)) as unknown as void; })],
  ['a generator kernel function', /the kernel's function is a generator function/, () => js.kernel!([Ptr(Int)], function* k() { yield 1; })],
  ['an async While body', /a block is an async function/, () => kernel([Ptr(Int)], function k(p) { const i = Int(0); While(i.lt(3), async () => { await 0; i.set(i.add(1)); }); p.store(i); })],
  ['an async Else body', /a block is an async function/, () => kernel([Ptr(Int)], function k(p) { If(index().lt(3), () => {}).Else(async () => { p.store(1); }); })],
  ['an async Where body', /a block is an async function/, () => kernel([Ptr(Int)], function k(p) { const x = Int(0); Where(index().lt(3), async () => x.set(1)); p.store(x); })],
  ['a block returning a Promise', /a block returned a Promise/, () => kernel([Ptr(Int)], function k(p) { If(index().lt(3), () => Promise.resolve(p.store(1)) as unknown as void); })],
];
for (const [what, message, make] of DEFERRED)
  test(`${what} is refused, with the kernel's name and line`, () => {
    assert.throws(make, (e: unknown) => e instanceof DslError && /^kernel k \(/.test(e.message) && HERE.test(e.message) && message.test(e.message));
  });

const SIGNATURES: [string, RegExp, () => unknown][] = [
  ['a hole in the list', /parameter 2 of 3 has no type \(a hole in the list/, () => js.kernel!([Ptr(Int), , Int], function k() {})],
  ['a trailing hole', /parameter 2 of 2 has no type/, () => js.kernel!(Object.assign([Ptr(Int)], { length: 2 }), function k() {})],
  ['Ptr without its element', /parameter 1's type must be .*, not Ptr itself \(write Ptr\(Int\) or Ptr\(Float\)\)/, () => js.kernel!([Ptr], function k() {})],
  ['a forged type', /parameter 1's type must be Int, Float or a Ptr \(Ptr\(Int\), Ptr\(Float\), Ptr\(Uint8\), Ptr\(Int8\), Ptr\(Uint16\), Ptr\(Int16\)\), not an object/, () => js.kernel!([{ ty: 'int' }], function k() {})],
  ['a number', /parameter 2's type must be .*, not 5/, () => js.kernel!([Int, 5], function k() {})],
  ['no list', /first argument is the list of parameter types.*not undefined/, () => js.kernel!(undefined, function k() {})],
  ['an object for the list', /first argument is the list of parameter types.*not an object/, () => js.kernel!({ 0: Int, length: 1 }, function k() {})],
  ['no function', /second argument is the kernel's function.*not undefined/, () => js.kernel!([Int])],
  ['null options', /options, if given, are an object.*not null/, () => js.kernel!([Int], function k() {}, null)],
  ['a name that is not a string', /a kernel's name is a string of 1 to 64 characters.*not 5/, () => js.kernel!([Int], function k() {}, { name: 5 })],
  ['a name with an escape sequence', /a kernel's name is a string/, () => js.kernel!([Int], function k() {}, { name: '\x1b[31mred' })],
];
for (const [what, message, make] of SIGNATURES)
  test(`a bad signature is a DslError at the user's line: ${what}`, () => {
    assert.throws(make, (e: unknown) => e instanceof DslError && HERE.test(e.message) && message.test(e.message));
  });

test('Ptr of something other than Int, Float or the 8- and 16-bit types says what it got', () => {
  assert.throws(() => js.Ptr!(5), (e: unknown) => e instanceof DslError && /Ptr takes Int, Float, Uint8, Int8, Uint16 or Int16 \(Ptr\(Int\), Ptr\(Uint8\), \.\.\.\), not 5/.test(e.message) && HERE.test(e.message));
});

test('values forged with Object.create are refused where they are used, naming the kernel', () => {
  const forge = (make: (x: Q.IntVar, p: Q.PtrVar<'int'>) => void) => () => kernel([Ptr(Int)], function k(p) { make(Int(0), p); });
  const notMade = (e: unknown) => e instanceof DslError && /^kernel k \(/.test(e.message) && /was not made by the language/.test(e.message) && HERE.test(e.message);
  assert.throws(forge((x, p) => p.store(Object.create(Object.getPrototypeOf(x)))), notMade);
  assert.throws(forge((x) => x.set(Object.create(Object.getPrototypeOf(x)))), notMade);
  assert.throws(forge((_x, p) => (Object.create(Object.getPrototypeOf(p)) as typeof p).store(1)), notMade);
  assert.throws(forge((x) => If(Object.create(Object.getPrototypeOf(x.lt(1))), () => {})), notMade);
  assert.throws(forge((x) => x.add({ ...x } as unknown as Q.IntVar)), /Int\.add: expected an Int or a number, got an object/);
});

test("an error's stack starts at the user's call, not inside qpu-ts", async () => {
  const firstFrame = (e: unknown) => (e as Error).stack!.split('\n').find((l) => /^\s+at /.test(l)) ?? '';
  const over = kernel([Ptr(Int)], function over(p) {
    p.add(1000).store(1);
  });
  const out = SharedArray.int32(16);
  for (const [what, run] of [
    ['await k(a)', () => over(out)],
    ['k.emulateSync', () => over.emulateSync([out])],
    ['k.interpretSync', () => over.interpretSync([out])],
    ['a wrong argument', () => (over as unknown as (a: unknown) => Promise<unknown>)('x')],
    ['a bad option', () => over(out, { qpus: 13 })],
    ['a bad signature', () => js.kernel!([Ptr], function k() {})],
    ['a misuse in a body', () => kernel([Ptr(Int)], function k(p) { p.store(js.Int!('x') as never); })],
  ] as const) {
    let err: unknown;
    try {
      await (run as () => unknown)();
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof Error, `${what} fails`);
    assert.match(firstFrame(err), HERE, `${what}: the first frame is ${firstFrame(err)}`);
  }
});

test('a stack frame naming a FIFO or a device is not read for names (no hang, no exhausted host)', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-traps-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fifo = join(dir, 'fifo');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
  const index = new URL('../../src/index.ts', import.meta.url).href;
  for (const file of [fifo, '/dev/zero', dir]) {
    const script = `
      const Q = await import(${JSON.stringify(index)});
      const make = new Function('Q', 'return Q.kernel([Q.Ptr(Q.Int)], function named(p) { const x = Q.Int(7); p.store(x); });\\n//# sourceURL=${file}');
      const k = make(Q);
      const out = Q.SharedArray.int32(16);
      await k(out);
      console.log(out[0], k.dump().includes('= 7') ? 'built' : 'odd');`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.signal, null, `${file}: killed by ${r.signal} (a hang?)`);
    assert.equal(r.status, 0, `${file}: ${r.stderr}`);
    assert.equal(r.stdout.trim(), '7 built', file);
  }
});

test('a float literal beyond the range or too small for the QPU is an error, not Infinity or 0', () => {
  const build = (v: number) => () => kernel([Ptr(Float)], function k(p) { p.store(Float(v)); });
  assert.throws(build(1e39), (e: unknown) => e instanceof DslError && /Float: 1e\+39 is beyond a float's range.*write Infinity if you mean it/.test(e.message) && HERE.test(e.message));
  assert.throws(build(-1e39), /-1e\+39 is beyond a float's range/);
  assert.throws(build(1e-40), /Float: 1e-40 is too small for a float the QPU computes with.*write 0 if you mean it/);
  assert.throws(build(-1e-45), /too small/);
  assert.throws(() => kernel([Ptr(Float)], function k(p) { p.store(Float(1).mul(1e-39)); }), /Float\.mul: 1e-39 is too small/);
  for (const fine of [Infinity, -Infinity, 0, -0, 3.4028234663852886e38, 3.4028235e38, 1.1754943508222875e-38, 1e-30]) assert.doesNotThrow(build(fine), String(fine));
});

test("at -O2 a fault in a pipelined load names the user's load, not the statement paired with it", () => {
  const far = kernel([Ptr(Float), Ptr(Float), Int, Int], function far(x, y, n, o) {
    const i = Int(0);
    Q.For(i.lt(n), () => i.set(i.add(16)), () => {
      const v = Float(x.add(i).add(o).load());
      y.add(i).store(v.mul(2));
    });
  });
  const x = SharedArray.float32(64), y = SharedArray.float32(64);
  for (const qpus of [1, 2])
    for (const [n, o] of [[16, 1000], [48, -16], [64, 8]] as const)
      assert.throws(
        () => far.setNumQPUs(qpus).setOptLevel(2).emulateSync([x, y, n, o]),
        (e: unknown) => e instanceof Error && /^kernel far in .*traps\.test\.ts:\d+:\d+ `v = \*\(\(x \+ i\) \+ o\)`: QPU \d, pc \d+ .*TMU0 lookup/.test(e.message),
        `${qpus} QPUs, n ${n}, o ${o}`,
      );
});

test('a gather never received is an error when the kernel is built, naming the last such gather', () => {
  assert.throws(
    () => kernel([Ptr(Int)], function never(p) { Q.gather(p); p.store(Int(1)); }),
    (e: unknown) => e instanceof Error && e.name === 'CheckError' && /^kernel never \(.*traps\.test\.ts:\d+:\d+\): `gather\(p\)`: a gather is never received: .*receive\(v\)/.test(e.message),
  );
  assert.throws(
    () => kernel([Ptr(Int)], function some(p) { const x = Int(0); Q.gather(p); Q.gather(p.add(16)); Q.gather(p.add(32)); Q.receive(x); p.store(x); }),
    /`gather\(p \+ 32\)`: 2 gathers are never received \(this is the last\)/,
  );
  assert.doesNotThrow(() => kernel([Ptr(Int)], function all(p) { const x = Int(0); Q.gather(p); Q.receive(x); p.store(x); }));
});

test("SharedArray's errors start at the user's call too", () => {
  let err: unknown;
  try {
    SharedArray.from([1n] as unknown as number[]);
  } catch (e) {
    err = e;
  }
  assert.match((err as Error).message, /element 0 is the bigint 1n/);
  assert.match((err as Error).stack!.split('\n').find((l) => /^\s+at /.test(l))!, HERE);
});
