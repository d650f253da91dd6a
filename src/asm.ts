// The package's `qpu-ts/asm` entry point: VideoCore IV machine code as text and back. The
// assembler and disassembler (docs/asm.md), the validator of the hardware's instruction rules,
// and the 64-bit instruction codec they share with the compiler and the emulator.

export { AsmError, assemble, ASM_SYNTAXES, formatDiagnostic } from './vc4/asm/assembler.ts';
export type { AsmDiagnostic, AsmOptions, AsmProgram, AsmSyntax } from './vc4/asm/assembler.ts';
export { disassemble, disassembleInstr } from './vc4/asm/disasm.ts';
export type { DisasmOptions } from './vc4/asm/disasm.ts';
export { formatFinding, validate } from './vc4/validate.ts';
export type { Finding } from './vc4/validate.ts';
export { bytesToProgram, decodeProgram, encodeProgram, formatWord, MAX_PROGRAM_INSTRUCTIONS, programToBytes } from './vc4/codec.ts';
export type { AluInstr, BranchInstr, Instr, InstrKind, LoadImmInstr, SemaInstr } from './vc4/instr.ts';
