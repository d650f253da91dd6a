// Random interleavings (run option `interleave`, Machine.run's `interleave`, `qpu emu
// --interleave`): the QPUs take turns in an order drawn from a seed, on both targets, so that a
// race the target's fixed order hides shows for some seed; a race-free kernel gives the same
// result under every seed, and the same seed runs the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { For, If, Int, index, kernel, me, numQPUs, Ptr, semaDec, semaInc, SharedArray } from '../../src/index.ts';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { InterpreterError } from '../../src/source/interpreter.ts';
import { END, runAsm } from '../helpers/emu.ts';

/**
 * The QPUs meet at a barrier: QPU 0 waits for the others' arrivals (each having stored its
 * vector), stores its own and releases them. Then each copies a vector to `out`: its
 * neighbour's (QPU me + 1, round; `swap`) or its own. `racy`: the QPUs other than 0 arrive and wait on one semaphore, so
 * one can take back its own arrival and go on before QPU 0 has seen it (then QPU 0 waits
 * forever, or the copy reads a vector not yet stored); otherwise they arrive on semaphore 0 and
 * wait for QPU 0's release on semaphore 1.
 */
function exchange(racy: boolean, swap = true) {
  const release = racy ? 0 : 1;
  return kernel([Ptr(Int), Ptr(Int)], function exchange(mine, out) {
    const vector = Int(index().add(me().mul(100)));
    If(me().eq(0), () => {
      const i = Int(1);
      For(i.lt(numQPUs()), () => i.set(i.add(1)), () => semaDec(0));
      mine.store(vector);
      const j = Int(1);
      For(j.lt(numQPUs()), () => j.set(j.add(1)), () => semaInc(release));
    }).Else(() => {
      mine.add(me().mul(16)).store(vector);
      semaInc(0);
      semaDec(release);
    });
    const next = Int(me().add(swap ? 1 : 0));
    If(next.ge(numQPUs()), () => next.set(0));
    out.add(me().mul(16)).store(mine.add(next.mul(16)).load());
  });
}

/** The result a correct exchange on n QPUs leaves in `out` (`swap`: each QPU's neighbour's vector, else its own). */
const expected = (n: number, swap = true) => Array.from({ length: 16 * n }, (_, i) => (i % 16) + 100 * ((Math.floor(i / 16) + (swap ? 1 : 0)) % n));

type Outcome = 'ok' | 'wrong' | 'deadlock' | 'race';

function outcome(k: ReturnType<typeof exchange>, target: 'interpreter' | 'emulator', n: number, interleave?: number, swap = true): Outcome {
  const mine = SharedArray.int32(16 * n);
  const out = SharedArray.int32(16 * n);
  try {
    k.with({ target, qpus: n, interleave, maxSteps: 1e6 }).sync(mine, out);
  } catch (e) {
    const m = (e as Error).message;
    assert.ok(e instanceof (target === 'interpreter' ? InterpreterError : EmulatorError), `${target}: ${String(e)}`);
    if (/deadlock/.test(m)) return 'deadlock';
    if ((e as EmulatorError).rule === 'dma-store-race') return 'race';
    throw e;
  }
  return Array.from(out).every((x, i) => x === expected(n, swap)[i]) ? 'ok' : 'wrong';
}

test('the racy barrier: deadlocks on the interpreter, finishes on the emulator; random interleavings show the race on both', () => {
  const racy = exchange(true, false);
  // The emulator's time order lets QPU 0 take QPU 1's arrival first: it finishes, right; the
  // interpreter's round robin lets QPU 1 take back its own.
  assert.equal(outcome(racy, 'emulator', 2, undefined, false), 'ok');
  assert.equal(outcome(racy, 'interpreter', 2, undefined, false), 'deadlock');
  for (const target of ['interpreter', 'emulator'] as const) {
    const seen = Array.from({ length: 12 }, (_, seed) => outcome(racy, target, 2, seed, false));
    assert.ok(seen.includes('deadlock'), `${target}: no seed of 12 showed the race (${seen})`);
    assert.ok(seen.includes('ok'), `${target}: no seed of 12 ran the racy barrier through (${seen})`);
  }
  // Exchanging data across it, some seeds also read a vector before it is stored.
  const exchanging = Array.from({ length: 12 }, (_, seed) => outcome(exchange(true), 'emulator', 3, seed));
  assert.ok(exchanging.some((o) => o !== 'ok'), `${exchanging}`);
});

test('a correct barrier gives the same result under every seed, on both targets', () => {
  const good = exchange(false);
  for (const target of ['interpreter', 'emulator'] as const)
    for (const n of [2, 3, 5])
      for (let seed = 0; seed < 25; seed++) assert.equal(outcome(good, target, n, seed * 7919 + n), 'ok', `${target}, ${n} QPUs, seed ${seed * 7919 + n}`);
});

test('the same seed runs the same way: the same steps, instructions and cycles', () => {
  const good = exchange(false);
  const run = (target: 'interpreter' | 'emulator', interleave: number) => good.with({ target, qpus: 4, interleave }).sync(SharedArray.int32(64), SharedArray.int32(64));
  for (const seed of [1, 2, 3]) {
    assert.deepEqual(run('interpreter', seed).steps, run('interpreter', seed).steps);
    const a = run('emulator', seed).run!;
    const b = run('emulator', seed).run!;
    assert.deepEqual(
      a.qpus.map((q) => [q.instructions, q.cycles]),
      b.qpus.map((q) => [q.instructions, q.cycles]),
    );
  }
});

test('interleave must be a 32-bit seed, and not on the pi target', () => {
  const good = exchange(false);
  const arrays = [SharedArray.int32(16), SharedArray.int32(16)] as const;
  for (const bad of [-1, 1.5, 2 ** 32, NaN, '1', true])
    assert.throws(() => good.with({ interleave: bad as number }), /kernel exchange: interleave must be a seed, a whole number from 0 to 4294967295, not /);
  assert.throws(() => good.with({ target: 'pi', interleave: 1 }).sync(...arrays), /kernel exchange: interleave is for the emulator and the interpreter/);
});

test('machine code: Machine.run takes interleave, and a raw racy barrier shows its race for some seed', () => {
  // The same racy barrier in assembly: QPU 0 (uniform 0) takes an arrival on semaphore 0 and
  // raises it again; QPU 1 raises it and lowers it at once, perhaps taking its own.
  const src = `mov.setf -, unif\nbrr.allz -, first\nnop\nnop\nnop\nsema up, 0\nsema down, 0\nbrr -, done\nnop\nnop\nnop\nfirst: sema down, 0\nsema up, 0\ndone: nop.tend\nnop\nnop\n`;
  const uniforms = (q: number) => [q];
  runAsm(src, { qpus: 2, uniforms }); // time order: QPU 0 takes QPU 1's arrival
  const fates = Array.from({ length: 12 }, (_, seed) => {
    try {
      runAsm(src, { qpus: 2, uniforms, interleave: seed });
      return 'ok';
    } catch (e) {
      assert.ok(e instanceof EmulatorError && e.kind === 'deadlock', String(e));
      return 'deadlock';
    }
  });
  assert.ok(fates.includes('deadlock') && fates.includes('ok'), fates.join(' '));
  assert.throws(() => runAsm(END, { interleave: -1 }), /interleave must be a seed/);
});
