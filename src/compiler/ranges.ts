// Value ranges (pass `ranges`, from -O1, used in lowering): for every Int variable, an interval
// that holds every value any lane of it takes anywhere in the kernel, and from those an interval
// for an Int expression. Lowering asks them whether both operands of a 32-bit multiply fit in
// 24 bits unsigned, where the chip's one-instruction `mul24` computes the same product
// (source/ops.ts, `mul`).
// Needs: a built kernel (source/ast.ts).
// Guarantees: sound intervals, flow-insensitive: a variable's interval holds its initial 0, every
// value assigned to it (under any condition, in any loop) and nothing is assumed of parameters,
// loads and received values. It is the least fixed point of the assignments, except that a
// variable whose interval keeps growing (a counter) is widened to every int32 after a few rounds,
// so the analysis ends. Expressions are never assumed to wrap: an interval that would leave the
// int32 range is unknown.

import { childBlocks, type Expr, type KernelAst, setOpaquely, type Stmt } from '../source/ast.ts';
import { MAX_QPUS, LANES } from '../vc4/chip.ts';

/** All values from lo to hi, both included (int32). */
export interface Range {
  readonly lo: number;
  readonly hi: number;
}

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
const EVERY: Range = { lo: INT_MIN, hi: INT_MAX };
/** How many times a variable's interval may grow before it is widened to every int32. */
const GROWTHS = 4;

/** An interval, or undefined (unknown) when it leaves the int32 range. */
function range(lo: number, hi: number): Range | undefined {
  return lo >= INT_MIN && hi <= INT_MAX && lo <= hi ? { lo, hi } : undefined;
}
const join = (a: Range, b: Range): Range => ({ lo: Math.min(a.lo, b.lo), hi: Math.max(a.hi, b.hi) });
const same = (a: Range | undefined, b: Range | undefined): boolean => a?.lo === b?.lo && a?.hi === b?.hi;
const constant = (r: Range | undefined): number | undefined => (r && r.lo === r.hi ? r.lo : undefined);

/** Whether every value of r is a 24-bit unsigned number, which `mul24` reads whole. */
export const fits24 = (r: Range | undefined): boolean => r !== undefined && r.lo >= 0 && r.hi < 2 ** 24;

/**
 * The interval of Int expression e, given the variables' (`vars[id]`, undefined for every
 * int32), or undefined when nothing narrower than every int32 is known.
 */
export function exprRange(e: Expr, vars: readonly (Range | undefined)[]): Range | undefined {
  if (e.ty !== 'int') return undefined;
  const of = (x: Expr) => exprRange(x, vars);
  switch (e.k) {
    case 'lit':
      return { lo: e.bits | 0, hi: e.bits | 0 };
    case 'var':
      return vars[e.id];
    case 'special':
      return e.what === 'index' ? { lo: 0, hi: LANES - 1 } : e.what === 'me' ? { lo: 0, hi: MAX_QPUS - 1 } : { lo: 1, hi: MAX_QPUS };
    case 'rotate':
    case 'lane':
      return of(e.a);
    case 'reduce':
      // A min or max of the lanes is one of them.
      return e.op === 'min' || e.op === 'max' ? of(e.a) : undefined;
    case 'select': {
      const a = of(e.a);
      const b = of(e.b);
      return a && b ? join(a, b) : undefined;
    }
    case 'un':
      return e.op === 'clz' ? { lo: 0, hi: 32 } : e.op === 'neg' ? negate(of(e.a)) : undefined;
    case 'bin':
      return binaryRange(e.op, of(e.a), of(e.b));
    default:
      return undefined;
  }
}

const negate = (a: Range | undefined): Range | undefined => a && range(-a.hi, -a.lo);

