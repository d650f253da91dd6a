// `qpu run`: runs a user's TypeScript program that uses kernels, with the command line's run
// options applied to its kernel runs (runtime/oversight.ts), a progress bar for long runs on a
// terminal, and each run's figures on request.

import { MAX_SEED } from '../common/interleave.ts';
import { DEFAULT_SECONDS, EMULATOR_STEPS, INTERPRETER_STEPS } from '../common/budget.ts';
import { MAX_QPUS } from '../vc4/chip.ts';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { KernelProfile } from '../runtime/profile.ts';
import { annotatedAssembly, profileText } from '../runtime/profile-text.ts';
import { timelineSvg } from '../runtime/timeline-svg.ts';
import { type Oversight, type OverseenOptions, type OverseenRun, oversee, type RunObserver, runsOverseen } from '../runtime/oversight.ts';
import { BAR_AFTER_MS, formatSeconds, type ProgressBar, progressBar } from '../runtime/progress.ts';
import { timingFor } from '../emulator/timing.ts';
import { PI_MODELS } from '../emulator/models.ts';
import { type Command, CliError, describeSystemError, EXIT, exitHelp, type Io, parse, parseCount, piModelOption, sfuMode, shown } from './io.ts';
import { inUserCode, loadModule } from './module.ts';
import { oneLineEscaped } from '../vc4/asm/text.ts';

const TARGETS = ['emulator', 'interpreter', 'pi'] as const;

export const runCommand: Command = {
  name: 'run',
  summary: 'run a TypeScript program that uses kernels',
  help: `usage: qpu run PROGRAM.ts [--kernel NAME] [--qpus N] [--target T] [--max-steps N]
                         [--no-strict] [--interleave SEED] [--sfu MODE] [--model M] [--stats]
                         [--profile] [--profile-dir DIR] [-- ARGS ...]

Runs PROGRAM.ts, a TypeScript program that uses kernels (an ES module: .mts, or .ts in a package
with "type": "module"), as \`node PROGRAM.ts ARGS\` would (process.argv holds PROGRAM.ts and
ARGS, the words after --): its top-level code runs; if it ran no kernel and exports a function
main, main(ARGS) is called and awaited. Every kernel run in it takes the options below where
the program's own call does not set them, and a run that takes long shows a progress bar on a
terminal (its steps against the step budget; for the emulator, the estimated Pi time so far).
The command ends once the top-level code and main have finished and the output is written,
without waiting, as Node would, for timers or servers they left running: a program that needs
a timer's work done awaits it.

options:
      --kernel NAME   apply the options and --stats to this kernel only (its kernel name)
      --qpus N        run kernels on N QPUs (1-${MAX_QPUS}) instead of the count they were given
      --target T      emulator (machine code, with the cycle model; the default off a Pi),
                      interpreter (the reference interpreter of the language) or pi (the
                      QPUs of the Pi this runs on: docs/pi.md; the default there)
      --max-steps N   the step budget of each run: instructions (emulator) or statements
                      (interpreter) of all QPUs together; without it, ${EMULATOR_STEPS.toLocaleString('en-US')}
                      instructions or ${INTERPRETER_STEPS.toLocaleString('en-US')} statements, and ${DEFAULT_SECONDS} s of running
      --no-strict     emulator: do not stop at broken hardware rules
      --interleave SEED
                      emulator and interpreter: run the QPUs in a random interleaving
                      drawn from SEED (0 to ${MAX_SEED}), so that a race shows
      --sfu MODE      emulator and interpreter: the SFU's results exact (the default) or
                      off as a chip's are (chip: docs/emulator.md), to test code for a Pi
      --model M       the Pi whose time the cycle model estimates: zero, 1, 2, 3, 3b+ or
                      zero2 (default 1; docs/timing.md, "Each Pi model")
      --stats         after each run, print on standard error the kernel, target, QPUs,
                      steps, cycles and estimated time on the --model Pi (emulator), the
                      time measured on the QPUs (pi), and the time it took here
      --profile       after each run, print on standard error its profile: what bounds it
                      (instruction issue, the TMU, the DMA engines, spills, semaphores),
                      how it would scale with the QPU count, the statements that took the
                      most cycles with their stalls by cause and ALU use, and each QPU's
                      share (docs/debugging.md). The emulator runs one instruction at a
                      time for it; on the interpreter and a Pi, the profile is of the
                      cycle model's run of the compiled code
      --profile-dir DIR
                      also write each profiled run's files into DIR (made if missing, in
                      a folder that exists):
                      KERNEL-N.txt, the profile of every statement and the assembly
                      annotated with each instruction's runs and cycles; KERNEL-N.svg,
                      each QPU's timeline, busy and stalled by cause (implies --profile)
  -h, --help          this text

N is a count: decimal digits only. The program's errors are reported in one line with the place
in PROGRAM.ts (or the kernel's statement) they come from.

${exitHelp('PROGRAM.ts does not load, throws, runs no kernel, or a kernel run fails;\n     or the status the program set (process.exitCode)')}
examples:
  qpu run examples/gcd.ts --stats
  qpu run squares.ts --qpus 4 --target interpreter
  qpu run examples/mandelbrot.ts --stats -- --width 256 --height 192 --qpus 1,12
`,
  async run(args, io) {
    const { values, positionals } = parse(args, {
      kernel: { type: 'string' },
      qpus: { type: 'string' },
      target: { type: 'string' },
      'max-steps': { type: 'string' },
      'no-strict': { type: 'boolean' },
      interleave: { type: 'string' },
      sfu: { type: 'string' },
      model: { type: 'string' },
      stats: { type: 'boolean' },
      profile: { type: 'boolean' },
      'profile-dir': { type: 'string' },
    });
    const [path, ...programArgs] = positionals;
    if (path === undefined) throw new CliError('which program? (see --help)');
    if (values.target !== undefined && !(TARGETS as readonly string[]).includes(values.target))
      throw new CliError(`--target ${values.target}: the targets are ${TARGETS.join(', ')}`);
    const options: OverseenOptions = {
      target: values.target as OverseenOptions['target'],
      qpus: values.qpus === undefined ? undefined : parseCount(values.qpus, 1, 1, MAX_QPUS, '--qpus'),
      maxSteps: values['max-steps'] === undefined ? undefined : parseCount(values['max-steps'], EMULATOR_STEPS, 1, Number.MAX_SAFE_INTEGER, '--max-steps'),
      strict: values['no-strict'] ? false : undefined,
      interleave: values.interleave === undefined ? undefined : parseCount(values.interleave, 0, 0, MAX_SEED, '--interleave'),
      sfu: sfuMode(values.sfu),
      model: piModelOption(values.model),
      // On a Pi, --stats puts the cycle model's estimate beside the measured time.
      estimate: values.stats ? true : undefined,
      profile: values.profile || values['profile-dir'] !== undefined ? true : undefined,
    };
    const profileDir = values['profile-dir'];
    if (profileDir !== undefined) makeDirectory(profileDir);
    return runProgram(io, path, programArgs, { only: values.kernel, options, stats: values.stats ?? false, profileDir });
  },
};

