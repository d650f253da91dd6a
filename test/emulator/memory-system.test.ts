// The cycle model's memory system (src/emulator/sdram.ts, docs/timing.md "The memory system")
// and its Pi models (models.ts): TMU lookups that miss are bound by the SDRAM's banks and the
// L2 cache's one port to memory, whatever the QPU count; the SDRAM's bus caps what the DMA engines and the fills move together;
// the BCM2835's system cache keeps what DMA stores wrote and what was fetched; each slice's
// instruction cache (icache.ts) makes code larger than it pay for misses, and its uniforms cache
// a long uniform stream; each model has its
// clocks, so the same program gets an estimate per Pi.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { For, gather, index, Int, kernel, me, Ptr, receive, SharedArray } from '../../src/index.ts';
import { Sdram, LINE_BYTES } from '../../src/emulator/sdram.ts';
import { PI_TIMING, timingFor, type Timing } from '../../src/emulator/timing.ts';
import { DEFAULT_MODEL, PI_MODEL_NAMES, PI_MODELS } from '../../src/emulator/models.ts';
import { Machine } from '../../src/emulator/machine.ts';
import { GpuMemory } from '../../src/common/memory.ts';
import { EmulatorTarget } from '../../src/runtime/emulate.ts';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { FETCH_FREE, runAsm } from '../helpers/emu.ts';

/**
 * Per QPU, `n` gathers whose 16 lanes each read a line of their own, 4 << `shift` bytes apart
 * (16 KiB: each in another row of one SDRAM bank; 2 KiB: a row each in the 8 banks in turn): 16
 * lines from memory a request.
 */
const scattered = kernel([Ptr(Int), Ptr(Int), Int, Int], function scattered(src, dst, n, shift) {
  const sum = Int(0);
  const base = Int(me().shl(16));
  const i = Int(0);
  For(i.lt(n), () => i.set(i.add(1)), () => {
    gather(src.add(base.add(i.shl(4)).add(index().shl(shift))));
    const v = Int(0);
    receive(v);
    sum.set(sum.add(v));
  });
  dst.add(me().shl(4)).store(sum);
});

const N = 24;

/** Lanes a row of one bank apart (16 KiB), or a row of the next bank (2 KiB). */
const [ONE_BANK, EVERY_BANK] = [12, 9];

function runScattered(qpus: number, model?: (typeof PI_MODEL_NAMES)[number], shift = ONE_BANK) {
  const src = SharedArray.int32(12 << 16);
  const dst = SharedArray.int32(12 * 16);
  try {
    src.forEach((_, i) => (src[i] = i & 7));
    return scattered.emulateSync([src, dst, N, shift], { qpus, model });
  } finally {
    SharedArray.free(src);
    SharedArray.free(dst);
  }
}

test('TMU lookups that miss to memory in other rows of one SDRAM bank: on 12 QPUs the bank\'s row cycles bind, not the QPUs; spread over the 8 banks, the port\'s bursts', () => {
  const T = timingFor(DEFAULT_MODEL);
  const one = runScattered(1);
  const twelve = runScattered(12);
  const lines = 12 * N * 16;
  // Every line comes from memory once, a row cycle and a burst of bank 0's each.
  assert.ok(twelve.run.cycles >= lines * T.memoryFillCycles, `${twelve.run.cycles} cycles for ${lines} fills of ${T.memoryFillCycles}`);
  // Each QPU does the same work as the one alone, yet the run takes far longer: the bank, not the QPUs, sets the pace.
  assert.ok(twelve.run.cycles > 8 * one.run.cycles, `1 QPU ${one.run.cycles} cycles, 12 QPUs ${twelve.run.cycles}`);
  assert.ok(twelve.run.total.stalls.tmu > 0.7 * 12 * twelve.run.cycles, 'the QPUs mostly wait for the TMU');
  // The same lookups a row of each bank in turn: the banks' row cycles overlap, and the L2
  // cache's port, a burst a line, binds instead (8 banks' row cycles take 20 cycles, 8 bursts 40).
  const spread = runScattered(12, undefined, EVERY_BANK);
  assert.ok(spread.run.cycles >= lines * T.burstFillCycles, `${spread.run.cycles} cycles for ${lines} bursts of ${T.burstFillCycles}`);
  assert.ok(spread.run.cycles < 0.5 * twelve.run.cycles, `every bank ${spread.run.cycles} cycles, one bank ${twelve.run.cycles}`);
});

