// Differential testing under register pressure: random programs with 26 int and 26 float
// variables, more than the 64 registers of regfiles A and B hold, so the compiler spills values
// around loads, stores, Where, rotations and loops: to the VPM on 1 to 4 QPUs, and on 12 QPUs
// (3 VPM rows each) to scratch memory too. `npm run fuzz -- --vars 26 --qpus 1,2,3,4,12` runs
// more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../src/compiler/driver.ts';
import { generate } from '../../src/source/generate.ts';
import { differential } from '../helpers/differential.ts';

const PRESSURE = { vars: 26, qpus: [1, 2, 3, 4] } as const;
const MEMORY = { vars: 26, qpus: [12] } as const;

test('programs with 52 variables spill, on 12 QPUs to memory', () => {
  const spilling = [1, 2, 3, 4, 5].filter((seed) => {
    const p = generate(seed, PRESSURE);
    return compile(p.ast, { qpus: p.qpus }).stats.spilled > 0;
  });
  assert.ok(spilling.length >= 4, `seeds ${spilling} spill`);
  const toMemory = [1, 2, 3, 4, 5].filter((seed) => {
    const p = generate(seed, MEMORY);
    return compile(p.ast, { qpus: p.qpus }).stats.spilledToMemory > 0;
  });
  assert.ok(toMemory.length >= 3, `seeds ${toMemory} spill to memory`);
});

test('random programs with 52 variables, seeds 1-100: the emulator agrees with the interpreter', () => {
  differential(1, 100, PRESSURE);
});

test('random programs with 52 variables on 12 QPUs, seeds 1-30: memory spills agree with the interpreter', () => {
  differential(1, 30, MEMORY);
});
