// Operations across the QPUs of a run: `barrier()`, and the reductions and prefix sums of a
// value over the QPUs (sumQPUs, minQPUs, maxQPUs, andQPUs, orQPUs, scanQPUs). Their meaning, bit
// for bit, and the interpreter's meeting point.
//
// A barrier: no QPU goes on until every QPU of the run has reached one. An operation across QPUs
// is a barrier too; lane l of its result is the QPUs' lanes l combined in QPU order,
// ((v0 op v1) op v2) ..., on every QPU, with the chip's arithmetic (the rows of ops.ts), so float
// sums agree on every target. A prefix (scanQPUs, a sum) gives QPU q the sum of QPUs 0 to q
// (inclusive) or 0 to q - 1 (exclusive; +0 or 0 on QPU 0), in the same order. All QPUs must
// reach the same kind of meeting (a barrier, or the same operation on the same type) each time:
// otherwise the interpreter stops with both places, and compiled code would combine garbage.

import { BARRIER_SEMAPHORE, childBlocks, type KernelAst, type ReduceOp, type Stmt } from './ast.ts';
import { reduceImpl } from './lanes.ts';
import { LANES } from '../vc4/chip.ts';

export type Meeting = Extract<Stmt, { k: 'barrier' | 'combine' }>;

/** The language's name of an operation across QPUs (the DSL's function). */
export function meetingName(s: Meeting): string {
  if (s.k === 'barrier') return 'barrier';
  return s.scan ? 'scanQPUs' : `${s.op}QPUs`.replace(/^add/, 'sum');
}

/** QPU q's result of combining `values` (one vector per QPU, in QPU order). */
export function combineQPUs(op: ReduceOp, ty: 'int' | 'float', values: readonly Int32Array[], q: number, scan?: 'inclusive' | 'exclusive'): Int32Array {
  const fn = reduceImpl(op, ty).fn;
  const last = scan === 'inclusive' ? q : scan === 'exclusive' ? q - 1 : values.length - 1;
  if (last < 0) return new Int32Array(LANES); // an exclusive prefix on QPU 0: 0, +0.0
  const out = values[0]!.slice();
  for (let r = 1; r <= last; r++) {
    const v = values[r]!;
    for (let l = 0; l < LANES; l++) out[l] = fn(out[l]!, v[l]!) | 0;
  }
  return out;
}

/** What the kind of a meeting is: every QPU must reach the same kind. */
function kindOf(s: Meeting, ty: string | undefined): string {
  return s.k === 'barrier' ? 'barrier' : `${meetingName(s)}${s.scan === 'exclusive' ? ' exclusive' : ''} of ${ty}s`;
}

/**
 * The interpreter's meeting point: QPUs arrive (with their values), and all go on together once
 * the last has arrived. A QPU that has gone on cannot complete the next meeting before every
 * other has reached it, so the values of the last completed meeting stay until all have read them.
 */
export class MeetingPoint {
  private arrived = 0;
  private completed = 0;
  private first: { readonly s: Meeting; readonly kind: string; readonly qpu: number } | undefined;
  private values: Int32Array[] = [];
  /** Each QPU's value at the last completed meeting. */
  results: readonly Int32Array[] = [];

  constructor(private readonly qpus: number) {}

  /**
   * QPU `qpu` arrives at `s` with `value` (a combine's); gives the number of the meeting it
   * waits for, or the message when another QPU waits at a meeting of another kind.
   */
  arrive(qpu: number, s: Meeting, ty: string | undefined, value: Int32Array | undefined, where: (s: Stmt) => string): number | { error: string } {
    const kind = kindOf(s, ty);
    if (!this.first) this.first = { s, kind, qpu };
    else if (this.first.kind !== kind)
      return {
        error:
          `this is ${kind === 'barrier' ? 'a barrier' : `a ${kind}`}, but QPU ${this.first.qpu} waits at ${where(this.first.s)} (${this.first.kind === 'barrier' ? 'a barrier' : `a ${this.first.kind}`}): ` +
          `every QPU must reach the same operation across QPUs, in the same order`,
      };
    if (value) this.values[qpu] = value;
    const ticket = this.completed + 1;
    if (++this.arrived === this.qpus) {
      this.results = this.values;
      this.values = [];
      this.arrived = 0;
      this.first = undefined;
      this.completed = ticket;
    }
    return ticket;
  }

  /** Whether meeting `ticket` is complete. */
  passed(ticket: number): boolean {
    return this.completed >= ticket;
  }

  /** What a QPU waiting at the meeting waits for. */
  waitingFor(): string {
    return `every QPU to reach ${this.first?.kind === 'barrier' ? 'a barrier' : `the ${this.first?.kind ?? 'meeting'}`} (${this.arrived} of ${this.qpus} there)`;
  }
}

/** The first statement, at any depth, that meets the other QPUs (a barrier or an operation across QPUs). */
export function firstMeeting(ss: readonly Stmt[]): Meeting | undefined {
  for (const s of ss) {
    if (s.k === 'barrier' || s.k === 'combine') return s;
    for (const b of childBlocks(s)) {
      const m = firstMeeting(b);
      if (m) return m;
    }
  }
  return undefined;
}

/**
 * The two semaphores compiled barriers release the QPUs with (compiler/lower-qpus.ts): the
 * highest two the kernel's own semaInc and semaDec leave free (the end-of-kernel barrier's is
 * the arrivals'), or the message when it uses them all.
 */
export function meetingSemaphores(k: KernelAst): readonly [number, number] | { error: string } {
  const used = new Set<number>();
  const walk = (ss: readonly Stmt[]): void => {
    for (const s of ss) {
      if (s.k === 'sema') used.add(s.n);
      childBlocks(s).forEach(walk);
    }
  };
  walk(k.body);
  const free: number[] = [];
  for (let n = BARRIER_SEMAPHORE - 1; n >= 0 && free.length < 2; n--) if (!used.has(n)) free.push(n);
  if (free.length < 2)
    return { error: `barrier() and the operations across QPUs need two semaphores the kernel's semaInc and semaDec leave free; it uses ${used.size} of the ${BARRIER_SEMAPHORE}` };
  return [free[0]!, free[1]!];
}
