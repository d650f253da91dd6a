// The emulator target: compiled kernels run on the machine-code emulator (src/emulator), in the
// GPU memory their arrays live in. Each QPU's uniform stream is its number, the QPU count, the
// address of scratch memory when the code spills registers there, then the kernel's arguments
// (docs/compiler.md, "Calling convention"). Programs are copied into GPU
// memory once per machine and the uniform streams reuse one buffer, so running a kernel many
// times does not use up GPU memory. The arrays are named by the kernel's parameters in faults.

import type { Compiled } from '../compiler/compile.ts';
import { type LoadedProgram, Machine, type RunOptions, type RunResult } from '../emulator/machine.ts';
import { type Allocation, type GpuMemory, type Grant, READ_WRITE, UNIFORMS } from '../emulator/memory.ts';
import { PI_TIMING, type Timing } from '../emulator/timing.ts';

export interface EmulateOptions {
  /** Instructions all QPUs may execute in total before the run stops (default 200 million). */
  readonly maxSteps?: number;
  /** Stop at the first broken hardware rule (default true). */
  readonly strict?: boolean;
  /** Hears how far a long run has got (instructions, the cycle model's clock): Machine.run's onProgress. */
  readonly onProgress?: RunOptions['onProgress'];
  /** How the budget's messages say to allow more (Machine.run's raiseWith). */
  readonly raiseWith?: string;
  /** A seed: the QPUs run in a random interleaving drawn from it (Machine.run's interleave). */
  readonly interleave?: number;
}

/** An array a kernel is given: the parameter's name, and where the array is. */
export interface ArrayArg {
  readonly name: string;
  readonly address: number;
  readonly bytes: number;
}

/** A machine bound to one GPU memory, with the programs it has loaded. */
export class EmulatorTarget {
  readonly machine: Machine;
  private readonly loaded = new WeakMap<Compiled, LoadedProgram>();
  private uniforms: Allocation | undefined;
  private scratch: Allocation | undefined;

  constructor(
    readonly memory: GpuMemory,
    timing: Timing = PI_TIMING,
  ) {
    this.machine = new Machine(memory, timing);
  }

  /**
   * Runs compiled code on `c.qpus` QPUs with these argument values (ints, float bits, addresses).
   * The code reaches only `arrays` (read and write), its uniforms (as its uniform stream only) and
   * its scratch memory (cleared first):
   * any other access is a fault that names the arrays it was given.
   */
  run(c: Compiled, args: readonly number[], arrays: readonly ArrayArg[], opts: EmulateOptions = {}): RunResult {
    let prog = this.loaded.get(c);
    if (!prog) {
      prog = this.machine.load(c.words, `code of ${c.kernel}`);
      this.loaded.set(c, prog);
    }
    const per = c.uniformsBeforeArgs + args.length;
    const bytes = Math.max(4, c.qpus * per * 4);
    if (!this.uniforms || this.uniforms.bytes < bytes) {
      if (this.uniforms) this.memory.free(this.uniforms);
      this.uniforms = this.memory.alloc(Math.max(bytes, 4096), 'uniforms');
    }
    if (c.scratchBytes && (!this.scratch || this.scratch.bytes < c.scratchBytes)) {
      if (this.scratch) this.memory.free(this.scratch);
      this.scratch = this.memory.alloc(c.scratchBytes, 'spilled registers');
    }
    // Scratch memory is shared by the kernels this target runs: cleared, so that no run sees another's registers.
    if (c.scratchBytes) this.memory.view(this.scratch!, Int32Array).fill(0);
    const before = c.uniformsBeforeArgs === 3 ? [this.scratch!.address] : [];
    const base = this.uniforms.address;
    const addrs: number[] = [];
    for (let q = 0; q < c.qpus; q++) {
      const at = base + q * per * 4;
      const words = [q, c.qpus, ...before, ...args];
      words.forEach((w, i) => this.memory.writeWord(at + 4 * i, w | 0));
      addrs.push(at);
    }
    const grants: Grant[] = [
      ...arrays.map((a) => ({ ...a, access: READ_WRITE })),
      // The uniform stream only: a load or gather through a pointer cannot read it (it holds other runs' arguments).
      { name: 'uniforms', address: this.uniforms.address, bytes: this.uniforms.bytes, access: UNIFORMS, internal: true },
    ];
    if (c.scratchBytes) grants.push({ name: 'scratch', address: this.scratch!.address, bytes: this.scratch!.bytes, access: READ_WRITE, internal: true });
    this.memory.restrict(grants, `kernel ${c.kernel}`);
    try {
      const { maxSteps, strict = true, onProgress, raiseWith, interleave } = opts;
      // Strict runs hold a kernel to the language's whole aligned words, as the interpreter does.
      return this.machine.run(prog, addrs, { maxSteps, strict, onProgress, raiseWith, interleave, aligned: strict });
    } finally {
      this.memory.unrestrict();
    }
  }
}
