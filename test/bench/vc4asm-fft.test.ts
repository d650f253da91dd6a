// vc4asm's hello_fft host (bench/vc4asm-fft.ts): its plans, from its list of stages, are what
// Broadcom's host spells out where the two agree, and differ where vc4asm uses radix 64 passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobUniforms, vc4asmPlan } from '../../bench/vc4asm-fft.ts';
import { BUSY_WAIT_LIMIT } from '../../bench/published-gpu-fft.ts';
import { BadInput } from '../../bench/cli.ts';

test("vc4asm's plans: a base table, a step table for each later pass (the last at the QPU count), the last radix per QPU", () => {
  assert.deepEqual(vc4asmPlan(8), { passes: 2, base: 16, steps: [[16, 8]], unique: 16 });
  // 2^12 in two passes of radix 64, where Broadcom's 3.0 takes three of 16.
  assert.deepEqual(vc4asmPlan(12), { passes: 2, base: 64, steps: [[64, 8]], unique: 64 });
  assert.deepEqual(vc4asmPlan(13), { passes: 3, base: 32, steps: [[16, 16], [16, 8]], unique: 16 });
  // 2^20 as Broadcom's: 32, then 32 at 1024, 32 at 32, 32 at the QPU count.
  assert.deepEqual(vc4asmPlan(20), { passes: 4, base: 32, steps: [[32, 1024], [32, 32], [32, 8]], unique: 32 });
  assert.throws(() => vc4asmPlan(23), BadInput);
  assert.equal(BUSY_WAIT_LIMIT, 20_480);
});

test("vc4asm's job uniforms: the passes go back and forth between the data and the one buffer, as its gpu_fft_prepare writes them", () => {
  const [D, B] = [0x1000, 0x2000];
  // 4 + 2 x passes words a QPU: these, with 3 before and the closing 0.
  assert.deepEqual(jobUniforms(2, D, B), [D, B, B, D]);
  assert.deepEqual(jobUniforms(3, D, B), [D, B, B, D, D, B]);
  assert.deepEqual(jobUniforms(4, D, B), [D, B, B, D, D, B, B, D]);
});