/** What runProgram oversees: the kernel it applies to (all when absent), the options, the figures shown, and a debugger's hook. */
export interface ProgramOversight {
  readonly only?: string;
  readonly options: OverseenOptions;
  readonly stats?: boolean;
  readonly profileDir?: string;
  readonly debugRun?: Oversight['debugRun'];
  /** The command, as messages name it (default run). */
  readonly command?: 'run' | 'debug';
}

/**
 * Runs a user's program (`qpu run`, `qpu debug`) with its kernel runs overseen: the options
 * applied, a bar for long runs, the figures asked for; the program's exit status.
 */
export async function runProgram(io: Io, path: string, programArgs: readonly string[], o: ProgramOversight): Promise<number> {
  const only = o.only;
  const watch = watcher(io, o.stats ?? false, o.profileDir);
  const done = oversee({ kernels: only === undefined ? undefined : (name) => name === only, options: o.options, observer: watch.observer, debugRun: o.debugRun });
  const program = programProcess(path, programArgs);
  try {
    const mod = await loadModule(io, path, o.command ?? 'run');
    // A program that ran no kernel as it loaded may export its work as main(args).
    if (runsOverseen() === 0 && typeof mod.main === 'function') await program.settle((mod.main as (args: string[]) => unknown)([...programArgs]));
    await program.check();
    if (watch.runs() === 0)
      throw new CliError(
        only !== undefined
          ? `${path} ran no kernel named ${only}`
          : `${path} ran no kernel: run them at its top level, or export a main function that does (qpu compile prints a kernel's code)`,
        EXIT.INPUT,
      );
    return program.status();
  } catch (e) {
    if (!(e instanceof CliError)) throw new CliError(`${path}: ${withRunHint(inUserCode(e))}`, EXIT.INPUT);
    e.message = withRunHint(e.message);
    throw e;
  } finally {
    watch.stop();
    done();
    program.restore();
  }
}

/**
 * The process as the program sees it while it runs: process.argv as if Node ran it directly
 * (`node PROGRAM ARGS`), so that a program that reads its arguments works unchanged; failures
 * outside its awaited code (a kernel run whose promise nobody awaits) and a main that never
 * settles, reported in one line; and the exit status it sets, passed on.
 */
