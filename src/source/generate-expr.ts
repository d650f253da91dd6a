// The random program generator's expressions, which generate.ts builds programs around: Ints and
// Floats over every operator row the generator uses (ops.ts), rotations, broadcasts, selects,
// reductions and prefix sums across lanes, loads, and conditions. Needs: the program's
// variables, its scalar parameters, and where a load may read (the program's subclass gives
// them). Guarantees: well-typed expressions that load only where `inWhere` is false (a load may
// not stand in a Where) and only from addresses the program says are safe.

import type { BoolExpr, Expr, ReduceOp, Ty, VarRef } from './ast.ts';
import type { ArithType } from './ops.ts';
import { LANES } from '../vc4/chip.ts';
import { BIN, CMP, lit, RandomSource, UN } from './generate-random.ts';

export abstract class ExprGenerator extends RandomSource {
  /** The kernel's parameters: inI, inF, outI, outF, n (an Int) and x (a Float). */
  protected abstract params: VarRef[];
  /** The variables of type `ty` expressions may read (with `assignable`, those a statement may set). */
  protected abstract varsOf(ty: Ty, assignable?: boolean): VarRef[];
  /** Now and then an address for a load of 8- or 16-bit elements (`own`: of this QPU's outputs). */
  protected abstract narrowPtr(own: boolean): Expr | undefined;
  /** An address a load of 16 elements of `ty` may read. */
  protected abstract loadPtr(ty: 'int' | 'float'): Expr;
  /** Now and then a count for a load or store (its first lanes). */
  protected abstract maybeCount(): { n?: Expr };
  /** In a parallel loop's body, now and then the element number (i, or x or y); else undefined, drawing nothing. */
  protected abstract elementLeaf(): Expr | undefined;

  protected intExpr(depth: number, inWhere: boolean): Expr {
    const leaf = depth <= 0 || this.chance(0.3);
    if (leaf) {
      const c = this.int(7);
      const vs = this.varsOf('int');
      if (c <= 2 && vs.length) return this.pick(vs);
      if (c === 3) return this.elementLeaf() ?? { k: 'special', ty: 'int', what: this.pick(['index', 'me', 'numQPUs'] as const) };
      if (c === 4) return this.params[4]!;
      return lit('int', this.intLit());
    }
    const c = this.int(13);
    if (c <= 5) return { k: 'bin', op: this.pick(BIN.int), ty: 'int', a: this.intExpr(depth - 1, inWhere), b: this.intExpr(depth - 1, inWhere) };
    if (c === 6 || c === 7) {
      const u = this.unary('int', c === 6 ? 'int' : 'float', depth, inWhere);
      if (u) return u;
    }
    if (c === 8) return this.rotate('int', depth, inWhere);
    if (c === 9 && !inWhere) return { k: 'load', ty: 'int', ptr: this.narrowPtr(this.chance(0.4)) ?? this.loadPtr('int'), ...this.maybeCount() };
    if (c === 10) return this.select('int', depth, inWhere);
    if (c === 11) return this.lane('int', depth, inWhere);
    if (this.chance(0.3)) return this.acrossLanes('int', depth, inWhere);
    return { k: 'bin', op: this.pick(BIN.int), ty: 'int', a: this.intExpr(depth - 1, inWhere), b: lit('int', this.intLit()) };
  }

