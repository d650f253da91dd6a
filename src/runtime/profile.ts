// A kernel run's profile: the emulator's figures per instruction (emulator/profile.ts) gathered
// by the kernel's source statements, with how many ALU slots did work, the spill code's share,
// each QPU's busy and stalled cycles and timeline, and a verdict on what bounds the run
// (verdict.ts). `k(..., { profile: true })` puts one in the report; `qpu run --profile` prints
// it (profile-text.ts) and draws the timelines (timeline-svg.ts).
// Needs: the compiled code that ran and a run with a profile. Guarantees: each statement's
// figures are the sum of its instructions', and the statements' add up to the run's totals.

import type { Compiled } from '../compiler/driver.ts';
import type { QpuProfile, Timeline } from '../emulator/profile.ts';
import { newStats, type RunResult, STALL_CAUSES, type StallCause } from '../emulator/report.ts';
import { CYCLES_PER_INSTR } from '../emulator/timing.ts';
import { disassembleInstr } from '../vc4/asm/disasm.ts';
import type { Instr } from '../vc4/instr.ts';
import { ADD_NOP, MUL_NOP } from '../vc4/tables.ts';
import { childBlocks, type KernelAst, someExpr, type Stmt } from '../source/ast.ts';
import { statementNamer } from '../source/print.ts';
import { sourceLine } from '../dsl/frames.ts';
import { type Verdict, verdictOf } from './verdict.ts';

/** Which of an instruction's two ALUs do work: both, only the add ALU, only the mul ALU, neither (a nop, a load immediate, a branch, a semaphore). */
export type SlotUse = 'both' | 'add' | 'mul' | 'neither';
export const SLOT_USES: readonly SlotUse[] = ['both', 'add', 'mul', 'neither'];

/** What a part of the code (a statement, an instruction, the whole run) executed and what it cost. */
export interface Figures {
  /** Instructions executed, by all QPUs. */
  instructions: number;
  /** Cycles they took, issue and stalls, summed over the QPUs. */
  cycles: number;
  stalls: Record<StallCause, number>;
  /** The instructions executed, by which ALUs did work. */
  slots: Record<SlotUse, number>;
  /** Of the instructions executed, spill code (stores and reloads of spilled registers), and the cycles it took. */
  spillInstructions: number;
  spillCycles: number;
}

/** One source statement's figures: every instruction compiled from it (where it was written, `loc`). */
export interface StatementProfile extends Figures {
  /** "file:line:col" where the statement was written, when known. */
  readonly loc: string | undefined;
  /** The statement, as messages write it (variables by the user's names). */
  readonly text: string;
  /** The instructions of the code that belong to it (static). */
  readonly code: number;
  /** On the interpreter target: the times the statement ran there (steps, all QPUs; a loop's every test of its condition). */
  readonly interpreted?: number;
}

/** One instruction's figures. */
export interface InstructionProfile extends Figures {
  readonly pc: number;
  /** The instruction in assembly syntax (docs/asm.md), a branch aimed at its label. */
  readonly asm: string;
  /** The labels at it. */
  readonly labels: readonly string[];
  readonly use: SlotUse;
  readonly spill: boolean;
  /** The statement it belongs to (an index into KernelProfile.statements). */
  readonly statement: number;
  /**
   * The statement its stalls are charged to: its own, or when the scheduler paired it with an
   * instruction of another statement that can stall (a wait for DMA, a TMU load), that one's.
   */
  readonly stalledIn: number;
}

/** One QPU's figures: its cycles busy issuing and stalled by cause, and its timeline. */
export interface QpuFigures {
  readonly instructions: number;
  readonly cycles: number;
  readonly busy: number;
  readonly stalls: Readonly<Record<StallCause, number>>;
  readonly timeline: Timeline;
}

export interface KernelProfile {
  readonly kernel: string;
  readonly qpus: number;
  /** The run's length in cycles (the last QPU's end), and in seconds on a Pi. */
  readonly cycles: number;
  readonly seconds: number;
  /** The whole run's figures: the statements' summed. */
  readonly total: Figures;
  /** The statements, in the order of the code's first instruction of each. */
  readonly statements: readonly StatementProfile[];
  readonly instructions: readonly InstructionProfile[];
  readonly perQpu: readonly QpuFigures[];
  /** The cycles the DMA load engine and the DMA store engine, which the QPUs share, spent transferring. */
  readonly dmaBusy: { readonly load: number; readonly store: number };
  readonly verdict: Verdict;
}

/** Where no statement is: the kernel's start (reading its uniforms) and end. */
const NO_STATEMENT = '(the kernel\'s start and end)';

