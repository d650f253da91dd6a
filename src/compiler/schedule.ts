// Instruction scheduling (issue 11's back end, from -O1): reorders the machine instructions of
// each straight-line run so that a value is not read right after it is written to a regfile,
// nor r4 right after an SFU write, when other work can go between; the nops the hardware rules
// would need there (space.ts) are then not needed. At -O2 it also pairs an add-ALU and a
// mul-ALU operation in one word (pair.ts), and moves the last instructions before a branch
// into its delay slots in place of nops.
// Needs: allocated machine instructions, one per line (emit.ts). Guarantees: the same
// computation: each run a permutation (paired words doing both of their instructions) that
// keeps every dependency (a register, an accumulator, r4 or the flags written and read, or
// written twice) and the order of the I/O to each unit (the TMU, the SFU, the VPM with its DMA,
// the uniforms; semaphores, the mutex, signals and the rest with everything); nothing moves
// across a label or the program end; only what a branch does not depend on goes into its delay
// slots, and only where no spacing rule would need a nop there.

import { ACCUMULATORS, REGFILE_LATENCY, SFU_LATENCY } from '../vc4/chip.ts';
import { effectsOf, mayStall } from '../vc4/effects.ts';
import { BRANCH_DELAY_SLOTS, END_DELAY_SLOTS } from '../vc4/flow.ts';
import { instrViolations, sequenceViolations } from '../vc4/rules.ts';
import { type Instr, nopInstr } from '../vc4/instr.ts';
import { aimBranches, type AsmLine, type InstrLine } from './emit.ts';
import { pairInstrs } from './pair.ts';
import {
  ADD_NOP,
  BRANCH_ALWAYS,
  COND_ALWAYS,
  COND_NEVER,
  MUL_NOP,
  MUX_A,
  MUX_R4,
  MUX_R5,
  PROGRAM_END_SIGNALS,
  SIG_NONE,
  SIG_SMALL_IMM,
  SIGNAL_INFO,
} from '../vc4/tables.ts';
import { REGFILE_LOCATIONS, type RegInfo, W_NOP } from '../vc4/registers.ts';

/** The nop for a gap (one value: instructions are never changed once built). */
const GAP = nopInstr();

/** What one instruction reads and writes, as resource numbers, and the I/O it does (IO_* bits). */
export interface Footprint {
  readonly reads: number[];
  readonly writes: number[];
  readonly io: number;
  /** A write of r4 that lands late (SFU): its readers wait SFU_LATENCY. */
  readonly sfu: boolean;
  /** A rotation: it reads its accumulators (and r5) no sooner than the second instruction after their write (Guide p. 37). */
  readonly rotates: boolean;
}

// Resources, the things an instruction reads and writes, numbered: regfile A's locations 0-31,
// B's 32-63, the accumulators r0-r5 64-69, the flags 70.
const RES_A = 0;
const RES_B = RES_A + REGFILE_LOCATIONS;
export const RES_ACC = RES_B + REGFILE_LOCATIONS;
export const RES_FLAGS = RES_ACC + ACCUMULATORS;
const RESOURCES = RES_FLAGS + 1;

// I/O by the unit it reaches: two instructions keep their order when they reach one unit.
// A TMU request also stays in order with the VPM and its DMA (both reach memory); a TMU load
// (ldtmu) only takes the next result of this QPU's requests. Anything else (semaphores, the
// mutex, the host interrupt, branches, the end, other signals) is ordered with everything.
const IO_TMU = 1;
const IO_SFU = 2;
const IO_VPM = 4;
const IO_UNIF = 8;
const IO_ALL = 15;

