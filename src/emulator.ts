// The package's `qpu-ts/emulator` entry point: the machine-code emulator on its own (docs/
// emulator.md), for machine code from the assembler or anywhere else: load words into a
// Machine, give each QPU a uniform stream in its GPU memory, run, read the cycle model's figures.

export { Machine, MAX_QPUS } from './emulator/machine.ts';
export type { LoadedProgram, MachineRunOptions, RunResult } from './emulator/machine.ts';
export { BUS_BASE, GpuMemory, GpuMemoryFull, GpuMemoryLost, MemoryFault } from './common/memory.ts';
export type { Allocation } from './common/memory.ts';
export { EmulatorError } from './emulator/errors.ts';
export type { BlockedQpu, EmulatorErrorKind, ErrorLocation } from './emulator/errors.ts';
export { CYCLES_PER_INSTR, PI_TIMING } from './emulator/timing.ts';
export type { Timing } from './emulator/timing.ts';