/** The profile of a run of `c` (compiled from `ast`) that had a profiler. */
export function kernelProfile(ast: KernelAst, c: Compiled, run: RunResult, interpreted?: ReadonlyMap<string, number>): KernelProfile {
  if (!run.profile) throw new Error(`internal: kernel ${c.kernel}: the run had no profiler`);
  const name = statementNamer(ast);
  const statements: StatementProfile[] = [];
  const byKey = new Map<string, number>();
  const statementOf = (s: Stmt | undefined): number => {
    const user = s ? (s.shows ?? s) : undefined;
    const text = user ? name(user) : NO_STATEMENT;
    const key = user?.loc ?? text;
    let i = byKey.get(key);
    if (i === undefined) {
      byKey.set(key, (i = statements.length));
      const ran = interpreted && user?.loc !== undefined ? { interpreted: interpreted.get(user.loc) ?? 0 } : {};
      statements.push({ loc: user?.loc, text, code: 0, ...ran, ...noFigures() });
    }
    return i;
  };
  const { text, labels } = asmLines(c);
  const total = noFigures();
  const instructions = c.instrs.map((instr, pc): InstructionProfile => {
    const figures = instructionFigures(run.profile!, pc, slotUse(instr), c.spill[pc]!);
    const statement = statementOf(c.statements[pc]);
    const stalledIn = statementOf(c.stallsIn[pc]);
    (statements[statement] as { code: number }).code++;
    const [own, stalls] = stalledIn === statement ? [figures, undefined] : splitStalls(figures);
    addFigures(statements[statement]!, own);
    if (stalls) addFigures(statements[stalledIn]!, stalls);
    addFigures(total, figures);
    return { pc, asm: text[pc]!, labels: labels.get(pc) ?? [], use: slotUse(instr), spill: c.spill[pc]!, statement, stalledIn, ...figures };
  });
  // A place where the kernel has several statements (a TypeScript helper or loop, parallelFor) is named by its line of source.
  const many = statementsAtPlaces(ast);
  for (const st of statements) {
    const n = st.loc === undefined ? 0 : (many.get(st.loc) ?? 0);
    if (n > 1) (st as { text: string }).text = sourceLine(st.loc)?.trim() ?? `${st.text} (and ${n - 1} more statements)`;
  }
  const perQpu = run.qpus.map((s, q): QpuFigures => ({
    instructions: s.instructions,
    cycles: s.cycles,
    busy: s.instructions * CYCLES_PER_INSTR,
    stalls: { ...s.stalls },
    timeline: run.profile![q]!.timeline,
  }));
  const divides = [ast.body, ...(ast.funcs ?? []).map((f) => f.body)].some((b) => someExpr(b, (e) => e.k === 'special' && e.what !== 'index'));
  const partial = { kernel: c.kernel, qpus: run.qpus.length, cycles: run.cycles, seconds: run.seconds, total, statements, instructions, perQpu, dmaBusy: run.dmaBusy!, divides };
  return { ...partial, verdict: verdictOf(partial) };
}

/** How many of the kernel's statements each place holds. */
function statementsAtPlaces(ast: KernelAst): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (ss: readonly Stmt[]) =>
    ss.forEach((s) => {
      if (s.loc) out.set(s.loc, (out.get(s.loc) ?? 0) + 1);
      childBlocks(s).forEach(walk);
    });
  walk(ast.body);
  for (const f of ast.funcs ?? []) walk(f.body);
  return out;
}

/** The compiled code's instructions as its assembly text writes them, and the labels before each. */
function asmLines(c: Compiled): { text: string[]; labels: Map<number, string[]> } {
  const text: string[] = [];
  const labels = new Map<number, string[]>();
  for (const line of c.asm.split('\n')) {
    if (line.startsWith(' ')) text.push(line.trim());
    else if (line.endsWith(':')) (labels.get(text.length) ?? labels.set(text.length, []).get(text.length)!).push(line.slice(0, -1));
  }
  // The assembly text is the code's: one line an instruction.
  if (text.length !== c.instrs.length) return { text: c.instrs.map((i) => disassembleInstr(i)), labels: new Map() };
  return { text, labels };
}

/** Which ALUs an instruction works with. */
export function slotUse(i: Instr): SlotUse {
  if (i.kind !== 'alu') return 'neither';
  const add = i.opAdd !== ADD_NOP;
  const mul = i.opMul !== MUL_NOP;
  return add && mul ? 'both' : add ? 'add' : mul ? 'mul' : 'neither';
}

function noFigures(): Figures {
  return { instructions: 0, cycles: 0, stalls: { ...newStats().stalls }, slots: { both: 0, add: 0, mul: 0, neither: 0 }, spillInstructions: 0, spillCycles: 0 };
}

/** Instruction pc's figures, summed over the QPUs. */
function instructionFigures(qpus: readonly QpuProfile[], pc: number, use: SlotUse, spill: boolean): Figures {
  const f = noFigures();
  for (const q of qpus) {
    f.instructions += q.runs[pc]!;
    f.cycles += q.cycles[pc]!;
    for (const c of STALL_CAUSES) f.stalls[c] += q.stalls[c][pc]!;
  }
  f.slots[use] = f.instructions;
  if (spill) {
    f.spillInstructions = f.instructions;
    f.spillCycles = f.cycles;
  }
  return f;
}

/** An instruction's figures as its issue (the instruction, its ALU use, the issue cycles) and its stalls (their cycles). */
function splitStalls(f: Figures): [Figures, Figures] {
  const stalled = STALL_CAUSES.reduce((s, c) => s + f.stalls[c], 0);
  const own: Figures = { ...f, cycles: f.cycles - stalled, stalls: { ...noFigures().stalls }, spillCycles: f.spillInstructions ? f.cycles - stalled : 0 };
  const stalls: Figures = { ...noFigures(), cycles: stalled, stalls: { ...f.stalls }, spillCycles: f.spillInstructions ? stalled : 0 };
  return [own, stalls];
}

function addFigures(into: Figures, f: Figures): void {
  into.instructions += f.instructions;
  into.cycles += f.cycles;
  for (const c of STALL_CAUSES) into.stalls[c] += f.stalls[c];
  for (const u of SLOT_USES) into.slots[u] += f.slots[u];
  into.spillInstructions += f.spillInstructions;
  into.spillCycles += f.spillCycles;
}
