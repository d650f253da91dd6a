// `qpu pi`: run machine code (or assembly) on the QPUs of the Raspberry Pi this runs on, as
// `qpu emu` runs it on the emulator: the same buffers, uniforms and dumps, in GPU memory the
// firmware allocates (docs/pi.md). The emulator runs the program first on the same inputs: a
// program that faults, breaks a hardware rule or never ends would, on the chip, write where it
// should not or hang the GPU until a reboot, so it does not reach the QPUs (--no-check skips
// this). --stats prints the time measured on the QPUs beside the cycle model's estimate.

import { EMULATOR_STEPS } from '../common/budget.ts';
import { EmulatorError } from '../emulator/errors.ts';
import { launch, LaunchError, type UniformItem } from '../emulator/launch.ts';
import { Machine, type RunResult } from '../emulator/machine.ts';
import { MAX_QPUS } from '../vc4/chip.ts';
import { type Allocation, GpuMemory } from '../common/memory.ts';
import { formatStats } from '../emulator/report.ts';
import { piSession } from '../pi/session.ts';
import { DEFAULT_TIMEOUT_MS, MAILBOX_LIMIT_MS, MAX_TIMEOUT_MS, runOnPi } from '../pi/target.ts';
import { formatSeconds } from '../runtime/progress.ts';
import { type Command, CliError, EXIT, exitHelp, onePositional, parse, parseCount, piModelOption, SYNTAX_OPTION, syntaxOf } from './io.ts';
import { modelOfBoard, type PiModelName } from '../emulator/models.ts';
import { writeDump } from './dump.ts';
import { allocBuffers, type BufferSpec, fillBuffer, LAUNCH_OPTIONS, parseBuffers, parseDumps, parseUniformLists, readRunnable } from './launch-args.ts';

/** Buffers a run on the Pi may have, in all (the firmware's GPU memory is 64-128 MB on most setups). */
const MAX_BUFFER_BYTES = 64 * 1024 * 1024;