/** The I/O units a write reaches, by its register's row (0 for registers, accumulators and nop). */
function writeIo(r: RegInfo): number {
  switch (r.unit) {
    case 'regfile':
    case 'acc':
    case 'r5':
    case 'nop':
      return 0;
    case 'tmu': // a TMU request reaches memory; its t, r and b writes also take a uniform (effects.ts)
      return IO_TMU | IO_VPM | (r.readsUniform ? IO_UNIF : 0);
    case 'tmu_noswap':
      return IO_TMU | IO_VPM;
    case 'sfu':
      return IO_SFU;
    case 'vpm':
    case 'vpm_setup':
      return IO_VPM;
    case 'dma_addr': // a DMA transfer reaches memory, which a stream's uniform reads read: they keep their order
      return IO_VPM | IO_UNIF;
    case 'unif_addr':
      return IO_UNIF;
    default:
      return IO_ALL;
  }
}

/** The I/O units a read reaches, by its register's row (0 for registers, the element and QPU numbers and nop). */
function readIo(r: RegInfo): number {
  switch (r.unit) {
    case 'regfile':
    case 'nop':
    case 'elem_num':
    case 'qpu_num':
      return 0;
    case 'uniform':
      return IO_UNIF;
    case 'vpm':
    case 'dma_busy':
    case 'dma_wait':
      return IO_VPM;
    default:
      return IO_ALL;
  }
}

/** Footprints of the instructions met so far (instructions are values, never changed once built). */
const footprints = new WeakMap<Instr, Footprint>();

export function footprint(i: Instr): Footprint {
  let f = footprints.get(i);
  if (!f) footprints.set(i, (f = computeFootprint(i)));
  return f;
}

function computeFootprint(i: Instr): Footprint {
  const e = effectsOf(i);
  const reads = [...e.readsA.map((n) => RES_A + n), ...e.readsB.map((n) => RES_B + n)];
  const writes = [...e.writesA.map((n) => RES_A + n), ...e.writesB.map((n) => RES_B + n), ...e.accWrites.map((n) => RES_ACC + n)];
  if (e.writesR4) writes.push(RES_ACC + MUX_R4);
  let io = e.programEnd || e.isBranch || e.kind === 'sema' ? IO_ALL : 0;
  for (const w of e.waddrs) io |= writeIo(w.info);
  for (const r of e.readRegs) io |= readIo(r.info);
  const conditional = (cond: number) => cond !== COND_ALWAYS && cond !== COND_NEVER;
  if (i.kind === 'alu') {
    if (SIGNAL_INFO[i.sig]!.tmuLoad !== undefined) io |= IO_TMU;
    else if (i.sig !== SIG_NONE && i.sig !== SIG_SMALL_IMM) io = IO_ALL;
    // Accumulators read through the muxes (mux n reads rn; r4's reads are readsR4).
    for (const m of e.muxes) if (m < MUX_A && m !== MUX_R4) reads.push(RES_ACC + m);
    if (e.readsR4) reads.push(RES_ACC + MUX_R4);
    if (e.rotation === 'r5') reads.push(RES_ACC + MUX_R5);
    if (i.sf) writes.push(RES_FLAGS);
    // A conditional write reads the flags, when the ALU does something or writes somewhere.
    const addWrites = i.opAdd !== ADD_NOP || i.waddrAdd !== W_NOP;
    const mulWrites = i.opMul !== MUL_NOP || i.waddrMul !== W_NOP;
    if ((conditional(i.condAdd) && addWrites) || (conditional(i.condMul) && mulWrites)) reads.push(RES_FLAGS);
  } else if (i.kind === 'ldi' || i.kind === 'sema') {
    if (i.sf) writes.push(RES_FLAGS);
    if (conditional(i.condAdd) || conditional(i.condMul)) reads.push(RES_FLAGS);
  }
  return { reads, writes, io, sfu: e.sfuWrites > 0, rotates: i.kind === 'alu' && e.rotation !== 0 };
}

/** Where runs end: labels before instruction i (labelBefore[i]) and instructions that stay put. */
export interface ScheduleInput {
  readonly instrs: readonly Instr[];
  /** True where a label stands right before instruction i. */
  readonly labelBefore: readonly boolean[];
}

