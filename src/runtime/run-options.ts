// Run options: how one run of a kernel goes (`k(...args, options)`, `k.with(options)`): the
// target, the QPU count, the step budget, strict mode, a progress callback; what a run reports;
// checking options a caller gives (anything, from JavaScript too) with errors that name the
// kernel and the option; layering a call's options over k.with()'s and over an oversight's
// (qpu run's command line); telling that oversight's observer about each run.
// Needs: the kernel's name and QPU count. Guarantees: a Run whose every field is valid.

import { describeHost } from '../dsl/builder.ts';
import { EMULATOR_STEPS, INTERPRETER_STEPS, stepBudget } from '../common/budget.ts';
import { MAX_QPUS } from '../vc4/chip.ts';
import { suggest } from '../vc4/asm/names.ts';
import { noteRun, type OverseenRun, overseen } from './oversight.ts';
import type { ParamType } from '../dsl/types.ts';
import { MAX_TIMEOUT_MS } from '../pi/target.ts';
import { knownRun, type RunReport } from './report.ts';
import { defaultTarget } from './default-target.ts';
import { interleaveSeed } from '../common/interleave.ts';
import { SFU_MODES, type SfuMode } from '../vc4/sfu-model.ts';
import { DEFAULT_MODEL, isPiModel, PI_MODEL_NAMES, type PiModelName } from '../emulator/models.ts';

export type { RunReport } from './report.ts';

export type { RunTarget } from './types.ts';
import type { HostArgs, RunTarget } from './types.ts';

export interface RunOptions {
  /** Statements (interpreter) or instructions (emulator) all QPUs may execute in total. */
  readonly maxSteps?: number;
}

/** How one run goes: `k(...args, options)`, `k.with(options)`. */
export interface KernelRunOptions extends RunOptions {
  /** Default: the pi target on a Pi whose QPUs this process can use, else the emulator (runtime/default-target.ts). */
  readonly target?: RunTarget;
  /** How many QPUs run the kernel, 1-12 (default: the kernel's numQPUs, which this does not change). */
  readonly qpus?: number;
  /** Emulator: stop at the first broken hardware rule (default true). The interpreter has no such rules. */
  readonly strict?: boolean;
  /** Called as a long run goes (about every million instructions, every 65,536 statements) and once at the end. */
  readonly onProgress?: (p: Progress) => void;
  /**
   * The interpreter and the pi target: the cycle model's figures (report.run) come from the
   * compiled code run on the emulator, on copies of the arrays as they were before the run: when
   * `run` is first read (default; the arrays are copied on the host before the run), first (true),
   * or never (false: no copy; reading `run` is an error).
   */
  readonly estimate?: boolean;
  /** The pi target: how long to wait for the QPUs, in ms (default 900; above, the V3D registers are used: pi/direct.ts). */
  readonly timeoutMs?: number;
  /**
   * Emulator and interpreter: a seed (0 to 2^32 - 1); the QPUs run in a random interleaving drawn
   * from it instead of the target's fixed order, to show races (common/interleave.ts).
   */
  readonly interleave?: number;
  /**
   * Emulator and interpreter: the SFU's results (recip, recipsqrt, exp2, log2, and what is built
   * on them): 'exact', correctly rounded (default), or 'chip', off by as much as a real chip's
   * were measured to be (vc4/sfu-model.ts), to test code that must hold on a Pi.
   */
  readonly sfu?: SfuMode;
  /**
   * Profile the run (report.profile, runtime/profile.ts): per source statement and instruction,
   * what ran, its cycles and stalls by cause; each QPU's timeline; what bounds the run. The
   * emulator runs one instruction at a time for it (slower); on the interpreter and the pi
   * target, the profile is of the cycle model's run, which then runs first (as with `estimate: true`).
   */
  readonly profile?: boolean;
  /**
   * The Pi model whose time the cycle model estimates (report.run.seconds and its figures):
   * 'zero', '1', '2', '3', '3b+' or 'zero2' (default '1'; docs/timing.md, "Each Pi model"). On
   * the pi target, the model of the estimate beside the measured time.
   */
  readonly model?: PiModelName;
}

/** How far a run has got, for onProgress. */
export interface Progress {
  readonly target: RunTarget;
  /** Instructions (emulator) or statements (interpreter) all QPUs have run so far. */
  readonly steps: number;
  /** The run's step budget (maxSteps, or the target's default). */
  readonly maxSteps: number;
  /** Emulator: the cycle model's clock so far (the furthest QPU's). */
  readonly cycles?: number;
  /** Emulator: that clock's time on a Pi (at 250 MHz), in seconds. */
  readonly seconds?: number;
  /** True for the last call, when the run has ended (or stopped at an error). */
  readonly done: boolean;
}

/**
 * A kernel bound to run options (k.with(options)): call it with the kernel's arguments (and,
 * optionally, more options, which win over the bound ones).
 */
