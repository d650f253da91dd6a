// `qpu asm`: assemble a .qasm file to machine code.

import { AsmError, assemble, MAX_ERRORS } from '../vc4/asm/assembler.ts';
import { decodeProgram, formatWord, programToBytes } from '../vc4/codec.ts';
import { type Command, CliError, EXIT, exitHelp, onePositional, parse, readInput, refuseOverwrite, SYNTAX_HELP, SYNTAX_OPTION, syntaxOf, writeOutput } from './io.ts';

export const asmCommand: Command = {
  name: 'asm',
  summary: 'assemble QPU assembly to machine code',
  help: `usage: qpu asm IN.qasm -o OUT.bin [--syntax series]
       qpu asm IN.qasm --hex

Assembles IN.qasm (syntax: docs/asm.md). With -o, writes the 64-bit instructions to OUT.bin,
each little-endian with the low 32-bit word first, the layout a Raspberry Pi loads. With --hex,
prints one instruction a line as 0xHIGHWORD_LOWWORD instead.

Errors are printed as file:line:col and no output file is written. OUT.bin may not be IN.qasm
itself (under any name).

options:
  -o, --output FILE   write the machine code to FILE
      --hex           print the words instead of writing a file
${SYNTAX_HELP}
  -h, --help          this text

${exitHelp('the source has errors')}`,
  run(args, io) {
    const { values, positionals } = parse(args, {
      output: { type: 'string', short: 'o' },
      hex: { type: 'boolean' },
      ...SYNTAX_OPTION,
    });
    const syntax = syntaxOf(values.syntax);
    const input = onePositional(positionals, 'assembly file');
    if (values.output === undefined && !values.hex) throw new CliError('say where the code goes: -o OUT.bin, or --hex to print it');
    if (values.output !== undefined) refuseOverwrite(input, values.output);
    const text = new TextDecoder().decode(readInput(io, input));
    let words: Uint32Array;
    try {
      words = assemble(text, { file: input, syntax }).words;
    } catch (e) {
      if (e instanceof AsmError) {
        io.err(e.message + '\n');
        const n = e.diagnostics.length;
        const more = n >= MAX_ERRORS ? ` (assembly stops at the first ${MAX_ERRORS})` : '';
        io.err(`qpu asm: ${n} error${n > 1 ? 's' : ''}${more}; no output written\n`);
        return EXIT.INPUT;
      }
      throw e;
    }
    if (values.hex) {
      const lines = decodeProgram(words).map((_, i) => formatWord(words[2 * i + 1]!, words[2 * i]!));
      io.out(lines.join('\n') + (lines.length ? '\n' : ''));
    }
    if (values.output !== undefined) writeOutput(io, values.output, programToBytes(words));
    return EXIT.OK;
  },
};
