// The Vertex Pipeline Memory (VPM) and its DMA engines, as general-purpose programs use them:
// the address each access reaches, for setups decoded by src/vc4/vpm-setup.ts (the formats the
// compiler encodes with). Source: Broadcom, "VideoCore IV 3D Architecture Reference Guide"
// (2013), section 7, Tables 32-37 (pp. 55-60). Choices where the guide is unclear are in
// docs/emulator.md.

/** 64 rows of 16 32-bit words: the 4 KiB general-purpose programs share (Guide p. 53). */
import { VPM_ROWS, VPM_WORDS } from '../vc4/chip.ts';
import { decodeVdwSetup, decodeVpmSetup, dmaWidth, type VdrSetup, type VdwSetup, VpmFormatError, type VpmSetup } from '../vc4/vpm-setup.ts';
import { checkNarrowStore } from './dma-narrow.ts';

export { VPM_ROWS, VPM_WORDS };
export { decodeVdrSetup, decodeVdwSetup, type VdrSetup, type VdwSetup, VpmFormatError } from '../vc4/vpm-setup.ts';

/** Instructions from a VPM read setup to its first vector (chip.ts VPM_READ_LATENCY). */
export { VPM_READ_LATENCY as VPM_READ_SETUP_INSTRS } from '../vc4/chip.ts';

/**
 * A set of VPM words, emptied in constant time: a word is in the set when its stamp is the
 * current generation (a DMA transfer marks the words it moves, and the next one starts anew).
 */
export class VpmWordSet {
  private readonly stamps = new Int32Array(VPM_WORDS);
  private gen = 1;
  clear(): void {
    this.gen++;
  }
  add(word: number): void {
    this.stamps[word] = this.gen;
  }
  has(word: number): boolean {
    return this.stamps[word] === this.gen;
  }
}

/** A generic block read or write setup (Tables 32 and 33) in use. */
export interface VpmBlock extends VpmSetup {
  /** The address register, advanced by `stride` after each vector. */
  addr: number;
}

/** A VPM read or write setup (throws VpmFormatError for the reserved size). */
export function decodeBlockSetup(v: number, read: boolean): VpmBlock {
  return decodeVpmSetup(v, read);
}

/**
 * Where element `e` (0-15) of the vector at the block's current address lives: the VPM word and
 * the bit offset and width of its field (Guide pp. 53-57, Figures 8 and 9, Tables 32 and 33).
 * 32-bit: ADDR is Y (horizontal: row Y) or {Y[5:4], X} (vertical: column X of a block of 16
 * rows). 16-bit adds the half H and 8-bit the byte B as the low address bits. "Laned" vectors
 * take that half or byte of 16 words; "packed" ones fill 8 (16-bit) or 4 (8-bit) whole words,
 * the half or byte selecting which.
 */
export function blockField(b: VpmBlock, e: number): { word: number; shift: number } {
  const sub = b.size === 32 ? 0 : b.size === 16 ? 1 : 2; // address bits below Y or X
  const a = b.addr;
  const part = a & ((1 << sub) - 1); // H or B
  const hi = a >> sub; // Y (horizontal) or {Y[5:4], X} (vertical)
  const laned = b.size === 32 || b.laned;
  // The element's position along the vector's 16 words, and which field of that word.
  const along = laned ? e : (b.size === 16 ? 8 : 4) * part + (b.size === 16 ? e >> 1 : e >> 2);
  const field = laned ? part : b.size === 16 ? e & 1 : e & 3;
  const shift = field * b.size;
  if (b.horizontal) return { word: ((hi & 63) * 16 + along) % VPM_WORDS, shift };
  return { word: ((((hi >> 4) & 3) * 16 + along) * 16 + (hi & 15)) % VPM_WORDS, shift };
}

/**
 * The VPM word of element 0 of a 32-bit vector at the block's current address; element e is at
 * first32(b) + e * step32(b): a horizontal vector is 16 consecutive words of a row, a vertical
 * one 16 words down a column (blockField for 32-bit elements, without an object per element).
 */
