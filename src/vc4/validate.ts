// The static validator: every violation of the hardware's instruction rules in a program.
// Needs: decoded instructions. Guarantees: each finding names the instruction index, the rule
// (rules.ts) and what is wrong. Rules between instructions are checked along every control-flow
// path, through branch delay slots and into branch targets whose address is known statically.

import { ADD_OPS, BRANCH_CONDITIONS, LDI_MODE_NAMES, MUX_A, MUX_B, PACK_MUL_MODES, TLB_LOAD_SIGNALS } from './tables.ts';
import { type Effects, effectsOf } from './effects.ts';
import type { Instr } from './instr.ts';
import { READ_A, READ_B } from './registers.ts';
import { instrViolations, RULES, type RuleName, sequenceViolations, type Severity, TMU_FIFO_DEPTH } from './rules.ts';

export interface Finding {
  /** Instruction index (the byte offset is 8 times this). */
  readonly index: number;
  readonly rule: RuleName;
  readonly severity: Severity;
  readonly message: string;
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
 * `unknownTargets[i]` is set where a jump through a register happens after i.
 */
export function controlFlow(instrs: readonly Instr[]): { succs: number[][]; unknownTargets: boolean[] } {
  const n = instrs.length;
  const succs: Set<number>[] = instrs.map(() => new Set<number>());
  const unknownTargets = new Array<boolean>(n).fill(false);
  const targetOf = (i: number): number => {
    const b = instrs[i]!;
    if (b.kind !== 'branch') return OUTSIDE;
    if (b.reg || !b.rel) return UNKNOWN; // absolute targets are bus addresses, unknown here
    const t = i + 4 + b.imm / 8;
    return Number.isInteger(t) && t >= 0 && t < n ? t : OUTSIDE;
  };
  // A state before running `pc`: the pending branch (instructions left, target), the one queued
  // behind it, and the instructions left before a program end stops the QPU (0: none).
  type State = [pc: number, left: number, target: number, left2: number, target2: number, endLeft: number];
  const seen = new Set<string>();
  const reached = new Array<boolean>(n).fill(false);
  const work: State[] = [];
  const push = (st: State) => {
    const key = st.join(',');
    if (seen.has(key)) return;
    seen.add(key);
    reached[st[0]] = true;
    work.push(st);
  };
  const explore = () => {
    while (work.length) {
      const [pc, left0, target0, left20, target20, endLeft0] = work.pop()!;
      const ins = instrs[pc]!;
      // A conditional branch may go either way; `always` (15) is always taken.
      const outcomes = ins.kind === 'branch' ? (ins.cond === 15 ? [true] : [true, false]) : [false];
      for (const taken of outcomes) {
        let [left, target, left2, target2, endLeft] = [left0, target0, left20, target20, endLeft0];
        if (taken) {
          if (left > 0) [left2, target2] = [4, targetOf(pc)];
          else [left, target] = [4, targetOf(pc)];
        }
        if (ins.kind === 'alu' && (ins.sig === 3 || ins.sig === 9) && endLeft <= 0) endLeft = 3;
        if (endLeft > 0 && --endLeft === 0) continue; // the QPU stops
        let next = pc + 1;
        if (left > 0 && --left === 0) {
          next = target;
          if (left2 > 0) [target, left, left2, target2] = [target2, left2 - 1, 0, OUTSIDE];
          else [left, target] = [0, OUTSIDE];
        }
        if (next === UNKNOWN) unknownTargets[pc] = true;
        if (next < 0) continue;
        succs[pc]!.add(next);
        if (next < n) push([next, left, target, left2, target2, endLeft]);
      }
    }
  };
  if (n > 0) push([0, 0, OUTSIDE, 0, OUTSIDE, 0]);
  explore();
  // A jump through a register may land anywhere: then every instruction not reached yet counts
  // as reached with nothing pending. Without one, what the start does not reach never runs.
  if (unknownTargets.includes(true))
    for (let i = 0; i < n; i++)
      if (!reached[i]) {
        push([i, 0, OUTSIDE, 0, OUTSIDE, 0]);
        explore();
      }
  return { succs: succs.map((x) => [...x].sort((p, q) => p - q)), unknownTargets };
}

export function validate(instrs: readonly Instr[]): Finding[] {
  const n = instrs.length;
  const effects = instrs.map(effectsOf);
  const found = new Map<string, Finding>();
  const report = (index: number, rule: RuleName, message: string) => {
    const key = `${index}|${rule}|${message}`;
    if (!found.has(key)) found.set(key, { index, rule, severity: RULES[rule].severity, message });
  };

  const { succs } = controlFlow(instrs);
  const preds: number[][] = instrs.map(() => []);
  succs.forEach((ss, i) => ss.forEach((s) => s < n && preds[s]!.push(i)));

  instrs.forEach((ins, i) => {
    const e = effects[i]!;
    for (const x of instrViolations(e)) report(i, x.rule, x.message);
    for (const x of encodingFindings(ins)) report(i, x.rule, x.message);
    // Every path of up to two predecessors (the program start counts as a path for index 0).
    const paths: (Effects | undefined)[][] = [];
    const p0s: (number | undefined)[] = preds[i]!.length ? [...preds[i]!] : [undefined];
    if (i === 0 && preds[i]!.length) p0s.push(undefined);
    for (const p0 of p0s) {
      const p1s: (number | undefined)[] = p0 !== undefined && preds[p0]!.length ? preds[p0]! : [undefined];
      for (const p1 of p1s) paths.push([p0 === undefined ? undefined : effects[p0], p1 === undefined ? undefined : effects[p1]]);
    }
    for (const path of paths) for (const x of sequenceViolations(e, path)) report(i, x.rule, x.message);

    if (ins.kind === 'alu' && (ins.sig === 3 || ins.sig === 9) && i + 2 >= n)
      report(i, 'end-missing-delay-slots', `program end at ${i} needs two more instructions after it; the program has ${n - i - 1}`);
    if (ins.kind === 'branch' && ins.rel && !ins.reg) {
      const t = i + 4 + ins.imm / 8;
      if (ins.imm % 8 !== 0 || t < 0 || t >= n)
        report(i, 'branch-target-outside', `branch offset ${ins.imm} lands at ${Number.isInteger(t) ? `instruction ${t}` : `byte ${(i + 4) * 8 + ins.imm}`}, outside 0-${n - 1}`);
    }
    if (ins.kind === 'branch' && ins.reg && ins.raddrA % 2 === 1)
      report(i, 'branch-sets-flags', `raddr_a = ra${ins.raddrA} is odd, so this branch also sets the flags`);
  });
  if (n > 0 && succs[n - 1]!.includes(n))
    report(n - 1, 'falls-off-end', 'execution continues past the last instruction (no program end before it)');

  for (const f of tmuFindings(instrs, effects, succs)) report(f.index, f.rule, f.message);
  return [...found.values()].sort((a, b) => a.index - b.index || a.rule.localeCompare(b.rule));
}

function encodingFindings(i: Instr): { rule: RuleName; message: string }[] {
  const out: { rule: RuleName; message: string }[] = [];
  const reserved = (message: string) => out.push({ rule: 'reserved-encoding', message });
  const fragment = (message: string) => out.push({ rule: 'fragment-only', message });
  if (i.kind === 'alu') {
    if (!ADD_OPS[i.opAdd]) reserved(`add opcode ${i.opAdd} is reserved`);
    if (i.pm && PACK_MUL_MODES[i.pack] === undefined) reserved(`mul pack mode ${i.pack} is reserved`);
    if (i.sig === 2 || i.sig === 6) fragment('thread switch signal');
    if (i.sig === 4 || i.sig === 5) fragment('scoreboard signal');
    if (TLB_LOAD_SIGNALS.has(i.sig)) fragment('tile-buffer load signal');
    const used: number[] = [];
    if (i.opAdd) used.push(i.addA, i.addB);
    if (i.opMul) used.push(i.mulA, i.mulB);
    const readsA = used.includes(MUX_A) ? READ_A[i.raddrA]! : undefined;
    const readsB = used.includes(MUX_B) && i.sig !== 13 ? READ_B[i.raddrB]! : undefined;
    for (const r of [readsA, readsB]) {
      if (r?.unit === 'unmapped') out.push({ rule: 'unmapped-read', message: `reads ${r.name}, which has no register` });
      if (r?.unit === 'fragment' || r?.unit === 'varying') fragment(`reads ${r.name}`);
    }
  }
  if (i.kind === 'ldi' && !(i.mode in LDI_MODE_NAMES)) reserved(`load-immediate mode ${i.mode} is not defined`);
  if (i.kind === 'branch' && BRANCH_CONDITIONS[i.cond] === undefined) reserved(`branch condition ${i.cond} is reserved`);
  if (i.kind !== 'branch')
    for (const [addr, ws] of [
      [i.waddrAdd, i.ws],
      [i.waddrMul, 1 - i.ws],
    ] as const)
      if (addr >= 41 && addr <= 47) fragment(`writes ${(ws ? 'rb' : 'ra') + addr}, a fragment-shader register`);
  return out;
}

/**
 * TMU requests outstanding on each path: each instruction's count when every path to it agrees,
 * unknown where paths disagree. Reports overruns and reads of an empty FIFO.
 */
function tmuFindings(instrs: readonly Instr[], effects: readonly Effects[], succs: number[][]) {
  const out: { index: number; rule: RuleName; message: string }[] = [];
  const n = instrs.length;
  const TOP = -1;
  const state: (number[] | undefined)[] = new Array(n).fill(undefined);
  if (n === 0) return out;
  state[0] = [0, 0];
  const work = [0];
  const cap = TMU_FIFO_DEPTH + 1;
  while (work.length) {
    const i = work.pop()!;
    const s = state[i]!;
    const e = effects[i]!;
    const next = s.map((c, t) => (c === TOP ? TOP : Math.min(cap, Math.max(0, c - e.tmuLoads[t]!) + e.tmuRequests[t]!)));
    for (const j of succs[i]!) {
      if (j >= n) continue;
      const old = state[j];
      const merged = old ? old.map((c, t) => (c === next[t] ? c : TOP)) : next;
      if (!old || merged.some((c, t) => c !== old[t])) {
        state[j] = merged;
        work.push(j);
      }
    }
  }
  state.forEach((s, i) => {
    if (!s) return;
    const e = effects[i]!;
    for (const t of [0, 1]) {
      if (s[t] === TOP) continue;
      if (e.tmuLoads[t]! > 0 && s[t] === 0)
        out.push({ index: i, rule: 'tmu-read-empty', message: `ldtmu${t} with no request outstanding on TMU${t}` });
      const after = Math.max(0, s[t]! - e.tmuLoads[t]!) + e.tmuRequests[t]!;
      if (e.tmuRequests[t]! > 0 && after > TMU_FIFO_DEPTH)
        out.push({
          index: i,
          rule: 'tmu-fifo-overrun',
          message: `request ${after} outstanding on TMU${t}; qpu-ts allows ${TMU_FIFO_DEPTH} (see TMU_FIFO_DEPTH)`,
        });
    }
  });
  return out;
}

export function formatFinding(f: Finding): string {
  return `${f.index}: ${f.severity} [${f.rule}] ${f.message}`;
}
