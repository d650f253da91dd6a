// The final assertion: the validator (src/vc4/validate.ts) on the finished program, which must
// find nothing at all. Nothing here changes the code: the scheduler (schedule.ts) and spacing
// (space.ts) are what satisfy the hardware's rules; a finding is a compiler bug, reported as an
// internal CompileError naming the kernel and the rule.
// Needs: the program's machine-instruction lines, branches aimed. Guarantees: its words, with
// the validator's word that every rule holds on every path.

import { encodeProgram } from '../vc4/codec.ts';
import type { Instr } from '../vc4/instr.ts';
import { formatFinding, validate } from '../vc4/validate.ts';
import { type AsmLine, instrsOf } from './emit.ts';
import { CompileError } from './errors.ts';

export interface Checked {
  readonly lines: readonly AsmLine[];
  readonly instrs: Instr[];
  readonly words: Uint32Array;
}

export function assertRules(lines: readonly AsmLine[], kernel: string): Checked {
  const instrs = instrsOf(lines);
  const bad = validate(instrs)[0];
  if (bad) throw new CompileError(`kernel ${kernel}: internal compiler error: the code breaks a hardware rule: ${formatFinding(bad)}`);
  return { lines, instrs, words: encodeProgram(instrs) };
}
