// The static validator: every violation of the hardware's instruction rules in a program.
// Needs: decoded instructions, or the program's words (decoded as they are read). Guarantees:
// each finding names the instruction index, the rule (rules.ts) and what is wrong. Rules between
// instructions are checked along every control-flow path, through branch delay slots and into
// branch targets whose address is known statically. Time and memory grow linearly with the
// program's length (a few bytes an instruction besides the findings); a program with no
// instructions or more than MAX_PROGRAM_INSTRUCTIONS is refused with a ProgramSizeError.

import { ADD_OPS, BRANCH_ALWAYS, BRANCH_CONDITIONS, LDI_MODE_NAMES, MUX_A, MUX_B, PACK_MUL_MODES, PROGRAM_END_SIGNALS, SIGNAL_INFO } from './tables.ts';
import { checkProgramSize } from './codec.ts';
import { type Effects, effectsOf } from './effects.ts';
import { BRANCH_PC_OFFSET, BRANCH_SETS_FLAGS, INSTRUCTION_BYTES } from './fields.ts';
import { branchTarget, type Code, codeOf, controlFlow, END_DELAY_SLOTS, type Flow, isWholeInstructions, type Program } from './flow.ts';
import type { Instr } from './instr.ts';
import { addWriteFile, mulWriteFile, writeInfo } from './registers.ts';
import { instrViolations, RULES, type RuleName, sequenceViolations, type Severity, TMU_FIFO_DEPTH, type Violation } from './rules.ts';

export interface Finding {
  /** Instruction index (the byte offset is INSTRUCTION_BYTES times this). */
  readonly index: number;
  readonly rule: RuleName;
  readonly severity: Severity;
  readonly message: string;
}

export { controlFlow, type Flow, type Program } from './flow.ts';

/**
 * Every rule the program breaks: on each instruction alone (dead code included), and along every
 * path of up to two instructions executed before it. Throws a ProgramSizeError (codec.ts) for a
 * program with no instructions or more than MAX_PROGRAM_INSTRUCTIONS.
 */
export function validate(program: Program): Finding[] {
  const code = codeOf(program);
  const n = code.n;
  checkProgramSize(n);
  const flow = controlFlow(code);
  const facts = factsOf(code);
  const out: Finding[] = [];
  let tmu: Uint8Array | undefined; // per instruction: TMU0 and TMU1 requests, TMU0 and TMU1 loads
  const window: Window = { i: 0, f1: undefined, f2: undefined, facts };
  for (let i = 0; i < n; i++) {
    const f = facts(i);
    const e = f.effects;
    window.i = i;
    const found = new Findings(out, i);
    for (const x of f.alone) found.add(x);
    for (const x of pathFindings(flow, i, e, window)) found.add(x);
    for (const x of placeFindings(f.instr, i, n)) found.add(x);
    if (e.tmuRequests[0] + e.tmuRequests[1] + e.tmuLoads[0] + e.tmuLoads[1] > 0) {
      tmu ??= new Uint8Array(4 * n);
      tmu.set([...e.tmuRequests, ...e.tmuLoads], 4 * i);
    }
    [window.f2, window.f1] = [window.f1, f];
  }
  if (flow.fall[n - 1]) new Findings(out, n - 1).add({ rule: 'falls-off-end', message: 'execution continues past the last instruction (no program end before it)' });
  if (tmu) for (const f of tmuFindings(flow, tmu)) new Findings(out, f.index).add(f);
  for (const f of unsetFlagFindings(flow, code)) new Findings(out, f.index).add(f);
  return out.sort((a, b) => a.index - b.index || a.rule.localeCompare(b.rule));
}

/** What the validator asks of one instruction: itself, its effects, the rules it breaks alone. */
interface Facts {
  readonly instr: Instr;
  readonly effects: Effects;
  readonly alone: readonly Violation[];
}

/**
 * Each instruction's facts. Given words, the facts of recent words are kept (one slot per word
 * hash): programs repeat words (nops, moves), and each word's facts are found once.
 */
function factsOf(code: Code): (i: number) => Facts {
  const make = (i: number): Facts => {
    const instr = code.at(i);
    const effects = effectsOf(instr);
    return { instr, effects, alone: [...instrViolations(effects), ...encodingFindings(instr, effects)] };
  };
  const words = code.words;
  if (!words) return make;
  const SLOTS = 256; // few enough that facts die young when words do not repeat
  const his = new Uint32Array(SLOTS);
  const los = new Uint32Array(SLOTS);
  const slots: (Facts | undefined)[] = new Array<Facts | undefined>(SLOTS).fill(undefined);
  return (i) => {
    const lo = words[2 * i]!;
    const hi = words[2 * i + 1]!;
    const k = Math.imul(hi ^ Math.imul(lo, 0x9e3779b1), 0x85ebca6b) >>> 24;
    const f = slots[k];
    if (f !== undefined && his[k] === hi && los[k] === lo) return f;
    his[k] = hi;
    los[k] = lo;
    return (slots[k] = make(i));
  };
}

