// Direct writes (pass `direct`, from -O1): an operation whose result is only copied somewhere
// writes that place itself. `add %t, p, 64` ... `mov tmu0_s, %t` becomes `add tmu0_s, p, 64`,
// and `fsub %t, x, y` ... `mov vpm, %t` becomes `fsub vpm, x, y`, where the copy stood.
// Needs: IR from lower.ts (before register allocation).
// A conditional copy makes the operation conditional: `mov.zs D, %t` becomes `op.zs D, ...`.
// Guarantees: the same computation with fewer instructions: a copy `mov D, %t` (no rotation,
// perhaps conditional) of a virtual register that one ALU operation defines and only that copy reads is
// replaced by the operation writing D at the copy's place; the operation moves down only past
// instructions that write none of its operands (registers, or accumulators, r4 and r5, when it
// reads them) and across no label or branch, and at most MAX_DISTANCE instructions. An insert
// (operands.ts INSERTS) keeps its destination, which must be in regfile A.
// And reads in place, the other way (readsInPlace): a copy out of r4 or r5 read once, within
// MAX_DISTANCE in the same block, goes, and its reader reads the accumulator.

import { def, type IrInstr, isColour, isInsert, isUnpack, type Reg, readKind, type Src, uses } from './ir.ts';

/** How far an operation may move down to its copy (its operands stay live that much longer). */
export const MAX_DISTANCE = 16;

type Alu = IrInstr & { op: 'alu' };

/** The accumulators an instruction writes, by name (r4 by the TMU signals and the SFU, r5 by its broadcast writes). */
function accWrites(i: IrInstr): string[] {
  if (i.op === 'signal') return ['r4'];
  if ((i.op === 'alu' || i.op === 'ldi') && i.dst.k === 'p') {
    const n = i.dst.name;
    if (n.startsWith('sfu_')) return ['r4'];
    if (n.startsWith('r5')) return ['r5'];
    return [n];
  }
  return [];
}

/** Names of the fixed registers an operation reads (accumulators, r5 for a rotation by r5). */
function fixedReads(i: Alu): string[] {
  const out = [i.a, i.b].flatMap((s) => (s.k === 'p' ? [s.name] : []));
  if (i.rot === 'r5') out.push('r5');
  return out;
}

export function directWrites(code: readonly IrInstr[], nregs: number): IrInstr[] {
  const defAt = new Int32Array(nregs).fill(-1);
  const defs = new Int32Array(nregs);
  const useCount = new Int32Array(nregs);
  code.forEach((i, n) => {
    const d = def(i);
    if (d) (defs[d.id]!++, (defAt[d.id] = n));
    for (const u of uses(i)) useCount[u.id]!++;
  });
  const out: (IrInstr | undefined)[] = code.slice();
  for (let m = 0; m < out.length; m++) {
    const c = out[m]!;
    if (!c || c.op !== 'alu' || c.code !== 'mov' || c.setf || c.rot !== undefined || c.a.k !== 'v') continue;
    const t = c.a.id;
    const d = defAt[t]!;
    if (defs[t] !== 1 || useCount[t] !== 1 || d < 0 || d >= m || m - d > MAX_DISTANCE) continue;
    const o = out[d];
    // An insert writes regfile A only (operands.ts INSERTS): it keeps its own destination.
    if (!o || o.op !== 'alu' || o.cond || o.setf || isInsert(o.code)) continue;
    // Only operands read without a side effect (ir.ts readKind) can be read later.
    if (readKind(o.a) === 'effect' || readKind(o.b) === 'effect') continue;
    const fixed = fixedReads(o);
    const operands = new Set([o.a, o.b].flatMap((s: Src) => (s.k === 'v' ? [s.id] : [])));
    let clear = true;
    for (let k = d + 1; k < m && clear; k++) {
      const i = out[k];
      if (!i) continue;
      if (i.op === 'label' || i.op === 'branch' || i.op === 'end') clear = false;
      const w = def(i);
      if (w && operands.has(w.id)) clear = false;
      if (fixed.length && accWrites(i).some((r) => fixed.includes(r) || (r.startsWith('r5') && fixed.includes('r5')))) clear = false;
    }
    if (!clear) continue;
    out[m] = { ...o, dst: c.dst as Reg, ...(c.cond ? { cond: c.cond } : {}) };
    out[d] = undefined;
  }
  return readsInPlace(out.filter((i): i is IrInstr => i !== undefined), nregs);
}

