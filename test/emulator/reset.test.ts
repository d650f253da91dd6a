// A reused Machine starts every run from the same state as a new one: the VPM zeroed, the
// semaphores at 0, the mutex free, each QPU's registers, accumulators, flags, SFU result, TMU
// queue, VPM setups, DMA setups and clock as at power-on, the DMA engines idle. So a program
// run after any other gives what it gives on a new machine: its memory, its figures and its
// errors are the same. (On a Pi the VPM holds what the last user left: docs/emulator.md.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { Machine } from '../../src/emulator/machine.ts';
import { GpuMemory } from '../../src/common/memory.ts';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { END } from '../helpers/emu.ts';

/** VPM store setup: 10 horizontal rows of 16 words from row 0 (Table 34: ID 2, UNITS, DEPTH, HORIZ). */
const STORE_10_ROWS = 0x80000000 | (10 << 23) | (16 << 16) | (1 << 14);
/** VPM write setup: horizontal 32-bit, stride 1, from row 0 (Table 32). */
const WRITE_ROWS = 0xa00 | (1 << 12);
/** VPM read setup: one horizontal 32-bit row from row 0 (Table 33). */
const READ_ROW = (1 << 20) | (1 << 12) | 0xa00;

/** Programs that leave state behind: in the VPM, the semaphores, the mutex, registers, flags, units in flight. */
const BEFORE: Record<string, string> = {
  'VPM written': `ldi vw_setup, ${WRITE_ROWS}\n${Array.from({ length: 10 }, (_, r) => `add vpm, elem_num, ${r + 1}`).join('\n')}`,
  'registers and flags set': `ldi r0, 11\nldi r1, 12\nldi r2, 13\nldi r3, 14\nldi ra0, 15\nldi rb0, 16\nmov.setf -, elem_num\nsub.setf -, elem_num, 8`,
  'an SFU result in r4': `ldi r0, 4\nmov sfu_recip, r0`,
  'a TMU request not received': `mov tmu0_s, unif`,
  'a VPM read set up, not read': `ldi vr_setup, ${READ_ROW}`,
  'a DMA store set up and started, not waited for': `ldi vw_setup, ${STORE_10_ROWS}\nmov vw_addr, unif`,
  'a DMA load set up, not started': `ldi vr_setup, ${0x80000000 | (16 << 20) | (1 << 16)}`,
  'semaphore 3 raised twice': `sema up, 3\nsema up, 3`,
  'the mutex held': `mov r0, mutex`,
  'the uniform stream moved': `mov unif_addr, unif`,
};

/** Programs whose results show that state: in memory (10 rows at the uniform), in their figures, or as an error. */
const AFTER: Record<string, string> = {
  'the VPM stored as it is': `ldi vw_setup, ${STORE_10_ROWS}\nmov vw_addr, unif\nread vw_wait`,
  'registers, flags and r4 stored': [
    `ldi vw_setup, ${WRITE_ROWS}`,
    'mov vpm, r0\nmov vpm, r1\nmov vpm, r2\nmov vpm, r3\nmov vpm, r4\nmov vpm, ra0\nmov vpm, rb0',
    'mov r0, 0\nmov.ifz r0, 1\nmov vpm, r0\nmov r0, 0\nmov.ifn r0, 1\nmov vpm, r0\nmov r0, 0\nmov.ifc r0, 1\nmov vpm, r0',
    `ldi vw_setup, ${STORE_10_ROWS}\nmov vw_addr, unif\nread vw_wait`,
  ].join('\n'),
  'a TMU result taken with none asked for': `nop; ldtmu0\nmov r0, r4`,
  'a VPM read with none set up': `mov r0, vpm`,
  'semaphore 3 taken': `sema down, 3`,
  'the mutex taken and given back': `mov r0, mutex\nmov mutex, r0`,
  'a DMA store, timed': `ldi vw_setup, ${STORE_10_ROWS}\nmov vw_addr, unif\nread vw_wait`,
  'a uniform read': `mov r0, unif\nldi vw_setup, ${WRITE_ROWS}\nmov vpm, r0\nldi vw_setup, ${STORE_10_ROWS}\nmov vw_addr, unif\nread vw_wait`,
};

interface Outcome {
  error?: string;
  out: number[];
  figures?: string;
}

/** A machine with both programs loaded and the same memory in the same places, whether or not `before` runs. */
function runBoth(before: string | undefined, after: string, beforeQpus: number): Outcome {
  const m = new Machine(new GpuMemory(4 << 20));
  const first = m.load(assemble((before ?? 'nop') + END).words);
  const second = m.load(assemble(after + END).words);
  const out = m.memory.alloc(10 * 64, 'out');
  const uniforms = m.memory.alloc(64, 'uniforms');
  for (let i = 0; i < 16; i++) m.memory.writeWord(uniforms.address + 4 * i, out.address);
  // A run that fails (12 QPUs raising a semaphore past 15, taking the mutex) leaves its state too.
  if (before !== undefined)
    try {
      m.run(first, new Array<number>(beforeQpus).fill(uniforms.address), { strict: false });
    } catch (e) {
      if (!(e instanceof EmulatorError)) throw e;
    }
  m.memory.words.fill(0, m.memory.index(out.address), m.memory.index(out.address) + 160);
  const read = () => Array.from(m.memory.words.subarray(m.memory.index(out.address), m.memory.index(out.address) + 160));
  try {
    const r = m.run(second, [uniforms.address], { strict: false });
    return { out: read(), figures: JSON.stringify(r) };
  } catch (e) {
    if (!(e instanceof EmulatorError)) throw e;
    return { error: e.message, out: read() };
  }
}

test('a program run after any other on the same machine gives what it gives on a new machine', () => {
  const leaks: string[] = [];
  for (const [name, after] of Object.entries(AFTER)) {
    const fresh = runBoth(undefined, after, 1);
    for (const [left, before] of Object.entries(BEFORE))
      for (const qpus of [1, 12]) {
        const reused = runBoth(before, after, qpus);
        try {
          assert.deepEqual(reused, fresh);
        } catch {
          leaks.push(`${name}, after ${left} on ${qpus} QPU${qpus > 1 ? 's' : ''}: ${JSON.stringify(reused).slice(0, 160)} instead of ${JSON.stringify(fresh).slice(0, 160)}`);
        }
      }
  }
  assert.deepEqual(leaks, []);
});

test('the VPM is zeroed at the start of every run', () => {
  const m = new Machine(new GpuMemory(1 << 20));
  const write = m.load(assemble(BEFORE['VPM written']! + END).words);
  const u = m.memory.alloc(4, 'u');
  m.run(write, [u.address]);
  assert.equal(m.vpm[17], 3, 'the run wrote the VPM (row 1, lane 1: 1 + 2)');
  m.run(m.load(assemble(`nop${END}`).words), [u.address]);
  assert.ok(m.vpm.every((w) => w === 0));
});
