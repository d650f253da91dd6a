// Rule dma-store-race (strict runs on more than one QPU): the emulator moves a DMA store's data
// when the transfer starts, while a chip writes memory until it ends, so another QPU's read of
// those bytes before then may see the old data on a chip and would not here. This remembers
// the rows of the stores that may still be writing, cheaply enough to ask at every TMU lane.

import { BUS_BASE, hex, PAGE } from '../common/memory.ts';
import { ioError } from './errors.ts';

/** The 4 KiB page of GPU memory a bus address is in (past the table for addresses outside it). */
export function pageOf(address: number): number {
  return ((address - BUS_BASE) >>> 0) >>> 12;
}

/** Adds bytes [lo, hi) to a list of ranges, joined to the last one when they follow it. */
export function addRange(rows: [number, number][], lo: number, hi: number): void {
  const last = rows[rows.length - 1];
  if (last && last[1] === lo) last[1] = hi;
  else rows.push([lo, hi]);
}

/** What the list reads of a QPU that reads memory: its number and its clock. */
export interface QpuClock {
  readonly id: number;
  readonly time: number;
}

/** What the list needs of the machine: the earliest clock of a QPU still running. */
export interface Clocks {
  earliestClock(): number;
}

/** A row of a DMA store that may still be writing memory: its QPU, bytes [lo, hi), its cycles. */
interface UnfinishedStore {
  readonly qpu: number;
  readonly lo: number;
  readonly hi: number;
  readonly start: number;
  readonly done: number;
}

export class StoreRaces {
  /** The rows of DMA stores that may still be writing memory. */
  private readonly list: UnfinishedStore[] = [];
  /** The last cycle any of them ends: a read later than this needs no look at the list. */
  until = 0;
  /**
   * Per 4 KiB page of GPU memory, the last cycle an unfinished store to it ends: a read of a page
   * whose entry is not past the reader's clock needs no look at the list (one array read a lane).
   */
  readonly pageEnd: Float64Array;

  constructor(memoryBytes: number) {
    this.pageEnd = new Float64Array(Math.ceil(memoryBytes / PAGE));
  }

  reset(): void {
    if (this.until > 0) this.pageEnd.fill(0);
    this.list.length = 0;
    this.until = 0;
  }

  /**
   * Remembers a store's rows until every QPU's clock has passed its end; `earliest` is the
   * earliest clock of a running QPU, before which stores are forgotten now and then.
   */
  note(qpu: number, rows: readonly [number, number][], start: number, done: number, clocks: Clocks): void {
    this.prune(clocks);
    for (const [lo, hi] of rows) this.add(qpu, lo, hi, start, done);
  }

  /** note() for a store whose rows are one run of bytes [lo, hi) (the usual case: one row, or rows without a stride). */
  noteRange(qpu: number, lo: number, hi: number, start: number, done: number, clocks: Clocks): void {
    this.prune(clocks);
    this.add(qpu, lo, hi, start, done);
  }

  /** Forgets, now and then, the stores every running QPU's clock has passed. */
  private prune(clocks: Clocks): void {
    const list = this.list;
    if (list.length < 32) return;
    const t = clocks.earliestClock();
    let kept = 0;
    for (const u of list) if (u.done > t) list[kept++] = u;
    list.length = kept;
  }

  private add(qpu: number, lo: number, hi: number, start: number, done: number): void {
    this.list.push({ qpu, lo, hi, start, done });
    for (let p = pageOf(lo); p <= pageOf(hi - 1); p++) if (this.pageEnd[p]! < done) this.pageEnd[p] = done;
    if (done > this.until) this.until = done;
  }

  /** Whether any store is remembered (a quick test before `check`). */
  any(): boolean {
    return this.list.length > 0;
  }

  /**
   * A read by `q` of bytes [lo, hi) at cycle `time` (its clock, or when its DMA load starts)
   * that another QPU's DMA store is still writing is rule dma-store-race.
   */
  check(q: QpuClock, lo: number, hi: number, what: string, time = q.time): void {
    const u = this.overlapping(q.id, time, lo, hi);
    if (u)
      throw ioError(
        'rule',
        `${what} at ${hex(lo)} reads memory that QPU ${u.qpu}'s DMA store (cycles ${u.start}-${u.done}) is still writing at cycle ${time}: ` +
          `QPU ${u.qpu} must read vw_wait before it lets this QPU go on (a semaphore up, a mutex release)`,
        'dma-store-race',
      );
  }

  /** Whether no other QPU's unfinished store writes any of bytes [lo, hi) at cycle `time` (one test for a whole vector's span). */
  clear(qpu: number, time: number, lo: number, hi: number): boolean {
    return this.overlapping(qpu, time, lo, hi) === undefined;
  }

  private overlapping(qpu: number, time: number, lo: number, hi: number): UnfinishedStore | undefined {
    if (this.until <= time) return undefined;
    let near = false;
    for (let p = pageOf(lo); p <= pageOf(hi - 1) && !near; p++) near = this.pageEnd[p]! > time;
    if (!near) return undefined;
    for (const u of this.list) if (u.qpu !== qpu && u.done > time && lo < u.hi && u.lo < hi) return u;
    return undefined;
  }
}
