// Strength reduction of pointer increments (pass `strength`, from -O1): in a loop, addresses
// base + (i << k), where the loop adds a constant s to i, become induction variables of their
// own, each advanced by s << k where i is. `shl %t, %i, 2` and `add %p, %x, %t` an iteration
// become one `add %q, %q, 64`.
// Needs: IR after hoist.ts (so that invariant bases are computed before the loop), a loop being
// a label that a later branch jumps back to, its only entry the instruction before it; labels
// unique; every branch followed by its 3 delay slots.
// Guarantees: the same computation. For a loop that holds no other loop, a shift `shl %t, %i, k`
// (k a small immediate) is reduced when:
// - %i has one definition in the loop, `add %i, %i, s`, unconditional, with s a small
//   immediate or a register only an unconditional `ldi` defines: a constant;
// - %t has that one definition in the whole program, and every read of %t is an unconditional
//   `add %p, base, %t` (either order) in the loop, with base a virtual register the loop does
//   not write; each %p is defined there only, read only in the loop, later in the same
//   straight run (no label between), and read at least twice (a value read once is written
//   where it is read by pass `direct`, `add vw_addr, x, %t`, which a reduced address would
//   not save);
// - no write of %i stands between the shift and an add, nor between an add and a read of its %p.
// Then a new register %q per %p is set to base + (%i << k) just before the loop's label and
// advanced by (s << k) right after %i's increment, so that it equals base + (%i << k) wherever
// the loop is; reads of %p read %q, and the shift and the adds go. An iteration does one
// instruction fewer (the shift), and the loop's entry two or three more.

import { loops } from './cfg.ts';
import { def, type IrInstr, smallImm, type Src, uses, v, type VReg } from './ir.ts';
import { smallImmValue } from '../vc4/tables.ts';

type Alu = IrInstr & { op: 'alu' };
const isAlu = (i: IrInstr | undefined, code: string): i is Alu =>
  i?.op === 'alu' && i.code === code && !i.cond && !i.setf && i.rot === undefined;

/** A reduction found: the shift, the adds it feeds, and i's increment. */
interface Plan {
  /** The loop's label. */
  readonly top: number;
  readonly shift: number;
  readonly adds: readonly number[];
  readonly inc: number;
  /** The increment's amount in bytes of the address: s << k. */
  readonly step: number;
}

/** The code reduced, and the virtual registers it uses (the new induction variables added). */
export function reduceStrength(code: readonly IrInstr[], nregs: number): { code: IrInstr[]; vregs: number } {
  const defs: number[][] = Array.from({ length: nregs }, () => []);
  const reads: number[][] = Array.from({ length: nregs }, () => []);
  code.forEach((i, n) => {
    const d = def(i);
    if (d) defs[d.id]!.push(n);
    for (const u of uses(i)) if (!(d && u.id === d.id && i.op === 'alu' && i.cond)) reads[u.id]!.push(n);
  });
  const all = loops(code);
  const plans: Plan[] = [];
  for (const [top, end] of all) {
    if (all.some(([t, e]) => t > top && e <= end)) continue; // an outer loop
    const inLoop = (n: number) => n > top && n <= end;
    for (let n = top + 1; n <= end; n++) {
      const plan = planShift(code, top, n, inLoop, defs, reads);
      if (plan) plans.push(plan);
    }
  }
  if (!plans.length) return { code: code as IrInstr[], vregs: nregs };
  return rewrite(code, plans, nregs);
}

/** The constant an increment adds, if it is one. */
function constantOf(s: Src, code: readonly IrInstr[], defs: readonly number[][]): number | undefined {
  if (s.k === 'imm') return s.code < 32 ? smallImmValue(s.code) : undefined;
  if (s.k !== 'v' || defs[s.id]!.length !== 1) return undefined;
  const d = code[defs[s.id]![0]!]!;
  return d.op === 'ldi' && !d.cond ? d.bits | 0 : undefined;
}

