// The DMA engines' 8- and 16-bit modes (Guide Tables 34 and 36, pp. 58-59): memory holds bytes or
// half-words, the VPM a packed sub-vector of them (Figure 8, p. 54): 8-bit element e of byte
// sub-vector B of a row is byte e % 4 of word 4B + e / 4, 16-bit element e of half-word
// sub-vector H is half e % 2 of word 8H + e / 2. A load's ROWLEN and a store's DEPTH count
// elements; a load's VPITCH steps {Y[1:0], B} (8-bit) or {Y[2:0], H} (16-bit); MPITCH is bytes.
// Needs: a decoded setup whose MODEW is 2-7 (vpm-setup.ts dmaWidth). Guarantees: every element
// moved, the other bits of each VPM word and the other bytes of memory left alone, or a
// VpmFormatError for what the guide does not define, or a MemoryFault at the first byte outside.
//
// What the guide leaves open, and the choices made (docs/emulator.md, "Choices"): memory
// addresses need no alignment beyond the element's (VC4C's compiler relies on byte addresses;
// not measured here); how a column X other than 0 combines with the sub-vector is not said, so
// X must be 0; only horizontal transfers, stores of one row (UNITS 1) of at most 16 elements.

import { type GpuMemory, READ, WRITE } from '../common/memory.ts';
import { dmaWidth, type VdrSetup, type VdwSetup, VpmFormatError } from '../vc4/vpm-setup.ts';
import { VPM_WORDS } from '../vc4/chip.ts';
/** The VPM words a transfer uses, for strict runs' rules (vpm.ts VpmWordSet). */
interface Touched {
  add(word: number): void;
}

/** The VPM word and bit shift of element e of sub-vector `sub` (Y << 2 | B, or Y << 1 | H) of a packed row. */
function place(bits: 8 | 16, sub: number, e: number): { word: number; shift: number } {
  const per = 32 / bits; // elements a word
  const parts = per; // sub-vectors a row
  const y = Math.floor(sub / parts);
  const s = sub % parts;
  return { word: (y * 16 + (16 / per) * s + Math.floor(e / per)) % VPM_WORDS, shift: (e % per) * bits };
}

/** "an 8-bit" or "a 16-bit", for messages. */
const width = (bits: 8 | 16) => (bits === 8 ? 'an 8-bit' : 'a 16-bit');

function unsupported(what: string): never {
  throw new VpmFormatError(`${what}: the guide does not say what that does, and the emulator does not guess (docs/emulator.md)`);
}

/** Loads `s.rows` rows of `s.rowLength` elements from memory at `addr` (rows `pitch` bytes apart) into the VPM. Returns the bytes moved. */
export function loadNarrow(mem: GpuMemory, vpm: Int32Array, s: VdrSetup, pitch: number, addr: number, touched?: Touched): number {
  const w = dmaWidth(s.modew)!;
  const bits = w.bits as 8 | 16;
  if (s.vertical) unsupported(`a vertical ${bits}-bit DMA load`);
  if (s.x !== 0) unsupported(`${width(bits)} DMA load to VPM column ${s.x}`);
  const bytes = bits / 8;
  const parts = 32 / bits;
  // VPITCH steps the low bits of Y with the sub-vector, a 4-bit field in all (Table 36): {Y[1:0], B} or {Y[2:0], H}.
  const low = 16;
  const first = s.y * parts + w.sel;
  for (let r = 0; r < s.rows; r++) {
    const sub = first - (first % low) + ((first % low) + r * s.vpitch) % low;
    const at = (addr + r * pitch) >>> 0;
    for (let e = 0; e < s.rowLength; e++) {
      const i = mem.checkByte((at + e * bytes) >>> 0, 'DMA load', READ);
      const v = bytes === 1 ? mem.bytes[i]! : mem.bytes[i]! | (mem.bytes[i + 1]! << 8);
      const { word, shift } = place(bits, sub, e);
      const mask = ((1 << bits) - 1) << shift;
      vpm[word] = (vpm[word]! & ~mask) | ((v << shift) & mask);
      touched?.add(word);
    }
  }
  return s.rows * s.rowLength * bytes;
}

/** Checks a narrow DMA store setup the emulator runs (one horizontal row from column 0, at most 16 elements). */
export function checkNarrowStore(s: VdwSetup, bits: 8 | 16): void {
  if (!s.horizontal) unsupported(`a vertical ${bits}-bit DMA store`);
  if ((s.vpmBase & 15) !== 0) unsupported(`${width(bits)} DMA store from VPM column ${s.vpmBase & 15}`);
  if (s.units !== 1) unsupported(`${width(bits)} DMA store of ${s.units} rows`);
  if (s.depth > 16) unsupported(`${width(bits)} DMA store of ${s.depth} elements a row (beyond one sub-vector)`);
}

/** Stores one row of `s.depth` elements of the setup's sub-vector to memory at `addr`. Returns the bytes moved. */
export function storeNarrow(mem: GpuMemory, vpm: Int32Array, s: VdwSetup, addr: number, touched?: Touched): number {
  const w = dmaWidth(s.modew)!;
  const bits = w.bits as 8 | 16;
  checkNarrowStore(s, bits);
  const bytes = bits / 8;
  const sub = (s.vpmBase >> 4) * (32 / bits) + w.sel;
  for (let e = 0; e < s.depth; e++) {
    const { word, shift } = place(bits, sub, e);
    touched?.add(word);
    const v = vpm[word]! >>> shift;
    const i = mem.checkByte((addr + e * bytes) >>> 0, 'DMA store', WRITE);
    mem.bytes[i] = v & 0xff;
    if (bytes === 2) mem.bytes[i + 1] = (v >>> 8) & 0xff;
  }
  return s.depth * bytes;
}
