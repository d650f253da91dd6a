// Dead code (pass `dead`, from -O1): instructions whose only effect is a value no path reads.
// The commonest is the prologue's zero for a variable that is always written before it is read.
// Needs: IR from lower.ts. Guarantees: the same computation without the ALU operations and load
// immediates that write a virtual register dead after them (live on no path), set no flags and
// read nothing with a side effect (uniforms, the VPM, the mutex, ...: ir.ts readKind); without
// a branch whose target comes right after its delay slots (an If whose body went) and its delay
// slots' nops; and without an instruction that only sets flags (it writes `nop`) where the next
// flag-setting instruction comes on its one path before anything reads them. Repeated until none
// is left, so that a chain of dead values goes at once (a chain inside a block in one walk; another
// walk only when what went read a value live across blocks, a test, a branch or a conditional
// write went, or a branch now goes where it would have gone anyway).

import { def, type IrInstr, readKind, type Src, uses } from './ir.ts';
import { type Liveness, liveness, walkLive } from './liveness.ts';
import { BRANCH_DELAY_SLOTS } from '../vc4/flow.ts';

const pure = (s: Src) => readKind(s) !== 'effect';

export function removeDeadCode(code: readonly IrInstr[], nregs: number): IrInstr[] {
  let out = code as IrInstr[];
  for (;;) {
    const dead = new Uint8Array(out.length);
    let any = false;
    // Registers that what goes read: another round is needed only if one of them may die in
    // another block (it is live out of a block), or when a test, a branch or a conditional write goes.
    let again = false;
    const read = new Uint8Array(nregs);
    // What a dead instruction reads is not made live by it: a chain of dead values in a block
    // goes in one walk.
    const live = liveness(out, nregs);
    walkLive(live, (k, set) => {
      const i = out[k]!;
      const d = def(i);
      if (!d || set.has(d.id)) return false;
      if (!(i.op === 'ldi' || (i.op === 'alu' && !i.setf && pure(i.a) && pure(i.b)))) return false;
      for (const u of uses(i)) read[u.id] = 1;
      // A conditional write gone may leave a test whose flags nothing reads any more.
      if (i.cond) again = true;
      return (dead[k] = 1), (any = true);
    });
    out.forEach((i, k) => {
      // A branch gone may leave a test whose flags nothing reads any more: another round.
      if (i.op === 'branch' && toNext(out, k)) for (let t = k; t <= k + BRANCH_DELAY_SLOTS; t++) (dead[t] = 1), (any = true), (again = true);
      if (i.op === 'alu' && i.setf && !i.cond && i.dst.k === 'p' && i.dst.name === 'nop' && pure(i.a) && pure(i.b) && flagsUnread(out, k))
        (dead[k] = 1), (any = true), (again = true);
    });
    if (!any) return out;
    out = out.filter((_, k) => !dead[k]);
    // What went may also have stood between a branch's slots and its target.
    if (!again && !liveOutOfABlock(live, read) && !out.some((i, k) => i.op === 'branch' && toNext(out, k))) return out;
  }
}

/** Whether any of the registers marked in `regs` is live out of some block. */
function liveOutOfABlock(l: Liveness, regs: Uint8Array): boolean {
  const W = (l.nregs + 31) >>> 5;
  for (let b = 0; b < l.blocks.length; b++)
    for (let w = 0; w < W; w++) {
      let x = l.blockOut[b * W + w]!;
      while (x) {
        const low = x & -x;
        if (regs[w * 32 + 31 - Math.clz32(low)]) return true;
        x = (x ^ low) >>> 0;
      }
    }
  return false;
}

/** Whether the branch at k goes where it would have gone anyway: its delay slots are nops and only labels follow them before its own. */
function toNext(code: readonly IrInstr[], k: number): boolean {
  const b = code[k] as Extract<IrInstr, { op: 'branch' }>;
  if (b.link || b.via) return false;
  for (let t = k + 1; t <= k + BRANCH_DELAY_SLOTS; t++) if (code[t]?.op !== 'nop') return false;
  for (let t = k + BRANCH_DELAY_SLOTS + 1; t < code.length; t++) {
    const l = code[t]!;
    if (l.op !== 'label') return false;
    if (l.name === b.label) return true;
  }
  return false;
}

/** Whether no instruction reads the flags the instruction at k sets: on the one path from it, another sets them (or the code ends) first. */
function flagsUnread(code: readonly IrInstr[], k: number): boolean {
  for (let t = k + 1; t < code.length; t++) {
    const j = code[t]!;
    if (j.op === 'branch') return false; // a condition, or the code where it goes, may read them
    if (j.op === 'end') return true;
    if ((j.op === 'alu' || j.op === 'ldi') && j.cond) return false;
    if (j.op === 'alu' && j.setf) return true;
  }
  return true;
}
