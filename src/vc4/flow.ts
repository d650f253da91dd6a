// Where branches go, and the control flow of a program as the QPU runs it. The helpers below are
// the one place branch targets are worked out (assembler, disassembler, validator, compiler,
// emulator). The control flow is for the validator (validate.ts) and the compiler: compact,
// a byte per instruction for the fall-through edges and the states seen, numbers only for
// instructions inside branch delay slots, so memory and time grow linearly with the program.

import { decodeHiLo } from './codec.ts';
import { BRANCH_PC_OFFSET, INSTRUCTION_BYTES } from './fields.ts';
import type { Instr } from './instr.ts';
import { BRANCH_ALWAYS, PROGRAM_END_SIGNALS } from './tables.ts';

// ---- Where branches go (every tool that computes a branch target uses these)

/** Instructions that run after a branch before it jumps: its delay slots (Guide p. 20). */
export const BRANCH_DELAY_SLOTS = 3;
/** Instructions that run after a program end before the QPU stops: its delay slots (Guide p. 21). */
export const END_DELAY_SLOTS = 2;

/**
 * The instruction a relative branch at `pc` with byte offset `imm` jumps to: PC + 4 instructions
 * (past its delay slots) plus the offset (Guide p. 34). Not a whole number when `imm` is not a
 * multiple of INSTRUCTION_BYTES (isWholeInstructions).
 */
export function branchTarget(pc: number, imm: number): number {
  return pc + BRANCH_PC_OFFSET + imm / INSTRUCTION_BYTES;
}

/** The byte offset that makes a relative branch at `pc` jump to instruction `target`. */
export function branchOffset(pc: number, target: number): number {
  return (target - (pc + BRANCH_PC_OFFSET)) * INSTRUCTION_BYTES;
}

/**
 * The byte offset from the program's start of the instruction after the delay slots of a branch
 * at `pc`: what a relative branch adds its offset to, and the link address it writes (Guide p. 34).
 */
export function linkOffset(pc: number): number {
  return (pc + BRANCH_PC_OFFSET) * INSTRUCTION_BYTES;
}

/** Whether a byte offset is a whole number of instructions. */
export function isWholeInstructions(bytes: number): boolean {
  return bytes % INSTRUCTION_BYTES === 0;
}

// ---- Control flow

/** A program: decoded instructions, or its words (low word first), decoded as they are read. */
export type Program = readonly Instr[] | Uint32Array;

/** A program's length and its instructions one at a time (and its words, when it came as words). */
export interface Code {
  readonly n: number;
  at(i: number): Instr;
  readonly words?: Uint32Array;
}

export function codeOf(program: Program): Code {
  if (program instanceof Uint32Array)
    return { n: program.length >>> 1, at: (i) => decodeHiLo(program[2 * i + 1]!, program[2 * i]!), words: program };
  return { n: program.length, at: (i) => program[i]! };
}

export interface Flow {
  readonly n: number;
  /** 1 where execution can go from i to i + 1 (from the last instruction: past the end). */
  readonly fall: Uint8Array;
  /** 1 where a jump through a register happens after i. */
  readonly unknownTargets: Uint8Array;
  /** The instructions that can run after i, ascending (n: past the end). */
  succs(i: number): number[];
  /** The instructions that can run right before i, ascending. */
  preds(i: number): number[];
}

/** Where a pending jump goes: an instruction index, or one of these. */
const UNKNOWN = -1; // through a register: not known statically
const OUTSIDE = -2; // outside the program or between instructions (branch-target-outside)

/**
 * Successors of each instruction, as the QPU runs them: fall-through; after a branch's three
 * delay slots (Guide p. 20) its target; a branch in the last delay slot of another queued behind
 * it, jumping after the first's target and the two instructions after that (vc4asm's addendum,
 * "you can enqueue the next branch", as the emulator runs it); nothing after the two delay slots
 * of a program end (Guide p. 21; a program end inside them does not restart them). Found by
 * running the pending-branch and program-end state from the start. When the program jumps
 * through a register somewhere, an instruction the start does not reach otherwise is taken as
 * reached with nothing pending; without such a jump it is dead and has no successors.
 * Needs: at most MAX_PROGRAM_INSTRUCTIONS instructions (the state keys are exact up to 2^24).
 */
export function controlFlow(program: Program | Code): Flow {
  const code = typeof (program as Code).n === 'number' ? (program as Code) : codeOf(program as Program);
  const n = code.n;
  const fall = new Uint8Array(n);
  const unknownTargets = new Uint8Array(n);
  const jumps = new Map<number, number[]>(); // successors other than i + 1
  const reached = new Uint8Array(n);
  const seen = seenStates(n);
  const work: number[] = []; // states to run, six numbers each (see seenStates)
  const push = (pc: number, left: number, target: number, left2: number, target2: number, endLeft: number) => {
    if (!seen(pc, left, target, left2, target2, endLeft)) return;
    reached[pc] = 1;
    work.push(pc, left, target, left2, target2, endLeft);
  };
  const edge = (from: number, to: number) => {
    if (to === from + 1) fall[from] = 1;
    else {
      const list = jumps.get(from);
      if (!list) jumps.set(from, [to]);
      else if (!list.includes(to)) list.push(to);
    }
  };
  const explore = () => {
    while (work.length) {
      const s = work.slice(-6);
      work.length -= 6;
      const ins = code.at(s[0]!);
      // A conditional branch may go either way; `always` is always taken.
      if (ins.kind === 'branch') {
        runState(s, ins, true, n, edge, push, unknownTargets);
        if (ins.cond !== BRANCH_ALWAYS) runState(s, ins, false, n, edge, push, unknownTargets);
      } else runState(s, ins, false, n, edge, push, unknownTargets);
    }
  };
  if (n > 0) push(0, 0, OUTSIDE, 0, OUTSIDE, 0);
  explore();
  // A jump through a register may land anywhere: then every instruction not reached yet counts
  // as reached with nothing pending. Without one, what the start does not reach never runs.
  if (unknownTargets.includes(1))
    for (let i = 0; i < n; i++)
      if (!reached[i]) {
        push(i, 0, OUTSIDE, 0, OUTSIDE, 0);
        explore();
      }
  return flowOf(n, fall, unknownTargets, jumps);
}

