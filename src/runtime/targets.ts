// Where a kernel runs: one interface, three targets. The reference interpreter runs the kernel's
// AST; the emulator runs its machine code; the pi target runs the machine code on a Pi's QPUs.
// Each takes a call (the parameters' 32-bit values, the arrays, the checked options) and gives
// the report of one shape (runtime/report.ts); the interpreter's and the pi target's reports get
// the cycle model's figures from the emulator, on a snapshot of the arrays taken before the run.
// Needs: a kernel's AST and a way to compile it. Guarantees: only one run at a time uses GPU
// memory (exclusive); arrays living in another memory than the target's are staged there and
// back (runtime/staging.ts).

import { EMULATOR_STEPS, RAISE_WITH_OPTION } from '../common/budget.ts';
import type { Compiled, OptLevel } from '../compiler/driver.ts';
import { EmulatorError } from '../emulator/errors.ts';
import type { RunResult } from '../emulator/machine.ts';
import { piSession } from '../pi/session.ts';
import { runCompiledOnPi } from '../pi/target.ts';
import { failedAssertions, printLogs } from './assertions.ts';
import { printedBefore, printedLines, type PrintLog } from '../source/checks.ts';
import type { KernelAst, Stmt } from '../source/ast.ts';
import { type ArrayRegion, interpret } from '../source/interpreter.ts';
import { EmulatorTarget } from './emulate.ts';
import { timingFor } from '../emulator/timing.ts';
import { inKernel } from './kernel-errors.ts';
import { emulatorReport, type Estimate, interpreterReport, piReport, type ProfileOf, type RunReport } from './report.ts';
import { kernelProfile } from './profile.ts';
import { Profiler } from '../emulator/profile.ts';
import type { Run } from './run-options.ts';
import type { RunTarget } from './types.ts';
import { gpuMemory } from './shared-array.ts';
import { type Snapshot, snapshot } from './snapshot.ts';
import { type HostArray, staged } from './staging.ts';
import { userStack } from '../dsl/builder.ts';

/** What a target needs of the kernel it runs. */
export interface RunnableKernel {
  readonly name: string;
  readonly ast: KernelAst;
  /** The machine code for a QPU count at a level (compiled once, then cached). */
  code(qpus: number, level: OptLevel): Compiled;
}

/** One call of a kernel: its parameters' values (array addresses among them), its arrays, its options, the level in force. */
export interface Call {
  readonly values: readonly number[];
  readonly arrays: readonly HostArray[];
  readonly r: Run;
  readonly level: OptLevel;
}

export interface Target {
  readonly name: RunTarget;
  run(k: RunnableKernel, call: Call): RunReport;
}

let emulator: EmulatorTarget | undefined;
/** The emulator that runs kernels, on the GPU memory SharedArrays live in. */
export function emulatorTarget(): EmulatorTarget {
  return (emulator ??= new EmulatorTarget(gpuMemory));
}

/** The kernel running now, if any (every target uses the one GPU memory). */
let running: string | undefined;

/**
 * Runs `go` as the one kernel run in progress: only an onProgress callback (or a report's
 * estimate read from one) could start a run inside another.
 */
export function exclusive<T>(name: string, go: () => T): T {
  if (running) throw new Error(`kernel ${name}: cannot run while kernel ${running} runs (from its onProgress callback); run it after`);
  running = name;
  try {
    return go();
  } finally {
    running = undefined;
  }
}

/** A run of the compiled code on the emulator. */
function emulatorRun(ast: KernelAst, c: Compiled, values: number[], arrays: ArrayRegion[], r: Run): RunResult {
  const emu = emulatorTarget();
  const onProgress = r.onProgress;
  const hz = timingFor(r.model).clockHz;
  const progress =
    onProgress &&
    ((steps: number, cycles: number, done: boolean) => onProgress({ target: 'emulator', steps, maxSteps: r.budget, cycles, seconds: cycles / hz, done }));
  try {
    const profile = r.profile ? new Profiler(c.instrs.length) : undefined;
    // A profiled run is slower (one instruction at a time): a budget of steps, not the default time limit, bounds it.
    const maxSteps = r.maxSteps ?? (profile ? EMULATOR_STEPS : undefined);
    return emu.run(c, values, arrays, { maxSteps, strict: r.strict, onProgress: progress, raiseWith: RAISE_WITH_OPTION, interleave: r.interleave, sfu: r.sfu, profile, model: r.model });
  } catch (e) {
    throw e instanceof EmulatorError ? inKernel(ast, c, e) : e;
  }
}

