// Runs of stores (pass `rows`, in lowering, from -O1): consecutive blocking stores of 16 words
// to one address plus c, c + s, c + 2s, ... words (s a number: 16 for rows one after another,
// more for rows spaced out, as a column of blocks or an FFT's outputs are), become one DMA
// transfer of several rows, from this QPU's store row and the spill rows above it
// (vpm-rows.ts), where each store would have been a transfer of its own. Every DMA store costs
// the one store engine that all QPUs share a fixed amount besides its words (docs/timing.md:
// 26 cycles, then 7.75 a row and 0.9 a word), so on many QPUs the stores at a kernel's end queue
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
//     order the DMA writes them in does not matter);
//   - or go to p + x r, p + x (r + 1), ... for one Int expression x that reads no memory and
//     literals r (`out.add(n.mul(r))`, rows of a matrix n wide; p itself is row 0): the stride is
//     known only at run time, so the run tests first that x - 16 words is within the stride
//     field in every lane (signed: 16 <= x <= MAX_X, 16,399) and else makes the stores one by one.
// The values are computed first (each by its own statement), then written to the rows one after
// another with one VPM write setup (stride 1), then one DMA store of as many rows of 16 words
// (memory stride (s - 16) x 4 bytes: each row s words after the one before), waited for as the
// last store would be. No spill code falls between those writes (they write no register), so the
// write setup holds. The transfer is the run's last store's instruction: a row out of its
// array's bounds is reported there (at -O0, where there are no runs, at its own store).

import type { Frame } from './frame.ts';
import { int, p, type Src, type VReg } from './ir.ts';
import { lowerStore, type MemoryEmitter } from './lower-memory.ts';
import { DMA_STORE_ROW, VPM_WRITE_ROW } from './lower-words.ts';
import { type Cond, type Expr, type PtrTy, readsMemory, sameExpr, type Stmt } from '../source/ast.ts';
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

/** A literal from the AST, or undefined. */
const literal = (e: Expr): number | undefined => (e.k === 'lit' && e.ty === 'int' ? e.bits | 0 : undefined);

/**
 * A store's address as pointer + literal words (`c`), or pointer + x r for an Int expression x
 * and a literal r (`x`, `r`), when it is a store a run can hold. A pointer alone is row 0 of either.
 */
type Row = { readonly s: StoreStmt; readonly base: Expr; readonly c: number; readonly x?: Expr; readonly r?: number };
function rowOf(s: Stmt): Row | undefined {
  if (s.k !== 'store' || s.n || (s.ptr.ty !== 'int*' && s.ptr.ty !== 'float*')) return undefined;
  if (readsMemory(s.e) || readsMemory(s.ptr)) return undefined;
  if (s.ptr.k !== 'ptradd') return { s, base: s.ptr, c: 0 };
  const { p: base, n } = s.ptr;
  const c = literal(n);
  if (c !== undefined) return { s, base, c };
  if (n.k === 'bin' && n.op === 'mul') {
    const [ra, rb] = [literal(n.a), literal(n.b)];
    if (rb !== undefined) return { s, base, c: 0, x: n.a, r: rb };
    if (ra !== undefined) return { s, base, c: 0, x: n.b, r: ra };
  }
  return { s, base, c: 0, x: n, r: 1 };
}

/** Stores one transfer makes: their rows, `step` words apart in memory, or (a run-time stride) `x` words apart. */
export interface StoreRun {
  readonly stores: readonly StoreStmt[];
  readonly step: number;
  readonly x?: Expr;
}

/** The stores from ss[at] one transfer can make, at most `rows` of them; fewer than 2 is no run. */
export function storeRun(ss: readonly Stmt[], at: number, rows: number): StoreRun | undefined {
  const row = rows > 1 ? rowOf(ss[at]!) : undefined;
  const second = row && at + 1 < ss.length ? rowOf(ss[at + 1]!) : undefined;
  if (!row || !second) return undefined;
  // The first store's address as it splits, or whole (row 0 of rows from it: `q.store(a); q.add(48).store(b)`).
  for (const first of [row, { s: row.s, base: row.s.ptr, c: 0 }]) {
    if (!sameExpr(second.base, first.base)) continue;
    return second.x === undefined && first.x === undefined ? literalRun(ss, at, rows, first) : strideRun(ss, at, rows, first, second);
  }
  return undefined;
}

/** Rows c, c + step, c + 2 step, ... words from one pointer (literals). */
function literalRun(ss: readonly Stmt[], at: number, rows: number, first: Row): StoreRun | undefined {
  const run = [first.s];
  let step = 0;
  for (let t = at + 1; t < ss.length && run.length < rows; t++) {
    const r = rowOf(ss[t]!);
    if (!r || r.x !== undefined || !sameExpr(r.base, first.base)) break;
    if (run.length === 1) step = r.c - first.c;
    if (step < LANES || step > MAX_STEP || r.c !== first.c + step * run.length) break;
    run.push(r.s);
  }
  return run.length > 1 ? { stores: run, step } : undefined;
}

