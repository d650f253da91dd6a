// The semaphores and the mutex the QPUs share (Guide pp. 24, 33): their state, and for the cycle
// model when each unit a QPU can take became available. The machine (machine.ts) runs the
// instructions that use them in order of clock and wakes the QPUs that wait on them.
// Needs: the QPUs' steps in clock order. Guarantees: an operation either waits (false; the QPU
// says what for) or happens no earlier than the unit it takes became available.

import { SEMAPHORE_COUNT_MAX, SEMAPHORES } from '../vc4/chip.ts';
import { MUTEX_MISUSE } from '../vc4/rules.ts';
import { ioError } from './errors.ts';
import type { Qpu } from './qpu.ts';

/** What a blocked QPU waits on: a semaphore's number, or this for the mutex (the number after them). */
export const MUTEX = SEMAPHORES;

export class SyncUnits {
  /** Each semaphore's count. */
  readonly semaphores = new Uint8Array(SEMAPHORES);
  mutexHolder = -1;
  /**
   * When each unit of each semaphore became available: a count (taken by a down) at the up that
   * made it, a free place below SEMAPHORE_COUNT_MAX (taken by an up) at the down that made it.
   */
  private readonly counts: number[][] = [];
  private readonly room: number[][] = [];
  /** When the mutex was last released. */
  private mutexFreeAt = 0;

  /** Semaphores at 0, the mutex free (a run starts). */
  reset(): void {
    this.semaphores.fill(0);
    for (let n = 0; n < SEMAPHORES; n++) {
      this.counts[n] = [];
      this.room[n] = new Array<number>(SEMAPHORE_COUNT_MAX).fill(0);
    }
    this.mutexHolder = -1;
    this.mutexFreeAt = 0;
  }

  /**
   * A semaphore instruction (Guide p. 33): a down blocks at 0, an up at SEMAPHORE_COUNT_MAX; false (and
   * the QPU blocks) when it must wait. Otherwise it takes the earliest available unit (a count
   * for a down, room for an up), stalling until that unit became available, and makes one of the
   * other kind available at its own clock.
   */
  semaphore(q: Qpu, n: number, down: boolean): boolean {
    const from = down ? this.counts[n]! : this.room[n]!;
    if (from.length === 0) {
      q.waitingFor = `semaphore ${n} to ${down ? 'be above 0' : `be below ${SEMAPHORE_COUNT_MAX}`} (it is ${this.semaphores[n]})`;
      q.waitingOn = n;
      return false;
    }
    q.stall(takeEarliest(from), 'semaphore');
    (down ? this.room[n]! : this.counts[n]!).push(q.time);
    this.semaphores[n] = this.counts[n]!.length;
    return true;
  }

  /** Reading the mutex register (Guide p. 24): false when another QPU holds it. Taking it stalls until it was released. */
  mutexAcquire(q: Qpu): boolean {
    if (this.mutexHolder === q.id) throw ioError('rule', MUTEX_MISUSE['mutex-relock'], 'mutex-relock');
    if (this.mutexHolder !== -1) {
      q.waitingFor = `the mutex, held by QPU ${this.mutexHolder}`;
      q.waitingOn = MUTEX;
      return false;
    }
    q.stall(this.mutexFreeAt, 'mutex');
    this.mutexHolder = q.id;
    return true;
  }

  /** Writing the mutex register releases it. Only the holder may. */
  mutexRelease(q: Qpu): void {
    if (this.mutexHolder !== q.id) throw ioError('rule', MUTEX_MISUSE['mutex-unlock-unheld'], 'mutex-unlock-unheld');
    this.mutexHolder = -1;
    this.mutexFreeAt = q.time;
  }
}

/** Removes and returns the smallest of a few numbers. */
function takeEarliest(a: number[]): number {
  let k = 0;
  for (let i = 1; i < a.length; i++) if (a[i]! < a[k]!) k = i;
  const t = a[k]!;
  a[k] = a[a.length - 1]!;
  a.pop();
  return t;
}
