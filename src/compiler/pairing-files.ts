// What pairing asks of register allocation (regalloc.ts, with pass `pair`): two operations the
// scheduler puts in one word (pair.ts) share its two read ports, one for regfile A and one for B
// (Guide p. 17; a small immediate takes B's), so values that neighbouring instructions on the
// two ALUs read should be in different files. Allocation cannot know which instructions the
// scheduler will pair: these weights only break a tie between the files that the operands of
// one instruction, whose conflict is certain to cost a copy, leave even.
// Needs: the IR in order; a straight run of ALU operations ends at any other instruction (an
// `ldi` too, which the scheduler may move), and only operations that run on one ALU alone count
// (`mov` and the v8 adds, which go on either, do not). Guarantees: only weights (Partner lists);
// correctness never depends on them.

import type { IrInstr, Src } from './ir.ts';
import { ADD_OP_BY_NAME, MUL_OP_BY_NAME } from '../vc4/tables.ts';

/** A value read beside another (an operand, a port): how much placing the two in one file costs. */
export interface Partner {
  readonly other: Src;
  /** How much a copy in that instruction costs: regalloc.ts's LOOP_WEIGHT to the power of its loop depth. */
  readonly weight: number;
}

/** How much an operand of a neighbouring instruction on the other ALU weighs, against the others of its kind (loop depth counts as for any partner). */
export const PAIRING_WEIGHT = 0.5;
/** How many instructions back a neighbour may be (the scheduler pairs nearby work). */
const PAIRING_WINDOW = 2;

/** The ALU an IR operation can only run on, if only one (`mov`, the v8 adds go on either). */
function aluOf(i: Extract<IrInstr, { op: 'alu' }>): 'add' | 'mul' | undefined {
  if (i.rot !== undefined) return 'mul';
  const add = ADD_OP_BY_NAME.has(i.code);
  const mul = MUL_OP_BY_NAME.has(i.code);
  return add === mul ? undefined : add ? 'add' : 'mul';
}

/** A small immediate: what takes regfile B's read port (its value does not matter here). */
const B_PORT: Src = { k: 'imm', code: 0 };

/**
 * The last few instructions that run on one ALU: each new one on the other ALU makes the
 * registers both read partners, weighed as PAIRING_WEIGHT says (their files then lean apart).
 * A rotation's input is not read beside its neighbours: emit.ts copies it to r0 on the add ALU,
 * in a word the scheduler can share with the rotation before it, whose amount, a small
 * immediate, takes regfile B's read port (Guide p. 29): the input leans to regfile A.
 */
export class Neighbours {
  private recent: { alu: 'add' | 'mul'; reads: number[] }[] = [];
  /** One operand object per register, shared by all its partners' lists. */
  private readonly srcs: Src[] = [];
  private src(id: number): Src {
    return (this.srcs[id] ??= { k: 'v', id });
  }
  see(i: Extract<IrInstr, { op: 'alu' }>, weight: number, partners: Partner[][]): void {
    const alu = aluOf(i);
    if (!alu) return;
    const rotates = i.rot !== undefined;
    if (rotates && i.a.k === 'v') partners[i.a.id]!.push({ other: B_PORT, weight });
    const reads: number[] = [];
    if (!rotates) for (const s of [i.a, i.b]) if (s.k === 'v') reads.push(s.id);
    for (const r of this.recent) {
      if (r.alu === alu) continue;
      for (const x of reads)
        for (const y of r.reads) {
          if (x === y) continue;
          partners[x]!.push({ other: this.src(y), weight });
          partners[y]!.push({ other: this.src(x), weight });
        }
    }
    this.recent.push({ alu, reads });
    if (this.recent.length > PAIRING_WINDOW) this.recent.shift();
  }
  clear(): void {
    this.recent = [];
  }
}