/**
 * The cycle model's figures for a run on the interpreter or the pi target: the compiled code on
 * the emulator, in time order, on copies of the arrays as they were before the run. `now` within
 * the run; `later` when a report is read, a run of its own.
 */
function estimateOf(k: RunnableKernel, { values, r, level }: Call, snap: Snapshot | undefined): { now: Estimate; later: Estimate } {
  const now = (): RunResult => {
    if (!snap) throw new Error(`kernel ${k.name}: this run on the ${r.target} has no cycle-model figures (report.run and what comes from it): it ran with { estimate: false }`);
    const budget: Run = { ...r, onProgress: undefined, interleave: undefined, maxSteps: r.target === 'interpreter' ? undefined : r.maxSteps };
    return snap.replay(gpuMemory, values, (v, regions) => emulatorRun(k.ast, k.code(r.qpus, level), v, regions, budget));
  };
  const later = (): RunResult => {
    try {
      return exclusive(k.name, now);
    } catch (e) {
      throw userStack(e, later);
    }
  };
  return { now, later };
}

/** With `{ profile: true }`: the profile of a run of the call's compiled code. */
function profileOf(k: RunnableKernel, { r, level }: Call, interpreted?: ReadonlyMap<string, number>): ProfileOf | undefined {
  return r.profile ? (run) => kernelProfile(k.ast, k.code(r.qpus, level), run, interpreted) : undefined;
}

const EMULATOR: Target = {
  name: 'emulator',
  run(k, call) {
    const { values, arrays, r, level } = call;
    const run = staged(gpuMemory, values, arrays, (v, regions) => emulatorRun(k.ast, k.code(r.qpus, level), v, regions, r));
    return emulatorReport(r.qpus, run, printedLines(emulatorTarget().printed), profileOf(k, call));
  },
};

const INTERPRETER: Target = {
  name: 'interpreter',
  run(k, call) {
    const { values, arrays, r } = call;
    const estimate = estimateOf(k, call, r.estimate === false ? undefined : snapshot(arrays));
    const onProgress = r.onProgress;
    const progress = onProgress && ((steps: number, done: boolean) => onProgress({ target: 'interpreter', steps, maxSteps: r.budget, done }));
    // Profiling: the times each statement ran here, beside the compiled code's profile.
    const runs = r.profile ? new Map<string, number>() : undefined;
    const debug = runs && ((_q: unknown, s: Stmt) => void ((s = s.shows ?? s).loc && runs.set(s.loc, (runs.get(s.loc) ?? 0) + 1)));
    const result = staged(gpuMemory, values, arrays, (v, regions) =>
      interpret(k.ast, { qpus: r.qpus, args: v, memory: gpuMemory, arrays: regions, maxSteps: r.maxSteps, onProgress: progress, interleave: r.interleave, sfu: r.sfu, debug }),
    );
    return interpreterReport(r.qpus, result.steps, printedLines(result.printed), estimate.later, r.estimate || r.profile ? estimate.now() : undefined, profileOf(k, call, runs));
  },
};

/**
 * The Pi's QPUs, arrays in its GPU memory (copied there if they live elsewhere), with the cycle
 * model's estimate: first, when asked (r.estimate), else when the report's `run` is first read.
 */
const PI: Target = {
  name: 'pi',
  run(k, call) {
    const { values, arrays, r, level } = call;
    const estimate = estimateOf(k, call, r.estimate === false ? undefined : snapshot(arrays));
    const ran = r.estimate || r.profile ? estimate.now() : undefined;
    const s = piSession();
    const c = k.code(r.qpus, level);
    let printed: PrintLog[] = [];
    const run = (v: number[]) =>
      runCompiledOnPi(s, c, v, { timeoutMs: r.timeoutMs }, (scratch) => {
        printed = printLogs(c, scratch);
        const failed = failedAssertions(c, scratch);
        if (failed) throw failed;
      });
    let pi;
    try {
      pi = staged(s.memory, values, arrays, run);
    } catch (e) {
      if (e instanceof Error) e.message += printedBefore(printed);
      throw e;
    }
    r.onProgress?.({ target: 'pi', steps: ran?.total.instructions ?? 0, maxSteps: r.budget, done: true });
    return piReport(r.qpus, pi, printedLines(printed), estimate.later, ran, profileOf(k, call));
  },
};

export const TARGETS: Readonly<Record<RunTarget, Target>> = { emulator: EMULATOR, interpreter: INTERPRETER, pi: PI };