test('the L2 cache\'s fills share its port a burst each; a row not open waits for its bank; a line the system cache holds needs no bank; the bus caps the bytes a cycle', () => {
  const T: Timing = { ...PI_TIMING, memoryFillCycles: 20, burstFillCycles: 5, systemCacheFillCycles: 10, systemCacheBytes: 128 * 1024, sdramBytesPerCycle: 64 };
  const s = new Sdram({ timing: T });
  s.reset();
  // Two fills asked at once, in banks 7 and 6: the second waits for the port's burst alone.
  assert.equal(s.fill(0, 1000), T.memoryLatency);
  assert.equal(s.fill(0, 2000), 5 + T.memoryLatency);
  // Another row of bank 7 waits for the bank: its row cycle and burst, 20.
  assert.equal(s.fill(0, 1256), 20 + T.memoryLatency);
  // The next line of that row, open now, waits for the port alone.
  assert.equal(s.fill(0, 1257), 25 + T.memoryLatency);
  // A line a DMA store wrote is in the system cache: it holds the port 10 cycles, needs no bank, and reaches the TMU sooner.
  s.stored(3000 * LINE_BYTES, 3001 * LINE_BYTES);
  assert.equal(s.fill(0, 3000), 30 + T.l2Latency + 10);
  assert.equal(s.fill(0, 3001), 40 + T.memoryLatency);
  // A line fetched once is in the system cache too (memory allocated through it, as on a Pi 1).
  assert.equal(s.fill(1000, 1000), 1000 + T.l2Latency + 10);
  assert.deepEqual([s.fills, s.systemHits], [5, 2]);
  // The bus: 8 bytes a cycle, so a window of 64 cycles moves 512 bytes; what does not fit moves in the next.
  const slow = new Sdram({ timing: { ...T, sdramBytesPerCycle: 8 } });
  slow.reset();
  assert.equal(slow.bus(1984, 64), 1992);
  for (let i = 1; i < 8; i++) assert.ok(slow.bus(1984, 64) <= 2048);
  assert.equal(slow.bus(1984, 64), 2056, 'the window is full: the ninth moves in the next');
  // A fill needs the bus too: with the next window half taken by another fill, the data comes after both.
  assert.equal(slow.fill(1984, 5000), 1984 + T.memoryLatency);
  assert.equal(slow.bus(3000, 1e6), Math.ceil(3000 + 1e6 / 8), 'a large transfer takes its bytes at the rate');
  // Where GPU memory bypasses the system cache, nothing is kept.
  const direct = new Sdram({ timing: { ...T, systemCacheBytes: 0 } });
  direct.reset();
  direct.stored(0, 4096);
  assert.equal(direct.fill(0, 0), T.memoryLatency);
  assert.equal(direct.fill(0, 0), 5 + T.memoryLatency, 'from memory again, in the row the first opened: a burst');
});

test('each Pi model has its clocks: the V3D\'s figures in cycles, the memory\'s from nanoseconds; the default is the Pi 1', () => {
  assert.equal(DEFAULT_MODEL, '1');
  assert.deepEqual(PI_TIMING, timingFor('1'));
  for (const name of PI_MODEL_NAMES) {
    const m = PI_MODELS[name];
    const T = timingFor(name);
    assert.equal(T.clockHz, m.v3dHz);
    assert.equal(T.tmuHitLatency, PI_TIMING.tmuHitLatency, 'the V3D is the same design on every model');
    assert.equal(T.memoryLatency, Math.round(400e-9 * m.v3dHz));
    assert.equal(T.sdramBytesPerCycle, (8 * m.sdramHz) / m.v3dHz);
    assert.equal(T.systemCacheBytes, m.systemCache ? 128 * 1024 : 0);
    assert.ok(T.memoryFillCycles > T.burstFillCycles);
  }
  assert.deepEqual(
    PI_MODEL_NAMES.map((n) => [n, PI_MODELS[n].v3dHz / 1e6, PI_MODELS[n].chip]),
    [['zero', 300, 'BCM2835'], ['1', 250, 'BCM2835'], ['2', 250, 'BCM2836'], ['3', 300, 'BCM2837'], ['3b+', 300, 'BCM2837B0'], ['zero2', 300, 'RP3A0']],
  );
  assert.equal(timingFor('1').memoryFillCycles, 20, '60 ns of row cycle and a 20 ns burst at 250 MHz');
  assert.throws(() => timingFor('4' as never), /no Pi model '4': the models are zero, 1, 2, 3, 3b\+, zero2/);
});

