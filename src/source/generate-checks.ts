// The random program generator's statements that check, show and meet (generate.ts builds
// programs around them): assertions, prints, barriers and operations across QPUs. Needs: the
// program's variables and expressions (generate-expr.ts). Guarantees: well-typed statements of
// those kinds; where they may stand is generate.ts's to decide (meetings at the top level only).

import type { BoolExpr, Stmt } from './ast.ts';
import { ExprGenerator } from './generate-expr.ts';

export abstract class CheckGenerator extends ExprGenerator {
  /**
   * An assertion showing 0-2 values: mostly one that holds (c or not c), 3 in 10 a random
   * condition, which fails in some lane of most runs and tests the failure path.
   */
  protected assertion(): Stmt {
    const b = this.boolExpr(1);
    const values = Array.from({ length: this.int(3) }, () => (this.chance(0.5) ? this.intExpr(1, false) : this.floatExpr(1, false)));
    const holds: BoolExpr = { k: 'or', a: b, b: { k: 'not', a: b } };
    return { k: 'assert', b: this.chance(0.7) ? holds : b, message: `check ${this.int(100)}`, names: values.map((_, j) => `v${j}`), values };
  }

  /** A print of 0-3 Int or Float values, some named. */
  protected printing(): Stmt {
    const values = Array.from({ length: this.int(4) }, () => (this.chance(0.5) ? this.intExpr(1, false) : this.floatExpr(1, false)));
    return { k: 'print', label: `p${this.int(100)}`, names: values.map((_, j) => (this.chance(0.5) ? `v${j}` : '')), values };
  }

  /**
   * A barrier or an operation across QPUs on a variable: at the top level only, where every QPU
   * reaches the same ones in the same order.
   */
  protected meeting(): Stmt {
    const ty = this.chance(0.5) ? 'int' : 'float';
    const vs = this.varsOf(ty, true);
    if (!vs.length || this.chance(0.25)) return { k: 'barrier' };
    const v = this.pick(vs);
    if (this.chance(0.3)) return { k: 'combine', v, op: 'add', scan: this.chance(0.5) ? 'inclusive' : 'exclusive' };
    return { k: 'combine', v, op: this.pick(ty === 'int' ? (['add', 'min', 'max', 'and', 'or'] as const) : (['add', 'min', 'max'] as const)) };
  }
}
