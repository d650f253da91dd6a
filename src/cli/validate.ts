// `qpu validate`: check a program against the hardware's instruction rules.

import { AsmError, assemble } from '../vc4/asm/assembler.ts';
import { disassembleInstr } from '../vc4/asm/disasm.ts';
import type { Instr } from '../vc4/instr.ts';
import { decodeProgram, ProgramSizeError } from '../vc4/codec.ts';
import { RULES } from '../vc4/rules.ts';
import { validate } from '../vc4/validate.ts';
import { type Command, CliError, EXIT, exitHelp, onePositional, parse, readInput, shown, SYNTAX_HELP, SYNTAX_OPTION, syntaxOf, isAssembly } from './io.ts';
import { readProgram } from './disasm.ts';

export const validateCommand: Command = {
  name: 'validate',
  summary: "check a program against the hardware's instruction rules",
  help: `usage: qpu validate IN.bin
       qpu validate IN.qasm
       qpu validate --rules

Reports every violation of the VideoCore IV instruction restrictions (Broadcom's reference
guide, "Summary of Instruction Restrictions", and rules found on real chips) with the
instruction index, the rule's name and the instruction. A .qasm, .asm or .s file, or any file
given with --syntax, is assembled first and findings also name its file:line. Warnings do not
fail.

options:
      --rules       list the rules with their sources
${SYNTAX_HELP}
  -h, --help        this text

${exitHelp("a rule is broken (an error; warnings do not fail), the assembly has\n     errors, or IN.bin's size is not a whole number of instructions")}`,
  run(args, io) {
    const { values, positionals } = parse(args, { rules: { type: 'boolean' }, ...SYNTAX_OPTION });
    const syntax = syntaxOf(values.syntax);
    if (values.rules) {
      for (const [name, r] of Object.entries(RULES)) io.out(`${name.padEnd(26)} ${r.severity.padEnd(8)}${r.summary}  [${r.source}]\n`);
      return EXIT.OK;
    }
    const path = onePositional(positionals, 'program');
    let instrs: Instr[];
    let lines: readonly number[] | undefined;
    if (isAssembly(path, values.syntax)) {
      try {
        const p = assemble(new TextDecoder().decode(readInput(io, path)), { file: path, syntax });
        instrs = p.instrs;
        lines = p.lines;
      } catch (e) {
        if (e instanceof AsmError) {
          io.err(e.message + '\n');
          return EXIT.INPUT;
        }
        throw e;
      }
    } else instrs = decodeProgram(readProgram(io, path));
    let findings;
    try {
      findings = validate(instrs);
    } catch (e) {
      if (e instanceof ProgramSizeError) throw new CliError(`${path}: ${e.message}`, EXIT.INPUT);
      throw e;
    }
    for (const f of findings) {
      const where = lines ? `${shown(path)}:${lines[f.index]}: ` : `${shown(path)}: `;
      io.out(`${where}instruction ${f.index}: ${f.severity} [${f.rule}] ${f.message}\n    ${disassembleInstr(instrs[f.index]!)}\n`);
    }
    const errors = findings.filter((f) => f.severity === 'error').length;
    io.out(
      `${shown(path)}: ${instrs.length} instructions, ${errors} error${errors === 1 ? '' : 's'}, ${findings.length - errors} warning${findings.length - errors === 1 ? '' : 's'}\n`,
    );
    return errors > 0 ? EXIT.INPUT : EXIT.OK;
  },
};