test('the same program gets an estimate per Pi model, and its report names the model', () => {
  const runs = Object.fromEntries(PI_MODEL_NAMES.map((name) => [name, runScattered(4, name).run]));
  assert.equal(runs['1']!.model, '1');
  assert.equal(runScattered(4).run.model, '1', 'without a model, the Pi 1');
  for (const name of PI_MODEL_NAMES) {
    assert.equal(runs[name]!.model, name);
    assert.equal(runs[name]!.seconds, runs[name]!.cycles / PI_MODELS[name].v3dHz);
  }
  // A memory-bound run takes more cycles at 300 MHz (the SDRAM's nanoseconds are more cycles) but less time.
  assert.ok(runs['3']!.cycles > runs['2']!.cycles);
  assert.ok(runs['3']!.seconds < runs['2']!.seconds);
  // The Pi 1 and 2 share their clocks; the Pi 1's system cache keeps no line this run reads twice, so they agree.
  assert.equal(runs['1']!.cycles, runs['2']!.cycles);
  assert.throws(() => runScattered(1, 'pi4' as never), /kernel scattered: model must be one of 'zero', '1', '2', '3', '3b\+', 'zero2' \(a Pi with a VideoCore IV\), not the string "pi4"/);
});

/** A loop of `body` instructions (nops and the count) run `passes` times on `qpus` QPUs. */
function loopOf(body: number, passes: number, qpus = 1) {
  const src = [`    ldi ra0, ${passes}`, 'loop:', ...Array<string>(body - 5).fill('    nop'), '    sub.setf ra0, ra0, 1', '    brr.anynz -, loop', '    nop', '    nop', '    nop', '    nop.tend', '    nop', '    nop'].join('\n');
  const m = new Machine(new GpuMemory(1 << 20));
  const program = m.load(assemble(src).words);
  const uniforms = Array.from({ length: qpus }, () => m.memory.alloc(4, 'u').address);
  return { m, program, uniforms, r: m.run(program, uniforms) };
}

test('a loop that fits the instruction cache misses on its first pass only; one larger than the cache misses on every pass', () => {
  const T = PI_TIMING;
  const small = loopOf(480, 10).r; // 61 lines: fits the 64
  const large = loopOf(640, 10).r; // 81 lines: 4-way sets of 16 lines, LRU, missed in turn
  const lines = (n: number) => Math.ceil((n + 1) / 8);
  // The small one: each line once, from memory (cold L2 cache), as long as a TMU's lookup from memory.
  assert.equal(small.total.stalls.icache, lines(480 + 6) * T.memoryLatency);
  // The large one: the first pass from memory, then every line of every later pass from the L2 cache.
  assert.ok(large.total.stalls.icache >= lines(640) * (10 - 1) * T.l2Latency, `${large.total.stalls.icache}`);
  const perInstr = (r: typeof small) => r.cycles / r.total.instructions;
  assert.ok(perInstr(large) > 1.3 * perInstr(small), `${perInstr(small)} and ${perInstr(large)} cycles an instruction`);
});

test('the four QPUs of a slice share its instruction cache; each slice has its own; warmCode keeps the code cached for the next run', () => {
  const T = PI_TIMING;
  const alone = loopOf(200, 1, 1).r;
  const one = alone.total.stalls.icache;
  // Four QPUs of one slice running the same code: the first to reach a line fetches it, the
  // others wait for that fetch, not one of their own: none waits longer than one alone, and
  // together they take about as long.
  const four = loopOf(200, 1, 4).r;
  assert.ok(four.qpus.every((q) => q.stalls.icache <= one), four.qpus.map((q) => q.stalls.icache).join(' '));
  assert.ok(four.cycles < alone.cycles + 16, `${four.cycles} against ${alone.cycles}`);
  // Twelve QPUs are three slices: each slice fetches the code again (from the L2 cache after the first).
  const twelve = loopOf(200, 1, 12).r;
  assert.ok(twelve.qpus[4]!.stalls.icache > 0 && twelve.qpus[8]!.stalls.icache > 0);
  // A run after another of the same code, with warmCode, finds it cached.
  const { m, program, uniforms } = loopOf(200, 1);
  assert.equal(m.run(program, uniforms, { warmCode: true }).total.stalls.icache, 0);
  assert.equal(m.run(program, uniforms).total.stalls.icache, one, 'cold again without it');
  assert.ok(T.l2Latency > 0);
});

