// Each slice's instruction cache, for the cycle model (docs/timing.md, "The instruction cache"):
// one for the four QPUs of a slice (Guide p. 16: "four QPUs ... share a common instruction
// cache"; p. 17: it serves them in turn), 4 KiB in 64 lines of 8 instructions, 4 ways, as
// vc4asm's addendum found testing chips (Terminus-IMRC also measured 512 instructions and
// 64-byte fills from the L2 cache). A miss fetches the line through the L2 cache; what that
// costs has not been published, so the model gives it a TMU lookup's latencies on the same
// path: an L2 hit's, or memory's when the L2 cache misses too (memory-path.ts, want).
// Only which lines are held is modelled, least recently used replaced. Each slice's uniforms
// cache (Guide p. 13, "Uniforms Cache [QUC]"; p. 14: it fetches "via the common L2C" as the
// instruction cache does) is modelled with the same class: its size, ways and lines have not
// been published (docs/timing.md, "The uniforms cache").

/** Instructions a line holds: a 64-byte line of 8-byte instructions. */
export const INSTRS_PER_LINE = 8;
export const LOG2_INSTRS_PER_LINE = 3;
/** Each slice's cache: 4 KiB, in sets of 4 ways of 64-byte lines. */
export const ICACHE_BYTES = 4096;
const WAYS = 4;
const LINE_BYTES = 64;

/** A cache of 64-byte lines in each slice, with when each line arrives and when its fetch started. */
export class SliceCaches {
  /** Per slice, per set, its ways' lines, most recently used first (-1: empty), and the cycle each arrives (or arrived). */
  private tags = new Int32Array(0);
  private ready = new Float64Array(0);
  /** When each line's fetch started. */
  private started = new Float64Array(0);
  private sets = 0;
  private bytes = -1;

  constructor(private readonly slices: number) {}

  /** Empties the caches, each of `bytes` (4 ways of 64-byte lines), unless `keep` and they are that size already (a batch's later job). */
  reset(bytes: number, keep = false): void {
    if (bytes !== this.bytes) {
      this.sets = Math.max(1, Math.floor(bytes / LINE_BYTES / WAYS));
      this.tags = new Int32Array(this.slices * this.sets * WAYS);
      this.ready = new Float64Array(this.slices * this.sets * WAYS);
      this.started = new Float64Array(this.slices * this.sets * WAYS);
      this.bytes = bytes;
      keep = false;
    }
    if (!keep) this.clear();
    // Kept lines arrived in the last run: in this one they are there from the start.
    else this.ready.fill(0), this.started.fill(0);
  }

  clear(): void {
    this.tags.fill(-1);
  }

  /**
   * When slice `slice`'s cache has `line` (a code address over 64): the cycle it arrived or will
   * arrive (a fill another QPU of the slice started), now the most recently used; or -1 when
   * it does not hold it (`put` it).
   */
  has(slice: number, line: number): number {
    const set = (slice * this.sets + (line % this.sets)) * WAYS;
    if (this.tags[set] === line) return this.ready[set]!;
    let way = 1;
    while (way < WAYS && this.tags[set + way] !== line) way++;
    if (way === WAYS) return -1;
    const ready = this.ready[set + way]!;
    this.promote(set, way, line, ready, this.started[set + way]!);
    return ready;
  }

  /** When the fetch of `line`, which `has` just found, started. */
  fetchedAt(slice: number, line: number): number {
    return this.started[(slice * this.sets + (line % this.sets)) * WAYS]!;
  }

  /** Puts `line`, fetched from cycle `started` and arriving at `ready`, first in its set: in place of `line` if held, else of the least recently used. */
  put(slice: number, line: number, ready: number, started: number): void {
    const set = (slice * this.sets + (line % this.sets)) * WAYS;
    let way = 0;
    while (way < WAYS - 1 && this.tags[set + way] !== line) way++;
    this.promote(set, way, line, ready, started);
  }

  /** Moves the ways before `way` down one and puts `line` first. */
  private promote(set: number, way: number, line: number, ready: number, started: number): void {
    for (let w = way; w > 0; w--) {
      this.tags[set + w] = this.tags[set + w - 1]!;
      this.ready[set + w] = this.ready[set + w - 1]!;
      this.started[set + w] = this.started[set + w - 1]!;
    }
    this.tags[set] = line;
    this.ready[set] = ready;
    this.started[set] = started;
  }
}
