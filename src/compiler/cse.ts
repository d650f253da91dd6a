// Common subexpressions (pass `cse`, from -O1): an operation computed again, with operands not
// written since, is not computed again. `x.add(i)` loaded and then stored computes `i << 2`
// once. Local value numbering, one basic block at a time.
// Needs: IR from lower.ts. Guarantees: the same computation, where an unconditional ALU
// operation or load immediate that writes a virtual register defined only there, reads only
// virtual registers, small immediates and the element number, and sets no flags, equals an
// earlier one of the same block (same operation, operands, rotation) whose result is likewise
// defined only once and whose operands nothing has written since, is removed and its result read
// from the earlier one's register.

import { def, type IrInstr, irText, type Src, uses, type VReg } from './ir.ts';

const pureSource = (s: Src) => s.k !== 'p' || s.name === 'elem_num';

export function eliminateCommon(code: readonly IrInstr[], nregs: number): IrInstr[] {
  const defs = new Int32Array(nregs);
  for (const i of code) {
    const d = def(i);
    if (d) defs[d.id]!++;
  }
  const rename = new Map<number, VReg>();
  const r = (s: Src): Src => (s.k === 'v' ? (rename.get(s.id) ?? s) : s);
  const out: IrInstr[] = [];
  // The block's available values: the key of an operation -> its register and the registers it reads.
  let available = new Map<string, { reg: VReg; reads: number[] }>();
  for (const i0 of code) {
    let i = i0;
    if (i.op === 'alu') i = { ...i, a: r(i.a), b: r(i.b), dst: i.dst.k === 'v' ? (r(i.dst) as VReg) : i.dst };
    if (i.op === 'label' || i.op === 'branch' || i.op === 'end') available = new Map();
    const d = def(i);
    const candidate =
      d && defs[d.id] === 1 && (i.op === 'alu' || i.op === 'ldi') && !i.cond && (i.op === 'ldi' || (i.op === 'alu' && !i.setf && i.rot !== 'r5' && pureSource(i.a) && pureSource(i.b)));
    const key = candidate ? irText({ ...i, dst: { k: 'p', name: '_' } } as IrInstr) : '';
    const seen = candidate ? available.get(key) : undefined;
    if (seen) {
      rename.set(d!.id, seen.reg);
      continue;
    }
    // A write ends every value that read the register written (and its own, if it was one).
    if (d) for (const [k, v] of available) if (v.reads.includes(d.id) || v.reg.id === d.id) available.delete(k);
    if (candidate) available.set(key, { reg: d!, reads: uses(i).map((u) => u.id) });
    out.push(i);
  }
  return out;
}
