// Lowering scatters (source/ast.ts): each lane's value written to, or added to, its own address.
// Needs: the frame's VPM and DMA setups (frame.ts) and a lowering to emit into. Guarantees: one
// DMA transfer of one word per lane, lane 0 first, each waited for before the next starts, so a
// later lane's word lands after an earlier one's and an add reads what the lane before it wrote;
// the lanes a Where leaves out branch around theirs; an atomic add holds the mutex throughout.
//
// Why a transfer per lane: the DMA engines move rows from one memory address, which they take
// from element 0 of the vector written to vr_addr or vw_addr (access.ts; docs/compiler.md), and
// the TMU, which reads per lane, cannot write. So lane i's address is rotated to element 0 and
// its word moves alone. A scatter writes the whole vector to the store row once and moves column
// i of it for lane i. An add loads the word into the load row, adds the lane's value (rotated to
// element 0) and stores it back, the store waited for before the next lane's load: lanes sharing
// an address all count. docs/language.md gives the costs.

import type { ScatterHow } from '../source/ast.ts';
import type { Frame } from './frame.ts';
import { int, type IrInstr, p, type Reg, type Src, type VReg } from './ir.ts';
import { DMA_LOAD_ROW, DMA_LOAD_WORD, DMA_STORE_COLUMN_SHIFT, DMA_STORE_ROW, DMA_STORE_WORD } from './lower-words.ts';
import { LANES } from '../vc4/chip.ts';
import { loadRow } from './lower-memory.ts';

/** What a scatter needs of a lowering (lower.ts). */
export interface ScatterEmitter {
  fresh(): VReg;
  label(what: string): string;
  emit(i: IrInstr): void;
  alu(code: string, dst: Reg, a: Src, b?: Src, extra?: { setf?: boolean; rot?: number }): void;
  mov(dst: Reg, src: Src): void;
  branch(cond: string, label: string): void;
  word(bits: number): Src;
  waitForStores(): void;
}

/**
 * Lowers a scatter of `val` to the addresses in `ptr` (both registers), in the lanes where
 * `mask` is 1 (all without one); `float` adds as floats.
 */
export function lowerScatter(l: ScatterEmitter, f: Frame, how: ScatterHow, ptr: VReg, val: VReg, float: boolean, mask?: VReg): void {
  if (how === 'atomicAdd') l.emit({ op: 'read', src: p('mutex') });
  // The store row may still be on its way out (a non-blocking store): wait before writing it.
  l.waitForStores();
  if (how === 'store') scatterStore(l, f, ptr, val, mask);
  else scatterAdd(l, f, ptr, val, float, mask);
  if (how === 'atomicAdd') l.mov(p('mutex'), int(1));
}

function scatterStore(l: ScatterEmitter, f: Frame, ptr: VReg, val: VReg, mask: VReg | undefined): void {
  l.mov(p('vw_setup'), f.vpmSetup);
  l.mov(p('vpm'), val);
  // A DMA store of one word from column 0 of this QPU's store row; the column advances by lane.
  const setup = l.fresh();
  l.alu('add', setup, f.dmaSetup, l.word(DMA_STORE_WORD - DMA_STORE_ROW));
  for (let i = 0; i < LANES; i++) {
    const skip = mask && skipUnless(l, mask, i);
    l.mov(p('vw_setup'), setup);
    l.mov(p('vw_addr'), toElement0(l, ptr, i));
    l.emit({ op: 'read', src: p('vw_wait') });
    if (skip) l.emit({ op: 'label', name: skip });
    if (i < LANES - 1) l.alu('add', setup, setup, int(1 << DMA_STORE_COLUMN_SHIFT));
  }
}

function scatterAdd(l: ScatterEmitter, f: Frame, ptr: VReg, val: VReg, float: boolean, mask: VReg | undefined): void {
  // DMA setups of one word: a load into column 0 of the load row, a store from column 0 of the store row.
  const load = l.fresh();
  l.alu('add', load, f.loadDma, l.word(DMA_LOAD_WORD - DMA_LOAD_ROW));
  const store = l.fresh();
  l.alu('add', store, f.dmaSetup, l.word(DMA_STORE_WORD - DMA_STORE_ROW));
  for (let i = 0; i < LANES; i++) {
    const skip = mask && skipUnless(l, mask, i);
    const at = toElement0(l, ptr, i);
    const word = l.fresh();
    loadRow(l, load, at, f.loadRead, word);
    const sum = l.fresh();
    l.alu(float ? 'fadd' : 'add', sum, word, toElement0(l, val, i));
    l.mov(p('vw_setup'), f.vpmSetup);
    l.mov(p('vpm'), sum);
    l.mov(p('vw_setup'), store);
    l.mov(p('vw_addr'), at);
    l.emit({ op: 'read', src: p('vw_wait') });
    if (skip) l.emit({ op: 'label', name: skip });
  }
}

/** x with its lane i in element 0 (a rotation; lane 0 as it is). */
function toElement0(l: ScatterEmitter, x: VReg, i: number): VReg {
  if (i === 0) return x;
  const t = l.fresh();
  l.alu('v8min', t, x, x, { rot: -i & (LANES - 1) });
  return t;
}

/** Branches to a new label, which it returns, when lane i of `mask` is 0 (the lane broadcast through r5). */
function skipUnless(l: ScatterEmitter, mask: VReg, i: number): string {
  if (i === 0) l.mov(p('r5rep'), mask);
  else l.alu('v8min', p('r5rep'), mask, mask, { rot: -i & (LANES - 1) });
  l.alu('or', p('nop'), p('r5'), p('r5'), { setf: true });
  const skip = l.label('nolane');
  l.branch('allz', skip);
  return skip;
}
