// How the reference interpreter's QPUs take turns. Each QPU's run is a generator that yields
// when the QPU must wait for another (a semaphore, the mutex) or, in a random interleaving, when
// its turn ends. In turn (the default): QPU 0, 1, ..., wrapping round, each until it ends or
// waits, so every run is the same. Interleaved: a QPU drawn at random from those that can go on
// (common/interleave.ts), until its turn ends at a random statement, it waits or it ends. In
// both, a run where every QPU still running waits and none can go on is a deadlock.

import type { Interleaving } from '../common/interleave.ts';

/** Why a QPU cannot go on: it waits for another QPU. */
export interface Wait {
  readonly what: string;
}

/** What a QPU yields in a random interleaving when its turn ends: it could go on. */
export const TURN_ENDS: Wait = { what: 'its turn' };

/** What the turns read and keep of a QPU. */
export interface Turn {
  readonly id: number;
  /** Statements run so far: a QPU whose count grew has gone on. */
  readonly steps: number;
  done: boolean;
  /** What it waits for, when it last stopped to wait. */
  waiting: Wait | undefined;
  /** Interleaved: it waits, and no QPU has gone on since it last tried. */
  stuck: boolean;
}

/** Runs a QPU on until it yields (a wait, or its turn's end) or ends. */
export type Resume = (q: Turn) => IteratorResult<Wait, unknown>;

/** The QPUs in turn, each until it ends or waits, until all end; `deadlock` when none can go on. */
export function inTurn(qpus: readonly Turn[], resume: Resume, deadlock: () => Error): void {
  for (;;) {
    let progressed = false;
    let live = 0;
    for (const q of qpus) {
      if (q.done) continue;
      live++;
      const before = q.steps;
      const r = resume(q);
      if (r.done) {
        q.done = true;
        progressed = true;
      } else {
        q.waiting = r.value;
        if (q.steps !== before) progressed = true;
      }
    }
    if (live === 0) return;
    if (!progressed) throw deadlock();
  }
}

/**
 * A random interleaving: a QPU drawn from those that can go on runs until its turn ends, it
 * waits or it ends. One that waits is retried once some QPU has gone on since; when every QPU
 * still running waits and none has, it is a deadlock.
 */
export function interleaved(qpus: readonly Turn[], resume: Resume, turns: Interleaving, deadlock: () => Error): void {
  for (;;) {
    let ready = 0;
    for (const q of qpus) if (!q.done && !q.stuck) ready++;
    if (ready === 0) {
      if (qpus.every((q) => q.done)) return;
      throw deadlock();
    }
    let k = turns.pick(ready);
    const q = qpus.find((x) => !x.done && !x.stuck && k-- === 0)!;
    const before = q.steps;
    const r = resume(q);
    if (r.done) q.done = true;
    else q.waiting = r.value === TURN_ENDS ? undefined : r.value;
    if (r.done || q.steps !== before) for (const x of qpus) x.stuck = false;
    else if (q.waiting) q.stuck = true;
  }
}
