// A profile as text: the verdict and the scaling model, the statements that took the most
// cycles (with their stalls by cause, their ALU slot use and their spill code), each QPU's busy
// and stalled share; and the assembly annotated with each instruction's runs and cycles under
// the statement it belongs to, as `perf annotate` shows a program.

import { formatSeconds } from '../emulator/report.ts';
import { STALL_CAUSES, type StallCause } from '../emulator/report.ts';
import { type Figures, type KernelProfile, SLOT_USES, type StatementProfile } from './profile.ts';

export interface ProfileTextOptions {
  /** The statements shown, those of the most cycles first (default 25; 0: all). */
  readonly top?: number;
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');
const pct = (x: number, of: number) => (of ? `${((100 * x) / of).toFixed(1)}%` : '-');
const STALL_HEADS: Record<StallCause, string> = { tmu: 'tmu', dma: 'dma', vpm: 'vpm', semaphore: 'sema', mutex: 'mutex', icache: 'icache', uniforms: 'unif' };

/** The profile's summary: the run, the verdict, the costliest statements and the QPUs. */
export function profileText(p: KernelProfile, opts: ProfileTextOptions = {}): string {
  const out = [
    `profile of kernel ${p.kernel} on ${p.qpus} QPU${p.qpus === 1 ? '' : 's'}: ${n(p.total.instructions)} instructions, ${n(p.cycles)} cycles (${formatSeconds(p.seconds)} on a Pi)`,
    p.verdict.text,
    p.verdict.scalingText,
    '',
    ...statementTable(p, opts.top ?? 25),
    '',
    ...qpuTable(p),
  ];
  return out.join('\n') + '\n';
}

/** The stall causes the run had: the only stall columns shown. */
function causesOf(p: KernelProfile): StallCause[] {
  return STALL_CAUSES.filter((c) => p.total.stalls[c] > 0);
}

function statementTable(p: KernelProfile, top: number): string[] {
  const causes = causesOf(p);
  const spill = p.total.spillInstructions > 0;
  const rows = [...p.statements].sort((a, b) => b.cycles - a.cycles);
  const shown = top > 0 ? rows.slice(0, top) : rows;
  const interpreted = p.statements.some((s) => s.interpreted !== undefined);
  const head = [...(interpreted ? ['ran'] : []), 'cycles', '%', 'instrs', ...causes.map((c) => `${STALL_HEADS[c]}`), 'both', 'add', 'mul', 'none', ...(spill ? ['spill'] : []), 'code'];
  const cells = (f: Figures & { code?: number; interpreted?: number }) => [
    ...(interpreted ? [f.code === undefined ? '' : f.interpreted === undefined ? '-' : n(f.interpreted)] : []),
    n(f.cycles),
    pct(f.cycles, p.total.cycles),
    n(f.instructions),
    ...causes.map((c) => n(f.stalls[c])),
    ...SLOT_USES.map((u) => n(f.slots[u])),
    ...(spill ? [n(f.spillCycles)] : []),
    f.code === undefined ? String(p.instructions.length) : String(f.code),
  ];
  const table = [head, ...shown.map(cells), cells(p.total)];
  const labels = ['', ...shown.map(statementLabel), 'total'];
  const width = head.map((_, j) => Math.max(...table.map((r) => r[j]!.length)));
  const lines = table.map((r, i) => `${r.map((c, j) => c.padStart(width[j]!)).join('  ')}  ${labels[i]}`.trimEnd());
  const legend = [
    ...(interpreted ? ['ran: the times the statement ran on the interpreter; the rest is the compiled code\'s, on the cycle model'] : []),
    `per statement, the most cycles first: cycles and instructions summed over the QPUs;${causes.length ? ' stall cycles by cause;' : ''}`,
    `the instructions executed by which ALUs did work (both, add, mul, none);${spill ? ' cycles of spill code;' : ''} instructions of code`,
  ];
  const more = rows.length > shown.length ? [`(${rows.length - shown.length} more statements: --top 0 shows all)`] : [];
  return [...legend, ...lines, ...more];
}

/** A statement as the table names it: where, and what. */
export function statementLabel(s: StatementProfile): string {
  return s.loc ? `${s.loc}  ${s.text}` : s.text;
}

function qpuTable(p: KernelProfile): string[] {
  const causes = causesOf(p);
  const head = ['qpu', 'instrs', 'cycles', 'busy', ...causes.map((c) => STALL_HEADS[c]), 'ended'];
  const rows = p.perQpu.map((q, i) => [
    String(i),
    n(q.instructions),
    n(q.cycles),
    pct(q.busy, p.cycles),
    ...causes.map((c) => pct(q.stalls[c], p.cycles)),
    pct(p.cycles - q.cycles, p.cycles),
  ]);
  const table = [head, ...rows];
  const width = head.map((_, j) => Math.max(...table.map((r) => r[j]!.length)));
  return ['each QPU\'s share of the run: issuing, stalled by cause, ended before the last', ...table.map((r) => r.map((c, j) => c.padStart(width[j]!)).join('  '))];
}

/**
 * The assembly with each instruction's runs (all QPUs) and cycles, and a line naming the
 * statement each run of instructions belongs to.
 */
export function annotatedAssembly(p: KernelProfile): string {
  const w = Math.max(6, n(Math.max(0, ...p.instructions.map((i) => i.cycles))).length);
  const out = [`${'runs'.padStart(w)}  ${'cycles'.padStart(w)}  ${'%'.padStart(6)}  pc    instruction`];
  let last = -1;
  for (const i of p.instructions) {
    for (const l of i.labels) out.push(`${''.padStart(2 * w + 12)}${l}:`);
    if (i.statement !== last) {
      out.push(`${''.padStart(2 * w + 12)}; ${statementLabel(p.statements[i.statement]!)}`);
      last = i.statement;
    }
    const stalls = i.stalledIn !== i.statement ? `  ; stalls: ${statementLabel(p.statements[i.stalledIn]!)}` : '';
    const mark = `${i.spill ? '  ; spill' : ''}${stalls}`;
    out.push(`${n(i.instructions).padStart(w)}  ${n(i.cycles).padStart(w)}  ${pct(i.cycles, p.total.cycles).padStart(6)}  ${String(i.pc).padStart(4)}      ${i.asm}${mark}`);
  }
  return out.join('\n') + '\n';
}