/** Rows x r, x (r + 1), ... words from one pointer, x an Int expression (the pointer alone: r = 0). */
function strideRun(ss: readonly Stmt[], at: number, rows: number, first: Row, second: Row): StoreRun | undefined {
  const x = first.x ?? second.x;
  const r0 = first.x === undefined ? (first.c === 0 ? 0 : undefined) : first.r;
  if (x === undefined || r0 === undefined || readsMemory(x)) return undefined;
  const run = [first.s];
  for (let t = at + 1; t < ss.length && run.length < rows; t++) {
    const r = rowOf(ss[t]!);
    if (!r || r.x === undefined || !sameExpr(r.base, first.base) || !sameExpr(r.x, x) || r.r !== r0 + run.length) break;
    run.push(r.s);
  }
  return run.length > 1 ? { stores: run, step: 0, x } : undefined;
}

/** What a run needs of the lowering besides a memory emitter. */
export interface RunEmitter extends MemoryEmitter {
  expr(e: Expr): Src;
  /** Lowers with `s` as the statement the instructions come from. */
  within(s: Stmt, lowering: () => void): void;
  /** Branches to `label` when the condition does not hold (lower-conditions.ts). */
  readonly cond: { branchUnless(c: Cond, label: string): void };
}

/** The largest x whose rows a stride field reaches: 16 + 16,383 words (its 16 bits of bytes). */
const MAX_X = LANES + Math.floor(VDW_MAX_STRIDE / WORD_BYTES);

/** Lowers a run of stores (storeRun): the values, then the rows, then one DMA store; with a run-time stride, tested first. */
export function lowerStoreRun(l: RunEmitter, f: Frame, run: StoreRun): void {
  const { stores } = run;
  const last = stores[stores.length - 1]!;
  const values: Src[] = [];
  for (const s of stores) l.within(s, () => values.push(run.x === undefined ? l.expr(s.e) : materialize(l, l.expr(s.e))));
  if (run.x === undefined) return l.within(last, () => transfer(l, f, values, l.expr(stores[0]!.ptr), () => l.word(encodeVdwStride((run.step - LANES) * WORD_BYTES))));
  const x = run.x;
  const lit = (n: number): Expr => ({ k: 'lit', ty: 'int', bits: n });
  const fits: Cond = { k: 'all', b: { k: 'and', a: { k: 'cmp', op: 'ge', ty: 'int', a: x, b: lit(LANES) }, b: { k: 'cmp', op: 'le', ty: 'int', a: x, b: lit(MAX_X) } } };
  const [oneByOne, done] = [l.label('rowbyrow'), l.label('rowsdone')];
  l.within(last, () => {
    l.cond.branchUnless(fits, oneByOne);
    // The stride field: (x - 16) words as bytes, in the setup's low bits (STRIDE_UNIT checks that).
    const stride = l.fresh();
    l.alu('shl', stride, l.expr(x), int(2));
    l.alu('add', stride, stride, l.word(encodeVdwStride(0) - LANES * WORD_BYTES));
    transfer(l, f, values, l.expr(stores[0]!.ptr), () => stride);
    l.branch('always', done);
    l.emit({ op: 'label', name: oneByOne });
  });
  stores.forEach((s, k) => l.within(s, () => lowerStore(l, f, s.ptr.ty as PtrTy, l.expr(s.ptr), values[k]!, undefined, true)));
  l.emit({ op: 'label', name: done });
}

/** A value in a register, so that both ways of a run with a run-time stride can store it. */
function materialize(l: RunEmitter, x: Src): Src {
  if (x.k === 'v') return x;
  const r = l.fresh();
  l.mov(r, x);
  return r;
}

/** The rows' values to the VPM from row 0 and one DMA store of them, each `stride()` (a DMA stride setup, made where it is written) after the one before. */
function transfer(l: RunEmitter, f: Frame, values: readonly Src[], ptr: Src, stride: () => Src): void {
  const vpm: VReg = l.fresh();
  l.alu('add', vpm, f.vpmSetup, l.word(VPM_WRITE_ROWS - VPM_WRITE_ROW));
  const dma: VReg = l.fresh();
  l.alu('add', dma, f.dmaSetup, l.word(dmaStoreRows(values.length) - DMA_STORE_ROW));
  l.waitForStores(); // a store before may still be reading the store row
  l.mov(p('vw_setup'), vpm);
  for (const v of values) l.mov(p('vpm'), v);
  l.mov(p('vw_setup'), stride());
  l.mov(p('vw_setup'), dma);
  l.mov(p('vw_addr'), ptr);
  l.waitForStores();
}

/** The stride field holds bytes in the setup's low bits (Table 35), which the run-time stride's add assumes. */
if (encodeVdwStride(1) - encodeVdwStride(0) !== 1) throw new Error('internal: the DMA store stride field is not in the low bits');