/**
 * One step of the QPU from state `s` before instruction `ins`: the pending branch (instructions
 * left, target), the one queued behind it, and the instructions left before a program end stops
 * the QPU (0: none). Records the edge it takes and pushes the state after it.
 */
function runState(
  [pc, left0, target0, left20, target20, endLeft0]: readonly number[],
  ins: Instr,
  taken: boolean,
  n: number,
  edge: (from: number, to: number) => void,
  push: (pc: number, left: number, target: number, left2: number, target2: number, endLeft: number) => void,
  unknownTargets: Uint8Array,
): void {
  let [left, target, left2, target2, endLeft] = [left0!, target0!, left20!, target20!, endLeft0!];
  // Counting this instruction: the branch jumps, or the QPU stops, after the delay slots.
  if (taken) {
    if (left > 0) [left2, target2] = [BRANCH_DELAY_SLOTS + 1, targetOf(pc!, ins, n)];
    else [left, target] = [BRANCH_DELAY_SLOTS + 1, targetOf(pc!, ins, n)];
  }
  if (ins.kind === 'alu' && PROGRAM_END_SIGNALS.has(ins.sig) && endLeft <= 0) endLeft = END_DELAY_SLOTS + 1;
  if (endLeft > 0 && --endLeft === 0) return; // the QPU stops
  let next = pc! + 1;
  if (left > 0 && --left === 0) {
    next = target;
    if (left2 > 0) [target, left, left2, target2] = [target2, left2 - 1, 0, OUTSIDE];
    else [left, target] = [0, OUTSIDE];
  }
  if (next === UNKNOWN) unknownTargets[pc!] = 1;
  if (next < 0) return;
  edge(pc!, next);
  if (next < n) push(next, left, target, left2, target2, endLeft);
}

/** Where the branch at i jumps: an instruction, UNKNOWN (through a register or absolute) or OUTSIDE. */
function targetOf(i: number, b: Instr, n: number): number {
  if (b.kind !== 'branch') return OUTSIDE;
  if (b.reg || !b.rel) return UNKNOWN; // absolute targets are bus addresses, unknown here
  const t = branchTarget(i, b.imm);
  return Number.isInteger(t) && t >= 0 && t < n ? t : OUTSIDE;
}

/**
 * A set of states (pc, left, target, left2, target2, endLeft), answering whether a state is new.
 * Nearly all have no branch pending: a bit per end countdown and instruction. With one branch
 * pending the state is one exact number; with a second queued, a string.
 */
function seenStates(n: number): (pc: number, left: number, target: number, left2: number, target2: number, endLeft: number) => boolean {
  const plain = new Uint8Array(n);
  const pending = new Set<number>();
  const queued = new Set<string>();
  return (pc, left, target, left2, target2, endLeft) => {
    if (left === 0 && left2 === 0 && target === OUTSIDE && target2 === OUTSIDE && endLeft <= END_DELAY_SLOTS) {
      const bit = 1 << endLeft;
      if (plain[pc]! & bit) return false;
      plain[pc] = plain[pc]! | bit;
      return true;
    }
    if (left2 === 0 && target2 === OUTSIDE && left <= BRANCH_DELAY_SLOTS && endLeft <= END_DELAY_SLOTS) {
      const key = ((pc * (n + 2) + target + 2) * (BRANCH_DELAY_SLOTS + 1) + left) * (END_DELAY_SLOTS + 1) + endLeft;
      if (pending.has(key)) return false;
      pending.add(key);
      return true;
    }
    const key = `${pc},${left},${target},${left2},${target2},${endLeft}`;
    if (queued.has(key)) return false;
    queued.add(key);
    return true;
  };
}

function flowOf(n: number, fall: Uint8Array, unknownTargets: Uint8Array, jumps: Map<number, number[]>): Flow {
  const jumpPreds = new Map<number, number[]>();
  for (const [from, tos] of jumps)
    for (const to of tos) {
      if (to >= n) continue;
      const list = jumpPreds.get(to);
      if (list) list.push(from);
      else jumpPreds.set(to, [from]);
    }
  const ascending = (a: number, b: number) => a - b;
  return {
    n,
    fall,
    unknownTargets,
    succs: (i) => {
      const more = jumps.get(i);
      const next = fall[i] ? [i + 1] : [];
      return more ? [...next, ...more].sort(ascending) : next;
    },
    preds: (i) => {
      const more = jumpPreds.get(i);
      const prev = i > 0 && fall[i - 1] ? [i - 1] : [];
      return more ? [...prev, ...more].sort(ascending) : prev;
    },
  };
}