function binaryRange(op: string, a: Range | undefined, b: Range | undefined): Range | undefined {
  switch (op) {
    case 'add':
      return a && b && range(a.lo + b.lo, a.hi + b.hi);
    case 'sub':
      return a && b && range(a.lo - b.hi, a.hi - b.lo);
    case 'mul':
    case 'mul24': {
      if (!a || !b || a.lo < 0 || b.lo < 0 || (op === 'mul24' && !(fits24(a) && fits24(b)))) return undefined;
      return range(a.lo * b.lo, a.hi * b.hi);
    }
    case 'min':
      return a && b && { lo: Math.min(a.lo, b.lo), hi: Math.min(a.hi, b.hi) };
    case 'max':
      return a && b && { lo: Math.max(a.lo, b.lo), hi: Math.max(a.hi, b.hi) };
    case 'and':
      // A non-negative operand bounds the result from 0 to itself.
      if (a && b && a.lo >= 0 && b.lo >= 0) return { lo: 0, hi: Math.min(a.hi, b.hi) };
      return a && a.lo >= 0 ? { lo: 0, hi: a.hi } : b && b.lo >= 0 ? { lo: 0, hi: b.hi } : undefined;
    case 'shr':
    case 'ushr': {
      const k = constant(b);
      if (k === undefined) return undefined;
      const s = k & 31;
      if (a && a.lo >= 0) return { lo: a.lo >> s, hi: a.hi >> s };
      if (op === 'ushr' && s > 0) return { lo: 0, hi: 2 ** (32 - s) - 1 };
      return a && { lo: a.lo >> s, hi: a.hi >> s };
    }
    case 'shl': {
      const k = constant(b);
      return a && k !== undefined ? range(a.lo * 2 ** (k & 31), a.hi * 2 ** (k & 31)) : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Every Int variable's interval over the whole kernel (undefined: every int32). Parameters and
 * values received from memory may be anything; every other variable starts at 0.
 */
export function variableRanges(k: KernelAst): (Range | undefined)[] {
  const n = k.vars.length;
  const known: (Range | undefined)[] = k.vars.map((v, id) => (v.ty === 'int' && id >= k.params.length ? { lo: 0, hi: 0 } : undefined));
  const widened = new Set<number>();
  const growths = new Array<number>(n).fill(0);
  const assigns: { id: number; e: Expr | undefined }[] = [];
  const walk = (ss: readonly Stmt[]): void => {
    for (const s of ss) {
      if (s.k === 'assign') assigns.push({ id: s.v.id, e: s.e });
      else if (s.k === 'call') {
        // A call assigns the function's parameters its arguments, and its results to the outs.
        const f = k.funcs![s.f]!;
        f.params.forEach((p, i) => assigns.push({ id: p.id, e: s.args[i] }));
        s.outs.forEach((o, i) => assigns.push({ id: o.id, e: f.results[i] }));
      } else for (const v of setOpaquely(s)) assigns.push({ id: v.id, e: undefined }); // memory's, or other QPUs' values
      childBlocks(s).forEach(walk);
    }
  };
  walk(k.body);
  for (const f of k.funcs ?? []) walk(f.body);
  for (const a of assigns) if (!a.e) widened.add(a.id);
  for (const id of widened) known[id] = undefined;
  for (let changed = true; changed; ) {
    changed = false;
    for (const { id, e } of assigns) {
      const now = known[id];
      if (!now || !e) continue;
      const r = exprRange(e, known);
      const next = r ? join(now, r) : undefined;
      if (same(next, now)) continue;
      changed = true;
      known[id] = ++growths[id]! > GROWTHS || !next || same(next, EVERY) ? undefined : next;
    }
  }
  return known;
}

/**
 * What the lowering knows of the Int values in its virtual registers (pass `ranges`): fixed
 * intervals (me(), numQPUs()), the variables' registers, and the expressions registers hold.
 */
export class RegisterRanges {
  private readonly known = new Map<number, Range>();
  private readonly computed = new Map<number, Expr>();
  private readonly varOf = new Map<number, number>();
  /** The variables' intervals, worked out when an operator first asks. */
  private varRanges: readonly (Range | undefined)[] | undefined;
  constructor(private readonly k: KernelAst) {}

  /** Register `reg` always holds a value in `r`. */
  fixed(reg: number, r: Range): void {
    this.known.set(reg, r);
  }
  /** Register `reg` is variable `id`'s. */
  variable(reg: number, id: number): void {
    this.varOf.set(reg, id);
  }
  /** Register `reg` holds e's value. */
  holds(reg: number, e: Expr): void {
    this.computed.set(reg, e);
  }
  /** The interval of virtual register `reg`'s value, when known. */
  of(reg: number): Range | undefined {
    const fixed = this.known.get(reg);
    if (fixed) return fixed;
    this.varRanges ??= variableRanges(this.k);
    const id = this.varOf.get(reg);
    if (id !== undefined) return this.varRanges[id];
    const e = this.computed.get(reg);
    return e && exprRange(e, this.varRanges);
  }
}
