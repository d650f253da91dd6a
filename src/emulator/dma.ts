// The DMA engines between the VPM and GPU memory (Guide pp. 56-59): one for loads, one for
// stores, shared by every QPU, so a transfer starts when the engine has finished the one before
// (any QPU's). They move the data when a transfer starts and return when it completes, for the
// cycle model (timing.ts); strict runs mark the VPM words a transfer uses and the memory words a
// store writes (stored.ts), and on several QPUs remember until when it writes them (store-race.ts).
// Needs: the machine's memory, VPM, timing and store-race list. Guarantees: every word moved as
// the setup says (vpm.ts), or a MemoryFault naming the first address outside the allocations.

import { BUS_BASE, type GpuMemory, WRITE } from '../common/memory.ts';
import type { QpuClock as Qpu } from './store-race.ts';
import { addRange, type Clocks, type StoreRaces } from './store-race.ts';
import type { StoredWords } from './stored.ts';
import type { Timing } from './timing.ts';
import type { Sdram } from './sdram.ts';
import { checkVdw, type VdrSetup, vdrPitch, vdrRow, type VdwPlan, type VpmWordSet } from './vpm.ts';
import { loadNarrow, storeNarrow } from './dma-narrow.ts';
import { DMA_MODE_32, dmaWidth } from '../vc4/vpm-setup.ts';

/** What the engines use of the machine. */
interface Host extends Clocks {
  readonly memory: GpuMemory;
  readonly vpm: Int32Array;
  readonly timing: Timing;
  readonly races: StoreRaces;
  readonly stored: StoredWords;
  readonly qpuCount: number;
  readonly sdram: Sdram;
}

export class DmaEngines {
  /** When each engine has finished its last transfer. */
  private vdrFree = 0;
  private vdwFree = 0;
  /** Cycles each engine has spent transferring in this run (a profile's figures). */
  loadBusy = 0;
  storeBusy = 0;
  /** The bytes the last load or store moved. */
  bytes = 0;
  /** The VPM words of one DMA row (at most 128), reused by every transfer. */
  private readonly rowWords = new Int32Array(128);

  constructor(private readonly m: Host) {}

  /** Both engines idle (a run starts). */
  reset(): void {
    this.vdrFree = this.vdwFree = this.loadBusy = this.storeBusy = 0;
  }

  /**
   * A DMA load; `touched`, when given, is set to mark the VPM words it writes. Returns the cycle
   * it completes; its bytes are in `bytes`.
   */
  load(q: Qpu, s: VdrSetup, extendedPitch: number, addr: number, touched?: VpmWordSet): number {
    const mem = this.m.memory;
    const vpm = this.m.vpm;
    const words = this.rowWords;
    const pitch = vdrPitch(s, extendedPitch);
    const n = s.rowLength;
    touched?.clear();
    // The engine starts this load when it has finished the one before (any QPU's).
    const start = Math.max(q.time, this.vdrFree);
    if (s.modew !== DMA_MODE_32) {
      if (touched && this.m.races.any()) for (let r = 0; r < s.rows; r++) {
        const at = (addr + r * pitch) >>> 0;
        this.m.races.check(q, (at & ~3) >>> 0, ((at + (n * dmaWidth(s.modew)!.bits) / 8 + 3) & ~3) >>> 0, `a DMA load (starting at cycle ${start})`, start);
      }
      this.bytes = loadNarrow(mem, vpm, s, pitch, addr, touched);
      return this.loaded(start, s.rows, this.bytes);
    }
    for (let r = 0; r < s.rows; r++) {
      const at = (addr + r * pitch) >>> 0;
      vdrRow(s, r, words);
      if (touched) for (let d = 0; d < n; d++) touched.add(words[d]!);
      if (touched && this.m.races.any()) this.m.races.check(q, at, (at + 4 * n) >>> 0, `a DMA load (starting at cycle ${start})`, start);
      if (mem.spans(at, (at + 4 * (n - 1)) >>> 0)) {
        const i0 = mem.index(at);
        for (let d = 0; d < n; d++) vpm[words[d]!] = mem.words[i0 + d]!;
      } else for (let d = 0; d < n; d++) vpm[words[d]!] = mem.words[mem.check((at + 4 * d) >>> 0, 'DMA load')]!;
    }
    this.bytes = s.rows * n * 4;
    return this.loaded(start, s.rows, this.bytes);
  }