test('a kernel target\'s warmCode runs a kernel with its code as the last run left it in the instruction caches', () => {
  const k = kernel([Ptr(Int)], function fill(p) {
    const i = Int(0);
    For(i.lt(4), () => i.set(i.add(1)), () => p.add(i.shl(4)).store(Int(index()).add(i)));
  });
  const memory = new GpuMemory(1 << 20);
  const target = new EmulatorTarget(memory);
  const p = memory.alloc(256, 'p');
  const run = (warmCode?: boolean) => target.run(k.code(), [p.address | 0], [{ name: 'p', address: p.address, bytes: 256 }], { warmCode }).total.stalls.icache;
  const cold = run();
  assert.ok(cold > 0);
  assert.equal(run(true), 0, 'the code cached by the run before');
  assert.equal(run(), cold, 'cold again without it');
});

test('a QPU reading a long uniform stream waits for its slice\'s uniforms cache a line at a time, its FIFO two words ahead', () => {
  // 64 uniforms (four 64-byte lines), one read an instruction; the instruction cache left out.
  const src = [...Array<string>(64).fill('add r0, r0, unif'), 'nop.tend', 'nop', 'nop'].join('\n');
  const T: Timing = { ...FETCH_FREE, uniformsCacheBytes: PI_TIMING.uniformsCacheBytes };
  const r = runAsm(src, { uniforms: Array.from({ length: 64 }, (_, i) => i), timing: T }).result;
  // The first line is asked for when the thread starts and read at once: its whole fill, from
  // memory (the L2 cache is cold), as long as a TMU's lookup from memory. Each later line is
  // asked for two reads before its first word (the FIFO's prefetch): its fill less those two
  // instructions' 8 cycles.
  const fill = T.memoryLatency;
  assert.equal(r.total.stalls.uniforms, fill + 3 * (fill - 8));
  assert.equal(r.cycles, 67 * 4 + r.total.stalls.uniforms);
  // Without the uniforms cache (a Timing's 0), reads cost nothing more than their instruction.
  assert.equal(runAsm(src, { uniforms: Array.from({ length: 64 }, (_, i) => i), timing: FETCH_FREE }).result.total.stalls.uniforms, 0);
});

test('a stream of DMA stores from 12 QPUs is bound by the SDRAM\'s bus when the bus is the slowest part', () => {
  // Each QPU stores 16 rows of 16 words (1 KiB) from VPM row 0 to its own KiB of x.
  const setup = (0x80000000 | (16 << 23) | (16 << 16) | (1 << 14)) >>> 0;
  const src = `ldi vw_setup, 0x${setup.toString(16)}\nmov r0, qpu_num\nshl r0, r0, 10\nadd r0, r0, unif\nmov vw_addr, r0\nread vw_wait\nnop.tend\nnop\nnop\n`;
  const run = (timing: Timing) => runAsm(src, { qpus: 12, buffers: { x: 12 * 256 }, uniforms: ['@x'], timing }).result;
  const bytes = 12 * 1024;
  // A Pi 1's bus (12.8 bytes a cycle) outruns the one store engine (380 cycles a KiB, 16 rows): the engine sets the pace.
  const engine = run(FETCH_FREE);
  assert.ok(engine.cycles < bytes / 2 && engine.cycles >= 12 * 380, `${engine.cycles} cycles`);
  // A bus of 1 byte a cycle is slower than the engine: the stream takes the bus's time.
  const slow = run({ ...FETCH_FREE, sdramBytesPerCycle: 1 });
  assert.ok(slow.cycles >= bytes && slow.cycles < bytes * 1.1, `${slow.cycles} cycles for ${bytes} bytes at 1 a cycle`);
  assert.equal(slow.total.dmaStoreBytes, bytes);
});

test('a Timing\'s cache sizes are whole sets of 4 ways of 64-byte lines, and not absurd', () => {
  assert.throws(() => new Machine(undefined, { ...PI_TIMING, instructionCacheBytes: 1000 }), /Timing\.instructionCacheBytes must be a multiple of 256 \(4 ways of 64-byte lines\) up to 67108864, not 1000/);
  assert.throws(() => new Machine(undefined, { ...PI_TIMING, systemCacheBytes: 2 ** 40 }), /Timing\.systemCacheBytes must be a multiple of 256/);
  assert.throws(() => new Machine(undefined, { ...PI_TIMING, uniformsCacheBytes: 100 }), /Timing\.uniformsCacheBytes must be a multiple of 256/);
  assert.doesNotThrow(() => new Machine(undefined, { ...PI_TIMING, instructionCacheBytes: 0, uniformsCacheBytes: 0, systemCacheBytes: 0 }));
});
