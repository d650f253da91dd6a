// The assembler: QPU assembly text (docs/asm.md) to instructions and 64-bit words.
// Needs: source text. Guarantees: either every line became exactly one instruction, or an
// AsmError listing every error as file:line:col with what is wrong and what would be right.

import { encodeProgram } from '../codec.ts';
import type { Instr } from '../instr.ts';
import { BuildError, buildStatement, signalNumber } from './build.ts';
import { isRegisterName } from './names.ts';
import { type ParsedLine, parseLine, type Statement, SyntaxError_ } from './parse.ts';

export interface AsmDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

export function formatDiagnostic(d: AsmDiagnostic): string {
  return `${d.file}:${d.line}:${d.col}: error: ${d.message}`;
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

export interface AsmOptions {
  /** The file name that errors name. */
  readonly file?: string;
  /** Stop collecting after this many errors. */
  readonly maxErrors?: number;
}

/** Assembles a whole program. Throws AsmError with every error found. */
export function assemble(source: string, opts: AsmOptions = {}): AsmProgram {
  const file = opts.file ?? '<input>';
  const maxErrors = opts.maxErrors ?? 50;
  const diagnostics: AsmDiagnostic[] = [];
  const fail = (line: number, col: number, message: string) => {
    if (diagnostics.length < maxErrors) diagnostics.push({ file, line, col, message });
  };

  // Pass 1: parse every line and place the labels.
  const statements: { st: Statement; line: number }[] = [];
  const labels = new Map<string, number>();
  source.split(/\r?\n/).forEach((text, i) => {
    const line = i + 1;
    let parsed: ParsedLine;
    try {
      parsed = parseLine(text, signalNumber);
    } catch (e) {
      if (e instanceof SyntaxError_) return fail(line, e.col, e.message);
      throw e;
    }
    for (const l of parsed.labels) {
      if (labels.has(l.name)) fail(line, l.col, `label '${l.name}' is defined twice`);
      else if (isRegisterName(l.name) || l.name === 'ZERO')
        fail(line, l.col, `'${l.name}' is a register name and cannot be a label`);
      else labels.set(l.name, statements.length);
    }
    if (parsed.statement) statements.push({ st: parsed.statement, line });
  });

  // Pass 2: build each instruction now that every label is known.
  const instrs: Instr[] = [];
  statements.forEach(({ st, line }, pc) => {
    try {
      instrs.push(buildStatement(st, { labels, pc }));
    } catch (e) {
      if (e instanceof BuildError) return fail(line, e.col, e.message);
      throw e;
    }
  });
  if (diagnostics.length) throw new AsmError(diagnostics);
  return { instrs, words: encodeProgram(instrs), labels, lines: statements.map((s) => s.line) };
}

/**
 * Assembles one statement (no labels of its own) as instruction `pc` of a program with these
 * labels. The disassembler uses this to check that what it prints reads back the same.
 */
export function assembleStatement(text: string, pc = 0, labels: ReadonlyMap<string, number> = new Map()): Instr {
  const parsed = parseLine(text, signalNumber);
  if (!parsed.statement) throw new SyntaxError_('no instruction', 1);
  return buildStatement(parsed.statement, { labels, pc });
}
