// Lowering blocking loads and stores (source/ast.ts `load`, `store`, `storeNB`): 16 consecutive
// elements through this QPU's rows of the VPM and a DMA transfer (lower.ts's header gives the
// memory model), of 32-bit words or of 8- or 16-bit elements, all 16 or the first k.
// Needs: the frame's VPM and DMA setups (frame.ts) and a lowering to emit into. Guarantees: a
// load's elements in `dst` (8- and 16-bit ones widened: zero-extended, or sign-extended for the
// signed storages); a store's from `val` (narrowed to their low bits), waited for when blocking;
// with a count k (lane 0, clamped to 0..16), nothing past the first k elements read or written,
// a load's other lanes 0, and no transfer at all for 0.
//
// 8- and 16-bit elements: the DMA engines' 8- and 16-bit modes move bytes or half-words between
// memory and a packed sub-vector of the row (Guide Tables 34 and 36), and a VPM read or write of a
// packed 8- or 16-bit vector (Tables 32 and 33) gives each lane one element, zero-extended, or
// writes each lane's low bits (docs/emulator.md says which of these the guide leaves open). So
// a narrow load or store costs what a word's does, plus its setups (a few instructions, which
// -O2 hoists out of loops) and two shifts to sign-extend.

import { type Frame } from './frame.ts';
import { int, type IrInstr, p, type Reg, smallImm, type Src, type VReg } from './ir.ts';
import { DMA_LOAD_ROW, DMA_STORE_ROW, NARROW, type TrueCode } from './lower-words.ts';
import { elemBytes, type Expr, type PtrTy, STORAGES, storageOf } from '../source/ast.ts';
import { LANES } from '../vc4/chip.ts';
import { shiftImmediate } from '../vc4/tables.ts';
import { VDR_ROW_LENGTH_SHIFT, VDW_SETUP_DEPTH_SHIFT } from '../vc4/vpm-setup.ts';

/** What loads and stores need of a lowering (lower.ts). */
export interface MemoryEmitter {
  fresh(): VReg;
  label(what: string): string;
  emit(i: IrInstr): void;
  alu(code: string, dst: Reg, a: Src, b?: Src, extra?: { setf?: boolean; cond?: TrueCode }): void;
  mov(dst: Reg, src: Src, cond?: TrueCode): void;
  branch(cond: string, label: string): void;
  word(bits: number): Src;
  waitForStores(): void;
}

/** The four setups a load or a store of a pointer type uses: its DMA transfer's and its VPM access's. */
interface Setups {
  readonly dma: Src;
  readonly vpm: Src;
}

/** The element size of a pointer type in bits, and whether its loads sign-extend. */
function widthOf(ty: PtrTy): { bits: 8 | 16 | 32; signed: boolean } {
  const s = STORAGES[storageOf(ty)];
  return { bits: (s.bytes * 8) as 8 | 16 | 32, signed: s.signed && s.bytes < 4 };
}

/** A load's setups: the frame's for words; for 8 or 16 bits, the DMA's mode changed and the VPM read's address the row's sub-vector 0. */
function loadSetups(l: MemoryEmitter, f: Frame, bits: 8 | 16 | 32): Setups {
  if (bits === 32) return { dma: f.loadDma, vpm: f.loadRead };
  const n = NARROW[bits];
  const dma = l.fresh();
  l.alu('add', dma, f.loadDma, l.word(n.dmaLoad - DMA_LOAD_ROW));
  const row = l.fresh();
  l.alu('shl', row, f.loadRow, int(n.rowShift));
  const vpm = l.fresh(); // each setup a register of its own, written once: hoist.ts takes it out of loops
  l.alu('or', vpm, row, l.word(n.vpmRead));
  return { dma, vpm };
}

/** A store's setups, as loadSetups (for this QPU's store row). */
function storeSetups(l: MemoryEmitter, f: Frame, bits: 8 | 16 | 32): Setups {
  if (bits === 32) return { dma: f.dmaSetup, vpm: f.vpmSetup };
  const n = NARROW[bits];
  const dma = l.fresh();
  l.alu('add', dma, f.dmaSetup, l.word(n.dmaStore - DMA_STORE_ROW));
  const row = l.fresh();
  l.alu('shl', row, f.storeRow, int(n.rowShift));
  const vpm = l.fresh();
  l.alu('or', vpm, row, l.word(n.vpmWrite));
  return { dma, vpm };
}

/**
 * Loads the 16 elements (with `count`, the first k) at lane 0's address into `dst`; `cond`
 * writes only the lanes where it holds (never with a count).
 */
export function lowerLoad(l: MemoryEmitter, f: Frame, ty: PtrTy, ptr: Src, count: Src | undefined, dst: Reg, cond?: TrueCode): void {
  const { bits, signed } = widthOf(ty);
  const s = loadSetups(l, f, bits);
  const to = signed ? l.fresh() : dst;
  if (count) countedLoad(l, s, ptr, laneCount(l, count), to);
  else loadRow(l, s.dma, ptr, s.vpm, to, signed ? undefined : cond);
  if (signed) {
    // The VPM gives the element zero-extended: its sign bit to bit 31 and back.
    const by = int(shiftImmediate(32 - bits));
    const t = l.fresh();
    l.alu('shl', t, to, by);
    l.alu('asr', dst, t, by, cond ? { cond } : {});
  }
}

