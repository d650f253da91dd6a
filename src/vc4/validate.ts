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

/** Successors of each instruction: fall-through, branch targets after 3 delay slots, none after program end. */
export function controlFlow(instrs: readonly Instr[]): { succs: number[][]; unknownTargets: boolean[] } {
  const n = instrs.length;
  const succs = instrs.map((_, i) => [i + 1]);
  const unknownTargets = new Array<boolean>(n).fill(false);
  const cutAfter = (i: number) => {
    if (i < n) succs[i] = succs[i]!.filter((s) => s !== i + 1);
  };
  instrs.forEach((ins, i) => {
    if (ins.kind === 'alu' && (ins.sig === 3 || ins.sig === 9)) cutAfter(i + 2);
    if (ins.kind !== 'branch') return;
    const last = i + 3;
    if (last >= n) return;
    const target = ins.rel && !ins.reg && ins.imm % 8 === 0 ? i + 4 + ins.imm / 8 : undefined;
    if (ins.cond === 15) cutAfter(last);
    if (target !== undefined && target >= 0 && target < n) succs[last]!.push(target);
    else if (target === undefined) unknownTargets[last] = true;
  });
  return { succs, unknownTargets };
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
