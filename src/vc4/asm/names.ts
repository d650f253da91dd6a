// Register names as the assembler reads them and the disassembler prints them, built from the
// register map (registers.ts) so that a name is defined once.
//
// Sources (operands):  r0-r5 (accumulators, via the input muxes), ra0-ra63, rb0-rb63 (by
//   number, as in the SHA-256 series), and readable names: unif, vary, elem_num, qpu_num, nop,
//   vpm, vr_busy, vw_busy, vr_wait, vw_wait, mutex, x_coord, y_coord, ms_flags, rev_flag.
// Destinations: r0-r3, r5quad, r5rep, ra0-ra63, rb0-rb63 and the readable write names
//   (tmu0_s, sfu_recip, vw_setup, host_int, unif_addr, ...), and `nop` or `-` for none.

import { ACCUMULATORS } from '../chip.ts';
import { R_NOP, READ_A, READ_B, type RegFile, REGISTER_ADDRESSES, W_NOP, WRITE_A, WRITE_B } from '../registers.ts';

/** Where a source operand comes from. `file: 'either'` lets the assembler pick a free file. */
export type SourceReg = { kind: 'acc'; acc: number } | { kind: 'reg'; file: RegFile | 'either'; addr: number };

/** Where a destination goes. `file: 'either'` when both files' address does the same thing. */
export interface DestReg {
  readonly file: RegFile | 'either';
  readonly addr: number;
}

const SOURCES = new Map<string, SourceReg>();
const DESTS = new Map<string, DestReg>();

for (let acc = 0; acc < ACCUMULATORS; acc++) SOURCES.set(`r${acc}`, { kind: 'acc', acc });
for (let addr = 0; addr < REGISTER_ADDRESSES; addr++) {
  SOURCES.set(`ra${addr}`, { kind: 'reg', file: 'a', addr });
  SOURCES.set(`rb${addr}`, { kind: 'reg', file: 'b', addr });
  DESTS.set(`ra${addr}`, { file: 'a', addr });
  DESTS.set(`rb${addr}`, { file: 'b', addr });
  for (const [file, table, map] of [
    ['a', READ_A, 'src'],
    ['b', READ_B, 'src'],
    ['a', WRITE_A, 'dst'],
    ['b', WRITE_B, 'dst'],
  ] as const) {
    const info = table[addr]!;
    if (info.unit === 'regfile' || info.unit === 'unmapped') continue;
    const f = info.both ? 'either' : file;
    if (map === 'src') SOURCES.set(info.name, { kind: 'reg', file: f, addr });
    else DESTS.set(info.name, { file: f, addr });
  }
}
DESTS.set('-', { file: 'either', addr: W_NOP });
SOURCES.set('-', { kind: 'reg', file: 'either', addr: R_NOP });

/** Names that also spell registers, for messages about writing r4 or plain r5. */
export const READ_ONLY_DEST_HINTS: ReadonlyMap<string, string> = new Map([
  ['r4', 'r4 is written only by the TMU, the SFU and the tile buffer; no instruction can write it'],
  [
    'r5',
    'say r5quad (regfile-A address 37: replicates element 0 of each quad) or r5rep (regfile-B address 37: replicates element 0 to all 16 lanes)',
  ],
]);

export function lookupSource(name: string): SourceReg | undefined {
  return SOURCES.get(name.toLowerCase());
}

export function lookupDest(name: string): DestReg | undefined {
  return DESTS.get(name.toLowerCase());
}

export function isRegisterName(name: string): boolean {
  const n = name.toLowerCase();
  return SOURCES.has(n) || DESTS.has(n) || READ_ONLY_DEST_HINTS.has(n);
}

/** The readable name of a regfile read; `numeric` prints ra/rb numbers (SHA-256 style). */
export function sourceName(file: RegFile, addr: number, numeric = false): string {
  return numeric ? `r${file}${addr}` : (file === 'a' ? READ_A : READ_B)[addr]!.name;
}

export function destName(file: RegFile, addr: number, numeric = false): string {
  return numeric ? `r${file}${addr}` : (file === 'a' ? WRITE_A : WRITE_B)[addr]!.name;
}

/** All source names, for "did you mean" suggestions. */
export function allSourceNames(): string[] {
  return [...SOURCES.keys()];
}
export function allDestNames(): string[] {
  return [...DESTS.keys()];
}

/** Names longer than this get no suggestion (and the edit distance stays cheap). */
const MAX_SUGGEST_LENGTH = 64;

/** The closest known name (edit distance at most 2), for error messages. */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  if (name.length > MAX_SUGGEST_LENGTH) return undefined;
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestD = 3;
  for (const c of candidates) {
    const d = editDistance(lower, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

/** The edit distance of a and b if it is at most `max`, else max + 1 (stopping early). */
function editDistance(a: string, b: string, max = 2): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      rowMin = Math.min(rowMin, dp[j]!);
      prev = tmp;
    }
    if (rowMin > max) return max + 1;
  }
  return Math.min(dp[b.length]!, max + 1);
}
