// The path from the QPUs to memory, for the cycle model (docs/timing.md): when a TMU request has
// its data, and what an instruction-cache miss costs. A request goes to its slice's TMU (Guide
// pp. 39-40), through that TMU's cache and the L2 cache (caches.ts), and for the lines neither
// holds through the L2 cache's one port to the SDRAM (sdram.ts); a slice's instruction cache
// (icache.ts) fetches through the L2 cache too. Needs: the machine's Timing and its program's
// address. Guarantees: every figure from the Timing; all of it cold after reset().

import { type CacheLevel, HIT_L2, HIT_MEMORY, HIT_TMU, LINE_SHIFT, TmuCaches } from './caches.ts';
import { InstructionCaches } from './icache.ts';
import { Sdram } from './sdram.ts';
import type { Timing } from './timing.ts';
import * as chip from '../vc4/chip.ts';

/** What the path needs of a QPU: its number, whether it swaps TMUs, its clock and stalls, its figures. */
interface Requester {
  readonly id: number;
  readonly noSwap: boolean;
  readonly time: number;
  stall(until: number, cause: 'icache'): void;
  readonly stats: { tmuFromL2: number; tmuFromMemory: number };
}

// The chip's numbers as constants of this module: V8 folds these into the code, but loads (and
// checks) an imported binding at every use.
const QPUS_PER_SLICE = chip.QPUS_PER_SLICE;
const TMUS_PER_SLICE = chip.TMUS_PER_SLICE;
const SLICES = chip.MAX_QPUS / QPUS_PER_SLICE;

export class MemoryPath {
  /** The SDRAM behind the caches and the DMA engines, shared by every unit. */
  readonly sdram: Sdram;
  /** When each TMU can start its next request. */
  private readonly tmuFree = new Float64Array(SLICES * TMUS_PER_SLICE);
  /** The TMUs' caches (two TMUs a slice of four QPUs) and the L2. */
  private readonly caches = new TmuCaches(SLICES * TMUS_PER_SLICE);
  private readonly icache = new InstructionCaches(SLICES);

  constructor(private readonly host: { readonly timing: Timing; readonly codeBase: number }) {
    this.sdram = new Sdram(host);
  }

  /** Every unit idle and every cache cold but, if `warmCode`, the instruction caches (a run starts). */
  reset(warmCode: boolean): void {
    this.sdram.reset();
    this.tmuFree.fill(0);
    this.caches.clear();
    this.icache.reset(this.host.timing.instructionCacheBytes, warmCode);
  }

  /**
   * The cycle at which a request from `q` at `time` to TMU `t` (the one its register address
   * names: tmu0_s 0, tmu1_s 1) for cache lines `lines[0..nLines)` has its data. Each slice has
   * two TMUs; "the TMU selected by the I/O register address is automatically swapped for
   * accesses by QPU2 and QPU3" of the slice unless tmu_noswap is set (Guide pp. 39-40, p. 23).
   */
  tmu(q: Requester, t: number, time: number, lines: Int32Array, nLines: number): number {
    const swap = !q.noSwap && q.id % QPUS_PER_SLICE >= QPUS_PER_SLICE / 2 ? 1 : 0;
    const unit = Math.floor(q.id / QPUS_PER_SLICE) * TMUS_PER_SLICE + (t ^ swap);
    // The request's lines: those its TMU's cache misses are fetched one after another, from L2
    // or from memory; the request's data is ready when the slowest has arrived. Those from
    // memory wait for the L2 cache's port to memory, which all TMUs share.
    const T = this.host.timing;
    const start = Math.max(time, this.tmuFree[unit]!);
    let fetched = 0;
    let worst: CacheLevel = HIT_TMU;
    let filled = 0;
    // `worst` is of the lines the TMU's cache and the L2 cache serve; `filled` when the last line from memory (or the system cache) arrives.
    let fromMemory = false;
    for (let i = 0; i < nLines; i++) {
      const level = this.caches.lookup(unit, lines[i]!);
      if (level === HIT_TMU) continue;
      if (level === HIT_MEMORY) {
        filled = Math.max(filled, this.sdram.fill(start + fetched * T.tmuCyclesPerLine, lines[i]!));
        fromMemory = true;
      } else worst = HIT_L2;
      fetched++;
    }
    if (fromMemory) q.stats.tmuFromMemory++;
    else if (worst === HIT_L2) q.stats.tmuFromL2++;
    const extra = fetched > 1 ? (fetched - 1) * T.tmuCyclesPerLine : 0;
    this.tmuFree[unit] = start + T.tmuCyclesPerRequest + (fetched > 0 ? fetched * T.tmuCyclesPerLine : 0);
    return Math.max(filled, start + (worst === HIT_TMU ? T.tmuHitLatency : T.l2Latency) + extra);
  }

  /**
   * Instruction-cache line `line` of the program for `q`, `after` cycles past its clock (a fused
   * run of instructions counts its time at its end): a miss stalls `q` until the line arrives,
   * through the L2 cache.
   */
  fetch(q: Requester, line: number, after: number): void {
    const T = this.host.timing;
    if (T.instructionCacheBytes === 0) return;
    const at = (this.host.codeBase >>> LINE_SHIFT) + line;
    const slice = (q.id / QPUS_PER_SLICE) | 0;
    const now = q.time + after;
    const held = this.icache.has(slice, at);
    // A line the slice holds, or one another QPU of the slice started fetching before this QPU's
    // clock: wait for it to arrive. Fetches are not steps in time order across QPUs (a QPU runs
    // ahead through code that uses no shared unit: machine.ts), so a line another QPU fetched
    // later in time counts as this QPU's own miss, as it would have been in time order.
    if (held >= 0 && this.icache.fetchedAt(slice, at) <= now) {
      if (held > now) q.stall(held - after, 'icache');
      return;
    }
    // A miss: the line comes through the L2 cache, and one it does not hold from memory first (a
    // fill's time; not queued at the L2 cache's port, for the same reason).
    const fromMemory = held >= 0 || this.caches.fromL2(at) === HIT_L2 ? 0 : T.memoryFillCycles;
    const ready = now + fromMemory + T.icacheFillCycles;
    this.icache.put(slice, at, ready, now);
    q.stall(ready - after, 'icache');
  }
}