export interface KernelRun<P extends readonly ParamType[]> {
  (...args: [...HostArgs<P>, KernelRunOptions?]): Promise<RunReport>;
  /** Runs now and returns the report (a synchronous call). */
  sync(...args: [...HostArgs<P>, KernelRunOptions?]): RunReport;
  readonly options: KernelRunOptions;
}

/** Run options without a target, for the calls that name their target. */
export type TargetRunOptions = Omit<KernelRunOptions, 'target'>;

/** One run's options, checked, with the defaults filled in. */
export interface Run {
  readonly target: RunTarget;
  readonly qpus: number;
  /** As given: undefined gives the target's default budget and its time limit (common/budget.ts). */
  readonly maxSteps: number | undefined;
  /** The budget in force: maxSteps, or the target's default. */
  readonly budget: number;
  readonly strict: boolean;
  readonly onProgress: ((p: Progress) => void) | undefined;
  /** Undefined: when the report's run is first read; true: first; false: never. */
  readonly estimate: boolean | undefined;
  readonly timeoutMs: number | undefined;
  readonly interleave: number | undefined;
  readonly sfu: SfuMode | undefined;
  readonly profile: boolean;
  readonly model: PiModelName | undefined;
}

const OPTION_NAMES: readonly (keyof KernelRunOptions)[] = ['target', 'qpus', 'maxSteps', 'strict', 'onProgress', 'estimate', 'timeoutMs', 'interleave', 'sfu', 'profile', 'model'];
const TARGETS: readonly RunTarget[] = ['emulator', 'interpreter', 'pi'];

/**
 * Checks a call's run options (`o`, from the caller: anything) for kernel `name`, whose own QPU
 * count is `qpus`; `fixed` is the target the call names (interpret, emulate), if it does.
 */
export function runOptions(name: string, o: unknown, qpus: number, fixed?: RunTarget): Run {
  const fail = (Kind: typeof TypeError, why: string): never => {
    throw new Kind(`kernel ${name}: ${why}`);
  };
  if (o === undefined) o = {};
  if (!isPlainObject(o)) fail(TypeError, `run options are an object such as { maxSteps: 1e9 }, not ${describeHost(o)}`);
  const x = o as Record<string, unknown>;
  const unknown = Object.keys(x).filter((key) => !(OPTION_NAMES as readonly string[]).includes(key));
  if (unknown.length)
    fail(TypeError, `${unknown.length === 1 ? 'no run option is called' : 'no run options are called'} ${unknown.map(optionName).join(', ')}: the options are ${OPTION_NAMES.join(', ')}`);
  if (x.target !== undefined && !(TARGETS as readonly unknown[]).includes(x.target))
    fail(TypeError, `target must be 'emulator', 'interpreter' or 'pi', not ${describeHost(x.target)}`);
  const target = (x.target as RunTarget | undefined) ?? fixed ?? defaultTarget().target;
  if (fixed && target !== fixed)
    fail(TypeError, `${fixed === 'interpreter' ? 'interpret' : 'emulate'}() runs on the ${fixed}, but the options say target '${target}'; call the kernel itself to choose the target`);
  if (x.qpus !== undefined && !(typeof x.qpus === 'number' && Number.isInteger(x.qpus) && x.qpus >= 1 && x.qpus <= MAX_QPUS))
    fail(RangeError, `qpus must be 1 to ${MAX_QPUS}, not ${describeHost(x.qpus)}`);
  if (x.strict !== undefined && typeof x.strict !== 'boolean') fail(TypeError, `strict must be true or false, not ${describeHost(x.strict)}`);
  if (x.onProgress !== undefined && typeof x.onProgress !== 'function')
    fail(TypeError, `onProgress must be a function ((p) => { ... }), not ${describeHost(x.onProgress)}`);
  if (x.estimate !== undefined && typeof x.estimate !== 'boolean') fail(TypeError, `estimate must be true or false, not ${describeHost(x.estimate)}`);
  if (x.timeoutMs !== undefined && !(typeof x.timeoutMs === 'number' && Number.isInteger(x.timeoutMs) && x.timeoutMs >= 1 && x.timeoutMs <= MAX_TIMEOUT_MS))
    fail(RangeError, `timeoutMs must be 1 to ${MAX_TIMEOUT_MS}, not ${describeHost(x.timeoutMs)}`);
  const seed = interleaveSeed(x.interleave);
  if (typeof seed === 'object') fail(RangeError, `${seed.error}, not ${describeHost(x.interleave)}`);
  if (seed !== undefined && target === 'pi') fail(TypeError, `interleave is for the emulator and the interpreter: a Pi's QPUs interleave as they run`);
  if (x.sfu !== undefined && !(SFU_MODES as readonly unknown[]).includes(x.sfu)) fail(TypeError, `sfu must be 'exact' or 'chip', not ${describeHost(x.sfu)}`);
  if (x.sfu !== undefined && target === 'pi') fail(TypeError, `sfu is for the emulator and the interpreter: a Pi's SFU is the chip's own`);
  if (x.model !== undefined && !isPiModel(x.model)) fail(TypeError, `model must be one of ${PI_MODEL_NAMES.map((m) => `'${m}'`).join(', ')} (a Pi with a VideoCore IV), not ${describeHost(x.model)}`);
  if (x.profile !== undefined && typeof x.profile !== 'boolean') fail(TypeError, `profile must be true or false, not ${describeHost(x.profile)}`);
  if (x.profile && x.estimate === false && target !== 'emulator')
    fail(TypeError, `on the ${target}, a profile is of the cycle model's run, which { estimate: false } turns off`);
  const budget = stepBudget(x.maxSteps, target === 'interpreter' ? INTERPRETER_STEPS : EMULATOR_STEPS, `kernel ${name}`);
  return {
    target,
    qpus: (x.qpus as number | undefined) ?? qpus,
    maxSteps: x.maxSteps as number | undefined,
    budget,
    strict: (x.strict as boolean | undefined) ?? true,
    onProgress: x.onProgress as Run['onProgress'],
    estimate: x.estimate as boolean | undefined,
    timeoutMs: x.timeoutMs as number | undefined,
    interleave: seed as number | undefined,
    sfu: x.sfu as SfuMode | undefined,
    profile: (x.profile as boolean | undefined) ?? false,
    model: x.model as PiModelName | undefined,
  };
}

