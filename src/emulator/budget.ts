// Step budgets: how many steps (interpreter statements, emulator instructions) a run may take
// before it stops as a runaway. Both targets check what callers pass the same way, and their
// defaults stop an endless loop within a few seconds on a CI-class machine (a tight loop: about
// 4 s for either, any loop within DEFAULT_SECONDS; docs/language.md "Runaway kernels").

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
  if (typeof value === 'number' && value >= 0 && (Number.isSafeInteger(value) || value === Infinity)) return value;
  const shown = typeof value === 'string' ? JSON.stringify(value) : typeof value === 'bigint' ? `${value}n` : String(value);
  throw new RangeError(`${who}: maxSteps must be a whole number of steps from 0 up (or Infinity), not ${shown}`);
}

/** "12,345,678": a count as messages show it. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** "1 statement", "5,000,000 statements". */
export function counted(n: number, unit: string): string {
  return `${count(n)} ${unit}${n === 1 ? '' : 's'}`;
}