export function first32(b: VpmBlock): number {
  const a = b.addr;
  return b.horizontal ? (a & 63) * 16 : ((a >> 4) & 3) * 256 + (a & 15);
}
export function step32(b: VpmBlock): number {
  return b.horizontal ? 1 : 16;
}

/**
 * A DMA store setup with its rows' VPM words worked out once (vdwRow for each row): programs
 * write the same few setups again and again, so they are kept by value (up to 64 of them).
 */
export interface VdwPlan extends VdwSetup {
  /** VPM words of all rows, row after row (units * depth). */
  readonly words: Int32Array;
}
const VDW_PLANS = new Map<number, VdwPlan>();

export function vdwPlan(v: number): VdwPlan {
  let p = VDW_PLANS.get(v);
  if (!p) {
    const s = decodeVdwSetup(v);
    const words = new Int32Array(s.units * s.depth);
    const row = new Int32Array(s.depth);
    for (let r = 0; r < s.units; r++) {
      vdwRow(s, r, row);
      words.set(row, r * s.depth);
    }
    if (VDW_PLANS.size >= 64) VDW_PLANS.clear();
    VDW_PLANS.set(v, (p = { ...s, words }));
  }
  return p;
}

/**
 * A DMA store's memory rows, in order: `s.units` rows of `s.depth` 32-bit words, row r at byte
 * r * (depth * 4 + stride) from the start. vdwRow fills `words` with row r's VPM words.
 * Horizontal: row r is VPM row Y+r from column X on, wrapping within the row (V3DLib's emulator;
 * vc4asm issue 27 saw the wrap on a chip). Vertical: row r is VPM column X+r from row Y down
 * (py-videocore's tests on a Pi). `stride` bytes separate the end of one memory row from the
 * start of the next.
 */
export function vdwRow(s: VdwSetup, r: number, words: Int32Array): void {
  const y = s.vpmBase >> 4;
  const x = s.vpmBase & 15;
  for (let d = 0; d < s.depth; d++) words[d] = (s.horizontal ? (y + r) * 16 + ((x + d) & 15) : vertical(y + d, x + r)) % VPM_WORDS;
}

/** Throws for a DMA store setup the emulator does not run: MODEW 1 (no width), or an 8/16-bit one beyond dma-narrow.ts's. */
export function checkVdw(s: VdwSetup): void {
  const w = dmaWidth(s.modew);
  if (!w) throw new VpmFormatError(`DMA store mode ${s.modew} is unused (Table 34)`);
  if (w.bits !== 32) checkNarrowStore(s, w.bits);
}

/** Column `col` (16 and above continue in the next block of 16 rows), row `row`. */
function vertical(row: number, col: number): number {
  return ((row + ((col >> 4) << 4)) & 63) * 16 + (col & 15);
}

/**
 * A DMA load's memory rows: `s.rows` rows of `s.rowLength` words, memory row r at r * pitch
 * bytes (vdrPitch). vdrRow fills `words` with row r's VPM words: element c goes to VPM row
 * Y + r * VPITCH, column X + c when horizontal, wrapping within the row as DMA stores do (the
 * setup keeps X in its own 4-bit field and VPITCH steps only Y, Table 36; vc4asm issue 27 saw
 * stores wrap on a chip; not measured for loads); when vertical, down the one column X, to row
 * Y + r * VPITCH + c (the guide: loads and stores are not symmetric; py-videocore's and QPULib's
 * programs on a Pi rely on it).
 */
export function vdrRow(s: VdrSetup, r: number, words: Int32Array): void {
  for (let c = 0; c < s.rowLength; c++)
    words[c] = (s.vertical ? vertical(s.y + r * s.vpitch + c, s.x) : (s.y + r * s.vpitch) * 16 + ((s.x + c) & 15)) % VPM_WORDS;
}

/** The bytes between a DMA load's memory rows: MPITCH's, or the extended pitch when it is 0 (Table 37). */
export function vdrPitch(s: VdrSetup, extended: number): number {
  if (!dmaWidth(s.modew)) throw new VpmFormatError(`DMA load mode ${s.modew} selects the extended pitch format, not a width (Table 36)`);
  return s.mpitch ? 8 << s.mpitch : extended;
}
