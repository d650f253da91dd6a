// `qpu disasm`: machine code back to assembly.

import { disassemble } from '../vc4/asm/disasm.ts';
import { bytesToProgram, checkProgramSize, ProgramBytesError, ProgramSizeError } from '../vc4/codec.ts';
import { type Command, CliError, EXIT, exitHelp, type Io, onePositional, parse, readInput } from './io.ts';

export const disasmCommand: Command = {
  name: 'disasm',
  summary: 'disassemble machine code to QPU assembly',
  help: `usage: qpu disasm IN.bin [--numeric] [--addresses]

Prints IN.bin (64-bit instructions, little-endian, low word first) as assembly, one
instruction a line, with labels at the targets of relative branches. The output assembles
back to the same words (qpu asm). A word the language cannot spell is printed as
.dword 0xHIGH_LOW with the reason in a comment.

options:
      --numeric     registers by number (ra32, rb48, ...) as the SHA-256 series writes them,
                    instead of readable names (unif, vpm, ...)
      --addresses   append each instruction's index and word as a comment
  -h, --help        this text

${exitHelp("IN.bin's size is not a whole number of instructions, or it has none or more\n     than 2^20 (8 MiB)")}`,
  run(args, io) {
    const { values, positionals } = parse(args, {
      numeric: { type: 'boolean' },
      addresses: { type: 'boolean' },
    });
    const words = readProgram(io, onePositional(positionals, 'machine-code file'));
    io.out(disassemble(words, { numeric: values.numeric ?? false, addresses: values.addresses ?? false }));
    return EXIT.OK;
  },
};

/**
 * Reads a machine-code file, with a clear error when its size is not a whole number of
 * instructions, or when it has none or more than MAX_PROGRAM_INSTRUCTIONS (codec.ts).
 */
export function readProgram(io: Io, path: string): Uint32Array {
  try {
    const words = bytesToProgram(readInput(io, path));
    checkProgramSize(words.length / 2);
    return words;
  } catch (e) {
    if (e instanceof ProgramBytesError || e instanceof ProgramSizeError) throw new CliError(`${path}: ${e.message}`, EXIT.INPUT);
    throw e;
  }
}
