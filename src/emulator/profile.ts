// A run's profile: for each QPU and each instruction of the program, how many times it ran, the
// cycles it took (its issue and its stalls) and its stalls by cause; and each QPU's timeline,
// its cycles in bins of equal width, busy or stalled by cause. The machine fills it when a run
// is given one (MachineRunOptions.profile): it then runs one instruction at a time and charges
// each instruction with what its step changed of the QPU's clock and stall counters. So the
// instructions' counts add up to each QPU's instructions, their cycles to its cycles, their
// stalls to its stalls. Knows nothing of kernels: runtime/profile.ts maps instructions to the
// kernel's statements.

import { STALL_CAUSES, type StallCause } from './timing.ts';

/** Bins a QPU's timeline has at most: the bins' width doubles when the run outgrows them. */
export const TIMELINE_BINS = 512;
/** A bin's first width, in cycles. */
const FIRST_WIDTH = 16;

/** The kinds of cycles a timeline bin counts: busy (issuing) and each stall cause. */
export const CYCLE_KINDS = ['busy', ...STALL_CAUSES] as const;
export type CycleKind = (typeof CYCLE_KINDS)[number];
const KINDS = CYCLE_KINDS.length;
const BUSY = 0;

/** One QPU's figures, per instruction (indexed by pc). */
export interface QpuProfile {
  readonly runs: Float64Array;
  readonly cycles: Float64Array;
  readonly stalls: Readonly<Record<StallCause, Float64Array>>;
  readonly timeline: Timeline;
}

/**
 * A QPU's cycles from 0 in bins of `width` cycles: `bins[b * CYCLE_KINDS.length + k]` is the
 * cycles of kind CYCLE_KINDS[k] in bin b.
 */
export interface Timeline {
  readonly width: number;
  readonly bins: Float64Array;
}

/** The QPU state an instruction's step changes, read before it. */
interface Before {
  time: number;
  count: number;
  readonly stalls: Float64Array;
}

/** What the profiler reads of a QPU. */
interface Profiled {
  readonly id: number;
  readonly time: number;
  readonly count: number;
  readonly stats: { readonly stalls: Readonly<Record<StallCause, number>> };
}

/** Fills a run's profile, instruction by instruction (Machine.run's `profile` option). */
export class Profiler {
  private figures: { runs: Float64Array; cycles: Float64Array; stalls: Float64Array[]; line: TimelineBins }[] = [];
  private readonly before: Before = { time: 0, count: 0, stalls: new Float64Array(STALL_CAUSES.length) };

  /** A profiler for a program of `length` instructions. */
  constructor(readonly length: number) {}

  /** Clears the figures for a run on `qpus` QPUs of a program of `length` instructions (the machine calls it). */
  start(qpus: number, length: number): void {
    const n = this.length;
    if (length !== n) throw new RangeError(`a profile of a program of ${n} instructions cannot profile one of ${length}`);
    this.figures = Array.from({ length: qpus }, () => ({
      runs: new Float64Array(n),
      cycles: new Float64Array(n),
      stalls: STALL_CAUSES.map(() => new Float64Array(n)),
      line: new TimelineBins(),
    }));
  }

  /** Reads the QPU's clock and counters before it steps instruction pc. */
  enter(q: Profiled): void {
    const b = this.before;
    b.time = q.time;
    b.count = q.count;
    for (let c = 0; c < STALL_CAUSES.length; c++) b.stalls[c] = q.stats.stalls[STALL_CAUSES[c]!];
  }

  /** Charges instruction pc with what the QPU's step changed since `enter` (also a step that waited and will retry). */
  leave(q: Profiled, pc: number): void {
    const f = this.figures[q.id]!;
    const b = this.before;
    if (pc < 0 || pc >= this.length) return;
    f.runs[pc]! += q.count - b.count;
    f.cycles[pc]! += q.time - b.time;
    let at = b.time;
    for (let c = 0; c < STALL_CAUSES.length; c++) {
      const stalled = q.stats.stalls[STALL_CAUSES[c]!] - b.stalls[c]!;
      if (stalled === 0) continue;
      f.stalls[c]![pc]! += stalled;
      // A step's stall comes before its issue: the timeline puts it first.
      f.line.add(at, stalled, c + 1);
      at += stalled;
    }
    if (q.time > at) f.line.add(at, q.time - at, BUSY);
  }

  /** The figures of each QPU of the last run. */
  result(): QpuProfile[] {
    const width = Math.max(...this.figures.map((f) => f.line.width));
    return this.figures.map((f) => ({
      runs: f.runs,
      cycles: f.cycles,
      stalls: Object.fromEntries(STALL_CAUSES.map((c, i) => [c, f.stalls[i]!])) as Record<StallCause, Float64Array>,
      timeline: f.line.widened(width),
    }));
  }
}

/** A timeline's bins, whose width doubles (pairs of bins merging) when a run outgrows them. */
class TimelineBins {
  width = FIRST_WIDTH;
  bins = new Float64Array(TIMELINE_BINS * KINDS);

  /** Adds `cycles` cycles of kind `k` from cycle `at`, spread over the bins they fall in. */
  add(at: number, cycles: number, k: number): void {
    while (at + cycles > this.width * TIMELINE_BINS) this.double();
    let t = at;
    const end = at + cycles;
    while (t < end) {
      const b = Math.floor(t / this.width);
      const upTo = Math.min(end, (b + 1) * this.width);
      this.bins[b * KINDS + k]! += upTo - t;
      t = upTo;
    }
  }

  private double(): void {
    const old = this.bins;
    this.bins = new Float64Array(TIMELINE_BINS * KINDS);
    for (let b = 0; b < TIMELINE_BINS; b++) for (let k = 0; k < KINDS; k++) this.bins[(b >> 1) * KINDS + k]! += old[b * KINDS + k]!;
    this.width *= 2;
  }

  /** The timeline at `width` (this one's or a power-of-two multiple of it), for QPUs to share one scale. */
  widened(width: number): Timeline {
    while (this.width < width) this.double();
    return { width: this.width, bins: this.bins };
  }
}