/** One instruction of the new order: an old one, or two old ones paired into one word. */
export interface Slot {
  readonly from: readonly number[];
  readonly instr: Instr;
  /** The first instruction of the run it was scheduled in. */
  readonly run: number;
  /** A nop for a latency nothing else could cover (`from` names the instruction that waits). */
  readonly gap?: boolean;
}

/** A plain nop: no operation, no write, no signal (what lowering puts in delay slots). */
export function isNop(i: Instr): boolean {
  return i.kind === 'alu' && i.opAdd === ADD_NOP && i.opMul === MUL_NOP && i.waddrAdd === W_NOP && i.waddrMul === W_NOP && i.sig === SIG_NONE;
}

/**
 * Delay-slot filling: the last instructions of the run before branch `b` that the branch does
 * not depend on (it reads the flags when conditional, and its register when it adds one) go
 * into its delay slots in place of nops: they still run once, before the jump or the fall-through.
 */
function fillDelaySlots(run: Slot[], b: Instr, nops: number): Slot[] {
  // A return (a jump through a register) keeps its slots empty: where it lands is known only at
  // run time, so no latency may reach across it (space.ts and the validator cannot see one).
  if (b.kind !== 'branch' || b.reg === 1 || b.rel === 0) return [];
  // A call writes its link before the slots run: what moves must not touch that register.
  const link = footprint(b).writes;
  // The run's gap nops go: what moves changes what needs spacing, and space.ts spaces what
  // stays as it needs.
  for (let k = run.length - 1; k >= 0; k--) if (run[k]!.gap) run.splice(k, 1);
  // Walking back from the branch, an instruction moves when it does not touch what the
  // instructions staying after it touch (nor the branch's flags or register), so that moving
  // it past them changes nothing; the moved keep their order.
  // Two instructions keep their order when one writes what the other touches or both reach one
  // I/O unit. What the staying instructions after it read, write and reach is kept as one
  // footprint: an instruction conflicts with one of them exactly when it does with the union.
  const after = { reads: new Uint8Array(RESOURCES), writes: new Uint8Array(RESOURCES), io: 0 };
  const conflictsAfter = (f: Footprint) =>
    (f.io & after.io) !== 0 || f.writes.some((r) => after.reads[r] || after.writes[r]) || [...f.reads, ...f.writes].some((r) => after.writes[r]);
  const moved: Slot[] = [];
  // One instruction stays before the branch, so that the first slot's predecessors are known.
  for (let k = run.length - 1; k >= 0 && moved.length < nops && run.length > 1; k--) {
    const f = footprint(run[k]!.instr);
    const flags = b.cond !== BRANCH_ALWAYS && f.writes.includes(RES_FLAGS);
    const reg = [...f.reads, ...f.writes].some((r) => link.includes(r));
    if (flags || reg || conflictsAfter(f)) {
      for (const r of f.reads) after.reads[r] = 1;
      for (const r of f.writes) after.writes[r] = 1;
      after.io |= f.io;
    } else moved.unshift(...run.splice(k, 1));
  }
  // Spacing (space.ts) cannot put a nop inside the delay slots (that would push an instruction
  // out of them): while a slot breaks a rule, the first moved instruction goes back to the run
  // (the moved ones stay the run's last, in their order); space.ts spaces it there.
  while (moved.length) {
    const seq = [run[run.length - 1]!.instr, b, ...moved.map((m) => m.instr)].map(effectsOf);
    if (!moved.some((_, k) => sequenceViolations(seq[k + 2]!, [seq[k + 1], seq[k]]).length > 0)) break;
    run.push(moved.shift()!);
  }
  return moved;
}

