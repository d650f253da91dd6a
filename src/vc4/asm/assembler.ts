// The assembler: QPU assembly text (docs/asm.md) to instructions and 64-bit words.
// Needs: source text. Guarantees: either every line became exactly one instruction (and there
// is at least one), or an AsmError listing every error as file:line:col with what is wrong and
// what would be right. Any text, however long or strange, ends in one or the other in time
// linear in its length; nothing else is thrown.

import { encodeProgram, MAX_PROGRAM_INSTRUCTIONS, programSizeProblem } from '../codec.ts';
import type { Instr } from '../instr.ts';
import { BuildError, buildStatement, signalNumber } from './build.ts';
import { isRegisterName } from './names.ts';
import { type ParsedLine, parseLine, type Statement, SyntaxError_ } from './parse.ts';
import { assembleSeries } from './series.ts';
import { AsmError, type AsmDiagnostic, type AsmOptions, type AsmProgram, ASM_SYNTAXES, MAX_ERRORS, sourceLines } from './program.ts';
import { shown } from './text.ts';

export { AsmError, type AsmDiagnostic, type AsmOptions, type AsmProgram, ASM_SYNTAXES, type AsmSyntax, formatDiagnostic, MAX_ERRORS, sourceLines } from './program.ts';

/** Assembles a whole program. Throws AsmError with every error found (up to maxErrors). */
export function assemble(source: string, opts: AsmOptions = {}): AsmProgram {
  if (opts.syntax !== undefined && !(ASM_SYNTAXES as readonly string[]).includes(opts.syntax))
    throw new RangeError(`syntax ${String(opts.syntax)}: the syntaxes are ${ASM_SYNTAXES.join(' and ')}`);
  if (opts.syntax === 'series') return assembleSeries(source, opts);
  const file = opts.file ?? '<input>';
  const maxErrors = opts.maxErrors ?? MAX_ERRORS;
  const diagnostics: AsmDiagnostic[] = [];
  const fail = (line: number, col: number, message: string) => {
    if (diagnostics.length < maxErrors) diagnostics.push({ file, line, col, message });
  };
  const full = () => diagnostics.length >= maxErrors;

  // Pass 1: parse every line and place the labels.
  const statements: { st: Statement; line: number }[] = [];
  const labels = new Map<string, number>();
  let line = 0;
  for (const text of sourceLines(source)) {
    line++;
    if (full()) break;
    if (statements.length > MAX_PROGRAM_INSTRUCTIONS) {
      fail(line, 1, `${programSizeProblem(statements.length)}: the rest of the file is not read`);
      break;
    }
    let parsed: ParsedLine;
    try {
      parsed = parseLine(text, signalNumber);
    } catch (e) {
      if (e instanceof SyntaxError_) fail(line, e.col, e.message);
      else throw e;
      continue;
    }
    for (const l of parsed.labels) {
      if (labels.has(l.name)) fail(line, l.col, `label '${shown(l.name)}' is defined twice`);
      else if (isRegisterName(l.name) || l.name === 'ZERO')
        fail(line, l.col, `'${shown(l.name)}' is a register name and cannot be a label`);
      else labels.set(l.name, statements.length);
    }
    if (parsed.statement) statements.push({ st: parsed.statement, line });
  }
  if (statements.length === 0 && diagnostics.length === 0)
    fail(1, 1, 'no instructions: the program is empty (only blank lines, comments and labels); a QPU program needs at least one instruction');

  // Pass 2: build each instruction now that every label is known.
  const instrs: Instr[] = [];
  for (let pc = 0; pc < statements.length && !full(); pc++) {
    const { st, line } = statements[pc]!;
    try {
      instrs.push(buildStatement(st, { labels, pc }));
    } catch (e) {
      if (e instanceof BuildError) fail(line, e.col, e.message);
      else throw e;
    }
  }
  if (diagnostics.length) throw new AsmError(diagnostics.sort((x, y) => x.line - y.line || x.col - y.col));
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
