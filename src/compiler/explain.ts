// What the compiler did with a kernel and why, for `qpu compile --explain` and
// `k.code().explain()`: the registers it needed (the most values live at once, and where), the
// values it spilled and where they went, each loop's load pipelining or why there was none, how
// many instructions the scheduler paired and how many branch delay slots it filled, and
// warnings about what costs most on a Pi: spills to memory on several QPUs, whose reloads all
// queue at the one DMA engine.
// Needs: the compiler's record of a compile (driver.ts). Guarantees: text only; changes nothing.

import { childBlocks, type KernelAst, someExpr, type Stmt } from '../source/ast.ts';
import { statementNamer } from '../source/print.ts';
import { BRANCH_DELAY_SLOTS } from '../vc4/flow.ts';
import { REGFILE_LOCATIONS } from '../vc4/registers.ts';
import type { Instr } from '../vc4/instr.ts';
import { ADD_NOP, MUL_NOP, SIG_NONE } from '../vc4/tables.ts';
import type { LoopDecision } from './pipeline-loads.ts';

export interface Explanation {
  readonly kernel: string;
  readonly qpus: number;
  readonly instructions: number;
  /** Instructions that do nothing (latencies and empty delay slots). */
  readonly nops: number;
  /** Physical registers the code uses, and the most values live at once before spilling, at which statement. */
  readonly registers: { readonly used: number; readonly pressure: number; readonly at?: Stmt };
  /** The values spilled: the variable (or the compiler's value), to a VPM row or to scratch memory. */
  readonly spills: readonly { readonly name: string; readonly to: 'vpm' | 'memory' | 'constant'; /** No variable: a value the compiler made (a temporary, an address). */ readonly made?: true }[];
  /** Each loop, pipelined or why not; undefined when the pass is off. */
  readonly loops?: readonly LoopDecision[];
  /** Instructions before and after the scheduler paired them (pairs saved), when pairing is on. */
  readonly pairing?: { readonly before: number; readonly pairs: number };
  /** Branches, their delay slots, and the slots that hold work. */
  readonly delaySlots: { readonly branches: number; readonly slots: number; readonly filled: number };
}

/** A nop: both ALUs nop, no signal. */
export const isNop = (i: Instr) => i.kind === 'alu' && i.opAdd === ADD_NOP && i.opMul === MUL_NOP && i.sig === SIG_NONE;

/** The branches of the code and how many of their delay slots hold work. */
export function delaySlotsOf(instrs: readonly Instr[]): Explanation['delaySlots'] {
  let branches = 0;
  let filled = 0;
  instrs.forEach((i, pc) => {
    if (i.kind !== 'branch') return;
    branches++;
    for (let d = 1; d <= BRANCH_DELAY_SLOTS; d++) if (instrs[pc + d] && !isNop(instrs[pc + d]!)) filled++;
  });
  return { branches, slots: branches * BRANCH_DELAY_SLOTS, filled };
}

/** The explanation as text, statements and variables as the user wrote them. */
export function explainText(x: Explanation, ast: KernelAst): string {
  const text = statementNamer(ast);
  const where = (s: Stmt | undefined) => (s ? `${s.loc ? `${s.loc}  ` : ''}${text(s.shows ?? s)}` : 'the kernel\'s start or end');
  const out = [`kernel ${x.kernel}, compiled for ${x.qpus} QPU${x.qpus === 1 ? '' : 's'}: ${x.instructions} instructions, ${x.nops} of them nops`];
  out.push('', 'registers:', `  ${x.registers.used} of the ${2 * REGFILE_LOCATIONS} in regfiles A and B, besides the accumulators`);
  out.push(`  at most ${x.registers.pressure} values live at once, at ${where(x.registers.at)}`);
  if (!x.spills.length) out.push('  nothing spilled');
  else {
    const vpm = x.spills.filter((s) => s.to === 'vpm');
    const memory = x.spills.filter((s) => s.to === 'memory');
    out.push(`  ${x.spills.length} value${x.spills.length === 1 ? '' : 's'} spilled: each read reloads it (a constant: loads it again), each write stores it`);
    if (vpm.length) out.push(`    to this QPU's VPM rows (no DMA): ${names(vpm)}`);
    if (memory.length) out.push(`    to scratch memory, through DMA: ${names(memory)}`);
    const constants = x.spills.filter((s) => s.to === 'constant');
    if (constants.length) out.push(`    constants loaded again where read (ldi), stored nowhere: ${names(constants)}`);
  }
  out.push('', 'loops (load pipelining, -O2):');
  if (!x.loops) out.push('  the pass is off');
  else if (!x.loops.length) out.push('  the kernel has no loop');
  for (const l of x.loops ?? []) {
    out.push(`  ${where(l.loop)}`);
    const last = (p: { copied: boolean }) => (p.copied ? '' : '; each iteration tests whether to gather (a few iterations of a long body: no copy of it for the last ones)');
    out.push(l.pipelined ? `    pipelined: ${l.pipelined.loads} load${l.pipelined.loads === 1 ? '' : 's'} gathered ${l.pipelined.ahead} iteration${l.pipelined.ahead === 1 ? '' : 's'} ahead${last(l.pipelined)}` : `    not pipelined: ${l.why}`);
  }
  const { branches, slots, filled } = x.delaySlots;
  out.push('', 'scheduling:');
  out.push(
    x.pairing
      ? `  ${x.pairing.pairs} pairs: the scheduler put ${x.pairing.before} instructions in ${x.pairing.before - x.pairing.pairs} (${pct(x.pairing.pairs, x.pairing.before)} fewer; before the nops the hardware's spacing rules add)`
      : '  pairing is off',
  );
  out.push(`  ${branches} branch${branches === 1 ? '' : 'es'}: ${filled} of ${slots} delay slots do work (${pct(filled, slots)})`);
  const warnings = warningsOf(x);
  if (warnings.length) out.push('', 'warnings:', ...warnings.map((w) => `  ${w}`));
  return out.join('\n') + '\n';
}

/** Spilled values by name, the compiler's own counted at the end. */
function names(spills: Explanation['spills']): string {
  const made = spills.filter((s) => s.made).length;
  const named = spills.filter((s) => !s.made).map((s) => s.name);
  return [...named, ...(made ? [`${made} value${made === 1 ? '' : 's'} the compiler made`] : [])].join(', ');
}

/** What costs much on a Pi and the compiler could not avoid. */
export function warningsOf(x: Explanation): string[] {
  const out: string[] = [];
  const memory = x.spills.filter((s) => s.to === 'memory').length;
  if (memory && x.qpus > 1)
    out.push(
      `${memory} value${memory === 1 ? '' : 's'} spilled to memory on ${x.qpus} QPUs: every reload and store waits for the DMA engines, which all QPUs share, so more QPUs wait longer; keep fewer values live (split the kernel, reuse variables) or run fewer QPUs`,
    );
  else if (memory) out.push(`${memory} value${memory === 1 ? '' : 's'} spilled to memory: each reload and store is a DMA transfer and a wait`);
  // A loop that loads and waits for each load (held-out kernels lost their pipelining unseen).
  const waits = (x.loops ?? []).filter((l) => !l.pipelined && someExpr(childBlocks(l.loop).flat(), (e) => e.k === 'load'));
  for (const l of waits) out.push(`the loop at ${l.loop.loc ?? 'the kernel'} waits for each of its loads: not pipelined, ${l.why}`);
  return out;
}

const pct = (a: number, b: number) => (b ? `${Math.round((100 * a) / b)}%` : '-');