/** Stores the 16 elements of `val` (with `count`, the first k) from lane 0's address; a blocking store waits. */
export function lowerStore(l: MemoryEmitter, f: Frame, ty: PtrTy, ptr: Src, val: Src, count: Src | undefined, blocking: boolean): void {
  const { bits } = widthOf(ty);
  const s = storeSetups(l, f, bits);
  const k = count && laneCount(l, count);
  l.waitForStores(); // the previous store has left the VPM row
  l.mov(p('vw_setup'), s.vpm);
  l.mov(p('vpm'), val);
  if (k) {
    // The first k elements: the DMA store's depth set to k (it was 16), none where k is 0.
    const depth = l.fresh();
    l.alu('sub', depth, k, l.word(LANES));
    l.alu('shl', depth, depth, int(shiftImmediate(VDW_SETUP_DEPTH_SHIFT)));
    const setup = l.fresh();
    l.alu('add', setup, s.dma, depth);
    const skip = l.label('nostore');
    skipIfZero(l, k, skip);
    l.mov(p('vw_setup'), setup);
    l.mov(p('vw_addr'), ptr);
    l.emit({ op: 'read', src: p('vw_wait') });
    l.emit({ op: 'label', name: skip });
    return;
  }
  l.mov(p('vw_setup'), s.dma);
  l.mov(p('vw_addr'), ptr);
  if (blocking) l.waitForStores();
}

/**
 * A DMA load (setup `dma`) from the address in element 0 of `addr` into this QPU's load row,
 * waited for, then the VPM read (setup `vpm`) of the row into `dst`, under `cond` if given:
 * the row arrives three instructions after its setup (space.ts spaces them).
 */
export function loadRow(l: MemoryEmitter, dma: Src, addr: Src, vpm: Src, dst: Reg, cond?: TrueCode): void {
  l.mov(p('vr_setup'), dma);
  l.mov(p('vr_addr'), addr);
  l.emit({ op: 'read', src: p('vr_wait') });
  l.mov(p('vr_setup'), vpm);
  l.mov(dst, p('vpm'), cond);
}

/** Lane 0 of n, clamped to 0..16, in every lane (through r5's replicating port). */
function laneCount(l: MemoryEmitter, n: Src): VReg {
  const c = l.fresh();
  l.alu('max', c, n, int(0));
  l.alu('min', c, c, l.word(LANES));
  l.mov(p('r5rep'), c);
  const k = l.fresh();
  l.mov(k, p('r5'));
  return k;
}

/** Branches to `label` when k (the same in every lane) is 0. */
function skipIfZero(l: MemoryEmitter, k: VReg, label: string): void {
  l.emit({ op: 'alu', code: 'or', dst: p('nop'), a: k, b: k, setf: true });
  l.branch('allz', label);
}

/**
 * The first k of the 16 elements at lane 0's address, the other lanes 0: the DMA load's row
 * length set to k (its field's 0 means 16), then where the element number is below k the row's
 * value. Where k is 0 nothing is read.
 */
function countedLoad(l: MemoryEmitter, s: Setups, ptr: Src, k: VReg, dst: Reg): void {
  const out = l.fresh();
  l.mov(out, int(0));
  // The setup first: it touches nothing, and can fill the branch's delay slots.
  const length = l.fresh();
  l.alu('and', length, k, int(LANES - 1));
  l.alu('shl', length, length, int(shiftImmediate(VDR_ROW_LENGTH_SHIFT)));
  const setup = l.fresh();
  l.alu('or', setup, s.dma, length);
  const skip = l.label('noload');
  skipIfZero(l, k, skip);
  const row = l.fresh();
  loadRow(l, setup, ptr, s.vpm, row);
  l.emit({ op: 'alu', code: 'sub', dst: p('nop'), a: p('elem_num'), b: k, setf: true });
  l.mov(out, row, 'ns');
  l.emit({ op: 'label', name: skip });
  l.mov(dst, out);
}

/** p.add(n) into dst: the address n elements on (of the pointer type's size: 4, 2 or 1 bytes). */
export function lowerPtrAdd(l: MemoryEmitter & { expr(e: Expr): Src }, e: Expr & { k: 'ptradd' }, dst: Reg, cond?: TrueCode): void {
  const c = cond ? { cond } : {};
  const base = l.expr(e.p);
  const size = elemBytes(e.ty);
  if (e.n.k === 'lit') {
    const bytes = Math.imul(e.n.bits, size);
    const t = smallImm(bytes, 'int');
    if (t !== undefined) return l.alu('add', dst, base, t, c);
    const r = l.fresh();
    l.emit({ op: 'ldi', dst: r, bits: bytes });
    return l.alu('add', dst, base, r, c);
  }
  if (size === 1) return l.alu('add', dst, base, l.expr(e.n), c);
  const off = l.fresh();
  l.alu('shl', off, l.expr(e.n), int(Math.log2(size)));
  l.alu('add', dst, base, off, c);
}
