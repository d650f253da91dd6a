// What a run of the reference interpreter takes and gives (interpreter.ts): its options, its
// result, and a QPU as the debugger's hook sees it.

import type { GpuMemory } from '../common/memory.ts';
import type { SfuMode } from '../vc4/sfu-model.ts';
import type { Stmt } from './ast.ts';
import type { PrintLog } from './checks.ts';
import type { ArrayRegion } from './interpreter-memory.ts';
import type { Turn } from './turns.ts';

export interface InterpretOptions {
  readonly qpus: number;
  /** The 32-bit value of each parameter: an int, a float's bits, or an array's bus address. */
  readonly args: readonly number[];
  readonly memory: GpuMemory;
  readonly arrays: readonly ArrayRegion[];
  /** Statements all QPUs may execute in total (default INTERPRETER_STEPS, 5 million). */
  readonly maxSteps?: number;
  /**
   * Called every INTERPRETER_PROGRESS_EVERY statements with the statements all QPUs have run,
   * and once at the end (done), also when the run stops at an error; not again after it throws.
   */
  readonly onProgress?: (statements: number, done: boolean) => void;
  /**
   * A seed: run the QPUs in a random interleaving drawn from it, switching at random statement
   * boundaries (common/interleave.ts), instead of in turn. The same seed runs the same way.
   */
  readonly interleave?: number;
  /** The SFU's results: correctly rounded (default), or off as a chip's are (vc4/sfu-model.ts). */
  readonly sfu?: SfuMode;
  /**
   * The debugger's hook (debug/interpreter-replay.ts): called before each step of a QPU (a
   * statement, or a loop's test of its condition again) with the lanes the enclosing Wheres
   * keep, and every QPU's state, live: read it during the call, or after the run has thrown.
   */
  readonly debug?: (qpu: InterpreterQpu, s: Stmt, mask: Uint8Array, all: readonly InterpreterQpu[]) => void;
}

/** A QPU of the interpreter as the debugger reads it: its variables (16 lanes each, by variable id), where it is, whether it waits or has ended. */
export interface InterpreterQpu extends Turn {
  readonly env: Int32Array;
  readonly at: Stmt | undefined;
  /** Gathered values not received yet, oldest first. */
  readonly fifo: readonly Int32Array[];
}

export interface InterpretResult {
  /** Statements executed, per QPU. */
  readonly steps: readonly number[];
  /** What each QPU printed (checks.ts printedLines shows it). */
  readonly printed: readonly PrintLog[];
}
