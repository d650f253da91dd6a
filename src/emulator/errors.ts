// Errors the emulator raises. Each says where: the QPU, the instruction index (pc) and its
// disassembly, and for memory faults the lane and address. None of them is ever a crash of the
// host process or a hang: a run either finishes or ends with one of these.

import { SEMAPHORES } from '../vc4/chip.ts';
import type { Violation } from '../vc4/rules.ts';

export type EmulatorErrorKind =
  | 'rule' // a hardware rule broken (strict mode)
  | 'fault' // memory access outside the allocations, or a branch outside the program
  | 'deadlock' // every live QPU waits on another
  | 'budget' // the step budget ran out
  | 'unsupported' // a word or feature the emulator does not run (tile buffer, texture setup, ...)
  | 'invalid'; // a reserved encoding

export interface ErrorLocation {
  readonly qpu: number;
  /** Instruction index; the byte offset in the program is 8 times this. */
  readonly pc: number;
  /** The instruction as assembly. */
  readonly instruction: string;
}

/** A QPU that waits in a deadlock: where, and for what. */
export interface BlockedQpu {
  readonly qpu: number;
  readonly pc: number;
  /** "semaphore 3 to be above 0 (it is 0)", "the mutex, held by QPU 0". */
  readonly waitingFor: string;
  /** The semaphore it waits on (0-15), or undefined when it waits for the mutex. */
  readonly semaphore?: number;
}

export class EmulatorError extends Error {
  constructor(
    readonly kind: EmulatorErrorKind,
    message: string,
    readonly where?: ErrorLocation,
    /** The rule's name (rules.ts) when kind is 'rule'. */
    readonly rule?: string,
    /** In a deadlock: every QPU that waits. */
    readonly blocked?: readonly BlockedQpu[],
    /** In a deadlock: the QPUs that had ended their program. */
    readonly finished?: readonly number[],
  ) {
    super(where ? `QPU ${where.qpu}, pc ${where.pc} (${where.instruction}): ${message}` : message);
    this.name = 'EmulatorError';
  }
}

/** An I/O error without a location; the run loop adds QPU, pc and the instruction. */
export function ioError(kind: 'fault' | 'unsupported' | 'rule' | 'deadlock', message: string, rule?: string): EmulatorError {
  // A broken rule is tagged with its name, as the validator's and strict mode's findings are.
  return new EmulatorError(kind, kind === 'rule' && rule ? `[${rule}] ${message}` : message, undefined, rule);
}

/** A broken hardware rule (strict runs), without a location. */
export function ruleError(v: Violation): EmulatorError {
  return new EmulatorError('rule', `[${v.rule}] ${v.message}`, undefined, v.rule);
}

/** What deadlockError reads of each QPU. */
interface QpuAt {
  readonly id: number;
  readonly pc: number;
  readonly state: string;
  readonly waitingFor: string;
  /** A semaphore's number (0-15), or SEMAPHORES for the mutex. */
  readonly waitingOn: number;
}

/** A deadlock: every QPU in order, those that have ended and where each other waits and for what. */
export function deadlockError(qpus: readonly QpuAt[]): EmulatorError {
  const blocked = qpus
    .filter((x) => x.state === 'blocked')
    .map((x) => ({ qpu: x.id, pc: x.pc, waitingFor: x.waitingFor, ...(x.waitingOn < SEMAPHORES ? { semaphore: x.waitingOn } : {}) }));
  const finished = qpus.filter((x) => x.state === 'done').map((x) => x.id);
  const each = qpus.map((x) => (x.state === 'done' ? `QPU ${x.id} finished` : `QPU ${x.id} at pc ${x.pc} waits for ${x.waitingFor}`));
  return new EmulatorError('deadlock', `deadlock: every QPU still running waits on another. ${each.join('; ')}`, undefined, undefined, blocked, finished);
}
