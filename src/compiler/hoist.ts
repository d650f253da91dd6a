// Loop-invariant code motion (pass `hoist`, from -O1): constants, and operations on values the
// loop does not change, out of loops, one register for each distinct one of a loop nest.
// Needs: IR from lower.ts (a loop is a label that a later branch jumps back to; labels unique;
// every branch followed by its 3 delay slots).
// Guarantees: the same computation, with each unconditional `ldi`, and each unconditional ALU
// operation that sets no flags and reads only fixed values (small immediates, the element and QPU
// numbers: ir.ts readKind) and registers the loop nest does not write (or that an operation
// hoisted before it writes), that is the only
// definition of its virtual register and lies inside a loop where a path reaches it, moved to just before the outermost
// loop's label, or its entry test's branch (so it runs once, on the way in: a register defined
// once inside a loop is a temporary of that loop, read nowhere else); equal ones then share the
// first's register. Such a register stays live through the loop, so at most MAX_HOISTED values
// leave each loop nest, the first in program order.

import { def, type IrInstr, irText, p, readKind, type Src, type VReg } from './ir.ts';
import { buildCfg, functionRegions, outerLoops, reachable, runsWithCalls } from './cfg.ts';

/** Constants hoisted out of one loop nest at most (each holds a register through the loop). */
export const MAX_HOISTED = 12;

export function hoistConstants(code: readonly IrInstr[], nregs: number): IrInstr[] {
  const defs = new Int32Array(nregs);
  for (const i of code) {
    const d = def(i);
    if (d) defs[d.id]!++;
  }
  // Only what some path reaches moves: an unreachable operation may read a register nothing
  // writes (dead.ts removed a write no reachable path needed).
  const reached = reachable(buildCfg(code));
  const moved = new Set<IrInstr>();
  const rename = new Map<number, VReg>();
  const r = (s: Src): Src => (s.k === 'v' ? (rename.get(s.id) ?? s) : s);
  const before = new Map<number, IrInstr[]>();
  const regions = functionRegions(code);
  for (const [top, end] of outerLoops(code)) {
    // What the loop writes, in the functions it calls too.
    const inside = new Set<number>();
    for (const n of runsWithCalls(code, top, end, regions)) {
      const d = def(code[n]!);
      if (d) inside.add(d.id);
    }
    // In program order, so that an operation's hoisted operands are hoisted before it.
    const first = new Map<string, IrInstr>();
    const hoisted: IrInstr[] = [];
    for (let n = top; n <= end && hoisted.length < MAX_HOISTED; n++) {
      let i = code[n]!;
      const d = def(i);
      if (!reached[n] || !d || defs[d.id] !== 1 || ((i.op === 'alu' || i.op === 'ldi') && i.cond)) continue;
      if (i.op === 'alu') {
        i = { ...i, a: r(i.a), b: r(i.b) };
        if (i.setf || i.rot === 'r5' || ![i.a, i.b].every((s) => (s.k === 'v' ? !inside.has(s.id) : readKind(s) === 'fixed')))
          continue;
      } else if (i.op !== 'ldi') continue;
      moved.add(code[n]!);
      inside.delete(d.id);
      const key = irText({ ...i, dst: p('nop') } as IrInstr);
      const same = first.get(key);
      if (same) rename.set(d.id, def(same)!);
      else (first.set(key, i), hoisted.push(i));
    }
    if (!hoisted.length) continue;
    // Before the loop's label, or, for an inverted loop (its test first, then a branch past the
    // loop), before that branch, whose delay slots they may then fill.
    const entry = code[top - 4];
    const exit = code[end + 1];
    const at = entry?.op === 'branch' && exit?.op === 'label' && entry.label === exit.name ? top - 4 : top;
    before.set(at, hoisted);
  }
  if (!moved.size) return code as IrInstr[];
  const out: IrInstr[] = [];
  code.forEach((i, n) => {
    const h = before.get(n);
    if (h) for (const x of h) out.push(x); // a loop's hoisted code may be too long to spread into a call
    if (moved.has(i)) return;
    out.push(i.op === 'alu' ? { ...i, a: r(i.a), b: r(i.b), dst: i.dst.k === 'v' ? r(i.dst) as VReg : i.dst } : i);
  });
  return out;
}
