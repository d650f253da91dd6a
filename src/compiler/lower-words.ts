// What lowering builds its instructions from: the VPM and DMA setup words that move one row,
// and the condition codes (Guide pp. 57-59); the language's operators are in source/ops.ts.
// Needs: nothing. Guarantees: values from the Guide's tables.

import { BRANCH_CONDITIONS, type BranchCondition } from '../vc4/tables.ts';
import { LANES } from '../vc4/chip.ts';
import { DMA_MODE_16, DMA_MODE_32, DMA_MODE_8, encodeVdrSetup, encodeVdwSetup, encodeVpmReadSetup, encodeVpmWriteSetup } from '../vc4/vpm-setup.ts';

// The setups that move one row of 16 words, for VPM row 0; adding the row shifted to its field
// (the *_ROW_SHIFTs) makes them for another row (the fields below it are 0, so adding cannot
// carry into them).
/** VPM write setup, horizontal 32-bit, row 0 (Guide p. 57, Table 32). */
export const VPM_WRITE_ROW = encodeVpmWriteSetup({ size: 32, horizontal: true, laned: false, stride: 64, addr: 0 }); // one vector: no stride (64 is written 0)
/** VPM read setup: one vector, stride 1, horizontal 32-bit, row 0 (Guide p. 58, Table 33). */
export const VPM_READ_ROW = encodeVpmReadSetup({ size: 32, horizontal: true, laned: false, stride: 1, count: 1, addr: 0 });
/** DMA store setup: 1 row of 16 words, horizontal, from VPM row 0 (Guide p. 58, Table 34). */
export const DMA_STORE_ROW = encodeVdwSetup({ units: 1, depth: LANES, horizontal: true, vpmBase: 0, modew: DMA_MODE_32 });
/** DMA load setup: 32-bit, 1 row of 16 words, horizontal, to VPM row 0 (Guide p. 59, Table 36). */
export const DMA_LOAD_ROW = encodeVdrSetup({ modew: DMA_MODE_32, mpitch: 0, rowLength: LANES, rows: 1, vpitch: 1, vertical: false, y: 0, x: 0 });
/**
 * The same for 16 elements of 8 or 16 bits (Tables 32-36): the DMA in its 8- or 16-bit mode
 * (sub-vector 0), the VPM read or write of a packed 8- or 16-bit vector (ADDR {Y, B} or {Y, H}:
 * the row shifted by NARROW_ROW_SHIFT[bits]), so 16 bytes or half-words fill the first 4 or 8
 * words of the row. Only the DMA setups' mode differs from the 32-bit ones.
 */
export const NARROW = {
  8: {
    vpmRead: encodeVpmReadSetup({ size: 8, horizontal: true, laned: false, stride: 1, count: 1, addr: 0 }),
    vpmWrite: encodeVpmWriteSetup({ size: 8, horizontal: true, laned: false, stride: 64, addr: 0 }),
    dmaLoad: encodeVdrSetup({ modew: DMA_MODE_8, mpitch: 0, rowLength: LANES, rows: 1, vpitch: 1, vertical: false, y: 0, x: 0 }),
    dmaStore: encodeVdwSetup({ units: 1, depth: LANES, horizontal: true, vpmBase: 0, modew: DMA_MODE_8 }),
    rowShift: 2,
  },
  16: {
    vpmRead: encodeVpmReadSetup({ size: 16, horizontal: true, laned: false, stride: 1, count: 1, addr: 0 }),
    vpmWrite: encodeVpmWriteSetup({ size: 16, horizontal: true, laned: false, stride: 64, addr: 0 }),
    dmaLoad: encodeVdrSetup({ modew: DMA_MODE_16, mpitch: 0, rowLength: LANES, rows: 1, vpitch: 1, vertical: false, y: 0, x: 0 }),
    dmaStore: encodeVdwSetup({ units: 1, depth: LANES, horizontal: true, vpmBase: 0, modew: DMA_MODE_16 }),
    rowShift: 1,
  },
} as const;

/** DMA store and load setups of one word (column 0 of VPM row 0), for scatters (lower-scatter.ts). */
export const DMA_STORE_WORD = encodeVdwSetup({ units: 1, depth: 1, horizontal: true, vpmBase: 0, modew: DMA_MODE_32 });
export const DMA_LOAD_WORD = encodeVdrSetup({ modew: DMA_MODE_32, mpitch: 0, rowLength: 1, rows: 1, vpitch: 1, vertical: false, y: 0, x: 0 });
/** Where the column goes in a DMA store setup (VPMBASE's low bits): adding 1 << it moves the word one column on. */
export { VDW_SETUP_COLUMN_SHIFT as DMA_STORE_COLUMN_SHIFT } from '../vc4/vpm-setup.ts';
/** Where the row goes in each: bit 0 of the VPM setups, bit 7 of the DMA store's and bit 4 of the DMA load's. */
export { VDR_SETUP_ROW_SHIFT as DMA_LOAD_ROW_SHIFT, VDW_SETUP_ROW_SHIFT as DMA_STORE_ROW_SHIFT, VPM_SETUP_ROW_SHIFT as VPM_ROW_SHIFT } from '../vc4/vpm-setup.ts';


export type { TrueCode } from './operands.ts';
import type { TrueCode } from './operands.ts';
export const OPPOSITE: Record<TrueCode, TrueCode> = { zs: 'zc', zc: 'zs', ns: 'nc', nc: 'ns', cs: 'cc', cc: 'cs' };

/** The branch condition "any/all lanes have flag `flag` set (or, with `clear`, clear)" (Table 15). */
export function branchCond(quant: 'any' | 'all', clear: boolean, flag: string): BranchCondition {
  const name = `${quant}${clear ? 'n' : ''}${flag}`;
  if (!(BRANCH_CONDITIONS as readonly (string | undefined)[]).includes(name)) throw new Error(`internal: no branch condition ${name}`);
  return name as BranchCondition;
}
