// Products of loop counters as running sums (pass `induction`, from -O1; AST -> AST): in a
// loop, a product c * x of a counter c, which the loop only ever advances by amounts it does not
// change (`c = c + s`), and a value x it does not change becomes a variable of its own, set to
// c * x before the loop and advanced by s * x wherever c is advanced. A 32-bit multiply of
// operands of unknown range takes five instructions (source/ops-int.ts); the sum, one add an
// iteration. (`y.mul(pitch)` in heat's row loop is the model: the row's address, advanced a
// pitch a row.) Modulo 2^32, (c + s) * x = c * x + s * x, so the sum equals the product exactly.
// Needs: a kernel AST that check.ts accepted.
// Guarantees: the same results. For each loop (inner loops first), c is an Int variable that
// every assignment in the loop, at any depth, sets to c + s (either order) with s loop-invariant;
// x and s are loop-invariant: they read no variable the loop assigns or receives, and no memory.
// Each Int product `c * x` (either order) in the loop is replaced by a new variable p; before the
// loop, p = c * x and d = s * x for each amount s; right after each `c = c + s`, in the same
// block (so under the same Where and If), p = p + d. Products that value ranges show fit in 24
// bits (one mul24, compiler/ranges.ts) and products by a power of two (one shift) stay.

import { assignedIn, childBlocks, setOpaquely, childExprs, type Expr, type KernelAst, mapStmt, readsMemory, sameExpr, someExpr, type Stmt, type VarInfo, type VarRef } from '../source/ast.ts';
import { exprRange, fits24, type Range, variableRanges } from './ranges.ts';

type Assign = Stmt & { k: 'assign' };

/** The kernel with loop counters' products as running sums, and how many products became sums. */
export function reduceProducts(k: KernelAst): { ast: KernelAst; products: number } {
  if (!someExpr(k.body, isProduct)) return { ast: k, products: 0 };
  const r = new Reducer(k);
  const body = r.block(k.body);
  return { ast: { ...k, vars: r.vars, body }, products: r.products };
}

class Reducer {
  readonly vars: VarInfo[];
  products = 0;
  private ranges: readonly (Range | undefined)[] | undefined;
  constructor(private readonly k: KernelAst) {
    this.vars = [...k.vars];
  }

  block(ss: readonly Stmt[]): Stmt[] {
    return ss.flatMap((s) => {
      const inner = mapBlocks(s, (b) => this.block(b));
      return (inner.k === 'for' || inner.k === 'while') && hasProduct(inner) ? this.loop(inner) : [inner];
    });
  }

  /** A loop with its counters' products as sums: the statements setting them up, then the loop. */
  private loop(s: Stmt & { k: 'for' | 'while' }): Stmt[] {
    const inLoop = s.k === 'for' ? [...s.step, ...s.body] : s.body;
    const assigned = assignedIn(inLoop);
    const invariant = (e: Expr) => !readsMemory(e) && !mentionsAny(e, assigned);
    const steps = counterSteps(inLoop, assigned, invariant);
    const found: { c: VarRef; x: Expr; p: VarRef }[] = [];
    const product = (e: Expr): Expr => {
      if (e.k !== 'bin' || e.op !== 'mul' || e.ty !== 'int') return e;
      const [c, x] = e.a.k === 'var' && steps.has(e.a.id) ? [e.a, e.b] : e.b.k === 'var' && steps.has(e.b.id) ? [e.b, e.a] : [];
      // x must not read a sum this loop has just made (`(c * k) * c`: its inner product is one), which the loop advances.
      if (!c || !x || c.k !== 'var' || !invariant(x) || mentionsAny(x, new Set(found.map((f) => f.p.id))) || this.cheap(c, x)) return e;
      const had = found.find((f) => f.c.id === c.id && sameExpr(f.x, x));
      if (had) return had.p;
      const p = this.newVar(`${this.vars[c.id]!.name}_times`);
      found.push({ c, x, p });
      return p;
    };
    const withProducts = (x: Stmt): Stmt => mapStmt(x, product);
    withProducts(s); // finds the products
    if (!found.length) return [s];
    this.products += found.length;
    const setup: Stmt[] = [];
    const advances = new Map<Assign, Stmt[]>();
    for (const { c, x, p } of found) {
      setup.push({ k: 'assign', v: p, e: mul(c, x), shows: s });
      for (const inc of steps.get(c.id)!) {
        // The sum's step: x itself when the counter's is 1 and x is a plain value, else a variable set before the loop.
        const one = inc.amount.k === 'lit' && inc.amount.bits === 1 && (x.k === 'var' || x.k === 'lit' || x.k === 'special');
        const d = one ? x : this.newVar(`${this.vars[p.id]!.name}_step`);
        if (d.k === 'var' && !one) setup.push({ k: 'assign', v: d, e: mul(inc.amount, x), shows: s });
        const after = advances.get(inc.s) ?? [];
        after.push({ k: 'assign', v: p, e: { k: 'bin', op: 'add', ty: 'int', a: p, b: d }, loc: inc.s.loc, shows: inc.s });
        advances.set(inc.s, after);
      }
    }
    return [...setup, withProducts(insertAfter(s, advances))];
  }

