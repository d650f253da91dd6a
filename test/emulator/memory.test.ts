// GPU memory (src/common/memory.ts, pages.ts): freed memory is handed out again, neighbours
// merged, so that allocating and freeing forever keeps GPU memory use flat; every allocation is
// page-aligned, zeroed and followed by an unmapped guard page; freed pages fault until they are
// handed out again, and faults there say the memory was freed. A buffer detached or shrunk
// from outside (through TypedArray.prototype's buffer getter) is reported, never an endless loop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Machine } from '../../src/emulator/machine.ts';
import { BUS_BASE, footprint, GpuMemory, GpuMemoryFull, GpuMemoryLost, MemoryFault, PAGE, type Allocation } from '../../src/common/memory.ts';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { END } from '../helpers/emu.ts';
import { PageRuns } from '../../src/common/pages.ts';
import { Fuzz } from '../helpers/hostile.ts';

const FRAME = 640 * 480 * 4;

test('a 640x480 frame loop that allocates and frees its arrays every frame runs for 1,000 frames in the same memory', () => {
  const m = new GpuMemory();
  const first: number[] = [];
  for (let frame = 0; frame < 1000; frame++) {
    const a = m.alloc(FRAME, `in${frame}`);
    const b = m.alloc(FRAME, `out${frame}`);
    m.writeWord(b.address + FRAME - 4, frame);
    if (frame === 0) first.push(a.address, b.address);
    else assert.deepEqual([a.address, b.address], first, `frame ${frame}: the first frame's memory`);
    m.free(a);
    m.free(b);
  }
  assert.equal(m.use.highWater, 2 * footprint(FRAME));
  assert.equal(m.use.top, 0, 'everything freed: nothing in use');
});

test('100,000 allocations and frees of mixed sizes stay within 1.5 times the most that was live at once', () => {
  const m = new GpuMemory();
  const f = new Fuzz(22);
  const live: Allocation[] = [];
  let liveBytes = 0;
  let mostLive = 0;
  for (let i = 0; i < 100_000; i++) {
    if (live.length && (live.length >= 48 || f.chance(0.5))) {
      const [a] = live.splice(f.int(live.length), 1);
      liveBytes -= footprint(a!.bytes);
      m.free(a!);
    } else {
      // From a word to 256 KiB, spread over the orders of magnitude.
      const bytes = 4 * Math.max(1, Math.floor(2 ** (f.int(1600) / 100)));
      const a = m.alloc(bytes, `a${i}`);
      assert.equal(a.address % PAGE, 0);
      live.push(a);
      liveBytes += footprint(bytes);
      mostLive = Math.max(mostLive, liveBytes);
    }
  }
  // Measured: 1.12 (1.11-1.23 over other seeds and a million cycles).
  const { highWater } = m.use;
  assert.ok(highWater <= 1.5 * mostLive, `reached ${highWater} bytes with at most ${mostLive} live at once`);
});

