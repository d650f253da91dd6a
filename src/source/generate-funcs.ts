// The random program generator's functions (generate.ts builds programs around them): 1 or 2
// funcs of 1 or 2 Int or Float parameters, made before the kernel's statements, each a body of
// the statements a func may hold (assignments to its own variables, If, Where, counted loops and
// their jumps, calls of the funcs made before it) and 1 or 2 results; and calls of them from the
// kernel (inside Where and parallel loops too), whose results land in the caller's variables.
// Needs: generate.ts's statements, variables and loops. Guarantees: what the DSL accepts of a
// func (source/ast.ts FuncAst): no memory access, no recursion, no variable of the kernel
// assigned, no jump out of the body; and the kernel assigns no func's variable.

import type { Cond, FuncAst, Stmt, Ty, VarRef } from './ast.ts';
import { CheckGenerator } from './generate-checks.ts';

/** Mixed into the seed for the draw that decides whether a program has functions. */
export const FUNC_SEED = 0x2545f491;
/** The share of programs with functions. */
export const FUNC_SHARE = 0.35;

export abstract class FuncGenerator extends CheckGenerator {
  /** The functions made so far. */
  protected readonly funcs: FuncAst[] = [];
  /** While a function's body is made: its first variable (it assigns only those from there on) and its index. */
  protected func: { readonly floor: number; readonly index: number } | undefined;
  /** The variables of the functions, which the kernel does not assign. */
  protected readonly funcVars = new Set<number>();
  /** Whether this program has functions (drawn apart from the rest: generate.ts). */
  protected withFuncs = false;

  protected abstract readonly vars: readonly { readonly id: number }[];
  protected abstract readonly loopKinds: ('while' | 'for')[];
  protected abstract newVar(ty: Ty): VarRef;
  protected abstract block(depth: number, inWhere: boolean): Stmt[];
  protected abstract assign(inWhere: boolean): Stmt[];
  protected abstract cond(): Cond;
  protected abstract where(depth: number): Stmt;
  protected abstract loop(depth: number): Stmt[];
  protected abstract jump(): Stmt;

  /** 1 or 2 functions, each able to call the ones before it. */
  protected makeFuncs(): void {
    const outer = this.loopKinds.splice(0);
    for (let n = 1 + this.int(2), i = 0; i < n; i++) {
      const floor = this.vars.length;
      const params = Array.from({ length: 1 + this.int(2) }, () => this.newVar(this.chance(0.5) ? 'int' : 'float'));
      this.func = { floor, index: i };
      const body = this.block(1, false);
      const results = Array.from({ length: 1 + this.int(2) }, () => this.expr(this.chance(0.5) ? 'int' : 'float', 2, true));
      this.func = undefined;
      for (let id = floor; id < this.vars.length; id++) this.funcVars.add(id);
      this.funcs.push({ name: `f${i}`, params, body, results });
    }
    this.loopKinds.push(...outer);
  }

  /** A statement of a function's body: nothing that touches memory, waits or checks. */
  protected funcStmt(depth: number, inWhere: boolean): Stmt[] {
    if (inWhere) return depth < 3 && this.chance(0.25) ? [this.where(depth)] : this.chance(0.1) ? this.call(true) : this.assign(true);
    const c = this.int(10);
    if (c < 4 || depth >= 3) return this.assign(true);
    if (c === 4) return [this.where(depth)];
    if (c === 5) return [{ k: 'if', c: this.cond(), then: this.block(depth + 1, false), else: this.chance(0.5) ? this.block(depth + 1, false) : [] }];
    if (c <= 7) return this.loop(depth);
    if (c === 8 && this.loopKinds.length) return [{ k: 'if', c: this.cond(), then: [this.jump()], else: this.assign(true) }];
    return this.call(false);
  }

  /**
   * A call of a function (in a function's body, of one made before it), its arguments computed
   * here (loads only where a load may stand), its results into variables this code may assign.
   */
  protected call(inWhere: boolean): Stmt[] {
    const choices = this.func ? this.func.index : this.funcs.length;
    if (!choices) return this.assign(inWhere || !!this.func);
    const f = this.int(choices);
    const fa = this.funcs[f]!;
    const noLoads = inWhere || !!this.func;
    const args = fa.params.map((p) => this.expr(p.ty as 'int' | 'float', 2, noLoads));
    const outs = fa.results.map((r) => {
      const vs = this.varsOf(r.ty, true);
      return vs.length && this.chance(0.8) ? this.pick(vs) : this.newVar(r.ty);
    });
    return [{ k: 'call', f, args, outs }];
  }
}
