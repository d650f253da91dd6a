// Spilling: virtual registers that found no physical register live in the VPM, and once this
// QPU's VPM rows are used up, in memory. Needs: IR, the registers to spill, and the QPU count the
// code is compiled for. Guarantees: IR in which every read of a spilled register is preceded by a
// reload into a fresh short-lived register and every write is followed by a store of it, so that
// allocation can run again; reloads never fall inside a blocking load's sequence (lower.ts),
// whose DMA engine and VPM row memory reloads share.
//
// The VPM has 64 rows of 16 words (Guide p. 53); each QPU owns a block of them (vpm-rows.ts),
// whose spill rows hold one spilled register each, filled from the top of the block down, so
// that a run of stores can take the rows from the store row up (those a run takes are
// `reserved`: no register spills to them). A store is a VPM write setup for the row and a write to
// `vpm`; a reload a VPM read setup for one row and, three instructions later (Guide p. 56,
// space.ts spaces them), a read of `vpm`. Each QPU touches only its own rows, so no locking is
// needed.
//
// A spilled register that only ever holds one constant (its writes are all `ldi` of the same
// word: a hoisted address offset, a setup) is not stored at all: each read loads the constant
// again (`ldi`, one instruction, where a VPM row costs two and memory hundreds of cycles), and
// its writes go. So it takes no row.
//
// Further spilled registers go to scratch memory the runtime provides (a uniform after the QPU
// count: Compiled.scratchBytes, docs/compiler.md). Slot s of QPU q is the 64 bytes at
// scratch + reserved + (s * qpus + q) * 64, where a kernel that asserts reserves the start of
// scratch memory for its failure records (lower-checks.ts). A store goes through the QPU's load row: VPM write, DMA store,
// wait for it (so the row is free again and a later reload sees the value); a reload is a DMA
// load into the load row, a wait, and a VPM read. The TMU is not used: its cache would not see
// the DMA's writes (docs/compiler.md, "Memory").

import { CompileError } from './errors.ts';
import { type AluCode, int, type IrInstr, p, type PRegName, type Src, v, type VReg } from './ir.ts';
import { DMA_LOAD_ROW, DMA_LOAD_ROW_SHIFT, DMA_STORE_ROW, DMA_STORE_ROW_SHIFT, VPM_READ_ROW, VPM_ROW_SHIFT, VPM_WRITE_ROW } from './lower-words.ts';

import { VECTOR_BYTES } from '../vc4/chip.ts';
import { firstRowOp, loadRowOffset, spillRowsPerQpu } from './vpm-rows.ts';

export interface SpillState {
  /** The next free virtual register number. */
  nregs: number;
  /** Slot (VPM row offset) of each register spilled to the VPM. */
  readonly slots: Map<number, number>;
  /** Slot in scratch memory of each register spilled there. */
  readonly memory: Map<number, number>;
  /** The constant of each spilled register that holds only one: loaded again where it is read. */
  readonly remat: Map<number, number>;
  /** Registers that must not be spilled: reload temporaries and the spill setups themselves. */
  readonly unspillable: Set<number>;
  /** The write and read setups of this QPU's first spill row, once made. */
  setups?: { readonly w: VReg; readonly r: VReg };
  /** This QPU's first scratch slot's address, once memory is used. */
  scratch?: VReg;
}

/** Bytes of scratch memory the code needs, for all QPUs together. */
export const scratchBytes = (st: SpillState, qpus: number) => st.memory.size * qpus * VECTOR_BYTES;

const writes = (i: IrInstr, name: string) => (i.op === 'alu' || i.op === 'ldi') && i.dst.k === 'p' && i.dst.name === name;
const readsVpm = (i: IrInstr) => i.op === 'alu' && ((i.a.k === 'p' && i.a.name === 'vpm') || (i.b.k === 'p' && i.b.name === 'vpm'));
const isUniformRead = (i: IrInstr) => i.op === 'alu' && ((i.a.k === 'p' && i.a.name === 'unif') || (i.b.k === 'p' && i.b.name === 'unif'));