test('freed pages fault until they are handed out again, zeroed, and faults there say they were freed', () => {
  const m = new GpuMemory(1 << 20);
  const a = m.alloc(3 * PAGE, 'a');
  const b = m.alloc(100, 'b');
  assert.equal(b.address, a.address + 4 * PAGE, 'a guard page after a');
  m.writeWord(a.address + 8, 7);
  m.free(a);
  assert.throws(() => m.readWord(a.address + 8), (e: unknown) => e instanceof MemoryFault && /inside a, which was freed/.test(e.message));
  assert.throws(() => m.view(a, Int32Array), /a at 0xc0100000 is not live memory of this GPU memory \(freed/);
  const c = m.alloc(2 * PAGE, 'c');
  assert.equal(c.address, a.address, 'first fit: the lowest free pages');
  assert.equal(m.readWord(c.address + 8), 0, 'zeroed');
  // a's third page is c's guard page now; a's own guard page is free.
  assert.throws(() => m.readWord(a.address + 2 * PAGE), MemoryFault);
  m.free(a); // freeing a stale allocation again does not free c
  assert.equal(m.readWord(c.address), 0);
  assert.deepEqual(m.allocations.map((x) => x.name), ['c', 'b']);
});

test('freed neighbours merge: their pages and guard pages make room for one larger allocation', () => {
  const m = new GpuMemory(1 << 20);
  const a = m.alloc(PAGE, 'a'); // pages 0-1
  const b = m.alloc(PAGE, 'b'); // pages 2-3
  const c = m.alloc(PAGE, 'c'); // pages 4-5, keeps the top above a and b
  m.free(b);
  m.free(a);
  const d = m.alloc(3 * PAGE, 'd'); // 3 pages and a guard: all of a's and b's
  assert.equal(d.address, a.address);
  assert.equal(m.use.top, 6 * PAGE);
  m.free(c);
  assert.equal(m.use.top, 4 * PAGE, 'free pages at the top lower it');
});

test('a full memory says how much is free and how much of it is in one run', () => {
  const m = new GpuMemory(16 * PAGE);
  const xs = Array.from({ length: 8 }, (_, i) => m.alloc(PAGE, `x${i}`));
  for (const x of xs.filter((_, i) => i % 2 === 0)) m.free(x);
  assert.throws(
    () => m.alloc(2 * PAGE, 'big'),
    (e: unknown) => e instanceof GpuMemoryFull && e.message === `GPU memory is full: big needs 8192 bytes (12288 with its guard page), and of the 65536 bytes 32768 are free, at most 8192 of them in a row`,
  );
  assert.throws(() => m.alloc(2 ** 40, 'huge'), GpuMemoryFull);
});

test('page runs: first fit, merging on both sides, the top lowered by what is freed below it', () => {
  const p = new PageRuns(100);
  assert.deepEqual([p.take(10), p.take(5), p.take(5)], [0, 10, 15]);
  p.give(0, 10);
  p.give(15, 5); // at the top: the top comes down to 15
  assert.deepEqual([p.top, p.free()], [15, { pages: 95, longest: 85 }]);
  p.give(10, 5); // merges with [0, 10) and reaches the top
  assert.equal(p.top, 0);
  assert.deepEqual(p.free(), { pages: 100, longest: 100 });
  assert.equal(p.take(101), -1);
  assert.equal(p.highWater, 20);
});

test('bus addresses start at BUS_BASE and the memory refuses sizes it cannot have', () => {
  assert.equal(new GpuMemory(1 << 20).alloc(4).address, BUS_BASE);
  for (const bad of [0, 4096, 5000, Number.NaN, 2 ** 33]) assert.throws(() => new GpuMemory(bad), RangeError);
});

/** TypedArray.prototype's own buffer getter: what reaches GPU memory's buffer past a SharedArray's guard. */
const realBuffer = (v: Int32Array) => Reflect.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype), 'buffer')!.get!.call(v) as ArrayBuffer;

/** A loop of about 2 million instructions: long enough for onProgress to be called in the middle. */
const LOOP = `ldi r0, 400000\ntop: sub.setf r0, r0, 1\nbrr.anynz -, top\nnop\nnop\nnop${END}`;

test('a buffer detached or shrunk from outside is GpuMemoryLost at the next allocation, view and run, never an endless loop or a stray fault', () => {
  for (const tamper of [
    (b: ArrayBuffer) => structuredClone(b, { transfer: [b] }),
    (b: ArrayBuffer) => b.resize(0),
    (b: ArrayBuffer) => b.resize(PAGE),
  ]) {
    const m = new Machine(new GpuMemory(4 << 20));
    const program = m.load(assemble(LOOP).words);
    const a = m.memory.alloc(64, 'a');
    tamper(realBuffer(m.memory.view(a, Int32Array)));
    const lost = (e: unknown) => e instanceof GpuMemoryLost && /^GPU memory is lost: its ArrayBuffer was (detached|resized from 1048576 to 4096 bytes)/.test(e.message);
    assert.throws(() => m.memory.alloc(64, 'b'), lost);
    assert.throws(() => m.memory.alloc(8 << 20, 'big'), lost);
    assert.throws(() => m.memory.view(a, Int32Array), lost);
    assert.throws(() => m.run(program, [a.address]), lost);
    assert.equal(m.memory.intact(), false);
  }
});

test('a buffer detached in the middle of a run (from onProgress) ends the run with GpuMemoryLost', () => {
  const m = new Machine(new GpuMemory(4 << 20));
  const program = m.load(assemble(LOOP).words);
  const a = m.memory.alloc(64, 'a');
  let called = 0;
  const onProgress = () => {
    if (called++ === 0) structuredClone(realBuffer(m.memory.view(a, Int32Array)), { transfer: [realBuffer(m.memory.view(a, Int32Array))] });
  };
  assert.throws(() => m.run(program, [a.address], { onProgress }), GpuMemoryLost);
});

test('a buffer grown from outside is taken as it is: allocations and runs go on', () => {
  const m = new Machine(new GpuMemory(4 << 20));
  const program = m.load(assemble(LOOP).words);
  const a = m.memory.alloc(64, 'a');
  m.memory.writeWord(a.address, 5);
  realBuffer(m.memory.view(a, Int32Array)).resize(3 << 20);
  const b = m.memory.alloc(2 << 20, 'b');
  m.memory.writeWord(b.address + (2 << 20) - 4, 7);
  assert.equal(m.memory.readWord(a.address), 5);
  assert.ok(m.run(program, [a.address]).total.instructions > 2_000_000);
});
