// Hardware-rule satisfaction: spaces instructions so that no rule between neighbouring
// instructions is broken. Needs: machine-instruction lines from emit.ts (then schedule.ts),
// each obeying the one-instruction rules. Guarantees: a program that the validator (src/vc4/validate.ts) passes
// with no finding at all, or an internal CompileError naming the kernel and the rule, never code
// that breaks a rule.
//
// The rules that spacing cures (src/vc4/rules.ts, Guide p. 37) are latencies: a regfile
// location read the instruction after it is written, r4 within two instructions of an SFU write,
// a VPM read within two of its setup, a rotation right after its input is written. For each
// finding a nop goes in before the offending instruction (for a neighbour's, before any label on
// it, since only the path falling through needs it; for the validator's, after, so that every
// path gets it) and the relative branches are re-aimed; the validator runs again until nothing
// is left. Each round inserts at most one
// nop per instruction, and no rule asks for more than two, so this ends.

import { encodeProgram } from '../vc4/codec.ts';
import { type Instr, nopInstr } from '../vc4/instr.ts';
import type { RuleName } from '../vc4/rules.ts';
import { type Finding, formatFinding, validate } from '../vc4/validate.ts';
import { effectsOf } from '../vc4/effects.ts';
import { sequenceViolations } from '../vc4/rules.ts';
import { aimBranches, type AsmLine, instrsOf } from './emit.ts';
import type { Stmt } from '../source/ast.ts';
import { CompileError } from './errors.ts';

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

export interface Spaced {
  readonly lines: AsmLine[];
  readonly instrs: Instr[];
  readonly words: Uint32Array;
  /** Nops inserted. */
  readonly nops: number;
}

/**
 * The spacing rules broken between neighbours in program order (not in a branch's delay slots
 * or the end's, which nops must not push out): a cheap first look, which finds nearly all that
 * the validator would; the validator, which follows every path, has the last word.
 */
function neighbourFindings(instrs: readonly Instr[]): { index: number; rule: RuleName }[] {
  const out: { index: number; rule: RuleName }[] = [];
  const fx = instrs.map(effectsOf);
  let slots = 0;
  for (let k = 0; k < instrs.length; k++) {
    if (slots > 0) {
      slots--;
      continue;
    }
    const e = fx[k]!;
    for (const v of sequenceViolations(e, [fx[k - 1], fx[k - 2]]))
      if (CURED_BY_SPACING.has(v.rule)) {
        out.push({ index: k, rule: v.rule });
        break;
      }
    if (e.isBranch) slots = 3;
    else if (e.programEnd) slots = 2;
  }
  return out;
}

export function satisfyRules(lines: readonly AsmLine[], kernel: string): Spaced {
  // Each round inserts nops and re-aims the branches: first for what neighbours break, until
  // nothing; then for what the validator finds, until nothing.
  let cur = [...lines];
  let instrs = instrsOf(cur);
  let nops = 0;
  let neighbours = true;
  for (let round = 0; ; round++) {
    const findings = neighbours ? neighbourFindings(instrs) : validate(instrs);
    if (findings.length === 0 && neighbours) {
      neighbours = false;
      round = 0;
      continue;
    }
    if (findings.length === 0) return { lines: cur, instrs, words: encodeProgram(instrs), nops };
    const bad = neighbours ? undefined : (findings as Finding[]).find((f) => !CURED_BY_SPACING.has(f.rule));
    if (bad || round > 8) {
      const what = bad ?? validate(instrs)[0];
      throw new CompileError(`kernel ${kernel}: internal compiler error: the code breaks a hardware rule: ${what ? formatFinding(what) : findings[0]!.rule}`);
    }
    const before = new Set(findings.map((f) => f.index));
    const next: AsmLine[] = [];
    let index = 0;
    // A nop for what the previous instruction in program order breaks goes before the labels on
    // the instruction (only the path falling through needs it: inside a loop, the back edge
    // would pay for it every iteration); one for what the validator finds, after them (every
    // path gets it).
    let labels: AsmLine[] = [];
    const flush = () => {
      next.push(...labels);
      labels = [];
    };
    const nop = (stmt: Stmt | undefined) => {
      next.push({ instr: nopInstr(), stmt });
      nops++;
    };
    for (const l of cur) {
      if ('label' in l) {
        labels.push(l);
        continue;
      }
      if (before.has(index) && neighbours) nop(l.stmt);
      flush();
      if (before.has(index) && !neighbours) nop(l.stmt);
      next.push(l);
      index++;
    }
    flush();
    cur = aimBranches(next);
    instrs = instrsOf(cur);
  }
}