  /** The load engine busy from `start` with `rows` rows of `bytes` in all (and the SDRAM moving them); returns when it is done. */
  private loaded(start: number, rows: number, bytes: number): number {
    const T = this.m.timing;
    const engine = start + Math.ceil(T.dmaLoadBaseCycles + rows * T.dmaLoadCyclesPerRow + (bytes / 4) * T.dmaLoadCyclesPerWord);
    this.vdrFree = Math.max(engine, Math.ceil(this.m.sdram.bus(start, bytes)));
    this.loadBusy += this.vdrFree - start;
    return this.vdrFree;
  }

  /**
   * A DMA store; `touched`, when given, is set to mark the VPM words it reads. Returns the cycle
   * it completes; its bytes are in `bytes`.
   */
  store(q: Qpu, s: VdwPlan, stride: number, addr: number, touched?: VpmWordSet): number {
    const mem = this.m.memory;
    const vpm = this.m.vpm;
    const n = s.depth;
    const rowBytes = n * 4 + stride;
    checkVdw(s);
    touched?.clear();
    if (s.modew !== DMA_MODE_32) return this.storedNarrow(q, s, addr, touched);
    // Strict runs on several QPUs remember what the store writes (rule dma-store-race): one run of
    // bytes when its rows follow each other, else the rows.
    const racing = touched !== undefined && this.m.qpuCount > 1;
    const rows: [number, number][] | undefined = racing && stride !== 0 && s.units > 1 ? [] : undefined;
    for (let r = 0, w = 0; r < s.units; r++, w += n) {
      const at = (addr + r * rowBytes) >>> 0;
      const words = s.words;
      if (touched) {
        for (let d = 0; d < n; d++) touched.add(words[w + d]!);
        // Rule gather-after-store: the row's words, a line's mask at a time (stored.ts mark(), inline).
        const st = this.m.stored;
        const marks = st.lines;
        for (let x = ((at - BUS_BASE) >>> 0) >>> 2, end = x + n; x < end; ) {
          const next = Math.min(end, (x | 15) + 1);
          marks[x >>> 4]! |= ((1 << (next - x)) - 1) << (x & 15);
          if (x >>> 4 < st.low) st.low = x >>> 4;
          if (x >>> 4 > st.high) st.high = x >>> 4;
          x = next;
        }
        st.any = true;
      }
      if (rows) addRange(rows, at, (at + 4 * n) >>> 0);
      this.m.sdram.stored(at, at + 4 * n);
      if (mem.spans(at, (at + 4 * (n - 1)) >>> 0, WRITE)) {
        const i0 = mem.index(at, WRITE);
        for (let d = 0; d < n; d++) mem.words[i0 + d] = vpm[words[w + d]!]!;
      } else for (let d = 0; d < n; d++) mem.words[mem.check((at + 4 * d) >>> 0, 'DMA store', WRITE)] = vpm[words[w + d]!]!;
    }
    const start = Math.max(q.time, this.vdwFree);
    const T = this.m.timing;
    this.bytes = s.units * n * 4;
    const engine = start + Math.ceil(T.dmaStoreBaseCycles + s.units * T.dmaStoreCyclesPerRow + s.units * n * T.dmaStoreCyclesPerWord);
    this.vdwFree = Math.max(engine, Math.ceil(this.m.sdram.bus(start, this.bytes)));
    this.storeBusy += this.vdwFree - start;
    if (rows) this.m.races.note(q.id, rows, start, this.vdwFree, this.m);
    else if (racing) this.m.races.noteRange(q.id, addr >>> 0, (addr + s.units * n * 4) >>> 0, start, this.vdwFree, this.m);
    return this.vdwFree;
  }

  /** An 8- or 16-bit DMA store (dma-narrow.ts): its words marked stored and racing as whole words. */
  private storedNarrow(q: Qpu, s: VdwPlan, addr: number, touched: VpmWordSet | undefined): number {
    const bytes = storeNarrow(this.m.memory, this.m.vpm, s, addr, touched);
    const lo = (addr & ~3) >>> 0;
    const hi = ((addr + bytes + 3) & ~3) >>> 0;
    if (touched) this.m.stored.mark(lo, (hi - lo) / 4);
    const start = Math.max(q.time, this.vdwFree);
    const T = this.m.timing;
    this.bytes = bytes;
    this.m.sdram.stored(lo, hi);
    const engine = start + Math.ceil(T.dmaStoreBaseCycles + T.dmaStoreCyclesPerRow + (bytes / 4) * T.dmaStoreCyclesPerWord);
    this.vdwFree = Math.max(engine, Math.ceil(this.m.sdram.bus(start, bytes)));
    this.storeBusy += this.vdwFree - start;
    if (touched && this.m.qpuCount > 1) this.m.races.noteRange(q.id, lo, hi, start, this.vdwFree, this.m);
    return this.vdwFree;
  }
}
