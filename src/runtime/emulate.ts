// The emulator target: compiled kernels run on the machine-code emulator (src/emulator), in the
// GPU memory their arrays live in. Each QPU's uniform stream is its number, the QPU count, the
// address of scratch memory when the code spills registers there, then the kernel's arguments
// (docs/compiler.md, "Calling convention"). Programs are copied into GPU memory once and the
// uniform streams reuse one buffer, so running a kernel many times does not use up GPU memory.
// A program's code is freed when its kernel is garbage-collected, or when the programs kept take
// more than CODE_SHARE of GPU memory (the least recently run first; one run again is copied in
// again), so making kernels in a loop does not use it up either. The arrays are named by the
// kernel's parameters in faults.

import { failedAssertions, printLogs } from './assertions.ts';
import { printedBefore, type PrintLog } from '../source/checks.ts';
import type { Compiled } from '../compiler/driver.ts';
import { type LoadedProgram, Machine, type MachineRunOptions, type RunResult } from '../emulator/machine.ts';
import { type Allocation, footprint, type GpuMemory, type Grant, READ_WRITE, UNIFORMS } from '../common/memory.ts';
import { PI_TIMING, type Timing } from '../emulator/timing.ts';
import type { SfuMode } from '../vc4/sfu-model.ts';
import type { PiModelName } from '../emulator/models.ts';
import type { Profiler } from '../emulator/profile.ts';

export interface EmulateOptions {
  /** Instructions all QPUs may execute in total before the run stops (default 200 million). */
  readonly maxSteps?: number;
  /** Stop at the first broken hardware rule (default true). */
  readonly strict?: boolean;
  /** Hears how far a long run has got (instructions, the cycle model's clock): Machine.run's onProgress. */
  readonly onProgress?: MachineRunOptions['onProgress'];
  /** How the budget's messages say to allow more (Machine.run's raiseWith). */
  readonly raiseWith?: string;
  /** A seed: the QPUs run in a random interleaving drawn from it (Machine.run's interleave). */
  readonly interleave?: number;
  /** The SFU's results: correctly rounded (default), or off as a chip's are (vc4/sfu-model.ts). */
  readonly sfu?: SfuMode;
  /** The Pi model whose figures the cycle model uses (Machine.run's model). */
  readonly model?: PiModelName;
  /** Fills this profile (Machine.run's profile). */
  readonly profile?: Profiler;
  /** Called before every instruction (Machine.run's trace: the debugger's hook). */
  readonly trace?: MachineRunOptions['trace'];
  /**
   * The instruction caches as this target's last run left them, as for a later job of a batch
   * in one launch (Machine.run's warmCode); a Pi's host clears them before every launch.
   */
  readonly warmCode?: boolean;
}

/** An array a kernel is given: the parameter's name, and where the array is. */
export interface ArrayArg {
  readonly name: string;
  readonly address: number;
  readonly bytes: number;
}

/**
 * The share of GPU memory the programs an EmulatorTarget keeps loaded may take (their pages and
 * guard pages), beyond the one running: an eighth, 32 MiB of the default 256, about 4,000 small
 * kernels.
 */
export const CODE_SHARE = 1 / 8;

/** A machine bound to one GPU memory, with the programs it has loaded. */
export class EmulatorTarget {
  readonly machine: Machine;
  /** The programs loaded, by the compiled code they are; a program's code may have been freed since (then it is loaded again). */
  private readonly loaded = new WeakMap<Compiled, LoadedProgram>();
  /**
   * The code in GPU memory, least recently run first, with the bytes it takes. Only the code's
   * allocation is held here: the program (its translation) goes with its Compiled.
   */
  private readonly resident = new Map<Allocation, number>();
  private residentBytes = 0;
  /** Frees the code of programs whose Compiled (and so kernel) has been garbage-collected. */
  private readonly dropped = new FinalizationRegistry<Allocation>((code) => this.unload(code));
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
    const prog = this.program(c);
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
      // This run's uniforms, as the uniform stream only: a load or gather through a pointer cannot
      // read them, and a broadcast stream run past its array cannot read earlier runs' arguments.
      { name: 'uniforms', address: this.uniforms.address, bytes, access: UNIFORMS, internal: true },
    ];
    if (c.scratchBytes) grants.push({ name: 'scratch', address: this.scratch!.address, bytes: this.scratch!.bytes, access: READ_WRITE, internal: true });
    this.memory.restrict(grants, `kernel ${c.kernel}`);
    this.printed = [];
    let result: RunResult;
    try {
      const { maxSteps, strict = true, onProgress, raiseWith, interleave, sfu, profile, trace, model, warmCode } = opts;
      // Strict runs hold a kernel to the language's whole aligned words, as the interpreter does.
      result = this.machine.run(prog, addrs, { maxSteps, strict, onProgress, raiseWith, interleave, sfu, aligned: strict, profile, trace, model, warmCode });
    } catch (e) {
      // Not the run's error: a debugger's hook stopping the run (debug/emulator-replay.ts).
      if (!(e instanceof Error)) throw e;
      // A failed assertion first: the others may have waited for the QPU that failed it.
      this.afterRun(c);
      if (e instanceof Error) e.message += printedBefore(this.printed);
      throw e;
    } finally {
      this.memory.unrestrict();
    }
    this.afterRun(c);
    return result;
  }

  /** What the last run's QPUs printed (runtime/assertions.ts). */
  printed: PrintLog[] = [];

  /** Reads the prints' logs, then throws the error for the assertions the QPUs failed, if any (runtime/assertions.ts). */
  private afterRun(c: Compiled): void {
    if (!c.assertions.sites.length && !c.prints.sites.length) return;
    const scratch = this.memory.view(this.scratch!, Int32Array);
    this.printed = printLogs(c, scratch);
    const failed = failedAssertions(c, scratch);
    if (failed) {
      failed.message += printedBefore(this.printed);
      this.printed = [];
      throw failed;
    }
  }

  /** The program of compiled code, loaded into GPU memory if it is not (any more); the most recently run. */
  private program(c: Compiled): LoadedProgram {
    let prog = this.loaded.get(c);
    const bytes = footprint(c.words.length * 4);
    if (prog && this.resident.delete(prog.code)) {
      this.resident.set(prog.code, bytes); // now the most recently run
      return prog;
    }
    for (const [old] of this.resident) {
      if (this.residentBytes + bytes <= this.memory.maxBytes * CODE_SHARE) break;
      this.unload(old);
    }
    prog = this.machine.load(c.words, `code of ${c.kernel}`);
    this.loaded.set(c, prog);
    this.resident.set(prog.code, bytes);
    this.residentBytes += bytes;
    this.dropped.register(c, prog.code, prog.code);
    return prog;
  }

  /** Frees a program's code (a Compiled still held loads it again when it runs). */
  private unload(code: Allocation): void {
    const bytes = this.resident.get(code);
    if (bytes === undefined) return;
    this.resident.delete(code);
    this.residentBytes -= bytes;
    this.dropped.unregister(code);
    this.memory.free(code);
  }

  /** Programs loaded now, and the GPU memory they take. */
  get loadedPrograms(): { count: number; bytes: number } {
    return { count: this.resident.size, bytes: this.residentBytes };
  }
}