/**
 * The options a call runs with: its own (`own`) over k.with()'s (`base`) over those of an
 * oversight of this kernel's runs (runtime/oversight.ts: `qpu run`'s command line), whose target
 * gives way to the one a call names (`fixed`). Options that are not an object are returned as
 * they are, for runOptions to report.
 */
export function layered(name: string, own: unknown, base: KernelRunOptions | undefined, fixed: RunTarget | undefined): unknown {
  if (own !== undefined && !isPlainObject(own)) return own;
  const outside = overseen(name)?.options ?? {};
  const under = Object.fromEntries(Object.entries(outside).filter(([key, v]) => v !== undefined && !(fixed && key === 'target')));
  // An option given as undefined (`{ qpus: opts.qpus }`) is an option not given: it does not hide one from below.
  const given = (o: object | undefined) => Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined));
  return { ...under, ...given(base), ...given(own as KernelRunOptions | undefined) };
}

/**
 * Runs `go` with `r`, telling an oversight's observer (runtime/oversight.ts) that the run starts,
 * how it progresses and how it ended; without an oversight, just runs it.
 */
export function observed(name: string, r: Run, go: (r: Run) => RunReport): RunReport {
  noteRun();
  const observer = overseen(name)?.observer;
  if (!observer) return go(r);
  const run: OverseenRun = { kernel: name, target: r.target, qpus: r.qpus, maxSteps: r.budget, model: r.model ?? DEFAULT_MODEL };
  let last: Progress | undefined;
  const onProgress = (p: Progress) => {
    last = p;
    observer.progress?.(run, p.steps, p.cycles);
    r.onProgress?.(p);
  };
  const start = performance.now();
  const ended = (error?: unknown, report?: RunReport) =>
    observer.ended?.(run, {
      // Only what the run knows: reading a report's run on the interpreter or a Pi would run the emulator.
      steps: last?.steps || (report && report.target !== 'pi' ? report.steps : report && knownRun(report)?.total.instructions),
      cycles: last?.cycles ?? (report && knownRun(report)?.cycles),
      seconds: last?.seconds ?? (report && knownRun(report)?.seconds),
      measuredSeconds: report?.pi?.seconds,
      wallSeconds: (performance.now() - start) / 1000,
      profile: r.profile ? report?.profile : undefined,
      error,
    });
  observer.started?.(run);
  let report: RunReport;
  try {
    report = go({ ...r, onProgress });
  } catch (e) {
    ended(e);
    throw e;
  }
  ended(undefined, report);
  return report;
}

/** An unknown option's name as a message shows it, with the option it is most likely a slip for. */
function optionName(key: string): string {
  const near = suggest(key, OPTION_NAMES.map((n) => n.toLowerCase()));
  const option = OPTION_NAMES.find((n) => n.toLowerCase() === near);
  return `${JSON.stringify(key)}${option ? ` (${option}?)` : ''}`;
}

/** An object written as `{ ... }` (not an array, a typed array or another class's instance). */
function isPlainObject(x: unknown): x is object {
  if (typeof x !== 'object' || x === null) return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

/**
 * A call's arguments and its run options: one argument more than the kernel has parameters, a
 * plain object (or undefined), is the options. Kernel arguments are numbers and typed arrays, so
 * this is never ambiguous.
 */
export function splitOptions(args: readonly unknown[], nparams: number): { args: readonly unknown[]; options: unknown } {
  const last = args[nparams];
  if (args.length === nparams + 1 && (last === undefined || isPlainObject(last))) return { args: args.slice(0, nparams), options: last };
  return { args, options: undefined };
}