export const piCommand: Command = {
  name: 'pi',
  summary: "run machine code on this Raspberry Pi's QPUs",
  help: `usage: qpu pi PROG.bin [--qpus N] [--buffer NAME:WORDS[=V,V,...]|NAME:[WORDS]@FILE] ...
                   [--uniforms LIST] ... [--dump NAME[:FORMAT]] ... [--stats] [--model M] [--timeout MS]
                   [--no-check] [--syntax S]

Runs PROG.bin (or PROG.qasm, assembled first) on N QPUs (1-${MAX_QPUS}, default 1) of the Raspberry Pi
this runs on (a Pi 1, 2, 3 or Zero with the legacy graphics stack, as root: docs/pi.md), through
the firmware's "execute QPU" call, which returns when a QPU writes the host interrupt (host_int).
Buffers, uniforms and dumps are as for qpu emu (qpu emu --help), in GPU memory the firmware
allocates and gives back after the run, also when it fails.

options:
  --qpus N, --buffer, --uniforms, --dump, --syntax   as for qpu emu
  --stats              print the time measured on the QPUs and the cycle model's estimate
  --model M            the Pi the estimate is for: zero, 1, 2, 3, 3b+ or zero2 (default: this
                       Pi, from /proc/device-tree/model; 1 where it is none of them)
  --timeout MS         how long to wait for the QPUs (1-${MAX_TIMEOUT_MS}, default ${DEFAULT_TIMEOUT_MS}); above
                       ${DEFAULT_TIMEOUT_MS} ms (under Linux's 1 s limit on a mailbox call) the job goes through the
                       V3D's registers, as GPU_FFT's short jobs do
  --no-check           do not run the program on the emulator first (by default it does, and a
                       fault, a broken rule, a deadlock or a runaway loop stops it there: on the
                       chip they would write anywhere in memory or hang the GPU)
  -h, --help           this text

${exitHelp('PROG has errors, the emulator finds a problem with it, or the QPUs do not\n     finish in time', 'a machine where the QPUs cannot be used (not a Pi, no root, KMS) is 2 too')}
example (the SHA-256 series' hello world):
  sudo qpu pi hello.bin --uniforms 100,@out --buffer out:16 --dump out --stats
`,
  async run(args, io) {
    const { values, positionals } = parse(args, {
      ...LAUNCH_OPTIONS,
      timeout: { type: 'string' },
      'no-check': { type: 'boolean' },
      ...SYNTAX_OPTION,
    });
    const path = onePositional(positionals, 'program');
    syntaxOf(values.syntax);
    const qpus = parseCount(values.qpus, 1, 1, MAX_QPUS, '--qpus');
    piModelOption(values.model); // refused before anything runs
    const timeoutMs = parseCount(values.timeout, DEFAULT_TIMEOUT_MS, 1, MAX_TIMEOUT_MS, '--timeout');
    const specs = parseBuffers(values.buffer, MAX_BUFFER_BYTES);
    const uniforms = parseUniformLists(values.uniforms, qpus, specs);
    const dumps = parseDumps(values.dump, specs);
    const program = readRunnable(io, path, values.syntax, 'pi');
    if (typeof program === 'number') return program;

    let session;
    try {
      session = piSession();
    } catch (e) {
      throw new CliError((e as Error).message, EXIT.USAGE);
    }
    // The estimate is for this Pi unless --model says otherwise (the default model where it is none of them).
    const model = piModelOption(values.model) ?? modelOfBoard(session.device.board.model);
    const estimate = values['no-check'] ? undefined : check(program, qpus, specs, uniforms, model);
    // Through the firmware the job ends at the host interrupt: without exactly one, it times out (and may wedge the GPU).
    if (estimate && timeoutMs <= MAILBOX_LIMIT_MS && estimate.total.hostInterrupts !== 1)
      throw new CliError(
        `${path} writes the host interrupt (host_int) ${estimate.total.hostInterrupts} times on the emulator: the firmware's execute-QPU call returns at the first and times out without one, ` +
          `so a job through it must write a non-zero value to host_int exactly once, after every QPU has finished (--timeout above ${MAILBOX_LIMIT_MS} runs it through the V3D's registers, which do not need it)`,
        EXIT.INPUT,
      );
    const { memory } = session;
    const buffers = new Map<string, Allocation>();
    try {
      for (const s of specs) {
        const a = memory.alloc(s.words * 4, s.name);
        const words = memory.words(a);
        // The memory is zeroed: only the words given are written, each an aligned word write (the mapping is device memory).
        const first = s.file === undefined ? s.values : new Int32Array(s.words);
        if (s.file !== undefined) fillBuffer(s, first as Int32Array);
        first.forEach((v, i) => (words[i] = v >>> 0));
        buffers.set(s.name, a);
      }
      const streams = Array.from({ length: qpus }, (_, q) => resolve(uniforms.length ? uniforms[Math.min(q, uniforms.length - 1)]! : [], q, qpus, buffers));
      let measured;
      try {
        measured = runOnPi(session, program, streams, { timeoutMs });
      } catch (e) {
        throw new CliError(`${path}: ${(e as Error).message}`, EXIT.INPUT);
      }
      for (const d of dumps) {
        const a = buffers.get(d.name)!;
        await writeDump(io, d, a.address, memory.view(a, Int32Array));
      }
      if (values.stats) {
        if (estimate) io.out(formatStats(estimate));
        io.out(`measured on the QPUs: ${formatSeconds(measured.seconds)} (the execute-QPU call, with the firmware's overhead of about 0.1 ms)\n`);
      }
      return EXIT.OK;
    } finally {
      for (const a of buffers.values()) memory.free(a);
    }
  },
};

/** A QPU's uniform stream: numbers, buffers' bus addresses, the QPU's number and the QPU count. */
function resolve(list: readonly UniformItem[], q: number, qpus: number, buffers: ReadonlyMap<string, Allocation>): number[] {
  return list.map((u) => ('value' in u ? u.value : 'special' in u ? (u.special === 'qpu' ? q : qpus) : buffers.get(u.buffer)!.address));
}

/** The program on the emulator first, on the same inputs: its figures, or an error saying why it does not go to the chip. */
function check(program: Uint32Array, qpus: number, specs: readonly BufferSpec[], uniforms: readonly (readonly UniformItem[])[], model: PiModelName | undefined): RunResult {
  const m = new Machine(new GpuMemory());
  try {
    return launch(m, { program: m.load(program), qpus, uniforms, buffers: allocBuffers(m.memory, specs) }, { maxSteps: EMULATOR_STEPS, model });
  } catch (e) {
    if (!(e instanceof EmulatorError || e instanceof LaunchError || e instanceof RangeError)) throw e;
    throw new CliError(`the emulator stopped the program before it reached the QPUs: ${(e as Error).message.split('\n').join(' ')} (--no-check runs it on the chip anyway)`, EXIT.INPUT);
  }
}