  /** Whether c * x is as cheap as a sum already: both fit in 24 bits, or x is a power of two. */
  private cheap(c: VarRef, x: Expr): boolean {
    this.ranges ??= variableRanges(this.k);
    const rx = exprRange(x, this.ranges);
    if (rx && rx.lo === rx.hi && rx.lo > 0 && (rx.lo & (rx.lo - 1)) === 0) return true;
    return fits24(this.ranges[c.id]) && fits24(rx);
  }

  private newVar(name: string): VarRef {
    const id = this.vars.length;
    this.vars.push({ id, ty: 'int', name: `${name}${id}` });
    return { k: 'var', id, ty: 'int' };
  }
}

/** Whether a statement holds an Int product anywhere. */
const isProduct = (e: Expr): boolean => e.k === 'bin' && e.op === 'mul' && e.ty === 'int';
const hasProduct = (s: Stmt): boolean => someExpr([s], isProduct);

const mul = (a: Expr, b: Expr): Expr => ({ k: 'bin', op: 'mul', ty: 'int', a, b });

/** Whether e reads any of these variables. */
const mentionsAny = (e: Expr, ids: ReadonlySet<number>): boolean => (e.k === 'var' && ids.has(e.id)) || childExprs(e).some((x) => mentionsAny(x, ids));

/**
 * The loop's counters: each Int variable the loop assigns only by `c = c + s` (either order,
 * s invariant), with those assignments and their amounts.
 */
function counterSteps(ss: readonly Stmt[], assigned: ReadonlySet<number>, invariant: (e: Expr) => boolean): Map<number, { s: Assign; amount: Expr }[]> {
  const steps = new Map<number, { s: Assign; amount: Expr }[]>();
  const spoiled = new Set<number>();
  const walk = (b: readonly Stmt[]): void => {
    for (const s of b) {
      for (const v of setOpaquely(s)) spoiled.add(v.id);
      if (s.k === 'assign') {
        const e = s.e;
        const self = (x: Expr) => x.k === 'var' && x.id === s.v.id;
        const amount = s.v.ty === 'int' && e.k === 'bin' && e.op === 'add' && e.ty === 'int' ? (self(e.a) ? e.b : self(e.b) ? e.a : undefined) : undefined;
        if (amount && invariant(amount)) steps.set(s.v.id, [...(steps.get(s.v.id) ?? []), { s, amount }]);
        else spoiled.add(s.v.id);
      }
      childBlocks(s).forEach(walk);
    }
  };
  walk(ss);
  for (const id of spoiled) steps.delete(id);
  for (const id of steps.keys()) if (!assigned.has(id)) steps.delete(id);
  return steps;
}

/** s with each block's statements mapped by f. */
function mapBlocks(s: Stmt, f: (b: readonly Stmt[]) => Stmt[]): Stmt {
  switch (s.k) {
    case 'if':
    case 'where':
      return { ...s, then: f(s.then), else: f(s.else) };
    case 'while':
      return { ...s, body: f(s.body) };
    case 'for':
      return { ...s, step: f(s.step), body: f(s.body) };
    default:
      return s;
  }
}

/** s with the statements `after` gives inserted after each assignment it names (at any depth). */
function insertAfter(s: Stmt, after: ReadonlyMap<Assign, Stmt[]>): Stmt {
  return mapBlocks(s, (b) => b.flatMap((x) => [insertAfter(x, after), ...(x.k === 'assign' ? (after.get(x) ?? []) : [])]));
}
