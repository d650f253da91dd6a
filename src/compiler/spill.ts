// Spilling: virtual registers that found no physical register live in the VPM, and once this
// QPU's VPM rows are used up, in memory. Needs: IR, the registers to spill, and the QPU count the
// code is compiled for. Guarantees: IR in which every read of a spilled register is preceded by a
// reload into a fresh short-lived register and every write is followed by a store of it, so that
// allocation can run again; reloads never fall inside a blocking load's sequence (lower.ts),
// whose DMA engine and VPM row memory reloads share.
//
// The VPM has 64 rows of 16 words (Guide p. 53). Rows 0 .. 2 * qpus - 1 are the QPUs' store and
// load rows (lower.ts); the rest are shared out, each QPU owning floor((64 - 2 * qpus) / qpus)
// of them, one row per spilled register. A store is a VPM write setup for the row and a write to
// `vpm`; a reload a VPM read setup for one row and, three instructions later (Guide p. 56,
// space.ts spaces them), a read of `vpm`. Each QPU touches only its own rows, so no locking is
// needed.
//
// Further spilled registers go to scratch memory the runtime provides (a uniform after the QPU
// count: Compiled.scratchBytes, docs/compiler.md). Slot s of QPU q is the 64 bytes at
// scratch + (s * qpus + q) * 64. A store goes through the QPU's load row: VPM write, DMA store,
// wait for it (so the row is free again and a later reload sees the value); a reload is a DMA
// load into the load row, a wait, and a VPM read. The TMU is not used: its cache would not see
// the DMA's writes (docs/compiler.md, "Memory").

import { CompileError } from './errors.ts';
import { type AluCode, int, type IrInstr, p, type PRegName, type Src, v, type VReg } from './ir.ts';
import { DMA_LOAD_ROW, DMA_STORE_ROW, VPM_READ_ROW, VPM_WRITE_ROW } from './lower-words.ts';

import { VPM_ROWS } from '../vc4/chip.ts';

export { VPM_ROWS };

export interface SpillState {
  /** The next free virtual register number. */
  nregs: number;
  /** Slot (VPM row offset) of each register spilled to the VPM. */
  readonly slots: Map<number, number>;
  /** Slot in scratch memory of each register spilled there. */
  readonly memory: Map<number, number>;
  /** Registers that must not be spilled: reload temporaries and the spill setups themselves. */
  readonly unspillable: Set<number>;
  /** The write and read setups of this QPU's first spill row, once made. */
  setups?: { readonly w: VReg; readonly r: VReg };
  /** This QPU's first scratch slot's address, once memory is used. */
  scratch?: VReg;
}

export function spillRowsPerQpu(qpus: number): number {
  return Math.floor((VPM_ROWS - 2 * qpus) / qpus);
}

/** Bytes of scratch memory the code needs, for all QPUs together. */
export const scratchBytes = (st: SpillState, qpus: number) => st.memory.size * qpus * 64;

const writes = (i: IrInstr, name: string) => (i.op === 'alu' || i.op === 'ldi') && i.dst.k === 'p' && i.dst.name === name;
const readsVpm = (i: IrInstr) => i.op === 'alu' && ((i.a.k === 'p' && i.a.name === 'vpm') || (i.b.k === 'p' && i.b.name === 'vpm'));
const isUniformRead = (i: IrInstr) => i.op === 'alu' && i.a.k === 'p' && i.a.name === 'unif';

/**
 * Rewrites `code` so the registers in `spill` live in VPM rows or memory. `qpu` is the register
 * holding this QPU's number (defined by the first instruction).
 */