/** What a copy out of may be read in place: r4 (the SFU's and TMU's results), r5 (a broadcast) and a uniform (a stream's next element). */
const IN_PLACE = new Set(['r4', 'r5', 'unif']);

/** Registers an instruction may write that a uniform read may move past: registers and r0-r3. */
const PLAIN_WRITES: ReadonlySet<string> = new Set(['r0', 'r1', 'r2', 'r3', 'nop']);

/**
 * Whether a uniform read may not move past an instruction: one that reads a uniform, or does
 * anything besides computing into registers (a write of unif_addr moves the stream; a DMA
 * store may overwrite the word; a semaphore may let another QPU do so; a wait, a signal).
 */
const touchesUniforms = (i: IrInstr): boolean => {
  if (i.op !== 'alu' && i.op !== 'ldi') return true;
  if (i.dst.k === 'p' && !PLAIN_WRITES.has(i.dst.name)) return true;
  return i.op === 'alu' && [i.a, i.b].some((s) => s.k === 'p' && readKind(s) === 'effect');
};

/**
 * Reads in place: a copy `mov %t, r4` (or r5) of a virtual register defined only there and read
 * only once, by an ALU operation later in the same block with no write of that accumulator
 * between, goes, and the operation reads the accumulator itself. Not into an operation that
 * rotates (only r0-r3 rotate across all 16 lanes) or unpacks (only regfile A does). A copy of
 * a stream's next element (`mov %t, unif` lowered from `next`) likewise, when nothing between reads a
 * uniform or moves the stream and the operation reads %t in one operand and no uniform of its
 * own: the read keeps its place in the stream, and a multiply takes its factor straight from it.
 */
function readsInPlace(code: IrInstr[], nregs: number): IrInstr[] {
  const defs = new Int32Array(nregs);
  const useCount = new Int32Array(nregs);
  for (const i of code) {
    const d = def(i);
    if (d) defs[d.id]!++;
    for (const u of uses(i)) useCount[u.id]!++;
  }
  const out: (IrInstr | undefined)[] = code.slice();
  for (let m = 0; m < out.length; m++) {
    const c = out[m]!;
    if (c.op !== 'alu' || c.code !== 'mov' || c.cond || c.setf || c.rot !== undefined || c.dst.k !== 'v') continue;
    if (c.a.k !== 'p' || !IN_PLACE.has(c.a.name)) continue;
    // Uniforms: a stream's elements only; the prologue's reads of the arguments stay where spill.ts finds them.
    if (c.a.name === 'unif' && c.stmt?.k !== 'next') continue;
    const t = c.dst.id;
    const acc = c.a;
    if (defs[t] !== 1 || useCount[t] !== 1) continue;
    for (let k = m + 1; k < out.length && k - m <= MAX_DISTANCE; k++) {
      const i = out[k];
      if (!i) continue;
      if (i.op === 'label' || i.op === 'branch' || i.op === 'end') break;
      const reads = i.op === 'alu' && [i.a, i.b].some((s) => s.k === 'v' && s.id === t);
      if (reads) {
        // A uniform into an operation that reads no other I/O register, in one operand (two would read the stream twice).
        const once = acc.name !== 'unif' || ([i.a, i.b].filter((s) => s.k === 'v' && s.id === t).length === 1 && ![i.a, i.b].some((s) => s.k === 'p' && readKind(s) === 'effect'));
        if (once && i.rot === undefined && !isUnpack(i.code) && !isColour(i.code) && !(i.dst.k === 'v' && i.dst.id === t)) {
          const r = (s: Src): Src => (s.k === 'v' && s.id === t ? acc : s);
          // A stream's read keeps its statement, which a fault there names (the operation is on the same line).
          out[k] = { ...i, a: r(i.a), b: r(i.b), ...(acc.name === 'unif' && c.stmt ? { stmt: c.stmt } : {}) };
          out[m] = undefined;
        }
        break;
      }
      if (accWrites(i).some((w) => w === acc.name || (acc.name === 'r5' && w.startsWith('r5')))) break;
      if (acc.name === 'unif' && touchesUniforms(i)) break;
    }
  }
  return out.filter((i): i is IrInstr => i !== undefined);
}
