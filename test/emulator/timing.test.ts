// The cycle model where QPUs meet: which TMU a request goes to (docs/timing.md). Every figure
// here follows from PI_TIMING and the schedule, so the tests compare exact cycle counts; none of
// them measures wall time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PI_TIMING } from '../../src/emulator/timing.ts';
import { END, runAsm } from '../helpers/emu.ts';

test('TMU0 and TMU1 serve requests side by side', () => {
  const program = (a: string, b: string) =>
    `mov r1, unif\nnop\nmov ${a}_s, r1\nmov ${b}_s, r1\nmov ${a}_s, r1\nmov ${b}_s, r1\nnop.ld${a}\nnop.ld${b}\nnop.ld${a}\nnop.ld${b}${END}`;
  const run = (a: string, b: string) => runAsm(program(a, b), { buffers: { x: 16 }, uniforms: ['@x'] }).result;
  const { tmuLatency: L, tmuCyclesPerRequest: P } = PI_TIMING;
  // Requests at cycles 8, 12, 16, 20; the first ldtmu at 24 waits for the first result, at 8 + L.
  // One TMU starts the requests P apart: each later ldtmu (4 cycles after the one before) waits
  // P - 4 more.
  const one = run('tmu0', 'tmu0');
  assert.equal(one.total.stalls.tmu, 8 + L - 24 + 3 * (P - 4));
  // Two TMUs start the first two at 8 and 12, the last two at 8 + P and 12 + P: the second ldtmu
  // does not wait, the third waits until 8 + P + L, the fourth not.
  const two = run('tmu0', 'tmu1');
  assert.equal(two.total.stalls.tmu, 8 + L - 24 + (8 + P + L) - (8 + L + 8));
  assert.ok(two.cycles < one.cycles);
});

test('QPUs 2 and 3 of a slice use the other TMU unless tmu_noswap is set (Guide pp. 39-40)', () => {
  // Four requests then four loads, on `t` or alternating between the two.
  const program = (noswap: boolean, t: string) => {
    const ts = t === 'both' ? ['tmu0', 'tmu1', 'tmu0', 'tmu1'] : [t, t, t, t];
    const requests = ts.map((x) => `mov ${x}_s, r1\n`).join('');
    const loads = ts.map((x) => `nop.ld${x}\n`).join('');
    return `mov r1, unif\n${noswap ? 'mov tmu_noswap, 1' : 'nop'}\nnop\nnop\n${requests}${loads}${END}`;
  };
  const stall = (qpus: number, noswap: boolean, t: string) =>
    runAsm(program(noswap, t), { qpus, buffers: { x: 16 }, uniforms: ['@x'] }).result.total.stalls.tmu;
  // tmu_noswap changes nothing for QPUs 0 and 1: TMU0 and TMU1 still work side by side.
  assert.equal(stall(1, true, 'both'), stall(1, false, 'both'));
  assert.ok(stall(1, true, 'both') < stall(1, true, 'tmu0'));
  // Swapped: QPUs 0 and 1 share one TMU, 2 and 3 the other, whichever register they write.
  assert.equal(stall(4, false, 'tmu0'), stall(4, false, 'tmu1'));
  assert.equal(stall(4, false, 'tmu0'), 2 * stall(2, false, 'tmu0'));
  // Not swapped: all four share the TMU they name, TMU0 or TMU1 alike.
  assert.equal(stall(4, true, 'tmu0'), stall(4, true, 'tmu1'));
  assert.ok(stall(4, true, 'tmu0') > stall(4, false, 'tmu0'));
  // Each slice has its own two TMUs: QPUs 4-7 do not wait for QPUs 0-3.
  assert.equal(stall(8, true, 'tmu1'), 2 * stall(4, true, 'tmu1'));
});