/** The QPU the code runs on: the register holding its number (the first instruction's), and the QPU count. */
interface QpuContext {
  readonly qpu: VReg;
  readonly qpus: number;
  /**
   * When the lowering reads the scratch memory's uniform itself (a kernel that asserts): the
   * register it reads it into, and the bytes at the start that are not spill slots.
   */
  readonly scratch?: { readonly reg: VReg; readonly reserved: number };
  /** Spill rows a run of stores takes for itself (lower-store-rows.ts): none of them holds a spilled register. */
  readonly storeRows?: number;
}

/**
 * Rewrites `code` so the registers in `spill` live in VPM rows or memory. `qpu` is the register
 * holding this QPU's number (defined by the first instruction).
 */
export function spillRegisters(code: readonly IrInstr[], spill: readonly number[], st: SpillState, ctx: QpuContext): IrInstr[] {
  const constants = constantsOf(code);
  for (const id of spill) if (constants.has(id) && !st.slots.has(id) && !st.memory.has(id)) st.remat.set(id, constants.get(id)!);
  spill = spill.filter((id) => !st.remat.has(id));
  assignSlots(spill, st, spillRowsPerQpu(ctx.qpus) - (ctx.storeRows ?? 0));
  return new Rewriter(st, ctx).run(withSetups(code, st, ctx));
}

/** The registers whose every write is an unconditional `ldi` of one word, with that word. */
function constantsOf(code: readonly IrInstr[]): Map<number, number> {
  const out = new Map<number, number>();
  const not = new Set<number>();
  for (const i of code) {
    const d = (i.op === 'alu' || i.op === 'ldi') && i.dst.k === 'v' ? i.dst.id : undefined;
    if (d === undefined || not.has(d)) continue;
    if (i.op === 'ldi' && !i.cond && (out.get(d) ?? i.bits) === i.bits) out.set(d, i.bits);
    else (not.add(d), out.delete(d));
  }
  return out;
}

/** Gives each register newly spilled a slot: the next VPM row while this QPU has one, then the next scratch slot. */
function assignSlots(spill: readonly number[], st: SpillState, rows: number): void {
  for (const id of spill) {
    if (st.slots.has(id) || st.memory.has(id)) continue;
    if (st.slots.size < rows) st.slots.set(id, st.slots.size);
    else st.memory.set(id, st.memory.size);
  }
}

/** An instruction of spill code, serving statement `stmt`'s instructions. */
const spillCode = (i: IrInstr, stmt: IrInstr['stmt']): IrInstr => ({ ...i, ...(stmt && !i.stmt ? { stmt } : {}), spill: true });

/** Writes spill code: fresh registers no later spilling may take, and instructions appended to `out`. */
class SpillWriter {
  readonly out: IrInstr[] = [];
  constructor(protected readonly st: SpillState) {}
  fresh(): VReg {
    const r = v(this.st.nregs++);
    this.st.unspillable.add(r.id);
    return r;
  }
  ldi(bits: number): VReg {
    const r = this.fresh();
    this.out.push({ op: 'ldi', dst: r, bits });
    return r;
  }
  alu(code: AluCode, a: Src, b: Src): VReg {
    const r = this.fresh();
    this.out.push({ op: 'alu', code, dst: r, a, b });
    return r;
  }
  mov(dst: PRegName, a: Src): void {
    this.out.push({ op: 'alu', code: 'mov', dst: p(dst), a, b: a });
  }
}

/** This QPU's first VPM row (vpm-rows.ts's firstRowOp). */
function firstRow(w: SpillWriter, qpu: VReg, qpus: number): VReg {
  const { code, by } = firstRowOp(qpus);
  return code === 'shl' ? w.alu('shl', qpu, int(by)) : w.alu('mul24', qpu, w.ldi(by));
}

/**
 * The code with what spill code needs made once, near its start, the first time it is needed:
 * this QPU's spill-row setups, and the address of its first scratch slot.
 */
