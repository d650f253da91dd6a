// The cycle model's figures as text: per QPU and in total, with the estimated time on a Pi.

import type { RunResult } from './machine.ts';
import { type QpuStats, STALL_CAUSES } from './qpu.ts';
import { CYCLES_PER_INSTR, type Timing } from './timing.ts';

export function formatSeconds(s: number): string {
  if (s >= 1) return `${s.toFixed(3)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toFixed(3)} ms`;
  return `${(s * 1e6).toFixed(3)} us`;
}

/** A table of the run's figures, one row per QPU and a total. */
export function formatStats(r: RunResult, timing: Timing): string {
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
  const mhz = timing.clockHz / 1e6;
  lines.push(
    `estimated time on a Pi: ${formatSeconds(r.seconds)} (${r.cycles} cycles at ${mhz} MHz, ${CYCLES_PER_INSTR} cycles an instruction)`,
  );
  return lines.join('\n') + '\n';
}
