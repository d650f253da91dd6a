// What a QPU (qpu.ts), and the code translated for it, use of the machine it runs on
// (machine.ts): the units the QPUs share, and the order in which the QPUs reach them.

import type { GpuMemory } from '../common/memory.ts';
import type { DmaEngines } from './dma.ts';
import type { StoreRaces } from './store-race.ts';
import type { StoredWords } from './stored.ts';

/** Q: the QPU (qpu.ts's Qpu), a parameter so that this file need not import it. */
export interface QpuHost<Q> {
  readonly memory: GpuMemory;
  readonly vpm: Int32Array;
  readonly dma: DmaEngines;
  /** Strict runs: the DMA stores that may still be writing memory (rule dma-store-race). */
  readonly races: StoreRaces;
  /** Strict runs: the words DMA stores have written in this run (rule gather-after-store). */
  readonly stored: StoredWords;
  /** Whether a TMU lane or DMA transfer at an address not a multiple of 4 faults. */
  readonly aligned: boolean;
  /** The bus address of the program's first instruction. */
  readonly codeBase: number;
  /** The clock up to which the running QPU may take a shared-unit step. */
  readonly horizon: number;
  /** Whether the running QPU must let another go first before a semaphore or mutex step. */
  syncLate(q: Q): boolean;
  /** Instruction-cache line `line` of the program (icache.ts), `after` cycles past `q`'s clock, before `q` runs instructions from it: a miss stalls `q`. */
  fetch(q: Q, line: number, after: number): void;
  /** The uniform stream of `q` at `addr` (memory-path.ts): a read waits for its slice's uniforms cache; a stream's `start` asks for its first lines. */
  uniform(q: Q, addr: number, start: boolean): void;
  /** The cycle at which a request from `q` at `time` to TMU `t` for cache lines `lines[0..nLines)` has its data. */
  tmuSchedule(q: Q, t: number, time: number, lines: Int32Array, nLines: number): number;
  /** A semaphore instruction; false when the QPU must wait. */
  semaphore(q: Q, n: number, down: boolean): boolean;
  /** Reading the mutex; false when the QPU must wait. */
  mutexAcquire(q: Q): boolean;
  /** Writing the mutex. */
  mutexRelease(q: Q): void;
  /** The instruction index of an absolute branch target, or a fault. */
  branchIndex(addr: number): number;
}
