// Common subexpressions (pass `cse`, from -O1): an operation computed again, with operands not
// written since, is not computed again. `x.add(i)` loaded and then stored computes `i << 2`
// once. Local value numbering, one basic block at a time.
// Needs: IR from lower.ts. Guarantees: the same computation, where an unconditional ALU
// operation or load immediate that writes a virtual register defined only there, reads only
// virtual registers and fixed values (small immediates, the element and QPU numbers: ir.ts
// readKind), and sets no flags, equals an earlier one of the same block (same operation,
// operands, rotation) whose result is likewise defined only once and whose operands nothing has
// written since, is removed and its result read from the earlier one's register, wherever it is
// read (the earlier one runs before it on every path, and its register is never written again).

import { def, type IrInstr, readKind, type Src, uses, type VReg } from './ir.ts';

/** An operand whose value stays until a write this pass sees: a virtual register, or a fixed read (ir.ts). */
const pureSource = (s: Src) => s.k === 'v' || readKind(s) === 'fixed';

/** An operand in a key: a virtual register, a register's name, or a small immediate's code. */
const srcKey = (s: Src): string => (s.k === 'v' ? `%${s.id}` : s.k === 'p' ? s.name : `#${s.code}`);

/** What makes two candidates compute the same value: everything but the register written. */
function keyOf(i: Extract<IrInstr, { op: 'alu' | 'ldi' }>): string {
  if (i.op === 'ldi') return `ldi ${i.bits >>> 0}`;
  return `${i.code} ${srcKey(i.a)} ${srcKey(i.b)} ${i.rot ?? ''} ${i.unpack ?? ''} ${i.pack ?? ''}`;
}

export function eliminateCommon(code: readonly IrInstr[], nregs: number): IrInstr[] {
  const defs = new Int32Array(nregs);
  for (const i of code) {
    const d = def(i);
    if (d) defs[d.id]!++;
  }
  const rename = new Map<number, VReg>();
  const r = (s: Src): Src => (s.k === 'v' ? (rename.get(s.id) ?? s) : s);
  const renamed = (s: Src): boolean => s.k === 'v' && rename.has(s.id);
  const out: IrInstr[] = [];
  // The block's available values: the key of an operation -> its register; and for each
  // register, the keys of the available values that read it (a write of it ends them).
  let available = new Map<string, VReg>();
  let readers = new Map<number, string[]>();
  for (const i0 of code) {
    let i = i0;
    if (i.op === 'alu' && rename.size && (renamed(i.a) || renamed(i.b) || renamed(i.dst))) i = { ...i, a: r(i.a), b: r(i.b), dst: i.dst.k === 'v' ? (r(i.dst) as VReg) : i.dst };
    if (i.op === 'label' || i.op === 'branch' || i.op === 'end') (available = new Map()), (readers = new Map());
    const d = def(i);
    const candidate =
      d && defs[d.id] === 1 && (i.op === 'alu' || i.op === 'ldi') && !i.cond && (i.op === 'ldi' || (!i.setf && i.rot !== 'r5' && pureSource(i.a) && pureSource(i.b)));
    const key = candidate ? keyOf(i as Extract<IrInstr, { op: 'alu' | 'ldi' }>) : '';
    const seen = candidate ? available.get(key) : undefined;
    if (seen) {
      rename.set(d!.id, seen);
      continue;
    }
    // A write ends every value that read the register written. (A register defined once is
    // never written again, so an available value's own register is never overwritten.)
    if (d) for (const k of readers.get(d.id) ?? []) available.delete(k);
    if (candidate) {
      available.set(key, d!);
      for (const u of uses(i)) {
        const list = readers.get(u.id);
        if (list) list.push(key);
        else readers.set(u.id, [key]);
      }
    }
    out.push(i);
  }
  // Reads earlier in program order than the removed definition, which still run after it: a
  // function's result read by a caller laid out before the function (lower-funcs.ts).
  if (!rename.size) return out;
  return out.map((i) => {
    if (i.op === 'alu') return renamed(i.a) || renamed(i.b) ? { ...i, a: r(i.a), b: r(i.b) } : i;
    if (i.op === 'branch' && i.via) return { ...i, via: r(i.via) as VReg };
    return i;
  });
}
