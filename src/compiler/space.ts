// Spacing, the last step of instruction placement (at every level: at -O0 it is the only one):
// a nop wherever an instruction would break a latency rule with the two instructions that run
// before it, on any path. The scheduler (schedule.ts, from -O1) already covers the latencies it
// can with other work and puts nops in the gaps it cannot fill within a straight run; what is
// left here is what crosses a label or a branch (a loop's back edge reaching its first
// instructions) and, at -O0, everything.
// Needs: machine-instruction lines (emit.ts, then schedule.ts), each obeying the
// one-instruction rules, every branch aimed at its label.
// Guarantees: the same program with nops added, such that no spacing rule (below, Guide p. 37)
// is broken along any path of the control flow the validator follows (src/vc4/flow.ts); or an
// internal CompileError. assert-rules.ts then asserts, with the validator, that nothing is broken.
//
// A nop for a rule broken only on the path falling through goes before the labels on the
// instruction (a loop's back edge does not pay for its entry); one for a rule broken on a path
// through a branch goes after them, so that every path gets it. Nops never go into a branch's
// delay slots or the end's: that would push an instruction out of them. Each round adds at most
// one nop before an instruction, and no rule asks for more than two, so this ends.

import { nopInstr } from '../vc4/instr.ts';
import type { RuleName } from '../vc4/rules.ts';
import { effectsOf } from '../vc4/effects.ts';
import { BRANCH_DELAY_SLOTS, controlFlow, END_DELAY_SLOTS } from '../vc4/flow.ts';
import { sequenceViolations } from '../vc4/rules.ts';
import { aimBranches, type AsmLine, instrsOf } from './emit.ts';
import type { Stmt } from '../source/ast.ts';
import { CompileError } from './errors.ts';

/** The rules a nop between two instructions cures: latencies. */
const CURED_BY_SPACING = new Set<RuleName>([
  'regfile-read-after-write',
  'r4-after-sfu',
  'rotate-after-r5-write',
  'rotate-after-write',
  'uniform-after-unif-addr',
  'tmu-noswap-too-late',
  'vpm-read-too-early',
  'tlb-z-then-ms-flags',
]);

/** The nop spacing puts in (one value: instructions are never changed once built). */
const SPACER = nopInstr();

/** Instructions that need a nop before them: `all` when a path through a branch needs it. */
function spacingNeeds(lines: readonly AsmLine[]): Map<number, 'fall' | 'all'> {
  const instrs = instrsOf(lines);
  const fx = instrs.map(effectsOf);
  const flow = controlFlow(instrs);
  const out = new Map<number, 'fall' | 'all'>();
  let slots = 0;
  for (let k = 0; k < instrs.length; k++) {
    if (slots > 0) {
      slots--;
      continue;
    }
    const e = fx[k]!;
    if (e.isBranch) slots = BRANCH_DELAY_SLOTS;
    else if (e.programEnd) slots = END_DELAY_SLOTS;
    for (const p0 of flow.preds(k)) {
      const p1s: (number | undefined)[] = flow.preds(p0);
      if (!p1s.length) p1s.push(undefined);
      for (const p1 of p1s) {
        if (!sequenceViolations(e, [fx[p0], p1 === undefined ? undefined : fx[p1]]).some((v) => CURED_BY_SPACING.has(v.rule))) continue;
        const falling = p0 === k - 1 && (p1 === undefined || p1 === k - 2);
        if (!falling) out.set(k, 'all');
        else if (!out.has(k)) out.set(k, 'fall');
      }
    }
  }
  return out;
}

/** The lines spaced, and the nops for latencies in them (the scheduler's and these). */
export function spaceForRules(lines: readonly AsmLine[], kernel: string): { lines: AsmLine[]; nops: number } {
  let cur = [...lines];
  for (let round = 0; round < 8; round++) {
    const needs = spacingNeeds(cur);
    if (needs.size === 0) return { lines: cur, nops: cur.filter((l) => 'spacer' in l).length };
    const next: AsmLine[] = [];
    let labels: AsmLine[] = [];
    let index = 0;
    const nop = (stmt: Stmt | undefined) => {
      next.push({ instr: SPACER, stmt, spacer: true });
    };
    for (const l of cur) {
      if ('label' in l) {
        labels.push(l);
        continue;
      }
      const need = needs.get(index++);
      if (need === 'fall') nop(l.stmt);
      next.push(...labels);
      labels = [];
      if (need === 'all') nop(l.stmt);
      next.push(l);
    }
    next.push(...labels);
    cur = aimBranches(next);
  }
  throw new CompileError(`kernel ${kernel}: internal compiler error: spacing the code for the hardware's latencies did not settle`);
}
