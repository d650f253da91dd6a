// Differential testing, part 2 of 2: random programs (src/source/generate.ts) on the
// interpreter and compiled on the emulator agree bit for bit. Together the parts run 2,000 seeds;
// `npm run fuzz -- --count N --seed S` runs more.
import { test } from 'node:test';
import { differential } from '../helpers/differential.ts';

test('random programs with seeds 1001-2000: the emulator agrees with the interpreter', () => {
  differential(1001, 1000);
});
