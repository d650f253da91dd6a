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
// The words stored in a run are a mask per 64-byte line of GPU memory (the caches' line: a bit
// for each of its 16 words; 8 MiB for 256 MiB), made at a machine's first strict run. The DMA
// engine marks a row's lines as it writes them, and a TMU request tests the lines it touches,
// which it has worked out anyway, so neither calls anything (dma.ts, qpu.ts): a lookup checks
// its lanes one by one only when a line it reads holds a stored word.

import { BUS_BASE } from '../common/memory.ts';
import { LINE_SHIFT } from './caches.ts';

/** The line number (address >>> LINE_SHIFT) of GPU memory's first line: lines are counted from it. */
export const FIRST_LINE = BUS_BASE >>> LINE_SHIFT;


export { GATHER_AFTER_STORE_HINT, gatherAfterStore, streamAfterStore } from '../vc4/rules.ts';

export class StoredWords {
  /** Per line of GPU memory (counted from FIRST_LINE), a bit for each of its 16 words stored in this run. */
  lines = new Uint16Array(0);
  /** Whether any store has been marked this run (a quick test before any other). */
  any = false;
  /** The lowest and highest line marked this run (cleared at the next). */
  low = Infinity;
  high = -1;

  constructor(private readonly memoryBytes: number) {}

  /** A new run: nothing stored yet (the caches are clear). Strict runs need the masks: made once. */
  reset(strict: boolean): void {
    if (this.high >= 0) this.lines.fill(0, this.low, this.high + 1);
    this.low = Infinity;
    this.high = -1;
    this.any = false;
    if (strict && this.lines.length === 0) this.lines = new Uint16Array(Math.ceil(this.memoryBytes >>> LINE_SHIFT));
  }

  /**
   * Marks `n` words from bus address `at` (word-aligned, inside GPU memory) as stored: what the
   * DMA engine does inline for each row (dma.ts), as a method for tests and other callers.
   */
  mark(at: number, n: number): void {
    for (let w = ((at - BUS_BASE) >>> 0) >>> 2, end = w + n; w < end; ) {
      const next = Math.min(end, (w | 15) + 1);
      const line = w >>> 4;
      this.lines[line]! |= ((1 << (next - w)) - 1) << (w & 15);
      if (line < this.low) this.low = line;
      if (line > this.high) this.high = line;
      w = next;
    }
    this.any = true;
  }

  /** Whether a store of this run wrote the word at a bus address (its low two bits ignored). */
  has(address: number): boolean {
    const w = ((address - BUS_BASE) >>> 0) >>> 2;
    return ((this.lines[w >>> 4] ?? 0) & (1 << (w & 15))) !== 0;
  }
}
