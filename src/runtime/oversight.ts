// Oversight of a host program's kernel runs from outside it: `qpu run` runs a user's program and
// wants every kernel it runs to take the command line's options (--qpus, --target, ...), to draw
// a progress bar for long runs and to report each run's figures, without the program changing.
// kernel.ts asks `overseen(kernelName)` on every run: the options returned apply where the call
// sets none of its own, and the observer is told when the run starts, as it progresses, and how
// it ended. One oversight at a time, for the whole process (the command line's).

import type { SfuMode } from '../vc4/sfu-model.ts';
import type { PiModelName } from '../emulator/models.ts';
import type { KernelProfile } from './profile.ts';
import type { KernelAst } from '../source/ast.ts';
import type { OptLevel } from '../compiler/driver.ts';

export interface OverseenOptions {
  readonly target?: 'emulator' | 'interpreter' | 'pi';
  readonly qpus?: number;
  readonly maxSteps?: number;
  readonly strict?: boolean;
  /** The pi target: also the cycle model's estimate of each run. */
  readonly estimate?: boolean;
  /** The emulator and the interpreter: QPUs in a random interleaving drawn from this seed. */
  readonly interleave?: number;
  readonly sfu?: SfuMode;
  /** Profile every run (the observer hears each run's profile). */
  readonly profile?: boolean;
  /** The Pi model the cycle model estimates for. */
  readonly model?: PiModelName;
}

/** What kernel.ts tells the observer of a run. */
export interface OverseenRun {
  readonly kernel: string;
  readonly target: 'emulator' | 'interpreter' | 'pi';
  readonly qpus: number;
  /** The step budget (instructions or statements, all QPUs). */
  readonly maxSteps: number;
  /** The Pi model the cycle model estimates for. */
  readonly model: PiModelName;
}

export interface RunObserver {
  started?(run: OverseenRun): void;
  /** Steps (instructions or statements) so far, all QPUs; for the emulator, the cycle model's clock too. */
  progress?(run: OverseenRun, steps: number, cycles?: number): void;
  /** How the run ended: its figures (steps; cycles and seconds on the emulator), or the error it threw. */
  ended?(
    run: OverseenRun,
    outcome: {
      readonly steps?: number;
      readonly cycles?: number;
      /** The cycle model's estimate of the time on a Pi (emulator; pi target with estimate). */
      readonly seconds?: number;
      /** The pi target: the time measured on the QPUs. */
      readonly measuredSeconds?: number;
      readonly wallSeconds: number;
      /** The run's profile, when the options asked for one and the run ended well. */
      readonly profile?: KernelProfile;
      readonly error?: unknown;
    },
  ): void;
}

export interface Oversight {
  /** Which kernels it applies to (all when absent): their kernel names. */
  readonly kernels?: (name: string) => boolean;
  readonly options: OverseenOptions;
  readonly observer: RunObserver;
  /**
   * A debugger (qpu debug): called before a run with the kernel, its arguments and the QPU
   * count it runs on; it may hold the run while a session debugs a replay of it (debug/), after
   * which the run itself goes on.
   */
  readonly debugRun?: (k: { readonly ast: KernelAst; readonly optLevel: OptLevel }, args: readonly unknown[], qpus: number) => void;
}

/**
 * The oversight in force, kept on the global object so that every copy of qpu-ts in the process
 * sees it: the command's own and the one a program imports (a project's copy, or the sources).
 */
const SLOT = Symbol.for('qpu-ts.oversight');
interface Slot {
  current?: Oversight;
  /** Kernel runs, of any kernel, since the oversight began. */
  runs: number;
}
const slot = ((globalThis as Record<symbol, Slot | undefined>)[SLOT] ??= { runs: 0 });

/** Oversees every kernel run from now until the returned function is called. */
export function oversee(o: Oversight): () => void {
  if (slot.current) throw new Error('kernel runs are already overseen');
  slot.current = o;
  slot.runs = 0;
  return () => {
    if (slot.current === o) slot.current = undefined;
  };
}

/** The oversight that applies to a run of kernel `name`, if any. */
export function overseen(name: string): Oversight | undefined {
  const current = slot.current;
  return current && (!current.kernels || current.kernels(name)) ? current : undefined;
}

/** Counts a kernel run (kernel.ts, as each run starts), whichever kernel it is. */
export function noteRun(): void {
  if (slot.current) slot.runs++;
}

/** Kernel runs of any kernel since the oversight in force began. */
export function runsOverseen(): number {
  return slot.runs;
}
