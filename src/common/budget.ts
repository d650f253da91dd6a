// Step budgets: how many steps (interpreter statements, emulator instructions) a run may take
// before it stops as a runaway. Both targets check what callers pass the same way, and their
// defaults stop an endless loop within a few seconds on a CI-class machine (a tight loop: about
// 4 s for either, any loop within DEFAULT_SECONDS; docs/language.md "Runaway kernels"). Their
// messages say how far the run got and how to allow more; a run with a progress callback reports
// every so many steps (the PROGRESS_EVERY constants), checked where the clock is.

/** Interpreter statements all QPUs may execute in total, by default (1-2.5 million a second). */
export const INTERPRETER_STEPS = 5_000_000;
/** Emulator instructions all QPUs may execute in total, by default (about 50 million a second in a tight loop). */
export const EMULATOR_STEPS = 200_000_000;

/**
 * When the caller gives no maxSteps, a run also stops after this many seconds of host time:
 * a step costs from tens of nanoseconds (a tight ALU loop) to microseconds (a loop of DMA loads
 * on 12 QPUs, a statement of a thousand operations), so no count alone stops every runaway
 * within seconds. A caller who passes maxSteps (Infinity included) gets no time limit, and a
 * run that stays within the default budgets is as deterministic as ever.
 */
export const DEFAULT_SECONDS = 5;

/** The host-time deadline (performance.now() milliseconds) for a run with this maxSteps option. */
export function deadlineFor(maxSteps: unknown): number {
  return maxSteps === undefined ? performance.now() + DEFAULT_SECONDS * 1000 : Infinity;
}

/** How often, in steps, a run looks at the clock (a clock read costs about as much as 100 steps). */
export const CLOCK_EVERY = 4096;

/**
 * A caller's `maxSteps`: undefined gives `fallback`; otherwise a whole number from 0 up, or
 * Infinity for no limit. Anything else (NaN, -1, 1.5, '10') is a RangeError that names `who`.
 */
export function stepBudget(value: unknown, fallback: number, who: string): number {
  if (value === undefined) return fallback;
  // + 0 turns -0 (which >= 0 lets through) into 0, so that no message says "-0 instructions".
  if (typeof value === 'number' && value >= 0 && (Number.isSafeInteger(value) || value === Infinity)) return value + 0;
  const shown = typeof value === 'string' ? JSON.stringify(value) : typeof value === 'bigint' ? `${value}n` : String(value);
  throw new RangeError(`${who}: maxSteps must be a whole number of steps from 0 up (or Infinity), not ${shown}`);
}

/** Instructions between two progress reports of an emulator run (about 10-20 ms of a tight loop). */
export const EMULATOR_PROGRESS_EVERY = 2 ** 20;
/** Statements between two progress reports of an interpreter run (a multiple of CLOCK_EVERY; about 30-60 ms). */
export const INTERPRETER_PROGRESS_EVERY = 2 ** 16;

/** How a budget message tells a caller of the language to allow more (kernels, the interpreter). */
export const RAISE_WITH_OPTION = '{ maxSteps }';
/** How the emulator's messages say it by default, for its callers and the qpu command. */
export const RAISE_WITH_EITHER = 'maxSteps (or --max-steps)';

/** The end of a budget message: "an endless loop? pass { maxSteps } to allow more". */
export function allowMore(raiseWith: string): string {
  return `an endless loop? pass ${raiseWith} to allow more`;
}

/** The start of the default time limit's message (DEFAULT_SECONDS of host time, no maxSteps given). */
export const TIME_LIMIT = `the run stopped after ${DEFAULT_SECONDS} s, the time limit of a run given no maxSteps`;

/** "9.38 ms": a time in seconds as messages show it, to 3 digits. */
export function duration(seconds: number): string {
  const [scale, unit] = seconds >= 1 ? [1, 's'] : seconds >= 1e-3 ? [1e3, 'ms'] : seconds >= 1e-6 ? [1e6, 'µs'] : [1e9, 'ns'];
  return `${Number((seconds * scale).toPrecision(3))} ${unit}`;
}

/**
 * A run's budget as the targets keep it: steps left (`left`, which the target decrements), the
 * time limit of a run given no maxSteps, and when to report progress. A target counts steps in
 * `clock` only when `watch` is set, and every CLOCK_EVERY of them calls timeUp() and progress().
 */
export class RunBudget {
  left: number;
  readonly max: number;
  /** performance.now() past which the run stops (Infinity: no time limit). */
  readonly deadline: number;
  /** Steps since the clock was last read. */
  clock = 0;
  /** Whether the target counts steps for the clock at all: a time limit or progress to report. */
  readonly watch: boolean;
  /** The step count at which progress is reported next. */
  private next: number;
  private failed = false;

  constructor(
    maxSteps: unknown,
    fallback: number,
    who: string,
    /** Steps between two progress reports. */
    private readonly every: number,
    /** Whether the run reports progress at all. */
    readonly reporting: boolean,
    /** How the messages say to allow more: RAISE_WITH_OPTION, RAISE_WITH_EITHER. */
    readonly raiseWith: string,
  ) {
    this.left = this.max = stepBudget(maxSteps, fallback, who);
    this.deadline = deadlineFor(maxSteps);
    this.watch = this.deadline !== Infinity || reporting;
    this.next = every;
  }

  /** Whether the host time is up (only a run given no maxSteps has a limit). */
  timeUp(): boolean {
    return this.deadline !== Infinity && performance.now() > this.deadline;
  }

  /** Calls `report` once `steps` has passed the next report's count, or at the end (done); never again after it throws. */
  progress(steps: number, done: boolean, report: () => void, runFailed = false): void {
    if (!this.reporting || this.failed || (!done && steps < this.next)) return;
    this.next = (Math.floor(steps / this.every) + 1) * this.every;
    try {
      report();
    } catch (e) {
      this.failed = true;
      // The last report of a run that failed: the run's own error is the one to report.
      if (!runFailed) throw e;
    }
  }

  /** The budget's message, given how far the run got ("5,000 instructions, 20,000 cycles ..."). */
  spent(unit: string, reached: string): string {
    return `the step budget of ${counted(this.max, unit)} ran out after ${reached}: ${allowMore(this.raiseWith)}`;
  }

  /** The time limit's message. */
  timeSpent(reached: string): string {
    return `${TIME_LIMIT}, having run ${reached}: an endless loop? pass ${this.raiseWith} to run longer`;
  }
}

/** "12,345,678": a count as messages show it. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** "1 statement", "5,000,000 statements". */
export function counted(n: number, unit: string): string {
  return `${count(n)} ${unit}${n === 1 ? '' : 's'}`;
}
