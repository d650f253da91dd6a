// What the debugger knows of a kernel run stopped at a step: each QPU's state and where it is,
// the variables' lanes (or why a variable has none there), and on the emulator the machine's
// registers, flags and VPM. Both replays (interpreter-replay.ts, emulator-replay.ts) make one;
// the session (session.ts) and the views (show.ts) read it.

import type { Stmt, VarInfo } from '../source/ast.ts';

/** A step of the run: a statement (interpreter) or an instruction (emulator) a QPU is about to run. A replay reuses one object: read it during the call. */
export interface StepEvent {
  /** Steps of all QPUs before this one. */
  readonly n: number;
  readonly qpu: number;
  /** The user's statement it is (or belongs to), if any. */
  readonly stmt: Stmt | undefined;
  /** Emulator: the instruction's index. */
  readonly pc?: number;
  /** The lanes the enclosing Wheres keep (interpreter). */
  readonly mask?: Uint8Array;
  /** Emulator: the QPU's previous step was in another statement (or it is its first); always on the interpreter. */
  readonly entersStatement: boolean;
  /** The QPU's previous step was on another source line (or it is its first): where a breakpoint on a line stops. */
  readonly entersLine: boolean;
  /** The QPU's variables now. */
  variable(v: VarInfo): Lanes;
}

/** A variable's 16 lanes as 32-bit patterns, or why the debugger cannot show them. */
export type Lanes = Int32Array | { readonly unavailable: string };

export type QpuRunState = 'running' | 'waiting' | 'done';

export interface QpuSnapshot {
  readonly id: number;
  readonly state: QpuRunState;
  /** What it waits for. */
  readonly waitingFor?: string;
  /** The statement it is at (about to run), or last ran when done. */
  readonly stmt: Stmt | undefined;
  /** Emulator: its program counter. */
  readonly pc?: number;
  /** Interpreter: the lanes the enclosing Wheres keep at its statement. */
  readonly mask?: Uint8Array;
  /** Steps it has taken. */
  readonly steps: number;
  /** Emulator: its registers (ra0-ra31, rb0-rb31, r0-r5 as vectors of 16 lanes), flags and clock. */
  readonly machine?: QpuMachineState;
}

export interface QpuMachineState {
  readonly registers: ReadonlyMap<string, Int32Array>;
  readonly flags: { readonly z: Uint8Array; readonly n: Uint8Array; readonly c: Uint8Array };
  readonly cycles: number;
  /** TMU results requested and not yet read, on TMU0 and TMU1. */
  readonly tmuQueued: readonly [number, number];
}

export interface Snapshot {
  /** The step it stopped before (the run's steps so far). */
  readonly event: number;
  /** The QPU of that step (the last QPU to run, at the end). */
  readonly qpu: number;
  readonly qpus: readonly QpuSnapshot[];
  /** The run has ended: well, or with `error`. */
  readonly ended: boolean;
  readonly error?: string;
  /** A variable's lanes on a QPU. */
  variable(qpu: number, v: VarInfo): Lanes;
  /** Emulator: the VPM's words. */
  readonly vpm?: Int32Array;
}

/** Thrown from a replay's hook to stop the run at a step; carries the snapshot taken there. */
export class Stop {
  constructor(readonly snapshot: Snapshot) {}
}

/** Decides, at each step, whether the run stops there. */
export type StopAt = (e: StepEvent) => boolean;

/** The variables a user sees: the kernel's, by the names the user gave (the others by the compiler's). */
export function userName(v: VarInfo): string {
  return v.userName ?? v.name;
}

/** "file:line" of a statement, from its "file:line:col". */
export function lineOf(s: Stmt | undefined): string | undefined {
  const loc = s?.loc;
  return loc ? loc.slice(0, loc.lastIndexOf(':')) : undefined;
}