  protected floatExpr(depth: number, inWhere: boolean): Expr {
    const leaf = depth <= 0 || this.chance(0.3);
    if (leaf) {
      const c = this.int(6);
      const vs = this.varsOf('float');
      if (c <= 2 && vs.length) return this.pick(vs);
      if (c === 3) return this.params[5]!;
      return lit('float', this.floatLit());
    }
    const c = this.int(13);
    if (c <= 5) return { k: 'bin', op: this.pick(BIN.float), ty: 'float', a: this.floatExpr(depth - 1, inWhere), b: this.floatExpr(depth - 1, inWhere) };
    if (c === 6 || c === 7) {
      const u = this.unary('float', c === 6 ? 'int' : 'float', depth, inWhere);
      if (u) return u;
    }
    if (c === 8) return this.rotate('float', depth, inWhere);
    if (c === 9 && !inWhere) return { k: 'load', ty: 'float', ptr: this.loadPtr('float'), ...this.maybeCount() };
    if (c === 10) return this.select('float', depth, inWhere);
    if (c === 11) return this.lane('float', depth, inWhere);
    if (this.chance(0.3)) return this.acrossLanes('float', depth, inWhere);
    return { k: 'bin', op: this.pick(BIN.float), ty: 'float', a: this.floatExpr(depth - 1, inWhere), b: lit('float', this.floatLit()) };
  }

  /** A unary operator from `from` to `to` on a random operand, or undefined when the generator uses none. */
  protected unary(to: ArithType, from: ArithType, depth: number, inWhere: boolean): Expr | undefined {
    const ops = UN[to][from];
    if (!ops.length) return undefined;
    // One operator is taken without a draw, so that each seed makes the program it made when the
    // generator named these operators itself.
    const op = ops.length === 1 ? ops[0]! : this.pick(ops);
    return { k: 'un', op, ty: to, a: this.expr(from, depth - 1, inWhere) };
  }

  protected expr(ty: 'int' | 'float', depth: number, inWhere: boolean): Expr {
    return ty === 'int' ? this.intExpr(depth, inWhere) : this.floatExpr(depth, inWhere);
  }

  protected rotate(ty: 'int' | 'float', depth: number, inWhere: boolean): Expr {
    const a = this.expr(ty, depth - 1, inWhere);
    const n = this.chance(0.5) ? lit('int', this.int(LANES)) : this.intExpr(depth - 1, inWhere);
    return { k: 'rotate', ty, a, n };
  }

  /** A reduction across the lanes (and, or on Ints only), or a prefix sum, inclusive or exclusive. */
  protected acrossLanes(ty: 'int' | 'float', depth: number, inWhere: boolean): Expr {
    const a = this.expr(ty, depth - 1, inWhere);
    if (this.chance(0.3)) return { k: 'scan', ty, a, exclusive: this.chance(0.5) };
    const ops: ReduceOp[] = ty === 'int' ? ['add', 'min', 'max', 'and', 'or'] : ['add', 'min', 'max'];
    return { k: 'reduce', op: this.pick(ops), ty, a };
  }

  /** x.lane(n): by a constant lane, or by a random Int (whose lane 0, modulo 16, counts). */
  protected lane(ty: 'int' | 'float', depth: number, inWhere: boolean): Expr {
    const a = this.expr(ty, depth - 1, inWhere);
    const n = this.chance(0.5) ? lit('int', this.int(LANES)) : this.intExpr(depth - 1, inWhere);
    return { k: 'lane', ty, a, n };
  }

  /** select(c, a, b) on two random values of one type; the condition loads only where the values may. */
  protected select(ty: 'int' | 'float', depth: number, inWhere: boolean): Expr {
    const a = this.expr(ty, depth - 1, inWhere);
    const b = this.expr(ty, depth - 1, inWhere);
    return { k: 'select', ty, c: this.boolExpr(depth - 1, !inWhere), a, b };
  }

  /** A condition; `loads` lets its operands load (If and loop conditions, not Where's). */
  protected boolExpr(depth: number, loads = false): BoolExpr {
    if (depth > 0 && this.chance(0.3)) {
      const c = this.int(3);
      if (c === 2) return { k: 'not', a: this.boolExpr(depth - 1, loads) };
      return { k: c === 0 ? 'and' : 'or', a: this.boolExpr(depth - 1, loads), b: this.boolExpr(depth - 1, loads) };
    }
    const ty = this.chance(0.6) ? 'int' : 'float';
    return { k: 'cmp', op: this.pick(CMP[ty]), ty, a: this.expr(ty, 1, !loads), b: this.expr(ty, 1, !loads) };
  }

}