/** The instruction being checked and the two before it in the program, whose effects paths read most. */
interface Window {
  i: number;
  f1: Facts | undefined;
  f2: Facts | undefined;
  readonly facts: (i: number) => Facts;
}

function effectsNear(w: Window, p: number): Effects {
  return (p === w.i - 1 ? w.f1! : p === w.i - 2 ? w.f2! : w.facts(p)).effects;
}

/** Adds findings about one instruction to `out`, each once. */
class Findings {
  private readonly from: number;
  constructor(
    private readonly out: Finding[],
    private readonly index: number,
  ) {
    this.from = out.length;
  }
  add({ rule, message }: Violation): void {
    for (let k = this.from; k < this.out.length; k++) if (this.out[k]!.rule === rule && this.out[k]!.message === message) return;
    this.out.push({ index: this.index, rule, severity: RULES[rule].severity, message });
  }
}

/**
 * Rules between instruction i and the two executed before it, on every path of up to two
 * predecessors (the program start counts as a path for instruction 0, and for dead code).
 */
function pathFindings(flow: Flow, i: number, e: Effects, w: Window): Violation[] {
  const out: Violation[] = [];
  const p0s: (number | undefined)[] = flow.preds(i);
  if (p0s.length === 0 || i === 0) p0s.push(undefined);
  for (const p0 of p0s) {
    const before = p0 === undefined ? undefined : effectsNear(w, p0);
    const p1s: (number | undefined)[] = p0 === undefined ? [] : flow.preds(p0);
    if (p1s.length === 0) p1s.push(undefined);
    for (const p1 of p1s) out.push(...sequenceViolations(e, [before, p1 === undefined ? undefined : effectsNear(w, p1)]));
  }
  return out;
}

/** Rules about where an instruction is: program ends near the end, branch targets, flags. */
function placeFindings(ins: Instr, i: number, n: number): Violation[] {
  const out: Violation[] = [];
  if (ins.kind === 'alu' && PROGRAM_END_SIGNALS.has(ins.sig) && i + END_DELAY_SLOTS >= n)
    out.push({ rule: 'end-missing-delay-slots', message: `program end at ${i} needs two more instructions after it; the program has ${n - i - 1}` });
  if (ins.kind === 'branch' && ins.rel && !ins.reg) {
    const t = branchTarget(i, ins.imm);
    if (!isWholeInstructions(ins.imm))
      out.push({
        rule: 'branch-target-outside',
        message: `branch offset of ${ins.imm} bytes is not a whole number of instructions (${INSTRUCTION_BYTES} bytes each)`,
      });
    else if (t < 0 || t >= n)
      out.push({
        rule: 'branch-target-outside',
        message: `branch offset of ${ins.imm} bytes (${ins.imm / INSTRUCTION_BYTES} instructions from PC + ${BRANCH_PC_OFFSET}) lands at instruction ${t}, outside the program's instructions 0-${n - 1}`,
      });
  }
  if (ins.kind === 'branch' && ins.reg && (ins.raddrA & BRANCH_SETS_FLAGS) !== 0)
    out.push({ rule: 'branch-sets-flags', message: `raddr_a = ra${ins.raddrA} is odd, so this branch also sets the flags` });
  return out;
}

const reserved = (message: string): Violation => ({ rule: 'reserved-encoding', message });
const fragment = (message: string): Violation => ({ rule: 'fragment-only', message });

function encodingFindings(i: Instr, e: Effects): Violation[] {
  const out: Violation[] = [];
  if (i.kind === 'alu') {
    if (!ADD_OPS[i.opAdd]) out.push(reserved(`add opcode ${i.opAdd} is reserved`));
    if (i.pm && PACK_MUL_MODES[i.pack] === undefined) out.push(reserved(`mul pack mode ${i.pack} is reserved`));
    const only = SIGNAL_INFO[i.sig]!.fragmentOnly;
    if (only) out.push(fragment(`${only} signal`));
    // The reads an ALU uses: regfile A's through mux A, regfile B's through mux B.
    for (const r of e.readRegs) {
      if (!e.muxes.includes(r.file === 'a' ? MUX_A : MUX_B)) continue;
      if (r.info.unit === 'unmapped') out.push({ rule: 'unmapped-read', message: `reads ${r.info.name}, which has no register` });
      if (r.info.unit === 'fragment' || r.info.unit === 'varying') out.push(fragment(`reads ${r.info.name}`));
    }
  }
  if (i.kind === 'ldi' && !(i.mode in LDI_MODE_NAMES)) out.push(reserved(`load-immediate mode ${i.mode} is not defined`));
  if (i.kind === 'branch' && BRANCH_CONDITIONS[i.cond] === undefined) out.push(reserved(`branch condition ${i.cond} is reserved`));
  if (i.kind !== 'branch')
    for (const [addr, file] of [
      [i.waddrAdd, addWriteFile(i.ws)],
      [i.waddrMul, mulWriteFile(i.ws)],
    ] as const) {
      const unit = writeInfo(file, addr).unit;
      if (unit === 'fragment' || unit === 'tlb') out.push(fragment(`writes r${file}${addr}, a fragment-shader register`));
    }
  return out;
}

