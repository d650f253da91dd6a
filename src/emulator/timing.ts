// The cycle model's parameters. Every figure is in GPU clock cycles (250 MHz on a Pi 1/2/3's
// default configuration). docs/timing.md explains each one, where it comes from and how the
// estimates compare with timings published for Pis (the table there; docs/comparisons.md has the sources).

import { DEFAULT_MODEL, piModel, type PiModelName } from './models.ts';
import { LINE_BYTES } from './caches.ts';
import { ICACHE_BYTES } from './icache.ts';

/**
 * A QPU issues one instruction every 4 clocks (Guide p. 16: "instruction cycle time of four
 * system clocks"): the chip's, not a parameter of the model, so not part of Timing. The
 * emulator's clock adds it for every instruction.
 */
export const CYCLES_PER_INSTR = 4;

/**
 * Why a QPU stalls, in the cycle model: waiting for a TMU result, a DMA transfer, the VPM, a
 * semaphore or the mutex, its slice's instruction cache or uniforms cache. A QPU's figures
 * (report.ts) and a run's profile (profile.ts) count stall cycles by these causes.
 */
export type StallCause = 'tmu' | 'dma' | 'vpm' | 'semaphore' | 'mutex' | 'icache' | 'uniforms';
export const STALL_CAUSES: readonly StallCause[] = ['tmu', 'dma', 'vpm', 'semaphore', 'mutex', 'icache', 'uniforms'];

/** A cache's size: whole sets of 4 ways of 64-byte lines, at most 64 MiB. */
const CACHE_GRAIN = 256;
const MAX_CACHE_BYTES = 64 << 20;

/** The figures a Timing divides by. */
const POSITIVE = new Set<string>(['clockHz']);

/** Checks a Timing from anywhere (JavaScript too): every figure a number from 0 up, and no issue rate (CYCLES_PER_INSTR is the chip's). */
export function checkTiming(t: Timing): Timing {
  if (t === null || typeof t !== 'object') throw new TypeError(`a Timing is an object of cycle counts (PI_TIMING is one), not ${String(t)}`);
  if ('cyclesPerInstr' in t && (t as { cyclesPerInstr?: unknown }).cyclesPerInstr !== CYCLES_PER_INSTR)
    throw new RangeError(`Timing.cyclesPerInstr cannot be changed: a QPU issues an instruction every ${CYCLES_PER_INSTR} clocks (Guide p. 16), which the emulator's clock counts as fixed`);
  for (const key of Object.keys(PI_TIMING) as (keyof Timing)[]) {
    const v = t[key];
    if (typeof v !== 'number' || !(v >= 0) || !Number.isFinite(v) || (POSITIVE.has(key) && v === 0))
      throw new RangeError(`Timing.${key} must be a finite number ${POSITIVE.has(key) ? 'above' : 'from'} 0, not ${String(v)}`);
  }
  for (const key of ['instructionCacheBytes', 'uniformsCacheBytes', 'systemCacheBytes'] as const)
    if (t[key] % CACHE_GRAIN !== 0 || t[key] > MAX_CACHE_BYTES) throw new RangeError(`Timing.${key} must be a multiple of ${CACHE_GRAIN} (4 ways of 64-byte lines) up to ${MAX_CACHE_BYTES}, not ${t[key]}`);
  return t;
}

