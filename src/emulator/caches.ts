// The caches a TMU lookup goes through, for the cycle model (docs/timing.md): each TMU's own
// cache, and the L2 cache that all slices share. Only which lines they hold is modelled, to
// price a lookup; the data always comes from GPU memory as it is at the lookup (the chips'
// caches are not coherent with DMA stores, a difference docs/timing.md lists).
//
// Sizes and organisation: the guide gives none; vc4asm's addendum reports, from tests on
// chips, a 4 KiB direct-mapped cache with 64-byte lines per TMU and a shared L2 of about
// 32 KiB, 4-way, with 64-byte lines (the guide, pp. 14 and 40, places one TMU cache per TMU
// and one L2 for all slices, and pp. 93-94 clears them separately).

/** A cache line of both caches: 64 bytes (a byte address's line is address >>> LINE_SHIFT). */
export const LINE_SHIFT = 6;
/** Its bytes: also one SDRAM burst on a 32-bit bus (16 beats). */
export const LINE_BYTES = 1 << LINE_SHIFT;
/** Lines of each TMU's cache: 4 KiB, direct-mapped. */
const TMU_CACHE_LINES = 64;
/** The L2 cache: 32 KiB in 128 sets of 4 lines, least recently used line replaced. */
const L2_SETS = 128;
const L2_WAYS = 4;

/** Where a line is found: in the TMU's cache, in L2, or only in memory (SDRAM). */
export const HIT_TMU = 0;
export const HIT_L2 = 1;
export const HIT_MEMORY = 2;
export type CacheLevel = typeof HIT_TMU | typeof HIT_L2 | typeof HIT_MEMORY;

export class TmuCaches {
  /** Per TMU, the line number each slot holds (-1: empty). */
  private readonly tmuTags: Int32Array;
  /** Per L2 set, its ways' line numbers, most recently used first (-1: empty). */
  private readonly l2Tags = new Int32Array(L2_SETS * L2_WAYS);

  constructor(tmus: number) {
    this.tmuTags = new Int32Array(tmus * TMU_CACHE_LINES);
    this.clear();
  }

  clear(): void {
    this.tmuTags.fill(-1);
    this.l2Tags.fill(-1);
  }

  /** Looks line `line` up for TMU `unit`, filling the caches on a miss; says where it was found. */
  lookup(unit: number, line: number): CacheLevel {
    const slot = unit * TMU_CACHE_LINES + (line & (TMU_CACHE_LINES - 1));
    if (this.tmuTags[slot] === line) return HIT_TMU;
    this.tmuTags[slot] = line;
    return this.l2(line);
  }

  /** Looks line `line` up in L2 only, filling it on a miss (an instruction cache's fetch). */
  fromL2(line: number): CacheLevel {
    return this.l2(line);
  }

  private l2(line: number): CacheLevel {
    const tags = this.l2Tags;
    const set = (line & (L2_SETS - 1)) * L2_WAYS;
    let way = 0;
    while (way < L2_WAYS && tags[set + way] !== line) way++;
    const level = way < L2_WAYS ? HIT_L2 : HIT_MEMORY;
    if (way === L2_WAYS) way = L2_WAYS - 1; // a miss replaces the least recently used line
    for (let w = way; w > 0; w--) tags[set + w] = tags[set + w - 1]!;
    tags[set] = line;
    return level;
  }
}
