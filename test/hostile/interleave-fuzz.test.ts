// The fuzz suite, random interleavings: multi-QPU kernels, race-free and racy, run on both
// targets with the QPUs in random interleavings (the run option `interleave`), random seeds,
// QPU counts and semaphores. A race-free kernel (a two-semaphore barrier exchanging vectors, a
// counter behind the mutex, a token passed round a ring of semaphores, the differential
// fuzzer's generated programs) must give its one right result under every seed on both
// targets; a racy one (a barrier on one semaphore, a counter without the mutex, a consumer that
// loads before it waits) may give a wrong result or stop with an error that names the kernel
// (a deadlock, or on the emulator a broken rule), but never hangs or crashes a target.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { For, If, index, Int, kernel, type KernelRunOptions, me, mutexLock, mutexUnlock, numQPUs, Ptr, semaDec, semaInc, SharedArray } from '../../src/index.ts';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { InterpreterError } from '../../src/source/interpreter.ts';
import { DifferentialRunner } from '../../src/runtime/differential.ts';
import { generate } from '../../src/source/generate.ts';
import { type Fuzz, fuzzLoop } from '../helpers/hostile.ts';

type Target = 'interpreter' | 'emulator';
type Family = 'barrier' | 'counter' | 'ring';
/** A kernel of any of the families, as this test calls it. */
interface Made {
  readonly kernelName: string;
  with(o: KernelRunOptions): { sync(...args: readonly (Int32Array | number)[]): unknown };
}
/** The kernels made so far, one for each family's compile-time choices (semaphores, race or not, QPUs). */
const made = new Map<string, Made>();

/** QPU 0 waits for every other QPU's arrival on `arrive`, then releases them on `release` (`racy`: the same semaphore). */
function meet(arrive: number, release: number, store: () => void): void {
  If(me().eq(0), () => {
    const i = Int(1);
    For(i.lt(numQPUs()), () => i.set(i.add(1)), () => semaDec(arrive));
    store();
    const j = Int(1);
    For(j.lt(numQPUs()), () => j.set(j.add(1)), () => semaInc(release));
  }).Else(() => {
    store();
    semaInc(arrive);
    semaDec(release);
  });
}

/** Each QPU stores its vector, meets the others, and copies its neighbour's (me + 1, round) to out. */
function barrier(arrive: number, release: number) {
  return kernel([Ptr(Int), Ptr(Int)], function barrier(mine, out) {
    meet(arrive, release, () => mine.add(me().mul(16)).store(index().add(me().mul(100))));
    const next = Int(me().add(1));
    If(next.ge(numQPUs()), () => next.set(0));
    out.add(me().mul(16)).store(mine.add(next.mul(16)).load());
  });
}

/** Each QPU adds me() + 1 to a shared vector `times` times, behind the mutex (or not: `racy`). */
function counter(racy: boolean) {
  return kernel([Ptr(Int), Int], function counter(c, times) {
    const k = Int(0);
    For(k.lt(times), () => k.set(k.add(1)), () => {
      if (!racy) mutexLock();
      c.store(Int(c.load()).add(me().add(1)));
      if (!racy) mutexUnlock();
    });
  });
}

/**
 * A token passed along `qpus` QPUs: QPU 0 starts it at 1, each next QPU waits on its semaphore
 * (first + its number - 1), adds its number to the token its predecessor stored and stores it
 * on; `racy`: it loads the token before it waits.
 */
function ring(first: number, racy: boolean, qpus: number) {
  return kernel([Ptr(Int)], function ring(slots) {
    const token = Int(1);
    If(me().ne(0), () => {
      const from = slots.add(me().sub(1).mul(16));
      if (racy) token.set(from.load());
      // Semaphore first + me() - 1: a literal per QPU, chosen by a chain of Ifs.
      for (let q = 1; q < qpus; q++) If(me().eq(q), () => semaDec(first + q - 1));
      if (!racy) token.set(from.load());
      token.set(token.add(me()));
    });
    slots.add(me().mul(16)).store(token);
    for (let q = 0; q < qpus - 1; q++) If(me().eq(q), () => semaInc(first + q));
  });
}

const once = (key: string, make: () => unknown): Made => made.get(key) ?? (made.set(key, make() as Made), made.get(key)!);