function withSetups(code: readonly IrInstr[], st: SpillState, { qpu, qpus, scratch }: QpuContext): IrInstr[] {
  const rest = [...code];
  if (!st.setups && st.slots.size) {
    // After `mov qpu, unif`: the setups for the block's top spill row, slot 0 (vpm-rows.ts); slot s is s rows below.
    const w = new SpillWriter(st);
    const t = firstRow(w, qpu, qpus);
    const top = spillRowsPerQpu(qpus);
    st.setups = { w: w.alu('add', w.ldi(VPM_WRITE_ROW + top), t), r: w.alu('add', w.ldi(VPM_READ_ROW + top), t) };
    rest.splice(1, 0, ...w.out.map((i) => spillCode(i, undefined)));
  }
  if (!st.scratch && st.memory.size) {
    // The scratch address is the uniform after the QPU count: read right after the second
    // uniform read, or where the lowering reads it (the slots then come after what it reserves).
    let at = 0;
    for (let seen = 0; seen < (scratch ? 3 : 2); ) if (isUniformRead(rest[at++]!)) seen++;
    const w = new SpillWriter(st);
    let base = scratch?.reg;
    if (!base) {
      base = w.fresh();
      w.out.push({ op: 'alu', code: 'mov', dst: base, a: p('unif'), b: p('unif') });
    } else if (scratch!.reserved) base = w.alu('add', base, w.ldi(scratch!.reserved));
    st.scratch = w.alu('add', base, w.alu('shl', qpu, int(6)));
    rest.splice(at, 0, ...w.out.map((i) => spillCode(i, undefined)));
  }
  return rest;
}

/** The end of the group of instructions starting at `at`: a blocking load, from its DMA setup to its read of the row, is one. */
function groupEnd(code: readonly IrInstr[], at: number): number {
  if (!writes(code[at]!, 'vr_setup')) return at + 1;
  let end = at + 1;
  while (end < code.length && end - at < 32 && !readsVpm(code[end - 1]!)) end++;
  return readsVpm(code[end - 1]!) ? end : at + 1;
}

/** An instruction of a group rewritten, and the spilled register it writes, to be stored after it. */
type Rewritten = { readonly ins: IrInstr; readonly stored?: number };

/** The rewriting: a reload before each read of a spilled register, a store after each write. */
class Rewriter extends SpillWriter {
  /** Memory-spilled values written before the scratch address is read (the QPU count): stored once it is. */
  private readonly early: [number, VReg][] = [];
  private scratchKnown = false;
  constructor(
    st: SpillState,
    private readonly ctx: QpuContext,
  ) {
    super(st);
  }

  run(code: readonly IrInstr[]): IrInstr[] {
    for (let at = 0; at < code.length; ) {
      const end = groupEnd(code, at);
      const start = this.out.length;
      const group = this.rewriteGroup(code, at, end);
      for (const g of group) this.emit(g);
      // Spill code belongs to the statement of the instructions it serves.
      const stmt = code[at]!.stmt;
      const own = new Set(group.map((g) => g.ins));
      for (let n = start; n < this.out.length; n++) if (!own.has(this.out[n]!)) this.out[n] = spillCode(this.out[n]!, stmt);
      at = end;
    }
    if (this.early.length) throw new CompileError('internal error: a register was stored before the scratch address was read');
    return this.out;
  }

  /** The group's instructions reading and writing temporaries; their reloads are written first, before the whole group. */
  private rewriteGroup(code: readonly IrInstr[], at: number, end: number): Rewritten[] {
    const temps = new Map<number, VReg>();
    const reload = (s: VReg): VReg => {
      let t = temps.get(s.id);
      if (!t) {
        t = this.fresh();
        temps.set(s.id, t);
        this.reloadInto(s.id, t);
      }
      return t;
    };
    const spilled = (s: Src): s is VReg => s.k === 'v' && (this.st.slots.has(s.id) || this.st.memory.has(s.id) || this.st.remat.has(s.id));
    return code.slice(at, end).flatMap((i, n): Rewritten[] => {
      if (i.op !== 'alu' && i.op !== 'ldi') return [{ ins: i }];
      if (i.dst.k === 'v' && this.st.remat.has(i.dst.id)) return []; // each read loads the constant itself
      const copy = { ...i } as typeof i & { a?: Src; b?: Src };
      if (i.op === 'alu') Object.assign(copy, { a: spilled(i.a) ? reload(i.a) : i.a, b: spilled(i.b) ? reload(i.b) : i.b });
      if (!spilled(i.dst)) return [{ ins: copy }];
      // Reloads come before the whole group: a value written inside it must not be read in it.
      if (n < end - at - 1) throw new CompileError(`internal error: a spilled register is written inside a blocking load's sequence (pc ${at + n})`);
      // A conditional write keeps the old value elsewhere: reload it into the same temporary.
      copy.dst = i.cond ? reload(i.dst) : (temps.get(i.dst.id) ?? this.fresh());
      return [{ ins: copy, stored: i.dst.id }];
    });
  }