function programProcess(path: string, args: readonly string[]) {
  const argv = process.argv;
  const exitCode = process.exitCode;
  process.argv = [argv[0]!, resolve(path), ...args];
  process.exitCode = undefined;
  let failure: unknown;
  const fail = (e: unknown) => void (failure ??= e);
  process.on('unhandledRejection', fail);
  process.on('uncaughtException', fail);
  return {
    /** Waits for main's result; a main that never settles is an error, not a silent exit. */
    async settle(result: unknown): Promise<void> {
      const never = () => {
        process.stderr.write(`qpu run: ${shown(path)}: its main never finished (a promise that never settles)\n`);
        process.exitCode = EXIT.INPUT;
      };
      process.once('beforeExit', never);
      try {
        await result;
      } finally {
        process.off('beforeExit', never);
      }
    },
    /**
     * Throws what failed outside the awaited code, if anything did, once the runs the program
     * started and did not await have ended (Node reports their failures after the microtasks).
     */
    async check(): Promise<void> {
      await new Promise((resolve) => setImmediate(resolve));
      if (failure !== undefined) throw new CliError(`${path}: ${withRunHint(inUserCode(failure))}`, EXIT.INPUT);
    },
    /** The exit status: the program's own (process.exitCode) if it set one, else success. */
    status(): number {
      return typeof process.exitCode === 'number' && process.exitCode !== 0 ? process.exitCode : EXIT.OK;
    },
    restore(): void {
      process.off('unhandledRejection', fail);
      process.off('uncaughtException', fail);
      process.argv = argv;
      if (process.exitCode === undefined || process.exitCode === 0) process.exitCode = exitCode;
    },
  };
}

/** A budget error's advice, with the command line's way to give a bigger budget. */
function withRunHint(message: string): string {
  return message.replace(/pass \{ maxSteps \}/, 'pass { maxSteps } (or run with --max-steps N)');
}

/** The observer of a program's runs: counts them, draws a bar for long ones, prints their figures and profiles. */
function watcher(io: Io, stats: boolean, profileDir: string | undefined): { observer: RunObserver; runs(): number; stop(): void } {
  let runs = 0;
  let bar: ProgressBar | undefined;
  let started = 0;
  const stopBar = () => {
    bar?.stop();
    bar = undefined;
  };
  const observer: RunObserver = {
    started() {
      runs++;
      started = performance.now();
    },
    progress(run: OverseenRun, steps: number, cycles?: number) {
      if (!bar && performance.now() - started < BAR_AFTER_MS) return;
      bar ??= progressBar(`${oneLineEscaped(run.kernel)} (${run.target}, ${run.qpus} QPU${run.qpus > 1 ? 's' : ''})`, run.maxSteps, { unit: run.target === 'interpreter' ? 'statements' : 'instructions' });
      bar.update(steps, cycles === undefined ? undefined : `${formatSeconds(cycles / timingFor(run.model).clockHz)} on a ${PI_MODELS[run.model].short} so far`);
    },
    ended(run, outcome) {
      stopBar();
      if (outcome.profile) showProfile(io, outcome.profile, run.target, runs, profileDir);
      if (!stats) return;
      const unit = run.target === 'interpreter' ? 'statements' : 'instructions';
      const figures = [
        outcome.steps === undefined ? undefined : `${outcome.steps.toLocaleString('en-US')} ${unit}`,
        outcome.cycles === undefined ? undefined : `${outcome.cycles.toLocaleString('en-US')} cycles`,
        outcome.seconds === undefined ? undefined : `${formatSeconds(outcome.seconds)} on a ${PI_MODELS[run.model].short}${run.target === 'pi' ? ' (the cycle model)' : ''}`,
        outcome.measuredSeconds === undefined ? undefined : `${formatSeconds(outcome.measuredSeconds)} measured on the QPUs`,
        `${formatSeconds(outcome.wallSeconds)} here`,
      ].filter((x) => x !== undefined);
      const failed = outcome.error === undefined ? '' : ' (failed)';
      io.err(`${oneLineEscaped(run.kernel)}: ${run.target}, ${run.qpus} QPU${run.qpus > 1 ? 's' : ''}${failed}: ${figures.join(', ')}\n`);
    },
  };
  return { observer, runs: () => runs, stop: stopBar };
}

/** Makes the --profile-dir directory if it is missing: before the program runs, so that a bad one is said at once. */
function makeDirectory(dir: string): void {
  try {
    // One level only: the folder it is in must exist (Node 20's recursive mkdir can loop for ever on /proc).
    if (!existsSync(dir)) mkdirSync(dir);
    else if (!statSync(dir).isDirectory()) throw new Error('it is not a folder');
  } catch (e) {
    throw new CliError(`--profile-dir ${shown(dir)}: ${describeSystemError(e)}`);
  }
}

/** A run's profile on standard error, and its files in the --profile-dir. */
function showProfile(io: Io, p: KernelProfile, target: string, run: number, dir: string | undefined): void {
  const of = target === 'emulator' ? '' : ` (the cycle model's run of its compiled code: the run was on the ${target})`;
  io.err(`${profileText(p).replace('\n', `${of}\n`)}\n`);
  if (dir === undefined) return;
  const base = join(dir, `${p.kernel.replace(/[^A-Za-z0-9_.-]/g, '_')}-${run}`);
  try {
    writeFileSync(`${base}.txt`, `${profileText(p, { top: 0 })}\n${annotatedAssembly(p)}`);
    writeFileSync(`${base}.svg`, timelineSvg(p, p.seconds ? p.cycles / p.seconds : undefined));
    io.err(`profile written to ${base}.txt and ${base}.svg\n`);
  } catch (e) {
    io.err(`qpu run: cannot write the profile to ${shown(base)}.txt: ${describeSystemError(e)}\n`);
    process.exitCode = EXIT.USAGE;
  }
}
