// The fuzz suite, building kernels from what plain JavaScript can pass: signatures with holes,
// bare or forged types, odd names and options; kernel functions and blocks that are async,
// generators or return Promises, at any depth; values forged with Object.create or copied. Each
// kernel() call ends in a kernel that runs and agrees on both targets, or in a DslError or
// CheckError that names the kernel and the user's line; never a TypeError from inside qpu-ts, a
// kernel built from a bad signature, or a rejection that surfaces later.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as Q from '../../src/index.ts';
import { DslError } from '../../src/dsl/builder.ts';
import { type Fuzz, fuzzLoop } from '../helpers/hostile.ts';

const { Float, If, index, Int, Ptr, SharedArray, Where, While } = Q;
const js = Q as unknown as Record<string, (...a: unknown[]) => unknown>;
const HERE = /kernel-build-fuzz\.test\.ts:\d+:\d+/;

/** A parameter list: good types, or a hole, a bare Ptr, a forged object, a number... */
function signature(f: Fuzz): { params: unknown[]; bad: boolean; text: string } {
  const params: unknown[] = [];
  const text: string[] = [];
  let bad = false;
  const n = f.int(5);
  for (let i = 0; i < n; i++) {
    const k = f.int(12);
    if (k < 8) {
      const t = [Int, Float, Ptr(Int), Ptr(Float)][k % 4];
      params[i] = t;
      text.push(['Int', 'Float', 'Ptr(Int)', 'Ptr(Float)'][k % 4]!);
      continue;
    }
    bad = true;
    if (k === 8) text.push(''); // a hole: nothing is assigned at i
    else {
      const j = f.int(7);
      params[i] = [Ptr, { ty: 'int' }, 5, null, undefined, 'Int', Object.create(Int)][j];
      text.push(['Ptr', "{ ty: 'int' }", '5', 'null', 'undefined', "'Int'", 'Object.create(Int)'][j]!);
    }
  }
  params.length = n;
  return { params, bad, text: `[${text.join(', ')}]` };
}

type Body = (p: Q.PtrVar<'int'>) => unknown;

/** A body that stores a value, with a block somewhere in it that may be async, a generator or return a Promise. */
function body(f: Fuzz): { fn: Body; deferred: boolean; text: string } {
  const deferred = f.chance(0.5);
  const how = f.int(3);
  const block = deferred
    ? [async () => {}, function* () {}, () => Promise.resolve()][how]!
    : () => {};
  const kinds = ['If', 'Else', 'While', 'Where', 'top'] as const;
  const where = f.pick(kinds);
  const text = `${deferred ? ['async', 'generator', 'a Promise'][how] : 'plain'} block in ${where}`;
  const fn: Body = (p) => {
    const x = Int(index());
    const b = block as () => void;
    if (where === 'If') If(x.lt(3), b);
    else if (where === 'Else') If(x.lt(3), () => {}).Else(b);
    else if (where === 'While') While(x.lt(0), b);
    else if (where === 'Where') Where(x.lt(3), b);
    else if (deferred) return b(); // the kernel's function itself returns it
    p.store(x);
    return undefined;
  };
  return { fn, deferred, text };
}

test('random signatures, deferred bodies and forged values: a kernel, or a located DslError', async () => {
  const out = SharedArray.int32(16);
  const late: unknown[] = [];
  const onLate = (e: unknown) => late.push(e);
  process.on('unhandledRejection', onLate);
  try {
    const n = await fuzzLoop(7_000_000, 600, 4000, (f) => {
      const sig = signature(f);
      const b = body(f);
      const forge = f.chance(0.15);
      const input = () => `${sig.text}, ${b.text}${forge ? ', a forged value' : ''}`;
      const params = sig.bad ? sig.params : [Ptr(Int), ...sig.params];
      let k: Q.Kernel<readonly Q.ParamType[]> | undefined;
      try {
        k = js.kernel!(params, function fuzzed(p: Q.PtrVar<'int'>) {
          if (forge) p.store(Object.create(Object.getPrototypeOf(Int(0))));
          return b.fn(p);
        }) as Q.Kernel<readonly Q.ParamType[]>;
      } catch (e) {
        if (!(e instanceof DslError) || !/^kernel fuzzed \(/.test(e.message) || !HERE.test(e.message)) assert.fail(`unexpected ${(e as Error)?.stack ?? e}\ninput: ${input()}`);
        return;
      }
      assert.ok(!sig.bad && !b.deferred && !forge, `a kernel was built from ${input()}`);
      const args = [out, ...sig.params.map((t) => (t === Int ? 1 : t === Float ? 1.5 : t === Ptr(Int) ? SharedArray.int32(16) : SharedArray.float32(16)))];
      (k.interpretSync as (a: unknown[]) => unknown)(args);
      assert.deepEqual(Array.from(out), Array.from({ length: 16 }, (_, l) => l), input());
      out.fill(0);
      (k.emulateSync as (a: unknown[]) => unknown)(args);
      assert.deepEqual(Array.from(out), Array.from({ length: 16 }, (_, l) => l), input());
    });
    assert.ok(n >= 100, `only ${n} cases in the time`);
    await new Promise((r) => setTimeout(r, 20)); // what an async body left for later has run
    assert.deepEqual(late, [], 'no rejection surfaced later');
  } finally {
    process.off('unhandledRejection', onLate);
  }
});
