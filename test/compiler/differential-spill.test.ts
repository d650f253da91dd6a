// Differential testing under register pressure: random programs with 26 int and 26 float
// variables, more than the 64 registers of regfiles A and B hold, so the compiler spills values
// to the VPM around loads, stores, Where, rotations and loops; on 1 to 4 QPUs (on 12 each QPU
// has only 3 VPM rows to spill to, too few for these). `npm run fuzz -- --vars 26 --qpus 1,2,3,4`
// runs more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../src/compiler/compile.ts';
import { generate } from '../../src/source/generate.ts';
import { differential } from '../helpers/differential.ts';

const PRESSURE = { vars: 26, qpus: [1, 2, 3, 4] } as const;

test('programs with 52 variables spill', () => {
  for (let seed = 1; seed <= 5; seed++) {
    const p = generate(seed, PRESSURE);
    assert.ok(compile(p.ast, { qpus: p.qpus }).stats.spilled > 0, `seed ${seed} spills`);
  }
});

test('random programs with 52 variables, seeds 1-100: the emulator agrees with the interpreter', () => {
  differential(1, 100, PRESSURE);
});
