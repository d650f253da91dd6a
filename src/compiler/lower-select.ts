// Lowering `select(c, a, b)` (source/ast.ts): a where the condition holds, b where it does not,
// lane by lane. Needs: a lowering to emit into (lower.ts) and its conditions (lower-conditions.ts).
// Guarantees: dst holds the select's value in every lane; the flags it sets are the condition's
// (which is why lowering computes a select before any flags it is written under: setsFlags).

import { childExprs, type Expr } from '../source/ast.ts';
import { binaryImpl, unaryRow } from '../source/ops.ts';
import type { Conditions } from './lower-conditions.ts';
import type { Reg, Src, VReg } from './ir.ts';
import { OPPOSITE, type TrueCode } from './lower-words.ts';

/** What a select needs of a lowering. */
export interface SelectEmitter {
  readonly cond: Conditions;
  expr(e: Expr): Src;
  exprInto(e: Expr, dst: Reg, cond?: TrueCode): void;
  mov(dst: Reg, src: Src, cond?: TrueCode): void;
  varReg(id: number): VReg;
}

export function lowerSelect(l: SelectEmitter, e: Expr & { k: 'select' }, dst: Reg): void {
  // One value a variable or a constant, the other setting no flags: the flags first, then the
  // other value computed straight into its own lanes of dst and the simple one moved into the
  // rest (left out when it is dst itself). When the computed value reads dst it goes first,
  // before dst changes, and the move writes only its lanes (no write of dst is then read at
  // once); else the move writes all of dst first. The flags and one or two writes.
  const isDst = (x: Expr) => x.k === 'var' && sameReg(dst, l.varReg(x.id));
  const reads = (x: Expr): boolean => isDst(x) || childExprs(x).some(reads);
  for (const [kept, computed, holds] of [[e.b, e.a, true], [e.a, e.b, false]] as const)
    if (isSimple(kept) && !setsFlags(computed)) {
      const t = l.cond.flags(e.c);
      const [mine, theirs] = holds ? [t, OPPOSITE[t]] : [OPPOSITE[t], t];
      const moves = !isDst(kept);
      if (reads(computed)) {
        l.exprInto(computed, dst, mine);
        if (moves) l.exprInto(kept, dst, theirs);
      } else {
        if (moves) l.exprInto(kept, dst);
        l.exprInto(computed, dst, mine);
      }
      return;
    }
  // Both values, then the condition's flags, then two moves: b, and a where it holds. When dst
  // is one of the values, each move writes only its own lanes, so neither reads a lane the
  // other wrote.
  const a = l.expr(e.a);
  const b = l.expr(e.b);
  const t = l.cond.flags(e.c);
  if (sameReg(dst, a) || sameReg(dst, b)) {
    l.mov(dst, a, t);
    l.mov(dst, b, OPPOSITE[t]);
  } else {
    l.mov(dst, b);
    l.mov(dst, a, t);
  }
}

/**
 * Whether computing e sets flags: a select and a prefix sum do, and an operator whose row says so (umin, umax).
 * Lowering computes such an expression before setting any flags it is written under.
 */
export const setsFlags = (e: Expr): boolean =>
  e.k === 'select' ||
  e.k === 'scan' ||
  (e.k === 'load' && e.n !== undefined) ||
  (e.k === 'bin' && binaryImpl(e.op, e.ty)?.setsFlags === true) ||
  (e.k === 'un' && unaryRow(e.op)?.setsFlags === true) ||
  childExprs(e).some(setsFlags);

/** A value read with no work and no effect: a variable, a literal, index(), me(), numQPUs(). */
const isSimple = (e: Expr): boolean => e.k === 'var' || e.k === 'lit' || e.k === 'special';

const sameReg = (r: Reg, x: Src): boolean => (r.k === 'v' ? x.k === 'v' && x.id === r.id : x.k === 'p' && x.name === r.name);
