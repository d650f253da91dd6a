// Rule gather-after-store (strict runs): a TMU lookup of a word a DMA store has written in the
// same run. The TMUs read through their own caches and the L2 cache, which DMA stores do not
// update (Guide p. 39, "Texture Data Storage"; vc4asm's issue 5 saw stale reads on a chip); the
// host clears those caches before each run (Linux's vc4 driver, vc4_gem.c: vc4_flush_caches
// writes V3D_L2CACTL's L2CCLR and V3D_SLCACTL's T0CC and T1CC before it submits a job; the
// firmware's execute-QPU call does the same unless told not to, raspberrypi/firmware #747), and
// the QPUs cannot. So a lookup of a word stored in this run may give what memory held before
// the store, and the emulator, whose memory is coherent, would show the new value. The
// interpreter has the same rule for a kernel's gathers (docs/language.md, "Memory").
//
// The words stored in a run are a bitmap per 4 KiB page of GPU memory, made for the pages
// stores reach: a lookup of a page no store has reached costs one array read.

import { BUS_BASE, hex, PAGE } from './memory.ts';
import { pageOf } from './store-race.ts';

/** Words in a page, and 32-bit words of a page's bitmap. */
const PAGE_WORDS = PAGE / 4;
const BITMAP_WORDS = PAGE_WORDS / 32;

/**
 * The rule's message, the same on both targets: the interpreter adds what to do instead in the
 * language's terms, and so does the emulator for a compiled kernel (runtime/kernel.ts).
 */
export function gatherAfterStore(lane: number, address: number): string {
  return `a gather of lane ${lane} at ${hex(address)}, which this run has already stored to: on a Pi it may return the old value from the texture unit's cache`;
}

/** What a kernel does instead, in the language's terms (the interpreter's message, and a compiled kernel's). */
export const GATHER_AFTER_STORE_HINT = '; load it with a blocking load instead (docs/language.md, "Memory")';

export class StoredWords {
  /** Per page of GPU memory, a bit a word: set when a DMA store of this run wrote it. */
  private readonly pages: (Int32Array | undefined)[];
  /** The pages with a bitmap, to clear at the next run. */
  private readonly used: number[] = [];
  /** Whether any store has been noted this run (a quick test before any other). */
  any = false;

  constructor(memoryBytes: number) {
    this.pages = new Array<Int32Array | undefined>(Math.ceil(memoryBytes / PAGE));
  }

  /** A new run: nothing stored yet (the caches are clear). */
  reset(): void {
    for (const p of this.used) this.pages[p]!.fill(0);
    this.any = false;
  }

  /** Notes the words of bytes [lo, hi) (word-aligned, inside GPU memory) as stored. */
  add(lo: number, hi: number): void {
    this.any = true;
    for (let w = ((lo - BUS_BASE) >>> 0) >>> 2, end = ((hi - BUS_BASE) >>> 0) >>> 2; w < end; w++) {
      const p = w >>> 10;
      let bits = this.pages[p];
      if (!bits) {
        bits = this.pages[p] = new Int32Array(BITMAP_WORDS);
        this.used.push(p);
      }
      bits[(w >>> 5) & (BITMAP_WORDS - 1)]! |= 1 << (w & 31);
    }
  }

  /** Whether a store of this run wrote the word at a bus address (its low two bits ignored). */
  has(address: number): boolean {
    const w = ((address - BUS_BASE) >>> 0) >>> 2;
    const bits = this.pages[w >>> 10];
    return bits !== undefined && (bits[(w >>> 5) & (BITMAP_WORDS - 1)]! & (1 << (w & 31))) !== 0;
  }

  /**
   * Whether no store of this run wrote a word from `lo` to `hi` (bus addresses, lo <= hi): one
   * test for a whole vector's span. Pages without a bitmap are clear at once; a span of at most
   * SPAN_WORDS words is tested word by word, a wider one over a page with stores (or over more
   * than 16 pages) is not clear: its lanes are tested one by one.
   */
  clear(lo: number, hi: number): boolean {
    const first = pageOf(lo);
    const last = pageOf(hi);
    if (last - first > 16) return false;
    let marked = false;
    for (let p = first; p <= last && !marked; p++) marked = this.pages[p] !== undefined;
    if (!marked) return true;
    if (hi - lo >= SPAN_WORDS * 4) return false;
    for (let a = (lo & ~3) >>> 0; a <= hi; a += 4) if (this.has(a)) return false;
    return true;
  }
}

/** The widest span clear() tests word by word: a vector of 16 consecutive words, or a little more. */
const SPAN_WORDS = 64;
