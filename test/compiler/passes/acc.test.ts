// Pass acc (accumulators.ts accumulatorValues): the shortest-lived values to r3, r1, r2, each where no
// value it interferes with holds the accumulator and nothing writes the accumulator while it lives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIr } from '../../../src/compiler/ir-parse.ts';
import { interference, liveness } from '../../../src/compiler/liveness.ts';
import { accumulatorValues } from '../../../src/compiler/accumulators.ts';

/** Each virtual register's accumulator, as `%n -> rN`, in register order. */
function accumulators(src: string): string[] {
  const p = parseIr(src);
  const live = liveness(p.code, p.vregs);
  return [...accumulatorValues(live, interference(live))].sort(([a], [b]) => a - b).map(([id, n]) => `%${id} -> r${n}`);
}

test('acc: the shortest-lived values first, to r3, r1, r2 in turn, values that interfere apart', () => {
  assert.deepEqual(
    accumulators(`
      mov %0, unif
      mov %1, unif
      add %2, %0, %1
      add %3, %2, 1
      add %4, %3, %0
      mov vpm, %4
      mov vpm, %1
      nop.tend`),
    // %2, %3 and %4 live one instruction each and never at once: all three take r3; %0 and %1
    // live at once, longer: r1 and r2.
    ['%0 -> r1', '%1 -> r2', '%2 -> r3', '%3 -> r3', '%4 -> r3'],
  );
  // Four values live at once: one is left for the register files.
  assert.equal(accumulators('mov %0, unif\nmov %1, unif\nmov %2, unif\nmov %3, unif\nmov vpm, %0\nmov vpm, %1\nmov vpm, %2\nmov vpm, %3\nnop.tend').length, 3);
});

test('acc: no value lives in an accumulator across a write of it, read again or not', () => {
  for (const src of ['mov %0, unif\nldi r3, 5\nmov vpm, %0\nnop.tend', 'mov %0, unif\nldi r3, 5\nmov vpm, r3\nmov vpm, %0\nnop.tend'])
    assert.ok(!accumulators(src).includes('%0 -> r3'), src);
});