/** The new order. With `pair`, independent add and mul operations may share a word. */
export function schedule(input: ScheduleInput, pair = false): Slot[] {
  const { instrs, labelBefore } = input;
  const n = instrs.length;
  const fixed = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const ins = instrs[i]!;
    const tail = ins.kind === 'branch' ? BRANCH_DELAY_SLOTS : ins.kind === 'alu' && PROGRAM_END_SIGNALS.has(ins.sig) ? END_DELAY_SLOTS : -1;
    for (let k = 0; k <= tail && i + k < n; k++) fixed[i + k] = 1;
  }
  const order: Slot[] = [];
  let start = 0;
  let drop = 0; // delay-slot nops replaced by moved instructions, still to skip
  for (let i = 0; i <= n; i++) {
    if (i < n && !fixed[i] && !(labelBefore[i] && i > start)) continue;
    // A run [start, i): schedule it; then the fixed instruction i, if any, stays where it is.
    const run = i > start ? scheduleRun(instrs, start, i, pair, pair && i < n && !labelBefore[i] ? instrs[i] : undefined) : [];
    if (i < n && instrs[i]!.kind === 'branch' && pair && !labelBefore[i]) {
      // Its delay slots that are nops with no label on them can take work from the run (which
      // must lead to the branch: no label on the branch itself, which other paths would reach).
      let nops = 0;
      while (nops < BRANCH_DELAY_SLOTS && i + 1 + nops < n && isNop(instrs[i + 1 + nops]!) && !labelBefore[i + 1 + nops]) nops++;
      const moved = fillDelaySlots(run, instrs[i]!, nops);
      // Appended in loops: a run can be a whole straight-line kernel, too long to spread into a call's arguments.
      for (const slot of run) order.push(slot);
      order.push({ from: [i], instr: instrs[i]!, run: i });
      for (const m of moved) order.push({ ...m, run: i });
      drop = moved.length;
      start = i + 1;
      continue;
    }
    for (const slot of run) order.push(slot);
    if (i < n && fixed[i]) {
      if (drop > 0) drop--;
      else order.push({ from: [i], instr: instrs[i]!, run: i });
      start = i + 1;
    } else start = i;
  }
  return order;
}

/**
 * List scheduling of instructions [start, end): the longest chain of latencies first. When the
 * run ends at a branch whose slots will be filled, what the branch reads (flags, register) is
 * computed as early as it can be, so that the rest is free to go into the delay slots.
 */
