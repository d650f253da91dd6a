// An instruction as the block translator and the run loop see it: decoded, with what it does
// (effects.ts), whether it touches what other QPUs see, and the hardware rules it breaks alone
// or after the two instructions before it on the fall-through. program.ts makes one per
// instruction that runs; blocks.ts and machine.ts read them.
// Needs: a decoded instruction and its effects. Guarantees: `shared` holds for every
// instruction whose effect or timing depends on another QPU, `sync` for semaphore and mutex
// steps, which the machine runs in order of clock.

import { type Effects } from '../vc4/effects.ts';
import { SIG_SMALL_IMM } from '../vc4/fields.ts';
import type { Instr } from '../vc4/instr.ts';
import { R_MUTEX, R_NOP, W_HOST_INT, W_MUTEX } from '../vc4/registers.ts';
import { instrViolations, sequenceViolations, type Violation } from '../vc4/rules.ts';
import { SIG_NONE } from '../vc4/tables.ts';

export interface Step {
  readonly instr: Instr;
  readonly effects: Effects;
  /** Touches state other QPUs see: runs only when no other QPU is more than SLACK earlier. */
  readonly shared: boolean;
  /** A semaphore or mutex access: runs only when this QPU is the earliest. */
  readonly sync: boolean;
  readonly nop: boolean;
  /** Rules broken by the instruction alone, and along the fall-through from the two before it. */
  readonly alone: Violation[];
  readonly fallThrough: Violation[];
}

/** The step of an instruction with effects `e`, after instructions with effects `before` (nearest first). */
export function makeStep({ instr, effects: e }: { instr: Instr; effects: Effects }, before: (Effects | undefined)[]): Step {
  return {
    instr,
    effects: e,
    shared: isShared(instr, e),
    sync: instr.kind === 'sema' || e.raddrs.includes(R_MUTEX) || e.waddrs.some((w) => w.addr === W_MUTEX),
    nop: isNop(instr),
    alone: instrViolations(e),
    fallThrough: sequenceViolations(e, before),
  };
}

/** Instructions whose effects other QPUs can see or that depend on shared units. */
function isShared(i: Instr, e: Effects): boolean {
  if (i.kind === 'sema') return true;
  if (e.vpmAny || e.peripherals.length > 0 || e.tmuLoads[0] + e.tmuLoads[1] > 0) return true;
  return e.waddrs.some((w) => w.addr === W_HOST_INT || w.addr === W_MUTEX) || e.raddrs.includes(R_MUTEX);
}

/** A nop: both opcodes nop, no signal, no register-file read (small immediates read none). */
function isNop(i: Instr): boolean {
  return i.kind === 'alu' && i.opAdd === 0 && i.opMul === 0 && (i.sig === SIG_NONE || i.sig === SIG_SMALL_IMM) && i.raddrA === R_NOP && (i.sig === SIG_SMALL_IMM || i.raddrB === R_NOP);
}
