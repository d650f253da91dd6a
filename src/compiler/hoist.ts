// Constant hoisting (pass `hoist`, from -O1): loop-invariant constants out of loops, one register
// for each distinct constant of a loop nest.
// Needs: IR from lower.ts (a loop is a label that a later branch jumps back to; labels unique;
// every branch followed by its 3 delay slots).
// Guarantees: the same computation, with each `ldi` that is the only definition of its virtual
// register and unconditional, and lies inside a loop, moved to just before the outermost loop's
// label, or its entry test's branch (so it runs once, on the way in: a register defined once inside a loop is a temporary of
// that loop, read nowhere else); constants of equal value in one loop nest then share the first's
// register. Such a register stays live through the loop, so at most MAX_HOISTED constants leave
// each loop nest, the most used first.

import { def, type IrInstr, uses, type VReg } from './ir.ts';

/** Constants hoisted out of one loop nest at most (each holds a register through the loop). */
export const MAX_HOISTED = 12;

/** The outermost loops, as [label index, index of the back branch's last delay slot]. */
export function outerLoops(code: readonly IrInstr[]): [number, number][] {
  const at = new Map<string, number>();
  const loops: [number, number][] = [];
  code.forEach((i, n) => {
    if (i.op === 'label') at.set(i.name, n);
    else if (i.op === 'branch') {
      const top = at.get(i.label);
      if (top !== undefined) loops.push([top, n + 3]);
    }
  });
  loops.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  const outer: [number, number][] = [];
  for (const l of loops) if (!outer.length || l[0] > outer[outer.length - 1]![1]) outer.push(l);
  return outer;
}

export function hoistConstants(code: readonly IrInstr[], nregs: number): IrInstr[] {
  const defs = new Int32Array(nregs);
  const useCount = new Int32Array(nregs);
  for (const i of code) {
    const d = def(i);
    if (d) defs[d.id]!++;
    for (const u of uses(i)) useCount[u.id]!++;
  }
  const moved = new Set<IrInstr>();
  const rename = new Map<number, VReg>();
  const before = new Map<number, IrInstr[]>();
  for (const [top, end] of outerLoops(code)) {
    const byBits = new Map<number, { first: IrInstr & { op: 'ldi' }; all: (IrInstr & { op: 'ldi' })[]; uses: number }>();
    for (let n = top; n <= end; n++) {
      const i = code[n]!;
      if (i.op !== 'ldi' || i.cond || i.dst.k !== 'v' || defs[i.dst.id] !== 1) continue;
      const g = byBits.get(i.bits);
      if (g) (g.all.push(i), (g.uses += useCount[i.dst.id]!));
      else byBits.set(i.bits, { first: i, all: [i], uses: useCount[i.dst.id]! });
    }
    const chosen = [...byBits.values()].sort((x, y) => y.uses - x.uses).slice(0, MAX_HOISTED);
    if (!chosen.length) continue;
    for (const g of chosen) {
      for (const i of g.all) moved.add(i);
      for (const i of g.all.slice(1)) rename.set((i.dst as VReg).id, g.first.dst as VReg);
    }
    // Before the loop's label, or, for an inverted loop (its test first, then a branch past the
    // loop), before that branch, whose delay slots they may then fill.
    const entry = code[top - 4];
    const exit = code[end + 1];
    const at = entry?.op === 'branch' && exit?.op === 'label' && entry.label === exit.name ? top - 4 : top;
    before.set(at, chosen.map((g) => g.first));
  }
  if (!moved.size) return code as IrInstr[];
  const out: IrInstr[] = [];
  const r = <T>(x: T): T => ((x as VReg).k === 'v' ? ((rename.get((x as VReg).id) as T) ?? x) : x);
  code.forEach((i, n) => {
    const hoisted = before.get(n);
    if (hoisted) out.push(...hoisted);
    if (moved.has(i)) return;
    out.push(i.op === 'alu' ? { ...i, a: r(i.a), b: r(i.b), dst: r(i.dst) } : i);
  });
  return out;
}
