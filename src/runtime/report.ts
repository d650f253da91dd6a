// What a kernel run reports: one shape on every target, so that a program written against the
// report (the README's first kernel prints `report.run.total.instructions` and the time on a Pi)
// works whatever target `qpu run --target` or the options choose.
//
// Every report has the target, the QPU count, the steps it counted (`steps`, `stepsPerQpu` and
// their `unit`), the time on a Pi (`seconds`) and the cycle model's figures (`run`). Each target
// knows some of these at once and gets the others from the cycle model: the emulator knows them
// all; the interpreter counts statements, and its `run` (and `seconds`) is the compiled code run
// on the emulator; the pi target measures `seconds`, and its `run` (and steps) comes from the
// emulator too. The emulator's run for those targets happens when the report's `run` (or a field
// that needs it) is first read, on copies of the arrays as they were before the run (a snapshot
// taken then), unless the options said `estimate: true` (it runs first) or `estimate: false` (no
// snapshot: reading `run` is an error that says so).

import type { RunResult } from '../emulator/machine.ts';
import type { PiRunResult } from '../pi/target.ts';
import type { RunTarget } from './types.ts';
import type { KernelProfile } from './profile.ts';

export interface RunReport {
  readonly target: RunTarget;
  readonly qpus: number;
  /** What `steps` counts: instructions (compiled code: the emulator, and the pi target's estimate) or statements (the interpreter). */
  readonly unit: 'instructions' | 'statements';
  /** The steps all QPUs ran together, in `unit`s. */
  readonly steps: number;
  /** Each QPU's steps. */
  readonly stepsPerQpu: readonly number[];
  /** The run's time on a Pi, in seconds: measured on the pi target, else the cycle model's estimate (of the compiled code). */
  readonly seconds: number;
  /**
   * The cycle model's figures (emulator/machine.ts): instructions, cycles, stalls and the time on
   * a Pi, per QPU and in total. On the interpreter and the pi target, those of the compiled code
   * run on the emulator (when first read, on copies of the arrays as they were before the run).
   */
  readonly run: RunResult;
  /** The pi target: the time measured on the Pi's QPUs. */
  readonly pi?: PiRunResult;
  /**
   * With `{ profile: true }`: the run's profile (runtime/profile.ts): per source statement and
   * per instruction, what ran and what it cost, each QPU's timeline, and what bounds the run. It
   * is the compiled code's, on the emulator; on the interpreter and the pi target, of the
   * cycle model's run (as `run` is).
   */
  readonly profile?: KernelProfile;
  /** What the kernel's print statements showed, QPU after QPU, each in its program order (also written to the console). */
  readonly printed: readonly string[];
}

/** The cycle model's figures for a run, computed when first needed (or an error saying why they cannot be). */
export type Estimate = () => RunResult;

/** Each report's estimate, once computed: so that observers can read what is known without running it. */
const known = new WeakMap<RunReport, RunResult>();

/** The report's `run` if it is known already (never runs the emulator). */
export function knownRun(r: RunReport): RunResult | undefined {
  return known.get(r);
}

/** A report whose fields may come from the estimate, computed once, on first read. */
function lazyReport(
  fixed: Partial<Record<keyof RunReport, unknown>>,
  estimate: Estimate,
  lazy: (run: () => RunResult) => Partial<Record<keyof RunReport, () => unknown>>,
  profileOf: ProfileOf | undefined,
): RunReport {
  const report = { ...fixed } as RunReport;
  const run = (): RunResult => {
    let r = known.get(report);
    if (!r) known.set(report, (r = estimate()));
    return r;
  };
  let profile: KernelProfile | undefined;
  const getters: Partial<Record<keyof RunReport, () => unknown>> = { run, ...lazy(run), ...(profileOf ? { profile: () => (profile ??= profileOf(run())) } : {}) };
  for (const [key, get] of Object.entries(getters)) Object.defineProperty(report, key, { get, enumerable: true, configurable: false });
  return Object.freeze(report);
}

/** A profile of a run of the compiled code (a run with a profiler). */
export type ProfileOf = (run: RunResult) => KernelProfile;

/** A run on the emulator: everything known. */
export function emulatorReport(qpus: number, run: RunResult, printed: readonly string[], profileOf?: ProfileOf): RunReport {
  const report: RunReport = Object.freeze({
    target: 'emulator',
    qpus,
    printed,
    unit: 'instructions',
    steps: run.total.instructions,
    stepsPerQpu: run.qpus.map((q) => q.instructions),
    seconds: run.seconds,
    run,
    ...(profileOf ? { profile: profileOf(run) } : {}),
  });
  known.set(report, run);
  return report;
}

/** A run on the interpreter: its statements; the time and `run` from the compiled code, when first read. */
export function interpreterReport(qpus: number, statements: readonly number[], printed: readonly string[], estimate: Estimate, ran?: RunResult, profileOf?: ProfileOf): RunReport {
  const stepsPerQpu = Object.freeze([...statements]);
  const report = lazyReport(
    { target: 'interpreter', qpus, unit: 'statements', steps: stepsPerQpu.reduce((a, b) => a + b, 0), stepsPerQpu, printed },
    estimate,
    (run) => ({ seconds: () => run().seconds }),
    profileOf,
  );
  if (ran) known.set(report, ran);
  return report;
}

/** A run on a Pi's QPUs: the measured time; the steps and `run` from the cycle model (already run with `estimate: true`). */
export function piReport(qpus: number, pi: PiRunResult, printed: readonly string[], estimate: Estimate, ran?: RunResult, profileOf?: ProfileOf): RunReport {
  const report = lazyReport({ target: 'pi', qpus, unit: 'instructions', seconds: pi.seconds, pi, printed }, estimate, (run) => ({
    steps: () => run().total.instructions,
    stepsPerQpu: () => run().qpus.map((q) => q.instructions),
  }), profileOf);
  if (ran) known.set(report, ran);
  return report;
}
