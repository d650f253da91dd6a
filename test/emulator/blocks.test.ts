// Blocks and fused lane loops (src/emulator/blocks.ts) against running one instruction at a
// time (a trace callback makes the machine use units): the same registers, flags, clock,
// counts, pc and error, including where instructions inside one lane loop depend on time (SFU
// results, DMA busy flags), on faults, and on branches placed where the rules forbid them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { Machine } from '../../src/emulator/machine.ts';
import { GpuMemory } from '../../src/common/memory.ts';
import { ACC } from '../../src/emulator/layout.ts';
import type { Qpu } from '../../src/emulator/qpu.ts';
import { PI_TIMING } from '../../src/emulator/timing.ts';
import { encodeProgram } from '../../src/vc4/codec.ts';
import { type AluInstr, branchInstr, type Instr, ldiInstr, nopInstr } from '../../src/vc4/instr.ts';
import { emulatorError, END, type EmuOptions, lanes, runAsm } from '../helpers/emu.ts';

/** Runs `src` in blocks and one instruction at a time; returns both runs. */
function bothWays(src: string, opts: EmuOptions = {}) {
  return [runAsm(src, opts), runAsm(src, { ...opts, trace: () => {} })] as const;
}

const errorOf = emulatorError;

test('r4 read within a fused run before an SFU result is due is the old r4 (non-strict)', () => {
  // The SFU result is due at the third instruction after the write: r1 and r2 get the old r4.
  const src = `ldi r0, 4.0\nmov sfu_recip, r0\nmov r1, r4\nmov r2, r4\nmov r3, r4${END}`;
  for (const r of bothWays(src, { strict: false })) {
    assert.deepEqual(r.reg(0, 'r1'), lanes(() => 0));
    assert.deepEqual(r.reg(0, 'r2'), lanes(() => 0));
    assert.deepEqual(r.reg(0, 'r3'), lanes(() => 0x3e800000));
  }
});

test('an SFU result still on its way when the program ends lands in r4', () => {
  for (const r of bothWays(`ldi r0, 4.0\nmov sfu_recip, r0\nnop\nnop\nnop${END}`)) assert.deepEqual(r.reg(0, 'r4'), lanes(() => 0x3e800000));
});

test('vr_busy read after a long fused run sees the clock of its own instruction', () => {
  // A DMA load of one 16-word row, 60 ALU instructions, then vr_busy: the load is done by then.
  const src = ['ldi vr_setup, 0x80011000', 'mov vr_addr, unif', ...new Array(60).fill('add r0, r0, 1'), 'mov r1, vr_busy', END].join('\n');
  for (const r of bothWays(src, { buffers: { a: 16 }, uniforms: ['@a'] })) {
    assert.ok(r.qpu(0).dmaLoadDone < 2 * 4 + 60 * 4, 'the load finishes before the read');
    assert.deepEqual(r.reg(0, 'r1'), lanes(() => 0));
  }
  // Read right after the load starts, it is busy.
  const early = ['ldi vr_setup, 0x80011000', 'mov vr_addr, unif', 'add r0, r0, 1', 'mov r1, vr_busy', END].join('\n');
  for (const r of bothWays(early, { buffers: { a: 16 }, uniforms: ['@a'] })) assert.deepEqual(r.reg(0, 'r1'), lanes(() => 1));
});

test('a fused run across instruction-cache lines stalls for each line where it would one at a time', () => {
  // 45 lane-only instructions (six lines) on 1 and 4 QPUs of a slice, the instruction cache on:
  // the same clocks and stalls as one instruction at a time, one miss a line.
  const src = [...new Array(45).fill('add r0, r0, 1'), END].join('\n');
  for (const qpus of [1, 4]) {
    const [a, b] = bothWays(src, { qpus, timing: PI_TIMING });
    assert.deepEqual(a.result.qpus.map((q) => [q.cycles, q.stalls.icache]), b.result.qpus.map((q) => [q.cycles, q.stalls.icache]));
    assert.equal(a.result.qpus[0]!.stalls.icache, 6 * PI_TIMING.memoryLatency);
  }
});

