// The path from the QPUs to memory, for the cycle model (docs/timing.md): when a TMU request has
// its data, and what an instruction-cache miss costs. A request goes to its slice's TMU (Guide
// pp. 39-40), through that TMU's cache and the L2 cache (caches.ts), and for the lines neither
// holds through the L2 cache's one port to the SDRAM (sdram.ts); a slice's instruction cache
// (icache.ts) fetches through the L2 cache too. Needs: the machine's Timing and its program's
// address. Guarantees: every figure from the Timing; all of it cold after reset().

import { type CacheLevel, HIT_L2, HIT_MEMORY, HIT_TMU, LINE_SHIFT, TmuCaches } from './caches.ts';
import { SliceCaches } from './icache.ts';
import { Sdram } from './sdram.ts';
import type { Timing } from './timing.ts';
import * as chip from '../vc4/chip.ts';

/** What the path needs of a QPU: its number, whether it swaps TMUs, its clock and stalls, its figures. */
interface Requester {
  readonly id: number;
  readonly noSwap: boolean;
  readonly time: number;
  stall(until: number, cause: 'icache' | 'uniforms'): void;
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
  private readonly icache = new SliceCaches(SLICES);
  private readonly ucache = new SliceCaches(SLICES);

  constructor(private readonly host: { readonly timing: Timing; readonly codeBase: number }) {
    this.sdram = new Sdram(host);
  }

  /** Every unit idle and every cache cold but, if `warmCode`, the instruction caches (a run starts). */
  reset(warmCode: boolean): void {
    this.sdram.reset();
    this.tmuFree.fill(0);
    this.caches.clear();
    this.icache.reset(this.host.timing.instructionCacheBytes, warmCode);
    // The kernel driver clears every slice's uniforms cache before each job (Linux vc4_gem.c, vc4_flush_caches: SLCACTL's UCCS).
    this.ucache.reset(this.host.timing.uniformsCacheBytes);
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
    const ready = this.want(this.icache, q, (this.host.codeBase >>> LINE_SHIFT) + line, q.time + after);
    if (ready > q.time + after) q.stall(ready - after, 'icache');
  }

  /**
   * The uniform stream of `q` at `addr`: a read waits for its line to arrive in the slice's
   * uniforms cache; the stream's start (a thread's, or a write of unif_addr: `start`) only asks
   * for its first lines. The QPU's FIFO keeps UNIFORM_FIFO words ahead of its reads (Guide p. 22:
   * "a uniforms cache and small FIFO in the QPU will keep prefetched uniform values ready"), so
   * each read asks for the line of the word that many on.
   */
  uniform(q: Requester, addr: number, start: boolean): void {
    const T = this.host.timing;
    if (T.uniformsCacheBytes === 0) return;
    const line = addr >>> LINE_SHIFT;
    const ahead = (addr + UNIFORM_FIFO * 4) >>> LINE_SHIFT;
    const ready = this.want(this.ucache, q, line, q.time);
    if (ahead !== line) this.want(this.ucache, q, ahead, q.time);
    if (!start && ready > q.time) q.stall(ready, 'uniforms');
  }

  /**
   * When `line` (a bus address over 64) is in `q`'s slice's `cache`, asked at `now`: a line the
   * slice holds, or one another QPU of the slice started fetching before `now`, when it arrives;
   * else a miss, fetched now through the L2 cache with the latencies a TMU's lookup has: an L2
   * hit's, or when the L2 cache misses too, memory's (not queued at the L2 cache's port). Fetches
   * are not steps in time order across QPUs (a QPU runs ahead through code that uses no shared
   * unit: machine.ts), so a line another QPU fetched later in time counts as this QPU's own miss,
   * as it would have been in time order.
   */
  private want(cache: SliceCaches, q: Requester, line: number, now: number): number {
    const slice = (q.id / QPUS_PER_SLICE) | 0;
    const held = cache.has(slice, line);
    if (held >= 0 && cache.fetchedAt(slice, line) <= now) return held;
    const T = this.host.timing;
    const ready = now + (held >= 0 || this.caches.fromL2(line) === HIT_L2 ? T.l2Latency : T.memoryLatency);
    cache.put(slice, line, ready, now);
    return ready;
  }
}

/** Words of the uniform stream the QPU's FIFO keeps ahead of its reads: not published; VC4C's emulator's guess, 2. */
const UNIFORM_FIFO = 2;