export interface Timing {
  /** Clock frequency used to turn cycles into seconds. */
  readonly clockHz: number;
  /** Cycles a TMU spends on a 16-lane request whose lines its cache holds, before it starts the next. */
  readonly tmuCyclesPerRequest: number;
  /** Cycles a TMU spends fetching each line its cache misses (one after another): occupancy and latency. */
  readonly tmuCyclesPerLine: number;
  /** Cycles from a request's start to its data when every line is in the TMU's cache... */
  readonly tmuHitLatency: number;
  /**
   * ... when the slowest line comes from the shared L2 cache (also what an instruction-cache or
   * uniforms-cache miss waits when the L2 cache holds the line) ...
   */
  readonly l2Latency: number;
  /** ... and when it comes from memory (SDRAM; also an instruction or uniforms line the L2 cache misses). */
  readonly memoryLatency: number;
  /** Bytes of each slice's instruction cache (4 KiB); 0: none modelled, every fetch hits (to pin other figures without it). */
  readonly instructionCacheBytes: number;
  /** Bytes of each slice's uniforms cache (a guess: 4 KiB, as its instruction cache); 0: none modelled, every uniform read hits. */
  readonly uniformsCacheBytes: number;
  /** Cycles an SDRAM bank spends on a line from a row it does not have open: a row cycle and a burst (the banks work independently). */
  readonly memoryFillCycles: number;
  /** Bytes the SDRAM moves a cycle at most, for the L2 cache's fills and both DMA engines together (0: no limit). */
  readonly sdramBytesPerCycle: number;
  /** The system cache that keeps what DMA stores write (BCM2835), in bytes; 0: GPU memory bypasses it. */
  readonly systemCacheBytes: number;
  /** Cycles the L2 cache's port spends on each line it fetches from the SDRAM: one 64-byte burst. */
  readonly burstFillCycles: number;
  /** Cycles the port spends on a line the system cache holds (fitted to GPU_FFT at 2^13 and 2^14 points: docs/timing.md). */
  readonly systemCacheFillCycles: number;
  /** A DMA load (memory to VPM): a fixed cost, a cost per memory row, and per word (about 690 MB/s measured on a Pi 2). */
  readonly dmaLoadBaseCycles: number;
  readonly dmaLoadCyclesPerRow: number;
  readonly dmaLoadCyclesPerWord: number;
  /**
   * A DMA store (VPM to memory): a fixed cost, a cost per memory row, and per word. A 16-row
   * store's fixed and row costs together are pinned by QPULib's times (150); how they split, by
   * GPU_FFT's single-row stores at 2^20 points (docs/timing.md).
   */
  readonly dmaStoreBaseCycles: number;
  readonly dmaStoreCyclesPerRow: number;
  readonly dmaStoreCyclesPerWord: number;
}

/** The V3D's own figures, in its cycles: the same on every model (the same design; models.ts). */
const V3D_FIGURES = {
  tmuCyclesPerRequest: 16,
  tmuCyclesPerLine: 8,
  tmuHitLatency: 20,
  l2Latency: 60,
  instructionCacheBytes: ICACHE_BYTES,
  uniformsCacheBytes: ICACHE_BYTES,
  dmaLoadBaseCycles: 50,
  dmaLoadCyclesPerRow: 5,
  dmaLoadCyclesPerWord: 1.45,
  dmaStoreBaseCycles: 26,
  dmaStoreCyclesPerRow: 7.75,
  dmaStoreCyclesPerWord: 0.9,
} as const;

/** A TMU request's latency when a line comes from memory, in ns: 100 cycles of the Pi 1's 250 MHz (docs/timing.md). */
const MEMORY_LATENCY_NS = 400;
/** LPDDR2's row cycle time (ACTIVATE to ACTIVATE in a bank: tRAS + tRP), in ns: Micron's LPDDR2-S4 datasheets, -25 grade. */
const SDRAM_ROW_CYCLE_NS = 60;
/** The VideoCore's system cache (BCM2835): 128 KiB (Linux's vc4_gem.c, "the 128kb or so shared with the CPU"). */
const SYSTEM_CACHE_BYTES = 128 * 1024;
/**
 * A line from the system cache, in ns: no figure is published. Fitted to GPU_FFT 3.0's times at
 * 2^13 and 2^14 points in batches of 1, whose lines come from the system cache (docs/timing.md):
 * 40 ns, 10 cycles at 250 MHz, 1.6 GB/s.
 */
const SYSTEM_CACHE_FILL_NS = 40;
/** Bytes the SDRAM moves a memory clock at its peak: 32 bits, twice a clock. */
const SDRAM_BYTES_PER_CLOCK = 8;

/** The cycle model's figures for a Pi model (models.ts): the V3D's in cycles, the memory's from nanoseconds at the model's clock. */
export function timingFor(name: PiModelName = DEFAULT_MODEL): Timing {
  const model = piModel(name);
  const cycles = (ns: number) => Math.round((ns * model.v3dHz) / 1e9);
  const burstNs = (LINE_BYTES / (SDRAM_BYTES_PER_CLOCK * model.sdramHz)) * 1e9;
  return {
    ...V3D_FIGURES,
    clockHz: model.v3dHz,
    memoryLatency: cycles(MEMORY_LATENCY_NS),
    memoryFillCycles: cycles(SDRAM_ROW_CYCLE_NS + burstNs),
    sdramBytesPerCycle: (SDRAM_BYTES_PER_CLOCK * model.sdramHz) / model.v3dHz,
    systemCacheBytes: model.systemCache ? SYSTEM_CACHE_BYTES : 0,
    burstFillCycles: Math.max(1, cycles(burstNs)),
    systemCacheFillCycles: cycles(SYSTEM_CACHE_FILL_NS),
  };
}

/** The default model's figures (the Pi 1's). */
export const PI_TIMING: Timing = timingFor(DEFAULT_MODEL);
