// The fuzz suite, buffer tampering: random sequences of allocations, frees, kernel runs and
// attempts to reach or break GPU memory through SharedArrays (test/helpers/buffer-tamper.ts),
// each seed in a worker of its own (its own GPU memory, which the last sequence of each breaks on
// purpose, going around the guard). Fails on a hang (a worker silent for HANG_MS), a raw error
// or a wrong result.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { HANG_MS } from '../helpers/hostile.ts';

const WORKER = new URL('../../src/cli/tsx-worker.mjs', import.meta.url);
const MODULE = new URL('../helpers/buffer-tamper.ts', import.meta.url).href;

/** Runs one seed's sequences in a worker; resolves with its failure, or what it did. */
function runSeed(seed: number, sequences: number): Promise<{ fail?: string; done?: string }> {
  return new Promise((resolve) => {
    const w = new Worker(WORKER, { workerData: { module: MODULE, seed, sequences } });
    let last = 'starting';
    // Loading the worker (tsx, the sources) takes a few seconds on a busy machine; a step, HANG_MS.
    let timer = setTimeout(() => hang(), 30_000);
    const hang = () => {
      void w.terminate();
      resolve({ fail: `seed ${seed}: no answer within the time allowed, at ${last} (a hang)` });
    };
    const settle = (end: { fail?: string; done?: string }) => {
      clearTimeout(timer);
      void w.terminate();
      resolve(end);
    };
    w.on('message', (m: { step?: string; fail?: string; done?: string }) => {
      if (m.step) {
        last = m.step;
        clearTimeout(timer);
        timer = setTimeout(() => hang(), HANG_MS * 2);
      } else settle(m);
    });
    w.on('error', (e) => settle({ fail: `seed ${seed}: the worker died: ${e.stack ?? String(e)}` }));
    w.on('exit', () => settle({ fail: `seed ${seed}: the worker ended without an answer, at ${last}` }));
  });
}

test('fuzz: reaching or breaking GPU memory through SharedArrays', async () => {
  const failures: string[] = [];
  const ways = new Set<string>();
  for (let seed = 1; seed <= 6; seed++) {
    const end = await runSeed(seed, 12);
    if (end.fail) failures.push(end.fail);
    else {
      assert.match(end.done!, /^(\d+) steps, then TypedArray\.prototype's buffer getter, then /);
      assert.ok(Number(/^\d+/.exec(end.done!)![0]) >= 100, end.done);
      ways.add(/getter, then ([^,]+)/.exec(end.done!)![1]!);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(ways.size >= 2, `the guard was gone around only by ${[...ways].join(', ')}`);
});