/** A random kernel of a family, its arguments, and the result a right run leaves (per target: fresh arrays). */
function pick(f: Fuzz, family: Family, racy: boolean, qpus: number) {
  if (family === 'barrier') {
    const arrive = f.int(15);
    const release = racy ? arrive : (arrive + 1 + f.int(14)) % 15;
    const k = once(`barrier ${arrive} ${release}`, () => barrier(arrive, release));
    return {
      k,
      args: () => [SharedArray.int32(16 * qpus), SharedArray.int32(16 * qpus)] as const,
      result: (a: readonly (Int32Array | number)[]) => Array.from(a[1] as Int32Array),
      want: Array.from({ length: 16 * qpus }, (_, i) => (i % 16) + 100 * ((Math.floor(i / 16) + 1) % qpus)),
    };
  }
  if (family === 'counter') {
    const times = 1 + f.int(3);
    const k = once(`counter ${racy}`, () => counter(racy));
    return {
      k,
      args: () => [SharedArray.int32(16), times] as const,
      result: (a: readonly (Int32Array | number)[]) => Array.from(a[0] as Int32Array),
      want: new Array(16).fill((times * qpus * (qpus + 1)) / 2),
    };
  }
  const first = f.int(15 - (qpus - 1) + 1);
  const k = once(`ring ${first} ${racy} ${qpus}`, () => ring(first, racy, qpus));
  let token = 1;
  const want: number[] = [];
  for (let q = 0; q < qpus; q++) want.push(...new Array(16).fill((token += q === 0 ? 0 : q)));
  return { k, args: () => [SharedArray.int32(16 * qpus)] as const, result: (a: readonly (Int32Array | number)[]) => Array.from(a[0] as Int32Array), want };
}

type Outcome = { ok: true; result: number[] } | { ok: false; message: string };

function runOn(target: Target, k: Made, args: readonly (Int32Array | number)[], qpus: number, interleave: number, ctx: string): Outcome {
  try {
    k.with({ target, qpus, interleave, maxSteps: 2_000_000 }).sync(...args);
  } catch (e) {
    const named = target === 'interpreter' ? e instanceof InterpreterError : e instanceof EmulatorError;
    assert.ok(named, `${ctx}: the ${target} threw ${(e as Error)?.stack ?? String(e)}`);
    const m = (e as Error).message;
    assert.match(m, new RegExp(`^kernel ${k.kernelName}\\b`), `${ctx}: the ${target}'s error does not name the kernel`);
    if (e instanceof EmulatorError && e.kind !== 'deadlock') assert.match(m, /: QPU \d+, pc \d+ \(/, `${ctx}: the emulator's error does not say where`);
    return { ok: false, message: m };
  }
  return { ok: true, result: [] };
}

test('fuzz: race-free and racy kernels in random interleavings on both targets', async () => {
  let racesShown = 0;
  let racyRuns = 0;
  const n = await fuzzLoop(90_000, 300, 8_000, (f) => {
    const family = f.pick(['barrier', 'counter', 'ring'] as const);
    const racy = f.chance(0.4);
    const qpus = 2 + f.int(family === 'counter' ? 11 : 5);
    const c = pick(f, family, racy, qpus);
    const interleave = f.word();
    for (const target of ['interpreter', 'emulator'] as const) {
      const ctx = `seed ${f.seed}: ${racy ? 'racy' : 'race-free'} ${family} on ${qpus} QPUs, ${target}, interleave ${interleave}`;
      const args = c.args();
      const o = runOn(target, c.k, args, qpus, interleave, ctx);
      const right = o.ok && c.result(args).every((x, i) => x === c.want[i]);
      if (!racy) assert.ok(right, `${ctx}: a race-free kernel ${o.ok ? `gave ${c.result(args).slice(0, 32)}, not ${c.want.slice(0, 32)}` : `failed: ${o.message}`}`);
      else {
        racyRuns++;
        if (!right) racesShown++;
      }
    }
  });
  assert.ok(n >= 30, `only ${n} kernels ran`);
  assert.ok(racesShown > 0, `no racy kernel failed in ${racyRuns} runs`);
});

test('fuzz: the differential fuzzer\'s programs on several QPUs agree on both targets under random interleavings', async () => {
  const runner = new DifferentialRunner();
  // 12 s: about 35 programs on a quiet 2-core machine, 20 or more on a loaded one.
  const n = await fuzzLoop(95_000, 60, 12_000, (f) => {
    const p = generate(f.seed, { qpus: [2, 3, 4, 12] });
    const r = runner.run(p, p.ast, f.word());
    assert.equal(r.kind, 'agree', `seed ${f.seed} on ${p.qpus} QPUs: ${r.kind === 'invalid' ? r.error : r.kind === 'mismatch' ? r.detail : ''}`);
  });
  assert.ok(n >= 20, `only ${n} programs ran`);
});