function scheduleRun(instrs: readonly Instr[], start: number, end: number, pair: boolean, branch?: Instr): Slot[] {
  const len = end - start;
  if (len <= 1) return len ? [{ from: [start], instr: instrs[start]!, run: start }] : [];
  const io = new Uint8Array(len);
  /** Each instruction's predecessors; `war`: it only writes what that one reads, so one word may do both (its reads come first). */
  const preds: { from: number; lat: number; war?: true }[][] = Array.from({ length: len }, () => []);
  const lastWriter = new Int32Array(RESOURCES).fill(-1);
  const readersSince: number[][] = Array.from({ length: RESOURCES }, () => []);
  const sfuWrite = new Uint8Array(len);
  /** The last instruction to reach each I/O unit (IO_* bit number). */
  const lastIo = [-1, -1, -1, -1];
  for (let k = 0; k < len; k++) {
    const f = footprint(instrs[start + k]!);
    sfuWrite[k] = f.sfu ? 1 : 0;
    io[k] = f.io;
    for (const r of f.reads) {
      const w = lastWriter[r]!;
      if (w >= 0) preds[k]!.push({ from: w, lat: r < RES_ACC || (f.rotates && r < RES_FLAGS) ? REGFILE_LATENCY : r === RES_ACC + MUX_R4 && sfuWrite[w] ? SFU_LATENCY : 1 });
      readersSince[r]!.push(k);
    }
    for (const r of f.writes) {
      const w = lastWriter[r]!;
      if (w >= 0) preds[k]!.push({ from: w, lat: 1 });
      // Registers and r0-r3 only: not the flags, nor r4 (a TMU or SFU result, whose timing in a
      // word that also reads it the Guide does not state) or r5 (written by replication).
      const war = r !== RES_FLAGS && r !== RES_ACC + MUX_R4 && r !== RES_ACC + MUX_R5;
      for (const x of readersSince[r]!) if (x !== k) preds[k]!.push({ from: x, lat: 1, ...(war ? { war: true as const } : {}) });
      lastWriter[r] = k;
      readersSince[r] = [];
    }
    for (let u = 0; u < lastIo.length; u++) {
      if (!(f.io & (1 << u))) continue;
      if (lastIo[u]! >= 0) preds[k]!.push({ from: lastIo[u]!, lat: 1 });
      lastIo[u] = k;
    }
  }
  // Priority: the longest chain of latencies from an instruction to the end of the run.
  const succs: { to: number; lat: number; war?: true }[][] = Array.from({ length: len }, () => []);
  for (let k = 0; k < len; k++) for (const p of preds[k]!) succs[p.from]!.push({ to: k, lat: p.lat, ...(p.war ? { war: true as const } : {}) });
  const height = new Int32Array(len);
  if (branch?.kind === 'branch') {
    const needs = [...(branch.cond !== BRANCH_ALWAYS ? [RES_FLAGS] : []), ...(branch.reg === 1 ? [RES_A + branch.raddrA] : [])];
    for (const r of needs) if (lastWriter[r]! >= 0) height[lastWriter[r]!] = BRANCH_DELAY_SLOTS + REGFILE_LATENCY;
  }
  // A write after a read can share the read's word, so it adds nothing to the chain.
  for (let k = len - 1; k >= 0; k--) for (const s of succs[k]!) height[k] = Math.max(height[k]!, (s.war ? 0 : s.lat) + height[s.to]!);
  const waiting = new Int32Array(len);
  for (let k = 0; k < len; k++) waiting[k] = preds[k]!.length;
  const earliest = new Int32Array(len);
  const ready: number[] = [];
  for (let k = 0; k < len; k++) if (waiting[k] === 0) ready.push(k);
  const out: Slot[] = [];
  let t = 0;
  const issue = (k: number, at: number, with_?: number) => {
    for (const s of succs[k]!) {
      // The partner issued in the same word waits for nothing more.
      if (s.to === with_) continue;
      earliest[s.to] = Math.max(earliest[s.to]!, at + s.lat);
      if (--waiting[s.to]! === 0) ready.push(s.to);
    }
  };
  /** The instructions whose only predecessors not yet issued are k, through `war` edges alone. */
  const afterReads = (k: number): number[] => {
    const out: number[] = [];
    for (const s of succs[k]!) {
      if (!s.war || out.includes(s.to)) continue;
      const fromK = succs[k]!.filter((x) => x.to === s.to);
      if (fromK.every((x) => x.war) && waiting[s.to] === fromK.length) out.push(s.to);
    }
    return out;
  };
  while (ready.length) {
    // The ready instruction that can issue now with the longest chain ahead; if none can issue
    // now, the one that can issue soonest, after nops for the gap.
    let best = -1;
    for (let j = 0; j < ready.length; j++) {
      const k = ready[j]!;
      if (best < 0) {
        best = j;
        continue;
      }
      const b = ready[best]!;
      const [kNow, bNow] = [earliest[k]! <= t, earliest[b]! <= t];
      if (kNow !== bNow ? kNow : kNow ? height[k]! > height[b]! || (height[k] === height[b] && k < b) : earliest[k]! < earliest[b]! || (earliest[k] === earliest[b] && k < b))
        best = j;
    }
    const k = ready[best]!;
    ready.splice(best, 1);
    const at = Math.max(t, earliest[k]!);
    for (; t < at; t++) out.push({ from: [start + k], instr: GAP, run: start, gap: true });
    t = at + 1;
    // A partner for the same word: ready now, independent (both are ready), not both reaching
    // one I/O unit (which keeps its order), and able to share the word; of those, the one with the longest chain ahead.
    let partner = -1;
    let merged: Instr | undefined;
    // Candidates: the ready ones, and those waiting only to write what k reads (a word reads
    // before it writes, so sharing one keeps k's reads: `add r2, r3, r1; mov r1, r3 >> 4`), all
    // by the chain after them: a copy into r0 beside the rotation that reads r0's old value lets
    // the next rotation follow two words later (a broadcast lane's multiply-add).
    const candidates = pair ? [...ready, ...afterReads(k)] : [];
    for (let j = 0; j < candidates.length; j++) {
      const c = candidates[j]!;
      if (io[c]! & io[k]! || earliest[c]! > at || (partner >= 0 && height[c]! <= height[candidates[partner]!]!)) continue;
      const m = pairInstrs(instrs[start + k]!, instrs[start + c]!);
      // Two I/O units in one word: still at most one peripheral access (Guide p. 37).
      if (m && (!io[c] || !io[k] || instrViolations(effectsOf(m)).length === 0)) [partner, merged] = [j, m];
    }
    if (partner >= 0) {
      const c = candidates[partner]!;
      if (partner < ready.length) ready.splice(partner, 1);
      out.push({ from: [start + k, start + c], instr: merged!, run: start });
      issue(k, at, c);
      issue(c, at);
    } else {
      out.push({ from: [start + k], instr: instrs[start + k]!, run: start });
      issue(k, at);
    }
  }
  return out;
}