function planShift(code: readonly IrInstr[], top: number, n: number, inLoop: (n: number) => boolean, defs: readonly number[][], reads: readonly number[][]): Plan | undefined {
  const sh = code[n];
  if (!isAlu(sh, 'shl') || sh.dst.k !== 'v' || sh.a.k !== 'v' || sh.b.k !== 'imm' || sh.b.code >= 16) return undefined;
  const [t, i, k] = [sh.dst.id, sh.a.id, smallImmValue(sh.b.code)];
  const incs = defs[i]!.filter(inLoop);
  if (incs.length !== 1 || defs[t]!.length !== 1) return undefined;
  const inc = code[incs[0]!];
  if (!isAlu(inc, 'add') || inc.dst.k !== 'v') return undefined;
  const other = inc.a.k === 'v' && inc.a.id === i ? inc.b : inc.b.k === 'v' && inc.b.id === i ? inc.a : undefined;
  const s = other && constantOf(other, code, defs);
  if (s === undefined) return undefined;
  // i's increment between two points of the loop, in program order, with no label between.
  const straight = (from: number, to: number) => from < to && code.slice(from + 1, to).every((x, j) => x.op !== 'label' && from + 1 + j !== incs[0]);
  const adds = reads[t]!;
  for (const a of adds) {
    const add = code[a];
    if (!inLoop(a) || !isAlu(add, 'add') || add.dst.k !== 'v' || !straight(n, a)) return undefined;
    const base = add.a.k === 'v' && add.a.id === t ? add.b : add.a;
    if (base.k !== 'v' || defs[base.id]!.some(inLoop) || (add.a.k === 'v' && add.b.k === 'v' && add.a.id === add.b.id)) return undefined;
    const p = add.dst.id;
    if (defs[p]!.length !== 1 || reads[p]!.length < 2 || reads[p]!.some((r) => !inLoop(r) || !straight(a, r))) return undefined;
  }
  return adds.length ? { top, shift: n, adds, inc: incs[0]!, step: (s << k) | 0 } : undefined;
}

function rewrite(code: readonly IrInstr[], plans: readonly Plan[], nregs: number): { code: IrInstr[]; vregs: number } {
  let next = nregs;
  const drop = new Set<number>();
  const rename = new Map<number, VReg>();
  const before = new Map<number, IrInstr[]>(); // at a loop's label
  const after = new Map<number, IrInstr[]>(); // after an increment
  for (const plan of plans) {
    const sh = code[plan.shift] as Alu;
    const entry = before.get(plan.top) ?? [];
    const shifted = v(next++);
    entry.push({ ...sh, dst: shifted });
    let step: Src | undefined = smallImm(plan.step, 'int');
    if (!step) {
      step = v(next++);
      entry.push({ op: 'ldi', dst: step, bits: plan.step });
    }
    drop.add(plan.shift);
    for (const a of plan.adds) {
      const add = code[a] as Alu;
      const q = v(next++);
      const base = add.a.k === 'v' && add.a.id === (sh.dst as VReg).id ? add.b : add.a;
      entry.push({ op: 'alu', code: 'add', dst: q, a: base, b: shifted, stmt: add.stmt });
      (after.get(plan.inc) ?? after.set(plan.inc, []).get(plan.inc)!).push({ op: 'alu', code: 'add', dst: q, a: q, b: step, stmt: add.stmt });
      rename.set((add.dst as VReg).id, q);
      drop.add(a);
    }
    before.set(plan.top, entry);
  }
  const r = (s: Src): Src => (s.k === 'v' ? (rename.get(s.id) ?? s) : s);
  const out: IrInstr[] = [];
  code.forEach((i, n) => {
    out.push(...(before.get(n) ?? []));
    if (drop.has(n)) return;
    out.push(i.op === 'alu' ? { ...i, a: r(i.a), b: r(i.b) } : i);
    out.push(...(after.get(n) ?? []));
  });
  return { code: out, vregs: next };
}

