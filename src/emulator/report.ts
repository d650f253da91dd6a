// A run's figures: what each QPU reports (its instructions, cycles and stalls by cause, its use
// of the TMU, DMA, the SFU, uniforms and host interrupts), and the cycle model's figures as
// text: per QPU and in total, with the estimated time on a Pi.

import type { QpuProfile } from './profile.ts';
import { CYCLES_PER_INSTR, STALL_CAUSES, type StallCause } from './timing.ts';
import { PI_MODELS, type PiModelName } from './models.ts';

export { STALL_CAUSES, type StallCause };

export interface QpuStats {
  instructions: number;
  /** Instructions that do nothing: both ALUs nop, no signal, no write. */
  nops: number;
  /** Cycles from start to program end. */
  cycles: number;
  stalls: Record<StallCause, number>;
  tmuRequests: number;
  /** TMU requests whose slowest line came from the L2 cache, and from memory (the rest hit the TMU's cache). */
  tmuFromL2: number;
  tmuFromMemory: number;
  tmuLoads: number;
  dmaLoadBytes: number;
  dmaStoreBytes: number;
  sfuOps: number;
  uniforms: number;
  hostInterrupts: number;
}

export function newStats(): QpuStats {
  return {
    instructions: 0,
    nops: 0,
    cycles: 0,
    stalls: { tmu: 0, dma: 0, vpm: 0, semaphore: 0, mutex: 0, icache: 0, uniforms: 0 },
    tmuRequests: 0,
    tmuFromL2: 0,
    tmuFromMemory: 0,
    tmuLoads: 0,
    dmaLoadBytes: 0,
    dmaStoreBytes: 0,
    sfuOps: 0,
    uniforms: 0,
    hostInterrupts: 0,
  };
}


export interface RunResult {
  /** One entry per QPU. */
  readonly qpus: readonly QpuStats[];
  readonly total: QpuStats;
  /** The run's length: the cycle the last QPU finished. */
  readonly cycles: number;
  /** The estimated time on a Pi: cycles at `clockHz`, the V3D clock of `model` (models.ts; undefined: a Timing of the caller's own). */
  readonly seconds: number;
  readonly clockHz: number;
  readonly model?: PiModelName;
  /** Each QPU's figures per instruction, when the run was given a Profiler (profile.ts). */
  readonly profile?: readonly QpuProfile[];
  /** With a profile: the cycles the DMA load engine and the DMA store engine (one each, shared by the QPUs) spent transferring. */
  readonly dmaBusy?: { readonly load: number; readonly store: number };
}

/** A run's result from each QPU's figures: their sums, and the longest QPU's cycles, at `clockHz` (`model`'s clock). */
export function runResult(qpus: readonly QpuStats[], clockHz: number, model?: PiModelName): RunResult {
  const total = newStats();
  for (const s of qpus) {
    for (const k of ['instructions', 'nops', 'tmuRequests', 'tmuFromL2', 'tmuFromMemory', 'tmuLoads', 'dmaLoadBytes', 'dmaStoreBytes', 'sfuOps', 'uniforms', 'hostInterrupts'] as const)
      total[k] += s[k];
    for (const c of STALL_CAUSES) total.stalls[c] += s.stalls[c];
    total.cycles = Math.max(total.cycles, s.cycles);
  }
  return { qpus, total, cycles: total.cycles, seconds: total.cycles / clockHz, clockHz, ...(model && { model }) };
}

export function formatSeconds(s: number): string {
  if (s >= 1) return `${s.toFixed(3)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toFixed(3)} ms`;
  return `${(s * 1e6).toFixed(3)} us`;
}

/** A table of the run's figures, one row per QPU and a total, and the estimated time on the run's Pi model. */
export function formatStats(r: RunResult): string {
  const cols: [string, (s: QpuStats) => string][] = [
    ['instrs', (s) => String(s.instructions)],
    ['nops', (s) => String(s.nops)],
    ['cycles', (s) => String(s.cycles)],
    ...STALL_CAUSES.map((c): [string, (s: QpuStats) => string] => [`stall:${c}`, (s) => String(s.stalls[c])]),
    ['tmu', (s) => String(s.tmuLoads)],
    ['tmu:l2', (s) => String(s.tmuFromL2)],
    ['tmu:mem', (s) => String(s.tmuFromMemory)],
    ['dma bytes', (s) => String(s.dmaLoadBytes + s.dmaStoreBytes)],
    ['sfu', (s) => String(s.sfuOps)],
  ];
  const rows = [['qpu', ...cols.map((c) => c[0])]];
  r.qpus.forEach((s, i) => rows.push([String(i), ...cols.map((c) => c[1](s))]));
  rows.push(['total', ...cols.map((c) => c[1](r.total))]);
  const width = rows[0]!.map((_, j) => Math.max(...rows.map((row) => row[j]!.length)));
  const lines = rows.map((row) => row.map((cell, j) => (j === 0 ? cell.padEnd(width[j]!) : cell.padStart(width[j]!))).join('  '));
  const mhz = r.clockHz / 1e6;
  const model = r.model ? `the ${PI_MODELS[r.model].board}, ` : 'a Timing of your own, ';
  lines.push(`estimated time on a Pi: ${formatSeconds(r.seconds)} (${model}${r.cycles} cycles at ${mhz} MHz, ${CYCLES_PER_INSTR} cycles an instruction)`);
  return lines.join('\n') + '\n';
}
