// aengelke/mandel-qpu's host (bench/mandel-qpu.ts): a pixel's result as its kernel's steps give
// it, which the bench checks the emulator's results against, and the releases it tells apart.
// The kernel itself is the user's copy (not part of qpu-ts), run by bench:published.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MANDEL_RELEASES, pixelIterations, readMandel, runMandel } from '../../bench/mandel-qpu.ts';
import { BadInput, WrongResult } from '../../bench/cli.ts';
import { floatBits } from '../../src/vc4/tables.ts';

test("a pixel's iterations: those before |z|^2 - 4 >= 0, at most the cap", () => {
  const it = (re: number, im: number, cap = 1000) => pixelIterations(floatBits(re), floatBits(im), cap);
  assert.equal(it(0, 0), 1000); // in the set
  assert.equal(it(-1, 0), 1000); // a cycle of two
  assert.equal(it(0, 1), 1000); // i, -1 + i, -i, -1 + i, ...
  assert.equal(it(-2, 0), 0); // |c|^2 = 4: out at once (0, not negative)
  assert.equal(it(1, 0), 1); // 1, then 2
  assert.equal(it(0.5, 0), 4); // 0.5, 0.75, 1.0625, 1.62890625, then 3.15...
  assert.equal(it(0, 0, 7), 7);
});

test('gpu_code.hex: a release it knows by its digest, a clear error otherwise', () => {
  assert.equal(new Set(MANDEL_RELEASES.map((r) => r.digest)).size, MANDEL_RELEASES.length);
  assert.deepEqual(
    MANDEL_RELEASES.map((r) => [r.commit, r.seconds]),
    [['2ad5a8b', 37.151], ['1f10f34', 33.781], ['0cd9083', 33.781]],
  );
  const dir = mkdtempSync(join(tmpdir(), 'qpu-mandel-'));
  try {
    assert.throws(() => readMandel(dir), (e) => e instanceof BadInput && /cannot read .*gpu_code\.hex: ENOENT \(name a clone of aengelke\/mandel-qpu\)/.test(e.message));
    writeFileSync(join(dir, 'gpu_code.hex'), '0x15827d80, 0x100208a7,\nmov r0, r1\n');
    assert.throws(() => readMandel(dir), (e) => e instanceof BadInput && /gpu_code\.hex:2: not an instruction/.test(e.message));
    writeFileSync(join(dir, 'gpu_code.hex'), '0x15827d80, 0x100208a7,\n0x009e7000, 0x300009e7\n');
    assert.throws(() => readMandel(dir), (e) => e instanceof BadInput && /not one of mandel-qpu's published kernels \(commits 2ad5a8b, 1f10f34, 0cd9083\)/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the launches run in worker threads: an error the emulator reports in one ends the run in one line, and no worker is left running', async () => {
  // Words of zeros are instructions with the breakpoint signal: each launch stops at its first.
  await assert.rejects(runMandel(new Uint32Array(16), '2', { jobs: 2, maxIters: 50, launches: 4 }), (e) => e instanceof WrongResult && /^QPU 0, pc 0 .*a software breakpoint/.test(e.message));
});