/**
 * Reorders emitted lines by `schedule` (pairing with `pair`); labels stay before the run they
 * start, and relative branches are aimed at them again.
 */
export function scheduleLines(lines: readonly AsmLine[], pair = false): AsmLine[] {
  const labelBefore: boolean[] = [];
  const text: InstrLine[] = [];
  const labelsAt = new Map<number, AsmLine[]>();
  let pending: AsmLine[] = [];
  for (const l of lines) {
    if ('label' in l) pending.push(l);
    else {
      if (pending.length) labelsAt.set(text.length, pending);
      labelBefore.push(pending.length > 0);
      text.push(l);
      pending = [];
    }
  }
  const order = schedule({ instrs: text.map((l) => l.instr), labelBefore }, pair);
  const out: AsmLine[] = [];
  // A label stands before the first instruction of a run (schedule.ts starts a run there), and
  // runs come out in order: the labels of every run up to a slot's go before it (a run whose
  // instructions all went into a branch's delay slots leaves its labels before the branch).
  const labelled = [...labelsAt.keys()].sort((x, y) => x - y);
  let nextLabel = 0;
  for (const slot of order) {
    while (nextLabel < labelled.length && labelled[nextLabel]! <= slot.run) out.push(...labelsAt.get(labelled[nextLabel++]!)!);
    const first = text[slot.from[0]!]!;
    const other = slot.from.length > 1 ? text[slot.from[1]!]! : undefined;
    const second = other?.stmt;
    // Of two statements' instructions paired, the one that can stall owns the instruction's stalls (profiles).
    const stalls = other && mayStall(effectsOf(other.instr)) && !mayStall(effectsOf(first.instr)) ? { stallsInPaired: true as const } : {};
    const paired = second !== undefined && second !== first.stmt ? { paired: second, ...stalls } : {};
    const defs = other?.defs ? { defs: [...(first.defs ?? []), ...other.defs] } : {};
    const aliases = other?.aliases ? { aliases: [...(first.aliases ?? []), ...other.aliases] } : {};
    // Half spill code is spill code to a profile: the word would not be there without it.
    const spill = other?.spill ? { spill: true as const } : {};
    out.push(slot.gap ? { instr: slot.instr, stmt: first.stmt, spacer: true } : { ...first, instr: slot.instr, ...paired, ...defs, ...aliases, ...spill });
  }
  out.push(...pending);
  // Pairing shortens runs: relative branches to labels are aimed again.
  return aimBranches(out);
}
