// Lowering the meetings of QPUs (source/qpus.ts gives their meaning): barrier() and the
// operations across QPUs (sumQPUs ... scanQPUs).
// Needs: a lowering to emit into (lower.ts), the frame's VPM setups (frame.ts), the QPU count
// N the code is compiled for, and the two semaphores the kernel leaves free (meetingSemaphores).
// Guarantees: no QPU passes a barrier before every QPU has reached it, and a barrier can be
// reached again at once, any number of times; after a combine, v holds on every QPU the QPUs'
// values combined in QPU order (with `scan`, this QPU's prefix). A barrier waits for this QPU's
// DMA stores first, so memory holds them when another QPU goes on.
//
// The barrier: QPU 0 counts the others' arrivals on semaphore A, releases them on B, counts
// their acknowledgements on A and releases them again on D:
//   QPU 0:  down A, N-1 times; up B, N-1 times; down A, N-1 times; up D, N-1 times
//   others: up A; down B; up A; down D
// One round (up A, down B) is not enough to reuse: a QPU released early can reach the next
// barrier and take a B meant for a QPU not yet released from this one, which then waits for
// ever. With the second round, no QPU leaves a barrier before every QPU has taken its B, and
// none leaves the next one's first round before all have taken their D. A is the end-of-kernel
// barrier's semaphore (frame.ts): a QPU reaches the end only after its last release, when QPU 0
// has counted every arrival and acknowledgement of the last barrier. The counts stay within the
// chip's 4-bit semaphores (Guide p. 33: at most 11 ups pending on 12 QPUs).
//
// A combine: each QPU writes v to its store row of the VPM (the first of its block; vpm-rows.ts), a
// barrier, then each reads the rows in QPU order, one VPM read setup and one read a row (a
// read's sequence, which spill.ts keeps whole), and combines them; a last barrier keeps the
// rows until every QPU has read them.

import { reduceImpl } from '../source/lanes.ts';
import type { Frame } from './frame.ts';
import { int, type IrInstr, p, type Reg, type Src, type VReg, type WriteCond } from './ir.ts';
import { VPM_READ_ROW, VPM_ROW_SHIFT } from './lower-words.ts';
import { storeRowOf } from './vpm-rows.ts';
import { BARRIER_SEMAPHORE, type ReduceOp } from '../source/ast.ts';
import type { BranchCondition } from '../vc4/tables.ts';

/** What the meetings need of a lowering. */
export interface QpusEmitter {
  label(what: string): string;
  emit(i: IrInstr): void;
  alu(code: string, dst: Reg, a: Src, b?: Src, extra?: { cond?: WriteCond; setf?: boolean }): void;
  mov(dst: Reg, src: Src, cond?: WriteCond): void;
  branch(cond: BranchCondition, label: string): void;
  fresh(): VReg;
  word(bits: number): Src;
  waitForStores(): void;
  /** Waits for non-blocking stores still under way, in kernels that have any. */
  storesFinished(): void;
}

/** How a lowering meets the other QPUs: the QPU count and the release semaphores. */
export interface Meetings {
  readonly qpus: number;
  readonly release: readonly [number, number];
}

export function lowerBarrier(l: QpusEmitter, f: Frame, m: Meetings): void {
  if (m.qpus === 1) return;
  l.storesFinished();
  const [b, d] = m.release;
  const others = l.label('arrive');
  const done = l.label('released');
  const sema = (down: boolean, n: number, times: number) => {
    for (let i = 0; i < times; i++) l.emit({ op: 'sema', down, n });
  };
  l.alu('or', p('nop'), f.qpu, f.qpu, { setf: true });
  l.branch('anynz', others);
  for (const release of [b, d]) {
    sema(true, BARRIER_SEMAPHORE, m.qpus - 1);
    sema(false, release, m.qpus - 1);
  }
  l.branch('always', done);
  l.emit({ op: 'label', name: others });
  for (const release of [b, d]) {
    sema(false, BARRIER_SEMAPHORE, 1);
    sema(true, release, 1);
  }
  l.emit({ op: 'label', name: done });
}

export function lowerCombine(l: QpusEmitter, f: Frame, m: Meetings, v: VReg, op: ReduceOp, ty: 'int' | 'float', scan?: 'inclusive' | 'exclusive'): void {
  if (m.qpus === 1) {
    if (scan === 'exclusive') l.mov(v, int(0));
    return;
  }
  const code = reduceImpl(op, ty).lower;
  if (typeof code !== 'string') throw new Error(`internal: ${op} on ${ty}s is not one ALU operation`);
  l.waitForStores(); // the store row has left for memory
  l.mov(p('vw_setup'), f.vpmSetup);
  l.mov(p('vpm'), v);
  lowerBarrier(l, f, m);
  // Rows 0 .. last: an exclusive prefix never takes the last QPU's.
  const last = scan === 'exclusive' ? m.qpus - 2 : m.qpus - 1;
  if (scan === 'exclusive') l.mov(v, int(0));
  for (let r = 0; r <= last; r++) {
    l.mov(p('vr_setup'), l.word(VPM_READ_ROW + (storeRowOf(r, m.qpus) << VPM_ROW_SHIFT)));
    const t = l.fresh();
    l.mov(t, p('vpm'));
    // A prefix takes row r where this QPU's number is at least r (inclusive) or above it: N clear.
    const from = scan === 'inclusive' ? r : scan === 'exclusive' ? r + 1 : 0;
    const cond: WriteCond | undefined = from > 0 ? 'nc' : undefined;
    if (cond) l.alu('sub', p('nop'), f.qpu, int(from), { setf: true });
    if (r === 0) l.mov(v, t, cond);
    else l.alu(code, v, v, t, cond ? { cond } : {});
  }
  lowerBarrier(l, f, m);
}