export function spillRegisters(
  code: readonly IrInstr[],
  spill: readonly number[],
  st: SpillState,
  ctx: { readonly qpu: VReg; readonly qpus: number },
): IrInstr[] {
  const { qpu, qpus } = ctx;
  const rows = spillRowsPerQpu(qpus);
  for (const id of spill) {
    if (st.slots.has(id) || st.memory.has(id)) continue;
    if (st.slots.size < rows) st.slots.set(id, st.slots.size);
    else st.memory.set(id, st.memory.size);
  }
  const fresh = (): VReg => {
    const r = v(st.nregs++);
    st.unspillable.add(r.id);
    return r;
  };
  const out: IrInstr[] = [];
  /** Where ldi() and alu() put their instructions. */
  let sink = out;
  const ldi = (bits: number): VReg => {
    const r = fresh();
    sink.push({ op: 'ldi', dst: r, bits });
    return r;
  };
  const alu = (code: AluCode, a: Src, b: Src): VReg => {
    const r = fresh();
    sink.push({ op: 'alu', code, dst: r, a, b });
    return r;
  };
  const mov = (dst: PRegName, a: Src) => out.push({ op: 'alu', code: 'mov', dst: p(dst), a, b: a });
  const rest = [...code];
  if (!st.setups && st.slots.size) {
    // After `mov qpu, unif`: the setups for row 2 * qpus + qpu * rows.
    sink = [];
    const t = alu('mul24', qpu, ldi(rows));
    st.setups = { w: alu('add', ldi(VPM_WRITE_ROW + 2 * qpus), t), r: alu('add', ldi(VPM_READ_ROW + 2 * qpus), t) };
    rest.splice(1, 0, ...sink);
  }
  if (!st.scratch && st.memory.size) {
    // The scratch address is the uniform after the QPU count: right after the second uniform read.
    let at = 0;
    for (let seen = 0; seen < 2; ) if (isUniformRead(rest[at++]!)) seen++;
    sink = [];
    const base = fresh();
    sink.push({ op: 'alu', code: 'mov', dst: base, a: p('unif'), b: p('unif') });
    st.scratch = alu('add', base, alu('shl', qpu, int(6)));
    rest.splice(at, 0, ...sink);
  }
  sink = out;
  const { scratch } = st;

  const vpmRow = (slot: number): Src => {
    if (slot <= 15) return int(slot);
    out.push({ op: 'ldi', dst: p('r1'), bits: slot });
    return p('r1');
  };
  const memoryAddress = (slot: number): Src => (slot === 0 ? scratch! : alu('add', scratch!, ldi(slot * qpus * 64)));
  /** The load row, N + qpu, in a setup whose row field starts at bit `shift`. */
  const loadRowSetup = (base: number, shift: number): Src => alu('add', ldi(base + (qpus << shift)), shift ? alu('shl', qpu, int(shift)) : qpu);

  const isSpilled = (s: Src): s is VReg => s.k === 'v' && (st.slots.has(s.id) || st.memory.has(s.id));
  const reloadInto = (id: number, t: VReg) => {
    const slot = st.slots.get(id);
    if (slot !== undefined) {
      out.push({ op: 'alu', code: 'add', dst: p('vr_setup'), a: st.setups!.r, b: vpmRow(slot) });
    } else {
      const m = st.memory.get(id)!;
      mov('vr_setup', loadRowSetup(DMA_LOAD_ROW, 4));
      mov('vr_addr', memoryAddress(m));
      out.push({ op: 'read', src: p('vr_wait') });
      mov('vr_setup', loadRowSetup(VPM_READ_ROW, 0));
    }
    out.push({ op: 'alu', code: 'mov', dst: t, a: p('vpm'), b: p('vpm') });
  };
  const store = (id: number, t: VReg) => {
    const slot = st.slots.get(id);
    if (slot !== undefined) {
      out.push({ op: 'alu', code: 'add', dst: p('vw_setup'), a: st.setups!.w, b: vpmRow(slot) });
      mov('vpm', t);
      return;
    }
    const m = st.memory.get(id)!;
    out.push({ op: 'read', src: p('vw_wait') }); // a store of the kernel's may still be leaving
    mov('vw_setup', loadRowSetup(VPM_WRITE_ROW, 0));
    mov('vpm', t);
    mov('vw_setup', loadRowSetup(DMA_STORE_ROW, 7));
    mov('vw_addr', memoryAddress(m));
    out.push({ op: 'read', src: p('vw_wait') });
  };

  let scratchKnown = false;
  const early: [number, VReg][] = [];
  for (let at = 0; at < rest.length; ) {
    // A blocking load, from its DMA setup to its read of the row, is one group: its reloads go first.
    let end = at + 1;
    if (writes(rest[at]!, 'vr_setup')) {
      while (end < rest.length && end - at < 32 && !readsVpm(rest[end - 1]!)) end++;
      if (!readsVpm(rest[end - 1]!)) end = at + 1;
    }
    const start = out.length;
    const temps = new Map<number, VReg>();
    const reload = (s: VReg): VReg => {
      let t = temps.get(s.id);
      if (!t) {
        t = fresh();
        temps.set(s.id, t);
        reloadInto(s.id, t);
      }
      return t;
    };
    const group = rest.slice(at, end).map((i, n) => {
      if (i.op !== 'alu' && i.op !== 'ldi') return { ins: i };
      const copy = { ...i } as typeof i & { a?: Src; b?: Src };
      if (i.op === 'alu') Object.assign(copy, { a: isSpilled(i.a) ? reload(i.a) : i.a, b: isSpilled(i.b) ? reload(i.b) : i.b });
      if (!isSpilled(i.dst)) return { ins: copy };
      // Reloads come before the whole group: a value written inside it must not be read in it.
      if (n < end - at - 1) throw new CompileError(`internal error: a spilled register is written inside a blocking load's sequence (pc ${at + n})`);
      // A conditional write keeps the old value elsewhere: reload it into the same temporary.
      copy.dst = i.cond ? reload(i.dst) : (temps.get(i.dst.id) ?? fresh());
      return { ins: copy, stored: i.dst.id };
    });
    for (const g of group) {
      out.push(g.ins);
      const dst = (g.ins as { dst?: Src }).dst;
      if (g.stored !== undefined) {
        // The QPU count (the uniform before the scratch address) is stored once that is known.
        if (st.memory.has(g.stored) && !scratchKnown) early.push([g.stored, dst as VReg]);
        else store(g.stored, dst as VReg);
      }
      if (dst?.k === 'v' && dst.id === scratch?.id) {
        scratchKnown = true;
        for (const [id, t] of early.splice(0)) store(id, t);
      }
    }
    // Spill code belongs to the statement of the instructions it serves.
    const stmt = rest[at]!.stmt;
    if (stmt) for (let n = start; n < out.length; n++) if (!out[n]!.stmt) out[n] = { ...out[n]!, stmt };
    at = end;
  }
  if (early.length) throw new CompileError('internal error: a register was stored before the scratch address was read');
  return out;
}
