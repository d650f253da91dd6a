// The VPM's rows as compiled code shares them out (docs/compiler.md, "Registers" and "Memory").
// Needs: the QPU count. Guarantees: each QPU a block of rows of its own, so that no QPU writes
// a row another uses and none needs a lock.
//
// The VPM has 64 rows of 16 words (Guide p. 53). The N QPUs of a run each own a block of
// R = floor(64 / N) consecutive rows, QPU q's from row q * R:
//
//   offset 0          its store row: every store's vector on its way to memory, and what a
//                     combine across QPUs (lower-qpus.ts) leaves for the others to read
//   offsets 1 .. S    its spill rows (S = R - 2), spill slot s at offset S - s: filled from the
//                     top, so that a run of stores (lower-store-rows.ts) can take the store row
//                     and the spill rows above it for one DMA transfer of several rows
//   offset R - 1      its load row: every blocking load's vector, a scatter's words, and a value
//                     spilled to memory on its way
//
// 62 spill rows on one QPU, 30 on two, 14 on four, 3 on twelve.

import { VPM_ROWS } from '../vc4/chip.ts';

export { VPM_ROWS };

/** The rows each QPU owns. */
export const rowsPerQpu = (qpus: number): number => Math.floor(VPM_ROWS / qpus);

/** The spill rows each QPU owns. */
export const spillRowsPerQpu = (qpus: number): number => rowsPerQpu(qpus) - 2;

/** QPU q's store row, the first of its block. */
export const storeRowOf = (q: number, qpus: number): number => q * rowsPerQpu(qpus);

/** How QPU q finds its first row, q * rowsPerQpu: a shift when that is a power of two, else a 24-bit multiply. */
export function firstRowOp(qpus: number): { readonly code: 'shl' | 'mul24'; readonly by: number } {
  const r = rowsPerQpu(qpus);
  return (r & (r - 1)) === 0 ? { code: 'shl', by: Math.log2(r) } : { code: 'mul24', by: r };
}

/** The load row's offset in a QPU's block: its last row. */
export const loadRowOffset = (qpus: number): number => rowsPerQpu(qpus) - 1;