  /** Writes an instruction of a group, and the store of the spilled register it writes. */
  private emit(g: Rewritten): void {
    const { st } = this;
    this.out.push(g.ins);
    const dst = (g.ins as { dst?: Src }).dst;
    if (g.stored !== undefined) {
      // The QPU count (the uniform before the scratch address) is stored once that is known.
      if (st.memory.has(g.stored) && !this.scratchKnown) this.early.push([g.stored, dst as VReg]);
      else this.store(g.stored, dst as VReg);
    }
    if (dst?.k === 'v' && dst.id === st.scratch?.id) {
      this.scratchKnown = true;
      for (const [id, t] of this.early.splice(0)) this.store(id, t);
    }
  }

  /** Reloads spilled register `id` into `t`: from its VPM row, or by DMA from memory into the load row, then from there. */
  private reloadInto(id: number, t: VReg): void {
    const constant = this.st.remat.get(id);
    if (constant !== undefined) return void this.out.push({ op: 'ldi', dst: t, bits: constant });
    const slot = this.st.slots.get(id);
    if (slot !== undefined) {
      this.out.push({ op: 'alu', code: 'sub', dst: p('vr_setup'), a: this.st.setups!.r, b: this.vpmRow(slot) });
    } else {
      const m = this.st.memory.get(id)!;
      this.mov('vr_setup', this.loadRowSetup(DMA_LOAD_ROW, DMA_LOAD_ROW_SHIFT));
      this.mov('vr_addr', this.memoryAddress(m));
      this.out.push({ op: 'read', src: p('vr_wait') });
      this.mov('vr_setup', this.loadRowSetup(VPM_READ_ROW, VPM_ROW_SHIFT));
    }
    this.out.push({ op: 'alu', code: 'mov', dst: t, a: p('vpm'), b: p('vpm') });
  }

  /** Stores `t`, the new value of spilled register `id`: to its VPM row, or through the load row and DMA to memory, waited for. */
  private store(id: number, t: VReg): void {
    const slot = this.st.slots.get(id);
    if (slot !== undefined) {
      this.out.push({ op: 'alu', code: 'sub', dst: p('vw_setup'), a: this.st.setups!.w, b: this.vpmRow(slot) });
      this.mov('vpm', t);
      return;
    }
    const m = this.st.memory.get(id)!;
    this.out.push({ op: 'read', src: p('vw_wait') }); // a store of the kernel's may still be leaving
    this.mov('vw_setup', this.loadRowSetup(VPM_WRITE_ROW, VPM_ROW_SHIFT));
    this.mov('vpm', t);
    this.mov('vw_setup', this.loadRowSetup(DMA_STORE_ROW, DMA_STORE_ROW_SHIFT));
    this.mov('vw_addr', this.memoryAddress(m));
    this.out.push({ op: 'read', src: p('vw_wait') });
  }

  /** A spill row's distance below this QPU's top spill row: a small immediate, or r1 loaded with it. */
  private vpmRow(slot: number): Src {
    if (slot <= 15) return int(slot);
    this.out.push({ op: 'ldi', dst: p('r1'), bits: slot });
    return p('r1');
  }

  /** The address of this QPU's scratch slot. */
  private memoryAddress(slot: number): Src {
    return slot === 0 ? this.st.scratch! : this.alu('add', this.st.scratch!, this.ldi(slot * this.ctx.qpus * VECTOR_BYTES));
  }

  /** The load row, the last of this QPU's block, in a setup whose row field starts at bit `shift`. */
  private loadRowSetup(base: number, shift: number): Src {
    const { qpu, qpus } = this.ctx;
    const first = firstRow(this, qpu, qpus);
    return this.alu('add', this.ldi(base + (loadRowOffset(qpus) << shift)), shift ? this.alu('shl', first, int(shift)) : first);
  }
}
