// Random interleavings: a run whose QPUs take turns in an order drawn from a seed, instead of the
// target's fixed order (the interpreter's round robin, the emulator's time order). A program
// whose result depends on how its QPUs interleave (a race) then shows it for some seeds, as it
// might on a chip, where the order depends on everything else the GPU does. The same seed gives
// the same interleaving and the same result. Quasar's debugger offers the same idea ("mimic
// parallel execution").
//
// A schedule says which ready QPU runs next, and how long its turn is: the interpreter switches
// at statement boundaries, the emulator before an instruction that uses a shared unit (the only
// instructions another QPU can observe), after a random number of cycles.

/** The largest seed: seeds are 32-bit unsigned integers. */
export const MAX_SEED = 0xffffffff;

/**
 * How often a turn ends, chosen per run from the seed: after about 1, 3 or 16 statements (the
 * interpreter), or before the first shared-unit instruction after about 0, 8 or 64 cycles (the
 * emulator). Short turns find races between neighbouring statements; long ones, races between
 * phases of a program.
 */
const TURN_STATEMENTS = [1, 3, 16] as const;
const TURN_CYCLES = [0, 8, 64] as const;

export class Interleaving {
  private state: number;
  private readonly statements: number;
  private readonly cycles: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
    this.statements = TURN_STATEMENTS[this.next() % TURN_STATEMENTS.length]!;
    this.cycles = TURN_CYCLES[this.next() % TURN_CYCLES.length]!;
  }

  /** mulberry32 (as the program generator's): 32 random bits. */
  private next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** One of 0 .. n-1, uniformly. */
  pick(n: number): number {
    return this.next() % n;
  }

  /** Interpreter: whether the running QPU's turn ends at this statement (about one in `statements`). */
  switchNow(): boolean {
    return this.statements === 1 || this.next() % this.statements === 0;
  }

  /** Emulator: the cycles a turn lasts before the QPU stops at a shared-unit instruction (0 to twice the run's mean). */
  turnCycles(): number {
    return this.cycles === 0 ? 0 : this.next() % (2 * this.cycles + 1);
  }
}

/** A QPU drawn uniformly from those running (none: undefined), for the emulator's next turn. */
export function drawRunning<Q extends { readonly state: string }>(qpus: readonly Q[], turns: Interleaving): Q | undefined {
  let running = 0;
  for (const x of qpus) if (x.state === 'running') running++;
  if (running === 0) return undefined;
  let k = turns.pick(running);
  for (const x of qpus) if (x.state === 'running' && k-- === 0) return x;
  return undefined;
}

/** An interleave option as given (anything, from JavaScript too): undefined, or a seed; else the reason it is not one. */
export function interleaveSeed(x: unknown): number | undefined | { error: string } {
  if (x === undefined) return undefined;
  if (typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= MAX_SEED) return x;
  return { error: `interleave must be a seed, a whole number from 0 to ${MAX_SEED}` };
}
