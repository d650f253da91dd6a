// The form pass `pipeline` (pipeline-loads.ts) plans a loop in: the same loop, with the same
// meaning, its loads and addresses written as the planner looks for them.
// Needs: a For statement of a kernel AST, and the kernel's variables (new ones are numbered on).
// Guarantees: the loop computes what it did, for every argument, and:
// - a blocking load's or store's address that holds index() and no operation across lanes
//   has index() replaced by 0. Only lane 0's address counts (docs/language.md, "Memory"), and
//   lane 0 of a lane-by-lane expression depends only on lane 0 of its leaves, where index() is
//   0: `x.add(i)` with i = base + index(), as a parallelFor gives it, is x + base;
// - an assignment at the top of the body, before its first store, or that store, whose value
//   holds loads (not one load alone) is split: each load into a new variable first, in the
//   order the value computes them, so `s = s + *(p + i)` becomes `t = *(p + i); s = s + t`. A
//   load has no side effect, so reading it just before, at the same point of the program, is
//   the same.

import { childBlocks, containsKind, type Expr, mapExpr, type Stmt, type VarInfo, type VarRef } from '../source/ast.ts';

type ForStmt = Extract<Stmt, { k: 'for' }>;

/** Operations whose lane 0 reads other lanes. */
const ACROSS_LANES: readonly Expr['k'][] = ['rotate', 'lane', 'reduce', 'scan'];

/** An address with index() read as lane 0's: 0, where nothing in it reads across lanes. */
function laneZero(e: Expr): Expr {
  if (!containsKind(e, 'special') || ACROSS_LANES.some((k) => containsKind(e, k))) return e;
  return mapExpr(e, (x) => (x.k === 'special' && x.what === 'index' ? { k: 'lit', ty: 'int', bits: 0 } : x));
}

/** Statements with their loads' and stores' addresses through laneZero, at any depth. */
function addressesAtLaneZero(ss: readonly Stmt[]): Stmt[] {
  return ss.map((s): Stmt => {
    switch (s.k) {
      case 'assign':
        return s.e.k === 'load' ? { ...s, e: { ...s.e, ptr: laneZero(s.e.ptr) } } : s;
      case 'store':
      case 'storeNB':
        return { ...s, ptr: laneZero(s.ptr) };
      case 'if':
      case 'where':
        return { ...s, then: addressesAtLaneZero(s.then), else: addressesAtLaneZero(s.else) };
      case 'while':
        return { ...s, body: addressesAtLaneZero(s.body) };
      case 'for':
        return { ...s, body: addressesAtLaneZero(s.body), step: addressesAtLaneZero(s.step) };
      default:
        return s;
    }
  });
}

const STORES: ReadonlySet<Stmt['k']> = new Set(['store', 'storeNB', 'scatter']);
const storesAt = (s: Stmt): boolean => STORES.has(s.k) || childBlocks(s).some((b) => b.some(storesAt));

/** The loop in the planner's form, and the variables it adds (numbered from `vars.length`). */
export function normalizeLoop(s: ForStmt, vars: readonly VarInfo[]): { loop: ForStmt; added: VarInfo[] } {
  const added: VarInfo[] = [];
  const body: Stmt[] = [];
  let stored = false;
  for (const x of s.body) {
    const split = !stored && (x.k === 'assign' || x.k === 'store') && x.e.k !== 'load' && containsKind(x.e, 'load');
    stored ||= storesAt(x);
    if (!split) {
      body.push(x);
      continue;
    }
    const e = mapExpr((x as { e: Expr }).e, (y) => {
      if (y.k !== 'load' || y.n) return y;
      const v: VarInfo = { id: vars.length + added.length, ty: y.ty, name: `load${vars.length + added.length}` };
      added.push(v);
      const ref: VarRef = { k: 'var', id: v.id, ty: v.ty };
      body.push({ k: 'assign', v: ref, e: y, loc: x.loc, shows: x.shows ?? x });
      return ref;
    });
    body.push({ ...x, e } as Stmt);
  }
  return { loop: { ...s, body: addressesAtLaneZero(body) }, added };
}
