// Lowering assertions (source/checks.ts gives their meaning).
// Needs: a lowering to emit into (lower.ts), the frame's store setups (frame.ts), and this QPU's
// failure record's address (the prologue computes it from the scratch memory's uniform).
// Guarantees: where the condition holds in every lane, the cost is its flags and one branch
// (with its delay slots); where it fails in a lane, the QPU writes its failure record and goes to
// the end of the kernel (its stores finished, QPU 0 waiting for the others as always), so that
// the host, reading the records after the run, reports the first assertion each QPU failed.
//
// The records: scratch memory starts with one record per QPU, RECORD_ROWS(k) rows of 16 words for
// a kernel whose assertions show at most k values: row 0 holds the assertion's number + 1 in the
// lanes where it failed, 0 in the others; rows 1 .. k the values it shows. The runtime clears
// them before a run (runtime/assertions.ts reads them after it).

import type { Expr } from '../source/ast.ts';
import type { AssertStmt } from '../source/checks.ts';
import type { Frame } from './frame.ts';
import { int, type IrInstr, type Reg, type Src, type VReg } from './ir.ts';
import { lowerStore, type MemoryEmitter } from './lower-memory.ts';
import type { TrueCode } from './lower-words.ts';
import type { Cond } from '../source/ast.ts';

/** Bytes of one row of a record: 16 words. */
export const ROW_BYTES = 64;

/** Rows of each QPU's failure record, for assertions showing at most `values` values. */
export const recordRows = (values: number) => 1 + values;

/** What assertions need of a lowering. */
export interface ChecksEmitter extends MemoryEmitter {
  readonly cond: { branchUnless(c: Cond, label: string): void; flags(b: AssertStmt['b']): TrueCode };
  expr(e: Expr): Src;
  mov(dst: Reg, src: Src, cond?: TrueCode): void;
}

/** The failure paths of a kernel's assertions, emitted after its body. */
export class Assertions {
  private readonly handlers: { s: AssertStmt; site: number; label: string }[] = [];
  constructor(
    private readonly l: ChecksEmitter,
    private readonly f: Frame,
    /** This QPU's record's address. */
    private readonly record: VReg,
  ) {}

  /** The check where the assertion stands: a branch to its failure path where some lane fails. */
  check(s: AssertStmt, site: number): void {
    const label = this.l.label('assertFailed');
    this.handlers.push({ s, site, label });
    this.l.cond.branchUnless({ k: 'all', b: s.b }, label);
  }

  /** The failure paths, each ending in a branch to `end`; jumped over on the way from the body. */
  emitHandlers(end: string, emit: (s: AssertStmt, body: () => void) => void): void {
    if (!this.handlers.length) return;
    const l = this.l;
    l.branch('always', end);
    for (const h of this.handlers)
      emit(h.s, () => {
        l.emit({ op: 'label', name: h.label } as IrInstr);
        // Row 0: the assertion's number + 1 where the condition fails.
        const t = l.cond.flags(h.s.b);
        const header = l.fresh();
        l.mov(header, l.word(h.site + 1));
        l.mov(header, int(0), t);
        const rows: Src[] = [header, ...h.s.values.map((e) => l.expr(e))];
        rows.forEach((row, r) => {
          const at = l.fresh();
          l.alu('add', at, this.record, l.word(r * ROW_BYTES));
          lowerStore(l, this.f, 'int*', at, row, undefined, true);
        });
        l.branch('always', end);
      });
  }
}

/** The scratch memory's uniform and this QPU's record address, for a kernel whose assertions show at most `values` values. */
export function recordAddress(l: MemoryEmitter, qpu: VReg, scratch: VReg, values: number): VReg {
  const record = l.fresh();
  const offset = l.fresh();
  l.alu('mul24', offset, qpu, l.word(recordRows(values) * ROW_BYTES));
  l.alu('add', record, scratch, offset);
  return record;
}
