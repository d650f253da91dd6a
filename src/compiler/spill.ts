// Spilling: virtual registers that found no physical register live in the VPM instead. Needs: IR,
// the registers to spill, and the QPU count the code is compiled for. Guarantees: IR in which
// every read of a spilled register is preceded by a reload into a fresh short-lived register and
// every write is followed by a store of it, so that allocation can run again; or a CompileError
// that names the kernel when the VPM has no room left.
//
// The VPM has 64 rows of 16 words (Guide p. 53). Rows 0 .. 2 * qpus - 1 are the QPUs' store and
// load rows (lower.ts); the rest are shared out, each QPU owning floor((64 - 2 * qpus) / qpus)
// of them, one row per spilled register. A store is a VPM write setup for the row and a write to `vpm`; a
// reload a VPM read setup for one row and, three instructions later (Guide p. 56, hazards.ts
// spaces them), a read of `vpm`. Each QPU touches only its own rows, so no locking is needed.

import { imm, type IrInstr, p, type Src, v, type VReg } from './ir.ts';
import { CompileError } from './errors.ts';

export const VPM_ROWS = 64;

/** VPM write setup, horizontal 32-bit, row 0 (Guide p. 57, Table 32). */
const VPM_WRITE_SETUP = 0xa00;
/** VPM read setup: one vector, stride 1, horizontal 32-bit, row 0 (Guide p. 58, Table 33). */
const VPM_READ_SETUP = 0x00101a00;

export interface SpillState {
  /** The next free virtual register number. */
  nregs: number;
  /** Slot (VPM row offset) of each spilled register. */
  readonly slots: Map<number, number>;
  /** Registers that must not be spilled: reload temporaries and the spill setups themselves. */
  readonly unspillable: Set<number>;
  /** The write and read setups of this QPU's first spill row, once made. */
  setups?: { readonly w: VReg; readonly r: VReg };
}

export function spillRowsPerQpu(qpus: number): number {
  return Math.floor((VPM_ROWS - 2 * qpus) / qpus);
}

/**
 * Rewrites `code` so the registers in `spill` live in VPM rows. `qpu` is the register holding
 * this QPU's number (defined by the first instruction), `kernel` names the kernel in errors.
 */
export function spillRegisters(
  code: readonly IrInstr[],
  spill: readonly number[],
  st: SpillState,
  ctx: { readonly qpu: VReg; readonly qpus: number; readonly kernel: string },
): IrInstr[] {
  const rows = spillRowsPerQpu(ctx.qpus);
  for (const id of spill) {
    if (st.slots.has(id)) continue;
    if (st.slots.size >= rows)
      throw new CompileError(
        `kernel ${ctx.kernel} needs more than ${rows} spilled registers with ${ctx.qpus} QPU${ctx.qpus > 1 ? 's' : ''} ` +
          `(${rows} VPM rows each): keep fewer values live at once${ctx.qpus > 1 ? ', or run on fewer QPUs' : ''}`,
      );
    st.slots.set(id, st.slots.size);
  }
  const fresh = (): VReg => {
    const r = v(st.nregs++);
    st.unspillable.add(r.id);
    return r;
  };
  const out: IrInstr[] = [];
  let setups = st.setups;
  if (!setups) {
    // After `mov qpu, unif`: the setups for row 2 * qpus + qpu * rows.
    setups = st.setups = { w: fresh(), r: fresh() };
    out.push(code[0]!);
    const k = fresh();
    const t = fresh();
    const c = fresh();
    out.push({ op: 'ldi', dst: k, bits: rows });
    out.push({ op: 'alu', code: 'mul24', dst: t, a: ctx.qpu, b: k });
    out.push({ op: 'ldi', dst: c, bits: VPM_WRITE_SETUP + 2 * ctx.qpus });
    out.push({ op: 'alu', code: 'add', dst: setups.w, a: c, b: t });
    const c2 = fresh();
    out.push({ op: 'ldi', dst: c2, bits: VPM_READ_SETUP + 2 * ctx.qpus });
    out.push({ op: 'alu', code: 'add', dst: setups.r, a: c2, b: t });
    code = code.slice(1);
  }
  const { w, r } = setups;
  const slotOperand = (slot: number): Src => {
    if (slot <= 15) return imm(String(slot));
    out.push({ op: 'ldi', dst: p('r1'), bits: slot });
    return p('r1');
  };
  const isSpilled = (s: Src): s is VReg => s.k === 'v' && st.slots.has(s.id);

  for (const i of code) {
    if (i.op !== 'alu' && i.op !== 'ldi') {
      out.push(i);
      continue;
    }
    const start = out.length;
    const temps = new Map<number, VReg>();
    const reload = (s: VReg): VReg => {
      let t = temps.get(s.id);
      if (t) return t;
      t = fresh();
      temps.set(s.id, t);
      out.push({ op: 'alu', code: 'add', dst: p('vr_setup'), a: r, b: slotOperand(st.slots.get(s.id)!) });
      out.push({ op: 'alu', code: 'mov', dst: t, a: p('vpm'), b: p('vpm') });
      return t;
    };
    const copy = { ...i } as typeof i & { a?: Src; b?: Src };
    if (i.op === 'alu') {
      const a = isSpilled(i.a) ? reload(i.a) : i.a;
      const b = isSpilled(i.b) ? (i.a.k === 'v' && i.b.id === i.a.id ? a : reload(i.b)) : i.b;
      Object.assign(copy, { a, b });
    }
    // A conditional write keeps the old value elsewhere: reload it into the same temporary.
    if (isSpilled(i.dst)) {
      const t = i.cond ? reload(i.dst) : (temps.get(i.dst.id) ?? fresh());
      copy.dst = t;
      out.push(copy);
      out.push({ op: 'alu', code: 'add', dst: p('vw_setup'), a: w, b: slotOperand(st.slots.get(i.dst.id)!) });
      out.push({ op: 'alu', code: 'mov', dst: p('vpm'), a: t, b: t });
    } else out.push(copy);
    // Spill code belongs to the statement of the instruction it serves.
    if (i.stmt) for (let n = start; n < out.length; n++) out[n] = { ...out[n]!, stmt: i.stmt };
  }
  return out;
}
