// Lowering assertions and prints (source/checks.ts gives their meaning).
// Needs: a lowering to emit into (lower.ts), the frame's store setups (frame.ts), and this QPU's
// failure record's address (the prologue computes it from the scratch memory's uniform).
// Guarantees: where the condition holds in every lane, the cost is its flags and one branch
// (with its delay slots); where it fails in a lane, the QPU writes its failure record and goes to
// the end of the kernel (its stores finished, QPU 0 waiting for the others as always), so that
// the host, reading the records after the run, reports the first assertion each QPU failed.
//
// The records: scratch memory starts with one record per QPU, recordRows(k) rows of 16 words for
// a kernel whose assertions show at most k values: row 0 holds the assertion's number + 1 in the
// lanes where it failed, 0 in the others; rows 1 .. k the values it shows. Then, in a kernel that
// prints, each QPU's log: a row whose lanes count the prints it ran, then PRINT_ROWS rows, filled
// in program order while they last, each print a row holding its number + 1 and a row a value.
// The runtime clears both before a run (runtime/assertions.ts reads them after it).

import type { Expr } from '../source/ast.ts';
import { type AssertStmt, PRINT_ROWS, printRows, type PrintStmt } from '../source/checks.ts';
import type { Frame } from './frame.ts';
import { int, type IrInstr, p, type Reg, type Src, type VReg } from './ir.ts';
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

/** Bytes of each QPU's print log: the count's row and PRINT_ROWS rows. */
export const LOG_BYTES = (1 + PRINT_ROWS) * ROW_BYTES;

/** A kernel's prints: this QPU's log, its rows used and its prints run (registers for the whole kernel). */
export class Prints {
  private readonly rows: VReg;
  private readonly ran: VReg;
  constructor(
    private readonly l: ChecksEmitter,
    private readonly f: Frame,
    /** This QPU's log's address. */
    private readonly log: VReg,
  ) {
    this.rows = l.fresh();
    this.ran = l.fresh();
    l.mov(this.rows, int(0));
    l.mov(this.ran, int(0));
  }

  print(s: PrintStmt, site: number): void {
    const l = this.l;
    l.alu('add', this.ran, this.ran, int(1));
    lowerStore(l, this.f, 'int*', this.log, this.ran, undefined, true);
    // Where the log has room for its rows (rows + n <= PRINT_ROWS: the same in every lane).
    const n = printRows(s);
    const full = l.label('logFull');
    l.alu('sub', p('nop'), this.rows, l.word(PRINT_ROWS - n + 1), { setf: true });
    l.branch('allnn', full);
    const offset = l.fresh();
    l.alu('shl', offset, this.rows, int(Math.log2(ROW_BYTES)));
    const at = l.fresh();
    l.alu('add', at, this.log, offset);
    const rows: Src[] = [l.word(site + 1), ...s.values.map((e) => l.expr(e))];
    rows.forEach((row, r) => {
      const to = l.fresh();
      l.alu('add', to, at, l.word((1 + r) * ROW_BYTES));
      lowerStore(l, this.f, 'int*', to, row, undefined, true);
    });
    l.emit({ op: 'label', name: full } as IrInstr);
    l.alu('add', this.rows, this.rows, l.word(n));
  }
}

/** This QPU's print log's address: after the failure records, `logBytes` apart. */
export function logAddress(l: MemoryEmitter, qpu: VReg, scratch: VReg, recordBytes: number): VReg {
  const offset = l.fresh();
  l.alu('mul24', offset, qpu, l.word(LOG_BYTES));
  const log = l.fresh();
  l.alu('add', log, scratch, offset);
  if (recordBytes) l.alu('add', log, log, l.word(recordBytes));
  return log;
}
