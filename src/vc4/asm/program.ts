// What both assemblers take and give: qpu-ts's syntax (assembler.ts) and the SHA-256 series'
// (series.ts), which assembler.ts hands a program to. Their options, the program they make,
// their errors as file:line:col, and the source text split into lines as an editor shows them.
// assembler.ts re-exports all of it: users import the assembler from there.

import type { Instr } from '../instr.ts';
import { oneLineEscaped } from './text.ts';

export interface AsmDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

/** `file:line:col: error: ...`, the file name escaped as user text is (a name may hold escape sequences or newlines). */
export function formatDiagnostic(d: AsmDiagnostic): string {
  return `${oneLineEscaped(d.file)}:${d.line}:${d.col}: error: ${d.message}`;
}

export class AsmError extends Error {
  constructor(readonly diagnostics: readonly AsmDiagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join('\n'));
    this.name = 'AsmError';
  }
}

export interface AsmProgram {
  readonly instrs: Instr[];
  /** Little-endian word pairs (low, high), ready to write to a file or GPU memory. */
  readonly words: Uint32Array;
  /** Instruction index of each label. */
  readonly labels: ReadonlyMap<string, number>;
  /** The 1-based source line of each instruction. */
  readonly lines: readonly number[];
}

/** Errors collected before the assembler stops, by default. */
export const MAX_ERRORS = 50;

export interface AsmOptions {
  /** The file name that errors name. */
  readonly file?: string;
  /** Stop collecting after this many errors. */
  readonly maxErrors?: number;
  /**
   * The dialect: qpu-ts's own (docs/asm.md, the default) or the SHA-256 series' assembler's,
   * bit for bit (series.ts).
   */
  readonly syntax?: AsmSyntax;
}

export const ASM_SYNTAXES = ['qpu-ts', 'series'] as const;
export type AsmSyntax = (typeof ASM_SYNTAXES)[number];

/**
 * The lines of a source text, one at a time (a huge text is never held twice): split at
 * `\r\n`, `\n` or a lone `\r` (old Mac files), so line numbers count what an editor shows. A
 * byte-order mark at the start is not part of line 1.
 */
export function* sourceLines(source: string): Generator<string> {
  const end = /\r\n|\n|\r/g;
  let start = source.startsWith('\uFEFF') ? 1 : 0;
  end.lastIndex = start;
  for (let m = end.exec(source); m; m = end.exec(source)) {
    yield source.slice(start, m.index);
    start = end.lastIndex;
  }
  yield source.slice(start);
}
