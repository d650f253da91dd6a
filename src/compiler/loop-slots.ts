// Delay slots from a loop's head (part of pass `pair`, -O2, after scheduling): a loop's branch
// back to its head runs three instructions before it jumps (Guide p. 34), and what the scheduler
// could not move there from before the branch stays a nop. The loop's first instructions go
// there instead, and the branch goes past them: each pass then costs up to three instructions
// fewer (gcd's loop: one; Mandelbrot's inner loop: three). On the way out they run once more
// than the loop asked, so only an instruction that does nothing anyone sees can go: an ALU
// operation with no I/O that writes registers and flags no path out of the loop reads before
// writing them again.
// Needs: scheduled lines with branches aimed at labels (schedule.ts). Guarantees: every path runs
// the instructions it ran before, in order, except the way out of a loop whose slots took head
// instructions, which also runs those; each of them reads no I/O register, writes no I/O
// register, takes no signal, and writes only regfile locations, r0-r3 and the flags, each of
// which every path out overwrites (unconditionally, whole) before any read, within a bounded
// search; the slots and the instructions after them break no spacing rule (rules.ts).

import { effectsOf } from '../vc4/effects.ts';
import { BRANCH_DELAY_SLOTS, END_DELAY_SLOTS } from '../vc4/flow.ts';
import { sequenceViolations } from '../vc4/rules.ts';
import type { Instr } from '../vc4/instr.ts';
import { ADD_NOP, BRANCH_ALWAYS, COND_ALWAYS, COND_NEVER, NO_PACK } from '../vc4/tables.ts';
import { W_NOP } from '../vc4/registers.ts';
import { aimBranches, type AsmLine, type InstrLine } from './emit.ts';
import { footprint, isNop, RES_ACC, RES_FLAGS } from './schedule.ts';

/** How many instructions the search for a read of a value on the way out looks at before it gives up (the value then counts as read). */
const SEARCH = 512;

/** The lines, each loop's back branch given its head's first instructions in its empty delay slots. */
export function slotsFromLoopHeads(lines: readonly AsmLine[]): AsmLine[] {
  // Edits keep every instruction where it is (a slot's nop becomes a copy, a branch changes its
  // label) and only add labels: the program is changed in place and its lines made once at the end.
  const p = Program.of(lines);
  let edited = false;
  for (let b = 0; b < p.instrs.length; b++) edited = fill(p, b) || edited;
  return edited ? aimBranches(p.lines()) : [...lines];
}

/** The instructions, and the labels before each (a label's place is the instruction after it). */
class Program {
  private constructor(
    readonly instrs: InstrLine[],
    /** The labels before each instruction (and, at instrs.length, those at the end). */
    readonly labels: string[][],
    readonly labelAt: Map<string, number>,
  ) {}
  static of(lines: readonly AsmLine[]): Program {
    const instrs: InstrLine[] = [];
    const labels: string[][] = [[]];
    const labelAt = new Map<string, number>();
    for (const l of lines) {
      if ('label' in l) {
        labelAt.set(l.label, instrs.length);
        labels[instrs.length]!.push(l.label);
      } else {
        instrs.push(l);
        labels.push([]);
      }
    }
    return new Program(instrs, labels, labelAt);
  }
  at(pc: number): Instr | undefined {
    return this.instrs[pc]?.instr;
  }
  labelled(pc: number): boolean {
    return (this.labels[pc]?.length ?? 0) > 0;
  }
  addLabel(name: string, pc: number): void {
    this.labelAt.set(name, pc);
    this.labels[pc]!.push(name);
  }
  lines(): AsmLine[] {
    const out: AsmLine[] = [];
    this.instrs.forEach((l, pc) => {
      for (const label of this.labels[pc]!) out.push({ label });
      out.push(l);
    });
    for (const label of this.labels[this.instrs.length]!) out.push({ label });
    return out;
  }
}

/** When instruction b is a loop's back branch with empty slots that its head can fill: fills them (in `p`) and says so. */
function fill(p: Program, b: number): boolean {
  const br = p.instrs[b]!;
  const i = br.instr;
  if (i.kind !== 'branch' || br.target === undefined || i.reg || !i.rel || i.waddrAdd !== W_NOP || i.waddrMul !== W_NOP) return false;
  const head = p.labelAt.get(br.target);
  // A label on the branch would let other paths reach its slots, with other instructions before them.
  if (head === undefined || head > b || p.labelled(b)) return false;
  // The empty slots: the last ones, nops, with no label among them.
  if ([1, 2, 3].some((k) => p.labelled(b + k) || !p.at(b + k))) return false;
  let free = 0;
  while (free < BRANCH_DELAY_SLOTS && isNop(p.at(b + BRANCH_DELAY_SLOTS - free)!)) free++;
  if (free === 0) return false;
  const exit = b + BRANCH_DELAY_SLOTS + 1;
  let take = 0;
  while (take < free && head + take < b && (take === 0 || !p.labelled(head + take)) && harmless(p, p.at(head + take)!, exit)) take++;
  for (; take > 0; take--) if (spaced(p, b, head, take)) break;
  if (take === 0) return false;
  const first = b + 1 + BRANCH_DELAY_SLOTS - take;
  for (let k = 0; k < take; k++) p.instrs[first + k] = copyOf(p.instrs[head + k]!);
  const name = labelName(p, br.target, take);
  if (!p.labelAt.has(name)) p.addLabel(name, head + take);
  p.instrs[b] = { ...br, target: name };
  return true;
}

