// Strict mode checks each rule where the instruction that breaks it runs: after everything
// before it has run (so a fault or a wait earlier is what gets reported), before it runs, in
// blocks and one instruction at a time alike, for programs of any length.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { ACC, REG_A } from '../../src/emulator/layout.ts';
import type { Qpu } from '../../src/emulator/qpu.ts';
import { END, type EmuOptions, lanes, runAsm } from '../helpers/emu.ts';

function failsBothWays(src: string, opts: EmuOptions = {}): EmulatorError {
  const errors = [undefined, () => {}].map((trace) => {
    try {
      runAsm(src, { ...opts, trace });
    } catch (e) {
      assert.ok(e instanceof EmulatorError, String(e));
      return e;
    }
    assert.fail('expected the run to fail');
  });
  assert.equal(errors[0]!.message, errors[1]!.message);
  return errors[0]!;
}

test('a fault before a broken rule is reported, not the rule of an instruction that never runs', () => {
  // The stream has one uniform. The instruction after the second read reads ra0 right after its
  // write; the second read faults before that.
  const first = failsBothWays(`mov r0, unif\nmov ra0, unif\nmov r1, ra0${END}`, { uniforms: [7] });
  assert.equal(first.kind, 'fault');
  assert.equal(first.where?.pc, 1);
  // The same further into a block, where the rule is known when the block is made.
  const later = failsBothWays(`mov r0, 1\nmov r1, unif\nmov r2, 2\nmov ra0, unif\nmov r2, ra0${END}`, { uniforms: [7] });
  assert.equal(later.kind, 'fault');
  assert.equal(later.where?.pc, 3);
});

test('a QPU waiting forever before a broken rule is a deadlock, not the rule', () => {
  const e = failsBothWays(`sema down, 3\nmov.tend ra0, r0\nnop\nnop`);
  assert.equal(e.kind, 'deadlock');
});

test('the run stops right before the instruction that breaks a rule, after those before it have run', () => {
  const src = `mov r0, 5\nmov r2, 1\nmov ra1, 1\nmov r1, ra1${END}`;
  const inspect = (trace?: () => void) => {
    let qpu: Qpu | undefined;
    const e = (() => {
      try {
        runAsm(src, { trace, init: (q) => (qpu = q) });
      } catch (err) {
        return err;
      }
    })();
    assert.ok(e instanceof EmulatorError && e.rule === 'regfile-read-after-write' && e.where?.pc === 3, String(e));
    return { r0: qpu!.R[ACC]!, ra1: qpu!.R[REG_A + 16]!, r1: qpu!.R[ACC + 16]!, count: qpu!.count, time: qpu!.time, pc: qpu!.pc };
  };
  // The three instructions before it ran (the first three of one lane loop), the fourth did not.
  assert.deepEqual(inspect(), { r0: 5, ra1: 1, r1: 0, count: 3, time: 12, pc: 3 });
  assert.deepEqual(inspect(() => {}), inspect());
});

test('programs of more than 2047 instructions: every pair of predecessors is checked on its own', () => {
  // L is entered twice through a branch queued in the last delay slot of another: first after
  // A, B+1 (clean), then after B, B+1, B+2, which writes ra1 that L reads.
  const prog = (pad: number) => {
    const lines = ['brr -, A', 'nop', 'nop', 'brr -, L', 'W2: brr -, B', 'nop', 'nop', 'brr -, L'];
    lines.push('L: or r0, ra1, ra1', 'add r3, r3, 1', 'sub.setf r2, r3, 1', 'brr.allz -, W2', 'nop', 'nop', 'nop', 'nop.tend', 'nop', 'nop');
    while (lines.length < pad) lines.push('nop');
    lines.push('A: nop', 'B: nop', 'nop', 'mov ra1, 1', 'nop');
    return lines.join('\n');
  };
  for (const pad of [100, 2052, 2053, 5000]) {
    const e = failsBothWays(prog(pad));
    assert.equal(e.rule, 'regfile-read-after-write', `pad ${pad}`);
    assert.equal(e.where?.pc, 8, `pad ${pad}`);
  }
  // Without the write, both entries are clean.
  assert.deepEqual(runAsm(prog(2053).replace('mov ra1, 1', 'nop')).reg(0, 'r0'), lanes(() => 0));
});

test('strict runs: touching VPM words a DMA transfer of the QPU still moves is a race (vpm-dma-race)', () => {
  // Row 0 written, a DMA store of it started, then row 0 written again before vw_wait: on a chip
  // the store may carry the second value. Non-strict runs move the data when the store starts.
  const store = (wait: string) =>
    `ldi vw_setup, 0xa00\nmov vpm, 1\nldi vw_setup, 0x80904000\nmov vw_addr, unif\n${wait}ldi vw_setup, 0xa00\nmov vpm, 2${END}`;
  const e = failsBothWays(store(''), { buffers: { out: 16 }, uniforms: ['@out'] });
  assert.ok(e.kind === 'rule' && e.rule === 'vpm-dma-race' && /VPM write .* DMA store .*read vw_wait first/.test(e.message), e.message);
  assert.deepEqual(runAsm(store(''), { buffers: { out: 16 }, uniforms: ['@out'], strict: false }).read('out'), new Array(16).fill(1));
  runAsm(store('read vw_wait\n'), { buffers: { out: 16 }, uniforms: ['@out'] });
  // A DMA load into row 0, then a VPM read of row 0 before vr_wait.
  const load = (wait: string) =>
    `ldi vr_setup, 0x80011000\nmov vr_addr, unif\n${wait}ldi vr_setup, 0x00101a00\nnop\nnop\nnop\nmov r0, vpm${END}`;
  const l = failsBothWays(load(''), { buffers: { src: 16 }, uniforms: ['@src'] });
  assert.ok(l.rule === 'vpm-dma-race' && /VPM read .* DMA load .*read vr_wait first/.test(l.message), l.message);
  runAsm(load('read vr_wait\n'), { buffers: { src: 16 }, uniforms: ['@src'] });
  // Other rows are free while the transfer runs.
  runAsm(`ldi vr_setup, 0x80011000\nmov vr_addr, unif\nldi vw_setup, 0xa05\nmov vpm, 3\nread vr_wait${END}`, { buffers: { src: 16 }, uniforms: ['@src'] });
});
