// Differential testing, part 1 of 2: random programs (src/source/generate.ts) on the
// interpreter and compiled on the emulator agree bit for bit. Together the parts run 2,000 seeds;
// `npm run fuzz -- --count N --seed S` runs more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../src/source/generate.ts';
import { printKernel } from '../../src/source/print.ts';
import { differential } from '../helpers/differential.ts';

test('random programs with seeds 1-1000: the emulator agrees with the interpreter', () => {
  differential(1, 1000);
});

test('the generator makes cross-QPU hand-offs: a store, a semaphore up, then another QPU loads it', () => {
  // Programs whose QPU 0 loads, after lowering semaphore 10-14, what another QPU stored for it.
  const handoffs = Array.from({ length: 200 }, (_, i) => printKernel(generate(i + 1).ast)).filter((t) => /semaDec\(1[0-4]\)/.test(t));
  assert.ok(handoffs.length >= 5, `${handoffs.length} hand-offs in 200 programs`);
  assert.ok(handoffs.every((t) => /outQ \+ (512|528|544|560|576)\)/.test(t)), 'each stores to its hand-off slot');
  assert.ok(handoffs.every((t) => /\*\(outI \+ \d+\)/.test(t)), 'and QPU 0 loads it');
});