test('a fault inside a fused run names the instruction that faults', () => {
  const src = `mov r0, unif\nmov r1, unif\nmov r2, unif${END}`;
  const [a, b] = [errorOf(() => runAsm(src, { uniforms: [7] })), errorOf(() => runAsm(src, { uniforms: [7], trace: () => {} }))];
  assert.equal(a.where?.pc, 1);
  assert.match(a.message, /^QPU 0, pc 1 \(mov r1, unif\): uniform read at/);
  assert.equal(a.message, b.message);
});

test('a branch in the first or second delay slot of a branch not taken jumps after its own delay slots (non-strict)', () => {
  for (const gap of ['', 'nop\n']) {
    const src = `
      brr.anyz -, end    # not taken: no Z flag is set
      ${gap}brr -, there # taken
      nop
      nop
      add r0, r0, 1
      add r0, r0, 1
      add r0, r0, 1
      add r0, r0, 1
    end:
      nop.tend
      nop
      nop
    there:
      mov r1, 7${END}`;
    const runs = bothWays(src, { strict: false });
    for (const r of runs) {
      assert.deepEqual(r.reg(0, 'r0'), lanes(() => 1), `gap ${JSON.stringify(gap)}`);
      assert.deepEqual(r.reg(0, 'r1'), lanes(() => 7));
    }
    assert.equal(runs[0].result.total.instructions, runs[1].result.total.instructions);
  }
});

test('after the program ends, pc is its last instruction in both ways', () => {
  const [a, b] = bothWays(`mov r0, 1\nadd r0, r0, 1${END}`);
  assert.equal(a.qpu(0).pc, 4);
  assert.equal(b.qpu(0).pc, 4);
});

// Random programs: ALU instructions over the accumulators (adds and multiplies), SFU writes, r4
// reads, uniform reads (some past the end of the stream, some by both ports at once), load immediates and relative branches anywhere, including
// in delay slots; non-strict, so that every placement runs, and strict, where the first broken
// rule stops both the same way.
const acc = (n: number) => 32 + n;
const arbInstr = (n: number): fc.Arbitrary<Instr> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record({
          op: fc.constantFrom(12, 13, 21, 14),
          dst: fc.constantFrom(acc(0), acc(1), acc(2), acc(3), 0, 1),
          a: fc.constantFrom(0, 1, 2, 3, 4, 6),
          b: fc.constantFrom(0, 1, 4, 7),
          raddrA: fc.constantFrom(0, 1, 32),
          sf: fc.integer({ min: 0, max: 1 }),
          cond: fc.constantFrom(1, 1, 2, 3, 6),
          small: fc.boolean(),
        })
        .map(({ op, dst, a, b, raddrA, sf, cond, small }): AluInstr => ({
          ...nopInstr(),
          sig: small ? 13 : 1,
          opAdd: op,
          addA: a,
          addB: b,
          raddrA,
          raddrB: small ? 3 : 1,
          waddrAdd: dst,
          condAdd: cond,
          sf,
        })),
    },
    {
      // Multiplies, some of a uniform (a stream's multiply-add: its SIMD function reads the uniform JavaScript read).
      weight: 2,
      arbitrary: fc
        .record({ dst: fc.constantFrom(acc(0), acc(1), acc(2), acc(3)), a: fc.constantFrom(0, 1, 6), b: fc.constantFrom(0, 2, 6, 7), raddrA: fc.constantFrom(0, 32), raddrB: fc.constantFrom(1, 32) })
        .map(({ dst, a, b, raddrA, raddrB }): AluInstr => ({ ...nopInstr(), sig: 1, opMul: 1, mulA: a, mulB: b, raddrA, raddrB, waddrMul: dst, condMul: 1 })),
    },
    { weight: 1, arbitrary: fc.constantFrom(52, 53, 54, 55).map((w): AluInstr => ({ ...nopInstr(), opAdd: 21, addA: 0, addB: 0, waddrAdd: w, condAdd: 1 })) },
    { weight: 1, arbitrary: fc.integer({ min: -3, max: 40 }).map((v) => ldiInstr(v, { waddrAdd: acc(0), sf: 1 })) },
    {
      weight: 1,
      arbitrary: fc
        .record({ to: fc.nat(n - 1), cond: fc.constantFrom(15, 0, 1, 2, 3, 4, 5) })
        .map(({ to, cond }) => branchInstr({ cond, imm: to })), // imm is made relative below
    },
  );

