// The memory behind the V3D's caches and DMA engines, for the cycle model (docs/timing.md, "The
// memory system"): the SDRAM, which every unit shares, the V3D L2 cache's port to it, and on a
// BCM2835 (Pi 1, Zero) the VideoCore's 128 KiB system cache in front of it.
//
// - The L2 cache fetches the lines TMU lookups miss from memory one at a time through its port,
//   which each line holds for a 64-byte burst (`burstFillCycles`). A line in a row its SDRAM bank
//   does not have open must also wait for that bank, which opens a row and bursts from it in a
//   row cycle and a burst (`memoryFillCycles`); the 8 banks do so independently, as SDRAM banks
//   do, so lines in other banks overlap. Lookups that keep landing in rows their bank does not
//   have open (GPU_FFT's from 2^15 points up) are limited by the banks' row cycles, a stream
//   through consecutive lines by the bursts.
// - The SDRAM moves `sdramBytesPerCycle` at most (its peak: 8 bytes a memory clock) for the L2
//   cache's fills and both DMA engines together: a transfer waits for the bus the others hold.
// - The system cache (`systemCacheBytes`, 0 where GPU memory bypasses it: models.ts) keeps the
//   lines DMA stores write and the L2 cache fetches, as it does for memory allocated through it
//   (the mailbox's "L2 allocating" alias, which GPU_FFT and QPULib use on a Pi 1; gpu_fft.txt's
//   times are "on a Pi 1 with L2 cache enabled"); a fill of a line it holds holds the port for
//   `systemCacheFillCycles` (fitted to GPU_FFT: docs/timing.md) and needs no bank. (Linux's vc4
//   driver maps its buffers otherwise: its comment in vc4_gem.c says the GPU's caches "are
//   non-allocating in the L3".)
// The order in which units reserve the bus is the order the emulator runs their instructions in,
// within SLACK cycles of time order (machine.ts), so contention may move by that much.

import { LINE_BYTES, LINE_SHIFT } from './caches.ts';
import type { Timing } from './timing.ts';

export { LINE_BYTES };

/**
 * The SDRAM's banks and rows: LPDDR2-S4 has 8 banks (Micron's datasheets); a row of 2 KiB (32
 * lines) a bank, consecutive rows in consecutive banks. How the chips map addresses to banks is
 * not published: this mapping is a guess that keeps a sequential stream in an open row.
 */
const BANKS_LOG2 = 3;
const BANKS = 1 << BANKS_LOG2;
const ROW_LINES_LOG2 = 5;

/** The bus's capacity is kept per window of this many cycles, for the last BUS_SLOTS windows. */
const BUS_WINDOW = 64;
const BUS_SLOTS = 1 << 14;

/** A set-associative cache of lines, 4 ways a set, the least recently used line replaced. */
class LineCache {
  private readonly tags: Int32Array;
  private readonly sets: number;
  private static readonly WAYS = 4;

  constructor(bytes: number) {
    this.sets = Math.max(1, Math.floor(bytes / LINE_BYTES / LineCache.WAYS));
    this.tags = new Int32Array(this.sets * LineCache.WAYS).fill(-1);
  }

  clear(): void {
    this.tags.fill(-1);
  }

  /** Whether `line` was held; it is now, the most recently used. */
  take(line: number): boolean {
    const W = LineCache.WAYS;
    const tags = this.tags;
    const set = (line % this.sets) * W;
    let way = 0;
    while (way < W && tags[set + way] !== line) way++;
    const hit = way < W;
    if (!hit) way = W - 1;
    for (let w = way; w > 0; w--) tags[set + w] = tags[set + w - 1]!;
    tags[set] = line;
    return hit;
  }
}

export class Sdram {
  /** When the L2 cache's port to memory can start its next fill. */
  private fillFree = 0;
  /**
   * The bytes the SDRAM's bus has moved in each window of BUS_WINDOW cycles (a ring), and which
   * window of which run each slot holds (a new run makes every slot stale without clearing it).
   */
  private readonly busBytes = new Float64Array(BUS_SLOTS);
  private readonly busWindow = new Float64Array(BUS_SLOTS).fill(-1);
  private readonly busRun = new Int32Array(BUS_SLOTS);
  private run = 0;
  /** Each bank's open row (-1: none), and when it can open another. */
  private readonly openRow = new Int32Array(BANKS).fill(-1);
  private readonly bankFree = new Float64Array(BANKS);
  /** The system cache, where the model has one. */
  private system: LineCache | undefined;
  private systemBytes = -1;
  /** Fills from memory and from the system cache in this run (a run's figures). */
  fills = 0;
  systemHits = 0;

