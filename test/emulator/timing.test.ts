// The cycle model where QPUs meet: which TMU a request goes to, and waits on semaphores and the
// mutex (docs/timing.md). Every figure here follows from PI_TIMING and the schedule, so the
// tests compare exact cycle counts; none of them measures wall time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Qpu } from '../../src/emulator/qpu.ts';
import { CYCLES_PER_INSTR, PI_TIMING } from '../../src/emulator/timing.ts';
import { END, type EmuOptions, FETCH_FREE, runAsm } from '../helpers/emu.ts';

/** The TMUs alone: the SDRAM's banks, the L2 cache's port to memory and the SDRAM's bus never make a fill wait (memory-system.test.ts tests them). */
const TMUS_ONLY = { ...FETCH_FREE, memoryFillCycles: 0, burstFillCycles: 0, systemCacheFillCycles: 0, sdramBytesPerCycle: 0 };

const nops = (n: number) => new Array<string>(n).fill('nop').join('\n');

/**
 * Sets r0-r3 to four lines of buffer x, 64 bytes apart, and 256 bytes further for each QPU, so
 * that every request below misses the caches and goes to memory. 7 instructions.
 */
const FOUR_LINES = 'mov r0, qpu_num\nshl r0, r0, 8\nadd r0, r0, unif\nldi r3, 64\nadd r1, r0, r3\nadd r2, r1, r3\nadd r3, r2, r3\n';
const X = { buffers: { x: 12 * 64 }, uniforms: ['@x'], timing: TMUS_ONLY };

test('TMU0 and TMU1 serve requests side by side', () => {
  const program = (a: string, b: string) =>
    `${FOUR_LINES}mov ${a}_s, r0\nmov ${b}_s, r1\nmov ${a}_s, r2\nmov ${b}_s, r3\nnop.ld${a}\nnop.ld${b}\nnop.ld${a}\nnop.ld${b}${END}`;
  const run = (a: string, b: string) => runAsm(program(a, b), X).result;
  const { memoryLatency: M, tmuCyclesPerRequest: P, tmuCyclesPerLine: F } = PI_TIMING;
  const busy = P + F; // a TMU's time on a request that misses its cache
  // Requests at cycles 28, 32, 36, 40; the first ldtmu at 44 waits for the first result, at 28 + M.
  // One TMU starts the requests `busy` apart: each later ldtmu (4 cycles after the one before)
  // waits busy - 4 more.
  const one = run('tmu0', 'tmu0');
  assert.equal(one.total.stalls.tmu, 28 + M - 44 + 3 * (busy - 4));
  assert.equal(one.total.tmuFromMemory, 4);
  // Two TMUs start the first two at 28 and 32, the third at 28 + busy: only its ldtmu, at
  // 36 + M, waits more.
  const two = run('tmu0', 'tmu1');
  assert.equal(two.total.stalls.tmu, 28 + M - 44 + Math.max(0, 28 + busy - 36));
  assert.ok(two.cycles < one.cycles);
  // With the SDRAM's banks, and the four lines 16 KiB apart (each in another row of one bank): the
  // bank's row cycles, one at a time, bound the two TMUs (each later ldtmu waits a fill - 4 more).
  const MF = PI_TIMING.memoryFillCycles;
  const rows = program('tmu0', 'tmu1').replace('ldi r3, 64', 'ldi r3, 16384');
  const ported = runAsm(rows, { buffers: { x: 12 * 16384 }, uniforms: ['@x'], timing: FETCH_FREE }).result;
  assert.equal(ported.total.stalls.tmu, 28 + M - 44 + 3 * (MF - 4));
});

