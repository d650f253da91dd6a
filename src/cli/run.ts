// `qpu run`: runs a user's TypeScript program that uses kernels, with the command line's run
// options applied to its kernel runs (runtime/oversight.ts), a progress bar for long runs on a
// terminal, and each run's figures on request.

import { EMULATOR_STEPS } from '../emulator/budget.ts';
import { MAX_QPUS } from '../emulator/machine.ts';
import { type OverseenOptions, type OverseenRun, oversee, type RunObserver } from '../runtime/oversight.ts';
import { BAR_AFTER_MS, formatSeconds, type ProgressBar, progressBar } from '../runtime/progress.ts';
import { PI_TIMING } from '../emulator/timing.ts';
import { type Command, CliError, EXIT, exitHelp, type Io, parse, parseCount } from './io.ts';
import { inUserCode, loadModule } from './module.ts';

const TARGETS = ['emulator', 'interpreter'] as const;

export const runCommand: Command = {
  name: 'run',
  summary: 'run a TypeScript program that uses kernels',
  help: `usage: qpu run PROGRAM.ts [--kernel NAME] [--qpus N] [--target T] [--max-steps N]
                         [--no-strict] [--stats] [-- ARGS ...]

Runs PROGRAM.ts, a TypeScript program that uses kernels (an ES module: .mts, or .ts in a package
with "type": "module"): imports it, so that its top-level code runs, then calls the function it
exports as main, if any, with ARGS (the words after --), and waits for it. Every kernel run in it
takes the options below where the program's own call does not set them, and a run that takes
long shows a progress bar on a terminal (its steps against the step budget, and for the emulator
the estimated time on a Pi so far).

options:
      --kernel NAME   apply the options and --stats to this kernel only (its kernel name)
      --qpus N        run kernels on N QPUs (1-${MAX_QPUS}) instead of the count they were given
      --target T      emulator (machine code, with the cycle model; the default) or
                      interpreter (the reference interpreter of the language)
      --max-steps N   the step budget of each run: instructions (emulator) or statements
                      (interpreter) of all QPUs together (default ${EMULATOR_STEPS.toLocaleString('en-US')})
      --no-strict     emulator: do not stop at broken hardware rules
      --stats         after each run, print on standard error the kernel, target, QPUs,
                      steps, cycles and estimated Pi time (emulator), and the time it took here
  -h, --help          this text

N is a count: decimal digits only. The program's errors are reported in one line with the place
in PROGRAM.ts (or the kernel's statement) they come from.

${exitHelp('PROGRAM.ts does not load, throws, runs no kernel and exports no main, or\n     a kernel run fails')}
example:
  qpu run examples/gcd.ts --stats
  qpu run examples/mandelbrot.ts --qpus 12 --target emulator
`,
  async run(args, io) {
    const { values, positionals } = parse(args, {
      kernel: { type: 'string' },
      qpus: { type: 'string' },
      target: { type: 'string' },
      'max-steps': { type: 'string' },
      'no-strict': { type: 'boolean' },
      stats: { type: 'boolean' },
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
    };
    const only = values.kernel;
    const watch = watcher(io, values.stats ?? false);
    const done = oversee({ kernels: only === undefined ? undefined : (name) => name === only, options, observer: watch.observer });
    try {
      const mod = await loadModule(io, path, 'run');
      const main = typeof mod.main === 'function' ? mod.main : typeof mod.default === 'function' ? mod.default : undefined;
      if (main) {
        try {
          await (main as (args: string[]) => unknown)(programArgs);
        } catch (e) {
          throw new CliError(`${path}: ${inUserCode(e)}`, EXIT.INPUT);
        }
      }
      if (watch.runs() === 0)
        throw new CliError(
          only !== undefined
            ? `${path} ran no kernel named ${only}`
            : `${path} ran no kernel: run them at its top level, or export a main function that does (qpu compile prints a kernel's code)`,
          EXIT.INPUT,
        );
      return EXIT.OK;
    } finally {
      watch.stop();
      done();
    }
  },
};

/** The observer of a program's runs: counts them, draws a bar for long ones, prints their figures. */
function watcher(io: Io, stats: boolean): { observer: RunObserver; runs(): number; stop(): void } {
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
      bar ??= progressBar(`${run.kernel} (${run.target}, ${run.qpus} QPU${run.qpus > 1 ? 's' : ''})`, run.maxSteps, { unit: run.target === 'emulator' ? 'instructions' : 'statements' });
      bar.update(steps, cycles === undefined ? undefined : `${formatSeconds(cycles / PI_TIMING.clockHz)} on a Pi so far`);
    },
    ended(run, outcome) {
      stopBar();
      if (!stats) return;
      const unit = run.target === 'emulator' ? 'instructions' : 'statements';
      const figures = [
        outcome.steps === undefined ? undefined : `${outcome.steps.toLocaleString('en-US')} ${unit}`,
        outcome.cycles === undefined ? undefined : `${outcome.cycles.toLocaleString('en-US')} cycles`,
        outcome.seconds === undefined ? undefined : `${formatSeconds(outcome.seconds)} on a Pi`,
        `${formatSeconds(outcome.wallSeconds)} here`,
      ].filter((x) => x !== undefined);
      const failed = outcome.error === undefined ? '' : ' (failed)';
      io.err(`${run.kernel}: ${run.target}, ${run.qpus} QPU${run.qpus > 1 ? 's' : ''}${failed}: ${figures.join(', ')}\n`);
    },
  };
  return { observer, runs: () => runs, stop: stopBar };
}
