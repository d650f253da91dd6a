// Differential testing without optimization passes (-O0): random programs compiled plainly agree
// with the interpreter too, so a miscompilation can be told apart from a pass's.
import { test } from 'node:test';
import { differential } from '../helpers/differential.ts';

test('random programs with seeds 1-300, compiled at -O0: the emulator agrees with the interpreter', () => {
  differential(1, 300, undefined, 0);
});
