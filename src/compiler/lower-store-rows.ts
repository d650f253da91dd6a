// Runs of stores (pass `rows`, in lowering, from -O1): consecutive blocking stores of 16 words
// to one address plus c, c + s, c + 2s, ... words (s a number: 16 for rows one after another,
// more for rows spaced out, as a column of blocks or an FFT's outputs are), become one DMA
// transfer of several rows, from this QPU's store row and the spill rows above it
// (vpm-rows.ts), where each store would have been a transfer of its own. Every DMA store costs
// the one store engine that all QPUs share a fixed amount besides its words (docs/timing.md:
// 70 cycles, then 5 a row and 0.9 a word), so on many QPUs the stores at a kernel's end queue
// for it: SHA-256 writes its 8 hash words as 8 stores.
//
// Needs: the statements of a block, the frame's setups, and how many rows a run may take
//   (1 + the spill rows it may use; when the rows runs take would leave registers to spill to
//   memory, driver.ts compiles the kernel again with shorter runs, down to none).
// Guarantees: memory as the stores, one after another, leave it. A run is only stores that
//   - are blocking, of Ints or Floats, of all 16 lanes (no count);
//   - compute nothing that reads memory (no load), so computing all the values before any of
//     them is stored changes nothing;
//   - go to p + c, p + c + s, p + c + 2s, ... for one pointer expression p (literals c and s,
//     16 <= s, and s - 16 words within a DMA store's stride field: rows never overlap, so the
//     order the DMA writes them in does not matter).
// The values are computed first (each by its own statement), then written to the rows one after
// another with one VPM write setup (stride 1), then one DMA store of as many rows of 16 words
// (memory stride (s - 16) x 4 bytes: each row s words after the one before), waited for as the
// last store would be. No spill code falls between those writes (they write no register), so the
// write setup holds. The transfer is the run's last store's instruction: a row out of its
// array's bounds is reported there (at -O0, where there are no runs, at its own store).

import type { Frame } from './frame.ts';
import { p, type Src, type VReg } from './ir.ts';
import type { MemoryEmitter } from './lower-memory.ts';
import { DMA_STORE_ROW, VPM_WRITE_ROW } from './lower-words.ts';
import { type Expr, readsMemory, sameExpr, type Stmt } from '../source/ast.ts';
import { LANES, WORD_BYTES } from '../vc4/chip.ts';
import { DMA_MODE_32, encodeVdwSetup, encodeVdwStride, encodeVpmWriteSetup, VDW_MAX_STRIDE } from '../vc4/vpm-setup.ts';

type StoreStmt = Extract<Stmt, { k: 'store' }>;

/** A VPM write setup of horizontal 32-bit vectors, one row after another (stride 1), from row 0. */
const VPM_WRITE_ROWS = encodeVpmWriteSetup({ size: 32, horizontal: true, laned: false, stride: 1, addr: 0 });
/** A DMA store of n rows of 16 words from VPM row 0 (Guide p. 58, Table 34). */
const dmaStoreRows = (n: number) => encodeVdwSetup({ units: n, depth: LANES, horizontal: true, vpmBase: 0, modew: DMA_MODE_32 });
/** The most words from one row's start to the next's that a DMA store's stride can reach. */
const MAX_STEP = LANES + Math.floor(VDW_MAX_STRIDE / WORD_BYTES);

/** The most rows one run takes (more values live at once buy little: the fixed cost is paid once in 8). */
export const MAX_RUN_ROWS = 8;

/** A store's address as pointer + literal words, when it is a store a run can hold. */
function rowOf(s: Stmt): { s: StoreStmt; base: Expr; c: number } | undefined {
  if (s.k !== 'store' || s.n || (s.ptr.ty !== 'int*' && s.ptr.ty !== 'float*')) return undefined;
  if (readsMemory(s.e) || readsMemory(s.ptr)) return undefined;
  return s.ptr.k === 'ptradd' && s.ptr.n.k === 'lit' ? { s, base: s.ptr.p, c: s.ptr.n.bits | 0 } : { s, base: s.ptr, c: 0 };
}

/** Stores one transfer makes: their rows, `step` words apart in memory. */
export interface StoreRun {
  readonly stores: readonly StoreStmt[];
  readonly step: number;
}

/** The stores from ss[at] one transfer can make, at most `rows` of them; fewer than 2 is no run. */
export function storeRun(ss: readonly Stmt[], at: number, rows: number): StoreRun | undefined {
  const first = rows > 1 ? rowOf(ss[at]!) : undefined;
  if (!first) return undefined;
  const run = [first.s];
  let step = 0;
  for (let t = at + 1; t < ss.length && run.length < rows; t++) {
    const r = rowOf(ss[t]!);
    if (!r || !sameExpr(r.base, first.base)) break;
    if (run.length === 1) step = r.c - first.c;
    if (step < LANES || step > MAX_STEP || r.c !== first.c + step * run.length) break;
    run.push(r.s);
  }
  return run.length > 1 ? { stores: run, step } : undefined;
}

/** What a run needs of the lowering besides a memory emitter. */
export interface RunEmitter extends MemoryEmitter {
  expr(e: Expr): Src;
  /** Lowers with `s` as the statement the instructions come from. */
  within(s: Stmt, lowering: () => void): void;
}

/** Lowers a run of stores (storeRun): the values, then the rows, then one DMA store. */
export function lowerStoreRun(l: RunEmitter, f: Frame, { stores: run, step }: StoreRun): void {
  const values: Src[] = [];
  for (const s of run) l.within(s, () => values.push(l.expr(s.e)));
  l.within(run[run.length - 1]!, () => {
    const ptr = l.expr(run[0]!.ptr);
    const vpm: VReg = l.fresh();
    l.alu('add', vpm, f.vpmSetup, l.word(VPM_WRITE_ROWS - VPM_WRITE_ROW));
    const dma: VReg = l.fresh();
    l.alu('add', dma, f.dmaSetup, l.word(dmaStoreRows(run.length) - DMA_STORE_ROW));
    l.waitForStores(); // a store before may still be reading the store row
    l.mov(p('vw_setup'), vpm);
    for (const v of values) l.mov(p('vpm'), v);
    l.mov(p('vw_setup'), l.word(encodeVdwStride((step - LANES) * WORD_BYTES)));
    l.mov(p('vw_setup'), dma);
    l.mov(p('vw_addr'), ptr);
    l.waitForStores();
  });
}