/** A head instruction's line for a slot: the same instruction and statement, no branch target, marked as the next pass's work (the debugger counts its writes only once the branch jumps). */
function copyOf(l: InstrLine): InstrLine {
  const { target: _target, ...rest } = l;
  return { ...rest, ahead: true };
}

/** A label for the head past its first `take` instructions, new unless one stands there already. */
function labelName(p: Program, label: string, take: number): string {
  const here = p.labels[p.labelAt.get(label)! + take]!;
  if (here.length) return here[0]!;
  let name = `${label}_${take}`;
  for (let k = 2; p.labelAt.has(name); k++) name = `${label}_${take}_${k}`;
  return name;
}

/** Whether running `i` once more on the way out (at `exit`) changes nothing any path reads. */
function harmless(p: Program, i: Instr, exit: number): boolean {
  if (i.kind !== 'alu') return false;
  const f = footprint(i);
  if (f.io !== 0 || f.sfu) return false;
  return f.writes.every((r) => (r < RES_ACC + 4 || r === RES_FLAGS) && !readOnWayOut(p, r, exit));
}

/** Whether some path from `pc` may read resource `r` before overwriting it whole (a search cut short says it may). */
function readOnWayOut(p: Program, r: number, pc: number): boolean {
  const seen = new Set<number>();
  const todo = [pc];
  let budget = SEARCH;
  while (todo.length) {
    let at = todo.pop()!;
    for (;;) {
      if (seen.has(at)) break;
      seen.add(at);
      if (--budget < 0) return true;
      const i = p.at(at);
      if (!i) break; // past the program's end
      const verdict = touches(i, r);
      if (verdict === 'reads') return true;
      if (verdict === 'kills') break;
      if (i.kind === 'branch') {
        if (i.reg || i.waddrAdd !== W_NOP || i.waddrMul !== W_NOP) return true; // a call or a return: where it goes is not followed
        // Its delay slots run on either way.
        for (let k = 1; k <= BRANCH_DELAY_SLOTS; k++) {
          const s = p.at(at + k);
          if (!s) return true;
          const v = touches(s, r);
          if (v === 'reads') return true;
          if (v === 'kills') break;
          if (k === BRANCH_DELAY_SLOTS) {
            const target = p.instrs[at]!.target;
            const to = target === undefined ? undefined : p.labelAt.get(target);
            if (to === undefined) return true;
            todo.push(to);
            if (i.cond !== BRANCH_ALWAYS) todo.push(at + BRANCH_DELAY_SLOTS + 1);
          }
        }
        break;
      }
      if (effectsOf(i).programEnd) {
        for (let k = 1; k <= END_DELAY_SLOTS; k++) if (p.at(at + k) && touches(p.at(at + k)!, r) === 'reads') return true;
        break;
      }
      at++;
    }
  }
  return false;
}

/** What an instruction does to resource r: reads it (a conditional or partial write keeps it, so reads it too; so does a semaphore's or a load immediate's flag write, or a mul's), overwrites it whole, or neither. */
function touches(i: Instr, r: number): 'reads' | 'kills' | undefined {
  if (i.kind === 'branch') return r === RES_FLAGS && i.cond !== BRANCH_ALWAYS ? 'reads' : undefined;
  const f = footprint(i);
  if (f.reads.includes(r)) return 'reads';
  if (!f.writes.includes(r)) return undefined;
  if (i.kind === 'sema') return 'reads';
  const whole = (c: number) => c === COND_ALWAYS || c === COND_NEVER;
  if (!whole(i.condAdd) || !whole(i.condMul) || i.pack !== NO_PACK) return 'reads';
  // The flags come from the add ALU's result (the mul ALU's when the add does nothing), in the
  // lanes its condition lets write: under `never`, in none. Only an add's are taken as whole.
  if (r === RES_FLAGS && (i.kind !== 'alu' || i.opAdd === ADD_NOP || i.condAdd !== COND_ALWAYS)) return 'reads';
  return 'kills';
}

/**
 * Whether the slots holding the head's first `take` instructions, and the two instructions after
 * each place they lead to (the head past them, the way out), break no spacing rule.
 */
function spaced(p: Program, b: number, head: number, take: number): boolean {
  const first = b + 1 + BRANCH_DELAY_SLOTS - take;
  const run: (Instr | undefined)[] = [];
  for (let pc = b - 1; pc <= b + BRANCH_DELAY_SLOTS; pc++) run.push(pc >= first ? p.at(head + pc - first) : p.at(pc));
  const ok = (seq: (Instr | undefined)[]) => {
    const e = seq.map((x) => (x ? effectsOf(x) : undefined));
    for (let k = 2; k < e.length; k++) if (e[k] && sequenceViolations(e[k]!, [e[k - 1], e[k - 2]]).length) return false;
    return true;
  };
  const onward = (to: number) => [...run, p.at(to), p.at(to + 1)];
  return ok([p.at(b - 2), ...run]) && ok(onward(head + take)) && ok(onward(b + BRANCH_DELAY_SLOTS + 1));
}
