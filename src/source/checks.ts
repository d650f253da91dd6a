// Assertions in kernels: what a failing `assert(cond, message, values)` reports, on every target.
// The interpreter stops at the first QPU and statement where the condition fails in a lane (in
// a Where, a lane the Where keeps); compiled code records each failing QPU's first failure in
// memory and ends that QPU's run (compiler/lower-checks.ts), and the host reads the records
// (runtime/assertions.ts). Either way the error is a KernelAssertionError: the kernel, where
// the assertion is, its message, and for each QPU that failed, the lanes and the named values
// in them.

import type { Stmt, Ty } from './ast.ts';

export type AssertStmt = Extract<Stmt, { k: 'assert' }>;

/** One QPU's failure: the lanes where the condition failed, and each named value's 16 lanes. */
export interface AssertFailure {
  readonly qpu: number;
  readonly lanes: readonly number[];
  readonly values: readonly Int32Array[];
}

const floatOf = (bits: number) => new Float32Array(new Int32Array([bits]).buffer)[0]!;

/** A lane's value as the language shows it: an Int as an integer, a Float as a number. */
function shown(ty: Ty, bits: number): string {
  return ty === 'float' ? String(floatOf(bits)) : isPtrTy(ty) ? `0x${(bits >>> 0).toString(16)}` : String(bits | 0);
}
const isPtrTy = (ty: Ty) => ty.endsWith('*');

/** One QPU's failure as the report shows it, for comparing targets: the assertion, where, and the QPU's line. */
export interface AssertRecord {
  readonly qpu: number;
  readonly at: string;
  readonly assertion: string;
  readonly line: string;
}

export class KernelAssertionError extends Error {
  /** Every QPU's first failure the run recorded (the message shows those of one assertion). */
  records: readonly AssertRecord[] = [];
  constructor(
    readonly kernel: string,
    /** Where the assertion is (file:line:col), and the assertion as the dumps print it. */
    readonly at: string,
    readonly assertion: string,
    /** The assertion's message, if it has one. */
    readonly text: string | undefined,
    readonly failures: readonly AssertFailure[],
    names: readonly string[],
    types: readonly Ty[],
  ) {
    const each = failures.map((f) => {
      const each = (j: number) => {
        const vs = f.lanes.map((l) => shown(types[j]!, f.values[j]![l]!));
        return vs.length > 1 && vs.every((v) => v === vs[0]) ? `${vs[0]} (in each)` : vs.join(' ');
      };
      const vals = names.map((n, j) => `${n} = ${each(j)}`);
      return `QPU ${f.qpu}, lane${f.lanes.length > 1 ? 's' : ''} ${f.lanes.join(' ')}${vals.length ? `: ${vals.join('; ')}` : ''}`;
    });
    super(`kernel ${kernel}: assertion failed${at ? ` at ${at}` : ''}, \`${assertion}\`${text ? `: ${text}` : ''}\n  ${each.join('\n  ')}`);
    this.name = 'KernelAssertionError';
    this.records = failures.map((f, i) => ({ qpu: f.qpu, at, assertion, line: each[i]! }));
  }
}

/** The error for `s`'s failures. */
export function assertionError(kernel: string, s: AssertStmt, assertion: string, failures: readonly AssertFailure[]): KernelAssertionError {
  return new KernelAssertionError(kernel, s.loc ?? '', assertion, s.message, failures, s.names, s.values.map((v) => v.ty));
}

/** The statements of kind `k` (assertions, prints) among statements, at any depth, in order. */
export function statementsIn<K extends 'assert' | 'print'>(ss: readonly Stmt[], k: K, out: Extract<Stmt, { k: K }>[] = []): Extract<Stmt, { k: K }>[] {
  for (const s of ss) {
    if (s.k === k) out.push(s as Extract<Stmt, { k: K }>);
    const blocks = s.k === 'if' || s.k === 'where' ? [s.then, s.else] : s.k === 'while' ? [s.body] : s.k === 'for' ? [s.body, s.step] : [];
    for (const b of blocks) statementsIn(b, k, out);
  }
  return out;
}

// ---- print(label, x, ...)

export type PrintStmt = Extract<Stmt, { k: 'print' }>;

/** Rows of 16 words each QPU's printed values may fill; a print takes one row for itself and one per value. */
export const PRINT_ROWS = 64;

/** One print a QPU ran: the statement and its values' 16 lanes each. */
export interface Printed {
  readonly s: PrintStmt;
  readonly values: readonly Int32Array[];
}

/** What a QPU printed: the prints kept (those that fit PRINT_ROWS), and how many ran in all. */
export interface PrintLog {
  readonly kept: Printed[];
  ran: number;
}

/** Rows a print takes in its QPU's log. */
export const printRows = (s: PrintStmt) => 1 + s.values.length;

/** Adds a print to a QPU's log: kept while it fits (as compiled code keeps it: lower-checks.ts). */
export function logPrint(log: PrintLog, rowsUsed: number, p: Printed): number {
  log.ran++;
  const rows = printRows(p.s);
  if (rowsUsed + rows <= PRINT_ROWS) log.kept.push(p);
  return rowsUsed + rows;
}

/** The lines the host shows for the QPUs' logs, QPU after QPU, each in its program order. */
export function printedLines(logs: readonly PrintLog[]): string[] {
  const out: string[] = [];
  logs.forEach((log, q) => {
    for (const p of log.kept) {
      // A value the same in every lane shows once.
      const lanes = (v: Int32Array, j: number) => (v.every((x) => x === v[0]) ? `${shown(p.s.values[j]!.ty, v[0]!)} (every lane)` : Array.from(v, (bits) => shown(p.s.values[j]!.ty, bits)).join(' '));
      const vals = p.values.map((v, j) => `${p.s.names[j] ? `${p.s.names[j]} = ` : ''}${lanes(v, j)}`);
      out.push(`QPU ${q}: ${p.s.label}${vals.length ? `: ${vals.join('; ')}` : ''}`);
    }
    const dropped = log.ran - log.kept.length;
    if (dropped) out.push(`QPU ${q}: ${dropped} more print${dropped > 1 ? 's' : ''} dropped (each QPU keeps ${PRINT_ROWS} rows: a row a print and one a value)`);
  });
  return out;
}

/** For an error's message: what the QPUs printed before the run stopped ('' if nothing). */
export function printedBefore(logs: readonly PrintLog[]): string {
  const lines = printedLines(logs);
  return lines.length ? `\nprinted before the run stopped:\n  ${lines.join('\n  ')}` : '';
}