  constructor(private readonly host: { readonly timing: Timing }) {}

  /** Idle, with the system cache cold (a run starts; the host cleared the caches). */
  reset(): void {
    const bytes = this.host.timing.systemCacheBytes;
    if (bytes !== this.systemBytes) this.system = bytes > 0 ? new LineCache(bytes) : undefined;
    this.systemBytes = bytes;
    this.system?.clear();
    this.fillFree = this.fills = this.systemHits = 0;
    this.run = (this.run + 1) | 0;
    this.openRow.fill(-1);
    this.bankFree.fill(0);
  }

  /**
   * The L2 cache fetches `line` from memory, asked at `time`: returns when its data reaches the
   * TMU, a memory latency after the fill starts (from the system cache, an L2 hit's latency and
   * the system cache's fill, whose figure is fitted: no figure is published). A line in the row
   * its bank has open waits for the port alone, even while the bank is still opening that row:
   * reading an opened row needs tRCD (18 ns in the datasheets), less than the burst before it;
   * and reads from an open row do not delay the bank's next row (a simplification).
   */
  fill(time: number, line: number): number {
    const T = this.host.timing;
    const cached = this.system?.take(line) ?? false;
    if (cached) this.systemHits++;
    else this.fills++;
    let start = Math.max(time, this.fillFree);
    // A line in the row its bank has open costs a burst; another row waits for the bank, which
    // then spends a row cycle and the burst on it (and keeps the row open).
    const bank = (line >>> ROW_LINES_LOG2) & (BANKS - 1);
    const row = line >>> (ROW_LINES_LOG2 + BANKS_LOG2);
    if (!cached && this.openRow[bank] !== row) {
      start = Math.max(start, this.bankFree[bank]!);
      this.openRow[bank] = row;
      this.bankFree[bank] = start + T.memoryFillCycles;
    }
    const end = cached ? start : this.bus(start, LINE_BYTES);
    const occupied = Math.max(end, start + (cached ? T.systemCacheFillCycles : T.burstFillCycles));
    // A fill that takes no time leaves the port as it was (a Timing without the port: fills never wait).
    if (occupied > start) this.fillFree = occupied;
    return Math.max(end, start + (cached ? T.l2Latency + T.systemCacheFillCycles : T.memoryLatency));
  }

  /**
   * The SDRAM's bus moves `bytes` from `time` on, in what each window of BUS_WINDOW cycles has
   * left of its capacity: returns the cycle it has moved them (rounded up). Windows, not one
   * "free from" time: units reserve the bus in the order the emulator runs them, not in time
   * order (a DMA transfer queued far ahead must not hold the bus from a fill asked earlier).
   */
  bus(time: number, bytes: number): number {
    const rate = this.host.timing.sdramBytesPerCycle;
    if (rate === 0) return time;
    const capacity = rate * BUS_WINDOW;
    let w = Math.floor(time / BUS_WINDOW);
    let left = bytes;
    let end = time;
    for (;;) {
      const slot = w % BUS_SLOTS;
      if (this.busWindow[slot] !== w || this.busRun[slot] !== this.run) (this.busWindow[slot] = w), (this.busRun[slot] = this.run), (this.busBytes[slot] = 0);
      const used = this.busBytes[slot]!;
      const take = Math.min(left, capacity - used);
      this.busBytes[slot] = used + take;
      left -= take;
      end = Math.max(end, w * BUS_WINDOW + (used + take) / rate);
      if (left <= 0) break;
      w++;
    }
    return Math.ceil(Math.max(end, time + bytes / rate));
  }

  /** A DMA store wrote bytes [from, to): the system cache keeps their lines. */
  stored(from: number, to: number): void {
    const system = this.system;
    if (!system || to <= from) return;
    for (let line = from >>> LINE_SHIFT, last = (to - 1) >>> LINE_SHIFT; line <= last; line++) system.take(line);
  }
}