test('QPUs 2 and 3 of a slice use the other TMU unless tmu_noswap is set (Guide pp. 39-40)', () => {
  // Four requests then four loads, on `t` or alternating between the two.
  const program = (noswap: boolean, t: string) => {
    const ts = t === 'both' ? ['tmu0', 'tmu1', 'tmu0', 'tmu1'] : [t, t, t, t];
    const requests = ts.map((x, i) => `mov ${x}_s, r${i}\n`).join('');
    const loads = ts.map((x) => `nop.ld${x}\n`).join('');
    return `${FOUR_LINES}${noswap ? 'mov tmu_noswap, 1' : 'nop'}\nnop\nnop\n${requests}${loads}${END}`;
  };
  const stall = (qpus: number, noswap: boolean, t: string) => runAsm(program(noswap, t), { qpus, ...X }).result.total.stalls.tmu;
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

/** QPU 0 runs `zero`, the others `rest` (by the QPU number). */
function split(zero: string, rest: string): string {
  return `mov r0, qpu_num\nnop\nmov.setf r0, r0\nbrr.allz -, zero\nnop\nnop\nnop\n${rest}${END}zero:\n${zero}${END}`;
}

test('a semaphore down waits for the up, whatever else wakes the waiting QPU meanwhile', () => {
  // QPU 1 waits on semaphore 0; QPU 0 takes and releases the mutex (which wakes waiters of the
  // mutex only), then raises the semaphore.
  const zero = `${nops(40)}\nmov r1, mutex\nmov mutex, r1\n${nops(40)}\nsema up, 0`;
  const withMutex = runAsm(split(zero, 'sema down, 0'), { qpus: 2 }).result;
  const without = runAsm(split(zero.replace('mov r1, mutex\nmov mutex, r1', 'nop\nnop'), 'sema down, 0'), { qpus: 2 }).result;
  // The up runs at 7 * 4 + 82 * 4: QPU 1 takes the count then, runs its end (3 instructions).
  const up = (7 + 82) * 4;
  assert.equal(withMutex.qpus[1]!.cycles, up + 4 + 3 * 4);
  assert.equal(withMutex.qpus[1]!.stalls.semaphore, up - 7 * 4);
  assert.equal(withMutex.qpus[1]!.stalls.mutex, 0);
  assert.deepEqual(withMutex.qpus[1], without.qpus[1]);
});

test('a semaphore up at 15 waits for a down; a down waits for an up made later in the run', () => {
  // QPU 0 raises semaphore 2 sixteen times; QPU 1 lowers it once, late.
  const r = runAsm(split('sema up, 2\n'.repeat(16).trim(), `${nops(60)}\nsema down, 2`), { qpus: 2 }).result;
  const down = (7 + 60) * 4;
  // QPU 0's 16th up happens at QPU 1's down.
  assert.equal(r.qpus[0]!.cycles, down + 4 + 3 * 4);
  assert.equal(r.qpus[0]!.stalls.semaphore, down - (7 + 15) * 4);
  // A down by QPU 1 at cycle 28 waits for QPU 0's up at cycle 200.
  const late = runAsm(split(`${nops(43)}\nsema up, 5`, 'sema down, 5'), { qpus: 2 }).result;
  assert.equal(late.qpus[1]!.stalls.semaphore, (7 + 43) * 4 - 7 * 4);
});

test('mutex sections never overlap in model time, and go in order of clock, then QPU number', () => {
  const section = 20;
  const src = `ldi r1, 3\nloop:\nmov r0, mutex\nmov r2, 1\n${nops(section - 2)}\nmov mutex, r0\nnop\nnop\nsub.setf r1, r1, 1\nbrr.anynz -, loop\nnop\nnop\nnop${END}`;
  for (const qpus of [2, 3, 12]) {
    const entries: { q: number; t: number }[] = [];
    const opts: EmuOptions = { qpus };
    const qs: Qpu[] = [];
    const r = runAsm(src, { ...opts, init: (q) => (qs[q.id] = q), trace: (q, pc) => void (pc === 2 && entries.push({ q, t: qs[q]!.time })) });
    // Each section runs from its acquire (the instruction before the marker) to its release,
    // `section` instructions later.
    const sections = entries.map((e) => ({ ...e, from: e.t - 4, to: e.t - 4 + section * 4 }));
    sections.sort((a, b) => a.from - b.from);
    for (let i = 1; i < sections.length; i++) assert.ok(sections[i]!.from >= sections[i - 1]!.to, `QPUs ${qpus}: ${JSON.stringify(sections)}`);
    assert.deepEqual(sections.slice(0, qpus).map((s) => s.q), Array.from({ length: qpus }, (_, i) => i));
    assert.ok(r.result.cycles >= 3 * qpus * section * 4);
    // The same schedule in blocks: the run's figures do not depend on how it is run.
    assert.deepEqual(runAsm(src, opts).result, r.result);
  }
});

test('a VPM read less than three instructions after its setup waits for the data (vc4asm addendum; guide p. 56)', () => {
  // Row 0 holds 7 (written, then read back horizontally, 32-bit).
  const program = (gap: number) =>
    `ldi vw_setup, 0xa00\nmov vpm, 7\nldi r0, 0x100a00\nmov vr_setup, r0\n${nops(gap)}${gap ? '\n' : ''}mov r1, vpm${END}`;
  for (const gap of [0, 1, 2, 3]) {
    const run = runAsm(program(gap), { strict: false });
    assert.equal(run.reg(0, 'r1')[5], 7, `gap ${gap}`);
    assert.equal(run.result.total.stalls.vpm, Math.max(0, 3 - gap - 1) * CYCLES_PER_INSTR, `gap ${gap}`);
  }
  // Strict runs accept it: the rule is a warning now.
  assert.equal(runAsm(program(0)).reg(0, 'r1')[0], 7);
});

test('TMU lookups: a line in the TMU cache is cheap, one in L2 dearer, one from memory dearest', () => {
  // r0 and r1 are 4 KiB apart: the same slot of the direct-mapped 4 KiB TMU cache.
  const lookup = (r: string) => `mov tmu0_s, ${r}\nnop.ldtmu0\n`;
  const src = `mov r0, unif\nldi r3, 4096\nadd r1, r0, r3\nnop\n${lookup('r0')}${lookup('r0')}${lookup('r1')}${lookup('r0')}${END}`;
  const r = runAsm(src, { buffers: { x: 1040 }, uniforms: ['@x'] }).result.total;
  const { tmuHitLatency: H, l2Latency: L2, memoryLatency: M } = PI_TIMING;
  // memory, then the TMU cache, then memory (r1 evicts r0's line), then L2 (which holds both).
  assert.equal(r.tmuFromMemory, 2);
  assert.equal(r.tmuFromL2, 1);
  assert.equal(r.stalls.tmu, M - 4 + (H - 4) + (M - 4) + (L2 - 4));
  assert.ok(H < L2 && L2 < M);
  // A request whose 16 lanes read 16 lines fetches them one after another: the TMU a line each, the L2 cache's port a fill each.
  const spreadSrc = `mov r0, unif\nshl r1, elem_num, 6\nadd r0, r0, r1\nnop\n${lookup('r0')}${END}`;
  const spread = runAsm(spreadSrc, { buffers: { x: 256 }, uniforms: ['@x'], timing: TMUS_ONLY });
  assert.equal(spread.result.total.stalls.tmu, M + 15 * PI_TIMING.tmuCyclesPerLine - 4);
  // Through the SDRAM: consecutive lines are one open row, a burst each at the L2 cache's port, so the TMU sets the pace;
  const filled = runAsm(spreadSrc, { buffers: { x: 256 }, uniforms: ['@x'] });
  assert.equal(filled.result.total.stalls.tmu, M + 15 * PI_TIMING.tmuCyclesPerLine - 4);
  // lines 16 KiB apart are a row each in one bank, a row cycle each, so the bank does.
  const rowsSrc = spreadSrc.replace('shl r1, elem_num, 6', 'shl r1, elem_num, 14');
  const scattered = runAsm(rowsSrc, { buffers: { x: 16 * 4096 }, uniforms: ['@x'] });
  assert.equal(scattered.result.total.stalls.tmu, M + 15 * PI_TIMING.memoryFillCycles - 4);
});

test('a DMA store costs a fixed part, a part per row and a part per word: a 16-word row at most 92 cycles', () => {
  const { dmaStoreBaseCycles: B, dmaStoreCyclesPerRow: R, dmaStoreCyclesPerWord: W } = PI_TIMING;
  const store = (rows: number) => {
    // vw_setup for a DMA store of `rows` rows of 16 words, horizontal, from VPM row 0.
    const setup = (0x80000000 | (rows << 23) | (16 << 16) | (1 << 14)) >>> 0;
    const src = `ldi vw_setup, 0x${setup.toString(16)}\nmov r0, unif\nmov vw_addr, r0\nread vw_wait${END}`;
    return runAsm(src, { buffers: { x: 16 * rows }, uniforms: ['@x'] }).result.total.stalls.dma;
  };
  // The address write is at cycle 8 and vw_wait is read at 12: it waits the store's length - 4.
  assert.equal(store(1), Math.ceil(B + R + 16 * W) - 4);
  assert.equal(store(4), Math.ceil(B + 4 * (R + 16 * W)) - 4);
  assert.ok(B + R + 16 * W <= 92);
  // QPULib's 16-row stores pin a 16-row store's fixed and row costs together; GPU_FFT's single-row stores at 2^20 points, how they split.
  assert.equal(B + 16 * R, 150);
  assert.equal(Math.ceil(B + R + 16 * W), 49, 'a single 16-word row: the split fitted to GPU_FFT 3.0 at 2^20 points, where each of its 524,288 stores is one');
});

test("a Timing is checked: the issue rate is the chip's (a cyclesPerInstr the clock would ignore is refused), and every figure a number", async () => {
  const { Machine } = await import('../../src/emulator/machine.ts');
  assert.throws(() => new Machine(undefined, { ...PI_TIMING, cyclesPerInstr: 2 } as never), /Timing\.cyclesPerInstr cannot be changed: a QPU issues an instruction every 4 clocks \(Guide p\. 16\)/);
  assert.throws(() => new Machine(undefined, { ...PI_TIMING, memoryLatency: NaN }), /Timing\.memoryLatency must be a finite number from 0, not NaN/);
  assert.throws(() => new Machine(undefined, { ...PI_TIMING, clockHz: 0 }), /Timing\.clockHz must be a finite number above 0/);
  assert.throws(() => new Machine(undefined, { clockHz: 250e6 } as never), /Timing\.tmuCyclesPerRequest must be/);
  assert.doesNotThrow(() => new Machine(undefined, { ...PI_TIMING, memoryLatency: 200 }));
  assert.equal(CYCLES_PER_INSTR, 4);
});
