// Lowering conditions (source/ast.ts BoolExpr, Cond): a comparison as the flags one ALU
// operation sets, or as a mask register (1 where it holds); and/or/not as masks; If's and
// loops' branches on any or all lanes. Needs: a lowering to emit into (lower.ts), which tells
// this of every instruction it emits (seen). Guarantees: flags that still stand are not set
// again (the same flag-setting instruction, no register it reads written since, no label
// passed); comparisons lower as their rows of ops.ts say.

import type { BoolExpr, Cond, Expr } from '../source/ast.ts';
import { arithType, type CmpLowering, comparisonRow, type OpEmitter } from '../source/ops.ts';
import { CompileError } from './errors.ts';
import { type AluCode, def, int, type IrInstr, irText, p, type Src, uses, type VReg } from './ir.ts';
import { branchCond, type TrueCode } from './lower-words.ts';

/** What conditions need of a lowering. */
export interface ConditionEmitter extends OpEmitter {
  emit(i: IrInstr): void;
  branch(cond: string, label: string): void;
  expr(e: Expr): Src;
  materialize(x: Src): VReg;
  readonly kernelName: string;
}

export class Conditions {
  /**
   * The flag-setting instruction whose flags still stand (as text), and the registers it reads:
   * none has been written since, no other instruction set flags, and no label was passed.
   */
  private hold: { readonly text: string; readonly reads: readonly number[] } | undefined;

  constructor(private readonly l: ConditionEmitter) {}

  /** An instruction the lowering emitted: flags it sets or whose inputs it writes stop standing. */
  seen(i: IrInstr): void {
    if (!this.hold) return;
    const d = def(i);
    if (i.op === 'label' || (i.op === 'alu' && i.setf) || (d && this.hold.reads.includes(d.id))) this.hold = undefined;
  }

  /** Sets flags with `code.setf nop, x, y`, unless the same instruction's flags still stand. */
  setFlags(code: AluCode, x: Src, y: Src): void {
    if (x.k === 'imm' && y.k === 'imm' && x.code !== y.code) x = this.l.materialize(x);
    const i: IrInstr = { op: 'alu', code, dst: p('nop'), a: x, b: y, setf: true };
    const text = irText(i);
    if (this.hold?.text === text) return;
    this.l.emit(i);
    this.hold = { text, reads: uses(i).map((r) => r.id) };
  }

  /** Sets the flags from a mask register (Z clear where it is 1), unless they already hold it. */
  flagsFromMask(m: VReg): void {
    this.setFlags('or', m, m);
  }

  /** Sets flags for the condition and branches to `label` when it holds. */
  branchIf(c: Cond, label: string): void {
    const t = this.flags(c.b);
    this.l.branch(branchCond(c.k, t[1] !== 's', t[0]!), label);
  }

  /** Sets flags for the condition and branches to `label` when it does not hold. */
  branchUnless(c: Cond, label: string): void {
    const t = this.flags(c.b);
    // Per lane, "false" is the opposite code; any(b) fails when all lanes are false, all(b) when any is.
    const falseIsClear = t[1] === 's';
    this.l.branch(branchCond(c.k === 'any' ? 'all' : 'any', falseIsClear, t[0]!), label);
  }

  /** Emits a flag-setting instruction for b and returns where it holds. */
  flags(b: BoolExpr): TrueCode {
    const how = b.k === 'cmp' ? this.comparison(b) : undefined;
    if (b.k === 'cmp' && how && 'setf' in how) {
      // A comparison a flag shows: its row of ops.ts names the flag-setting operation and the code.
      const x = this.l.expr(b.a);
      const y = this.l.expr(b.b);
      if (how.swap) this.setFlags(how.setf, y, x);
      else this.setFlags(how.setf, x, y);
      return how.holds;
    }
    this.flagsFromMask(this.mask(b));
    return 'zc';
  }

  /** How comparison b sets flags or makes a mask, from its row of ops.ts. */
  private comparison(b: BoolExpr & { k: 'cmp' }): CmpLowering {
    const how = comparisonRow(b.op)?.[arithType(b.ty)];
    if (!how) throw new CompileError(`kernel ${this.l.kernelName}: the QPU has no ${arithType(b.ty)} comparison '${b.op}'`);
    return how;
  }

  /** b as a register: 1 in the lanes where it holds, 0 elsewhere. */
  mask(b: BoolExpr): VReg {
    const l = this.l;
    const m = l.fresh();
    switch (b.k) {
      case 'cmp': {
        const how = this.comparison(b);
        if ('mask' in how) {
          how.mask(l, m, l.expr(b.a), l.expr(b.b));
          return m;
        }
        l.mov(m, int(0));
        const t = this.flags(b);
        l.mov(m, int(1), t);
        return m;
      }
      case 'and':
      case 'or':
        l.alu(b.k, m, this.mask(b.a), this.mask(b.b));
        return m;
      case 'not':
        l.alu('xor', m, this.mask(b.a), int(1));
        return m;
    }
  }
}