function runWords(words: Uint32Array, unitsOnly: boolean, strict: boolean, qpus = 1) {
  const m = new Machine(new GpuMemory(1 << 20));
  const p = m.load(words);
  // Each QPU its own uniforms (and so its own branches and clock): they share the slice's instruction cache.
  const us = Array.from({ length: qpus }, (_, id) => {
    const u = m.memory.alloc(12, `u${id}`);
    for (let i = 0; i < 3; i++) m.memory.writeWord(u.address + 4 * i, 0x3f800000 + i + id * 0x100000);
    return u.address;
  });
  let err = '';
  try {
    m.run(p, us, { strict, maxSteps: 2000 * qpus, trace: unitsOnly ? () => {} : undefined });
  } catch (e) {
    assert.ok(e instanceof EmulatorError, String(e));
    err = e.kind === 'budget' ? 'budget' : e.message;
  }
  // Where the budget runs out depends on how much runs at once; any other error leaves the QPU
  // as it was before the instruction that failed.
  if (err === 'budget') return { err };
  return {
    err,
    qpus: m.lastRun.map((q) => ({
      R: Array.from(q.R.subarray(0, 32)).concat(Array.from(q.R.subarray(ACC, ACC + 96))),
      ...{ Z: [...q.Z], N: [...q.N], C: [...q.C], time: q.time, count: q.count, pc: q.pc, icache: q.stats.stalls.icache },
    })),
  };
}

test('random programs with SFU results, uniforms and branches anywhere: blocks equal units', () => {
  const n = 24;
  for (const strict of [false, true])
    fc.assert(
      fc.property(fc.array(arbInstr(n), { minLength: n, maxLength: n }), (body) => {
        const prog = body.map((i, k) => (i.kind === 'branch' ? { ...i, imm: ((i.imm - (k + 4)) * 8) | 0 } : i));
        const words = encodeProgram([...prog, nopInstr(3), nopInstr(), nopInstr()]);
        assert.deepEqual(runWords(words, false, strict), runWords(words, true, strict));
      }),
      { seed: 20240601, numRuns: 400 },
    );
});

test('random programs on the QPUs of a slice, each with its own branches: blocks equal units, instruction-cache stalls too', () => {
  // Longer programs (several cache lines), so that fused runs cross lines while other QPUs fetch them.
  const n = 48;
  fc.assert(
    fc.property(fc.array(arbInstr(n), { minLength: n, maxLength: n }), fc.integer({ min: 2, max: 4 }), (body, qpus) => {
      const prog = body.map((i, k) => (i.kind === 'branch' ? { ...i, imm: ((i.imm - (k + 4)) * 8) | 0 } : i));
      const words = encodeProgram([...prog, nopInstr(3), nopInstr(), nopInstr()]);
      assert.deepEqual(runWords(words, false, false, qpus), runWords(words, true, false, qpus));
    }),
    { seed: 20261127, numRuns: 200 },
  );
});

test('a shared-unit step whose write never happens still waits for the other QPUs, as one at a time', () => {
  // QPU 0 faults at pc 3; how far QPU 1 got by then depends on where QPU 0 yielded: at pc 1.
  const src = `nop\nor.never mutex, r0, r1\nmov r0, unif\nmov r1, unif${END}`;
  const where = (trace?: () => void) => {
    const qs: Qpu[] = [];
    const e = errorOf(() => runAsm(src, { qpus: 2, uniforms: [1], trace, init: (q) => (qs[q.id] = q) }));
    return { error: e.message, qpu1: { pc: qs[1]!.pc, count: qs[1]!.count, time: qs[1]!.time } };
  };
  assert.deepEqual(where(), where(() => {}));
  assert.equal(where().qpu1.count, 1);
});