/**
 * TMU requests outstanding on each path: each instruction's count when every path to it agrees,
 * unknown where paths disagree. Reports overruns and reads of an empty FIFO. `tmu` holds each
 * instruction's requests on TMU0 and TMU1, then its loads from them.
 */
function tmuFindings(flow: Flow, tmu: Uint8Array): { index: number; rule: RuleName; message: string }[] {
  const out: { index: number; rule: RuleName; message: string }[] = [];
  const n = flow.n;
  const UNSET = -2;
  const TOP = -1;
  const cap = TMU_FIFO_DEPTH + 1;
  const state = new Int8Array(2 * n).fill(UNSET); // per instruction and TMU: outstanding before it
  const after = (i: number, t: number) => Math.max(0, state[2 * i + t]! - tmu[4 * i + 2 + t]!) + tmu[4 * i + t]!;
  state[0] = state[1] = 0;
  const work = [0];
  while (work.length) {
    const i = work.pop()!;
    const next = [0, 1].map((t) => (state[2 * i + t] === TOP ? TOP : Math.min(cap, after(i, t))));
    for (const j of flow.succs(i)) {
      if (j >= n) continue;
      const old = [state[2 * j]!, state[2 * j + 1]!];
      const merged = old[0] === UNSET ? next : old.map((c, t) => (c === next[t] ? c : TOP));
      if (merged[0] !== old[0] || merged[1] !== old[1]) {
        state.set(merged, 2 * j);
        work.push(j);
      }
    }
  }
  for (let i = 0; i < n; i++)
    for (const t of [0, 1]) {
      const s = state[2 * i + t]!;
      if (s === UNSET || s === TOP) continue;
      if (tmu[4 * i + 2 + t]! > 0 && s === 0) out.push({ index: i, rule: 'tmu-read-empty', message: `ldtmu${t} with no request outstanding on TMU${t}` });
      if (tmu[4 * i + t]! > 0 && after(i, t) > TMU_FIFO_DEPTH)
        out.push({
          index: i,
          rule: 'tmu-fifo-overrun',
          message: `request ${after(i, t)} outstanding on TMU${t}; qpu-ts allows ${TMU_FIFO_DEPTH} (see TMU_FIFO_DEPTH)`,
        });
    }
  return out;
}

/** Whether an instruction sets the flags: `.setf`, or a branch with an odd raddr_a (addendum). */
function setsFlags(i: Instr): boolean {
  return i.kind === 'branch' ? (i.raddrA & BRANCH_SETS_FLAGS) !== 0 : i.sf === 1;
}

/**
 * Conditional branches on flags that no instruction on any path from the start sets (a loop
 * counter decremented without `.setf`, say): such a branch tests whatever the flags held when
 * the program started. Skipped when the program jumps through a register, where the paths are
 * not all known.
 */
function unsetFlagFindings(flow: Flow, code: Code): { index: number; rule: RuleName; message: string }[] {
  const n = flow.n;
  if (flow.unknownTargets.some((x) => x === 1)) return [];
  // Bit 1: reached with the flags never set; bit 2: reached after some instruction set them.
  const state = new Uint8Array(n);
  state[0] = 1;
  const work = [0];
  while (work.length) {
    const i = work.pop()!;
    const next = setsFlags(code.at(i)) ? 2 : state[i]!;
    for (const j of flow.succs(i)) {
      if (j >= n || (state[j]! | next) === state[j]) continue;
      state[j]! |= next;
      work.push(j);
    }
  }
  const out: { index: number; rule: RuleName; message: string }[] = [];
  for (let i = 0; i < n; i++) {
    const b = code.at(i);
    if (b.kind === 'branch' && b.cond !== BRANCH_ALWAYS && state[i] === 1)
      out.push({
        index: i,
        rule: 'branch-on-unset-flags',
        message: `branches on the flags (.${BRANCH_CONDITIONS[b.cond] ?? b.cond}), but no instruction on any path to it sets them (.setf)`,
      });
  }
  return out;
}

export function formatFinding(f: Finding): string {
  return `${f.index}: ${f.severity} [${f.rule}] ${f.message}`;
}
