// Each slice's instruction cache, for the cycle model (docs/timing.md, "The instruction cache"):
// one for the four QPUs of a slice (Guide p. 16: "four QPUs ... share a common instruction
// cache"; p. 17: it serves them in turn), 4 KiB in 64 lines of 8 instructions, 4 ways, as
// vc4asm's addendum found testing chips (Terminus-IMRC also measured 512 instructions and
// 64-byte fills from the L2 cache). A miss fetches the line through the L2 cache; what that
// costs has not been published, so the model takes VC4C's emulator's guess for a line the L2
// cache holds, and the memory system's fill for one it does not (machine.ts, fetch).
// Only which lines are held is modelled, least recently used replaced.

/** Instructions a line holds: a 64-byte line of 8-byte instructions. */
export const INSTRS_PER_LINE = 8;
export const LOG2_INSTRS_PER_LINE = 3;
/** Each slice's cache: 4 KiB, in sets of 4 ways of 64-byte lines. */
export const ICACHE_BYTES = 4096;
const WAYS = 4;
const LINE_BYTES = 64;

export class InstructionCaches {
  /** Per slice, per set, its ways' lines, most recently used first (-1: empty). */
  private tags = new Int32Array(0);
  private sets = 0;
  private bytes = -1;

  constructor(private readonly slices: number) {}

  /** Empties the caches, each of `bytes` (4 ways of 64-byte lines), unless `keep` and they are that size already (a batch's later job). */
  reset(bytes: number, keep = false): void {
    if (bytes !== this.bytes) {
      this.sets = Math.max(1, Math.floor(bytes / LINE_BYTES / WAYS));
      this.tags = new Int32Array(this.slices * this.sets * WAYS);
      this.bytes = bytes;
      keep = false;
    }
    if (!keep) this.clear();
  }

  clear(): void {
    this.tags.fill(-1);
  }

  /** Whether slice `slice`'s cache holds `line` (a code address over 64); it does afterwards, the most recently used. */
  take(slice: number, line: number): boolean {
    const tags = this.tags;
    const set = (slice * this.sets + (line % this.sets)) * WAYS;
    if (tags[set] === line) return true;
    let way = 1;
    while (way < WAYS && tags[set + way] !== line) way++;
    const hit = way < WAYS;
    if (!hit) way = WAYS - 1;
    for (let w = way; w > 0; w--) tags[set + w] = tags[set + w - 1]!;
    tags[set] = line;
    return hit;
  }
}
