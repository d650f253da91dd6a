// Constant folding (pass `fold`, from -O1): an operation whose operands are all constants is
// computed at compile time with the chip's own arithmetic (src/vc4/arith.ts, the functions the
// emulator's model is tested against, bit for bit, flush-to-zero and NaNs included) and becomes
// a move of its result: `mov %2, 3` ... `add %20, %2, 4` ... `mul24 %19, %20, 5` makes %19 a
// `ldi %19, 0x23`; what only fed the folded operations then goes (dead.ts).
// Needs: IR after dead.ts (which removes the prologue's zero of a variable written before it is
// read, so that a variable set once is seen to be).
// Guarantees: the same computation, bit for bit. A virtual register is a constant when its one
// definition in the whole program is an unconditional `ldi`, or an unconditional move or
// operation on constants that sets no flags and rotates nothing (every lane then holds the
// same value wherever it is read). An ALU operation on constants that sets no flags and
// rotates nothing, writing a virtual register, becomes `mov` of its result when that is a small
// immediate, else `ldi`, with the same destination and condition.

import { smallImmValue } from '../vc4/tables.ts';
import { removeDeadCode } from './dead.ts';
import { aluFunction, def, type IrInstr, smallImm, type Src } from './ir.ts';

export function foldConstants(code: readonly IrInstr[], nregs: number): IrInstr[] {
  const defs = new Int32Array(nregs);
  for (const i of code) {
    const d = def(i);
    if (d) defs[d.id]!++;
  }
  const known = new Map<number, number>();
  const valueOf = (s: Src): number | undefined =>
    s.k === 'imm' ? smallImmValue(s.code) | 0 : s.k === 'v' ? known.get(s.id) : undefined;
  const out = [...code];
  let folded = false;
  // Definitions come before reads in program order except around loops: repeat until nothing
  // more folds (each round folds at least one instruction, or ends).
  for (let changed = true; changed; ) {
    changed = false;
    out.forEach((i, n) => {
      if (i.op === 'ldi' && !i.cond && i.dst.k === 'v' && defs[i.dst.id] === 1 && !known.has(i.dst.id)) {
        known.set(i.dst.id, i.bits | 0);
        changed = true;
      }
      if (i.op !== 'alu' || i.setf || i.rot !== undefined || i.dst.k !== 'v') return;
      const [a, b] = [valueOf(i.a), valueOf(i.b)];
      const fn = aluFunction(i.code);
      if (a === undefined || b === undefined || !fn) return;
      const bits = fn(a, b) | 0;
      const cond = i.cond ? { cond: i.cond } : {};
      const imm = smallImm(bits, 'int') ?? smallImm(bits, 'float');
      const replacement: IrInstr = imm
        ? { op: 'alu', code: 'mov', dst: i.dst, a: imm, b: imm, ...cond, ...(i.stmt ? { stmt: i.stmt } : {}) }
        : { op: 'ldi', dst: i.dst, bits, ...cond, ...(i.stmt ? { stmt: i.stmt } : {}) };
      if (i.code === 'mov' && i.a.k === 'imm') {
        // Already a move of a small immediate: only its value is news.
        if (!i.cond && defs[i.dst.id] === 1 && !known.has(i.dst.id)) (known.set(i.dst.id, bits), (changed = true));
        return;
      }
      out[n] = replacement;
      changed = folded = true;
      if (!i.cond && defs[i.dst.id] === 1) known.set(i.dst.id, bits);
    });
  }
  return folded ? removeDeadCode(out, nregs) : out;
}
