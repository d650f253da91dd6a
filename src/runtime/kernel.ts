// Kernels: a TypeScript function in the language, built once into a kernel AST, callable from
// the host with SharedArrays and numbers. `k(...)` runs on the default target, the emulator, and
// returns a Promise (so that targets on other threads or devices fit); run options, as a last
// argument or bound with `k.with(options)`, choose the target, the QPU count, the step budget,
// strict mode and a progress callback. The compiler runs once per QPU count and its code is
// cached. Errors name the kernel, the statement and the user's own variable names.

import { callerPlace, describeHost, DslError, KernelBuilder, withBuilder } from '../dsl/builder.ts';
import { sourceParameterNames } from '../dsl/names.ts';
import type { ParamType, ParamValue } from '../dsl/types.ts';
import { IntVar, FloatVar, PtrVar } from '../dsl/values.ts';
import type { KernelAst, VarInfo } from '../source/ast.ts';
import { checkKernel } from '../source/check.ts';
import { interpret, type ArrayRegion } from '../source/interpreter.ts';
import { messagePrinter, printKernel } from '../source/print.ts';
import { counted, EMULATOR_STEPS, INTERPRETER_STEPS, RAISE_WITH_OPTION, stepBudget } from '../emulator/budget.ts';
import { EmulatorError } from '../emulator/errors.ts';
import { floatBits } from '../vc4/tables.ts';
import { suggest } from '../vc4/asm/names.ts';
import { allocationOf, gpuMemory } from './shared-array.ts';
import { compile, type Compiled, OPT_LEVELS, type OptLevel } from '../compiler/compile.ts';
import { MAX_QPUS, type RunResult } from '../emulator/machine.ts';
import { EmulatorTarget } from './emulate.ts';
import { noteRun, type OverseenRun, overseen } from './oversight.ts';
import type { FloatType, IntType, PtrType } from '../dsl/types.ts';

/** What the host passes for each parameter type. */
export type HostArg<T extends ParamType> = T extends IntType
  ? number
  : T extends FloatType
    ? number
    : T extends PtrType<'int'>
      ? Int32Array
      : T extends PtrType<'float'>
        ? Float32Array
        : never;

export type HostArgs<P extends readonly ParamType[]> = { [K in keyof P]: P[K] extends ParamType ? HostArg<P[K]> : never };
export type ParamValues<P extends readonly ParamType[]> = { [K in keyof P]: P[K] extends ParamType ? ParamValue<P[K]> : never };

export interface RunReport {
  readonly target: RunTarget;
  readonly qpus: number;
  /** Interpreter: statements executed per QPU. */
  readonly steps?: readonly number[];
  /** Emulator: instructions, cycles, stalls and the estimated time on a Pi (emulator/machine.ts). */
  readonly run?: RunResult;
}

/** Where a kernel runs: compiled, on the machine-code emulator, or on the reference interpreter. */
export type RunTarget = 'emulator' | 'interpreter';

export interface RunOptions {
  /** Statements (interpreter) or instructions (emulator) all QPUs may execute in total. */
  readonly maxSteps?: number;
}

/** How one run goes: `k(...args, options)`, `k.with(options)`. */
export interface KernelRunOptions extends RunOptions {
  /** Default: the emulator. */
  readonly target?: RunTarget;
  /** How many QPUs run the kernel, 1-12 (default: the kernel's numQPUs, which this does not change). */
  readonly qpus?: number;
  /** Emulator: stop at the first broken hardware rule (default true). The interpreter has no such rules. */
  readonly strict?: boolean;
  /** Called as a long run goes (about every million instructions, every 65,536 statements) and once at the end. */
  readonly onProgress?: (p: Progress) => void;
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

let target: EmulatorTarget | undefined;
/** The emulator that runs kernels, on the GPU memory SharedArrays live in. */
export function emulatorTarget(): EmulatorTarget {
  return (target ??= new EmulatorTarget(gpuMemory));
}

/** The kernel running now, if any (both targets use the one GPU memory). */
let running: string | undefined;

export interface Kernel<P extends readonly ParamType[]> {
  /** Runs the kernel: on the emulator unless the options (an optional last argument) say otherwise. */
  (...args: [...HostArgs<P>, KernelRunOptions?]): Promise<RunReport>;
  /** The kernel with these run options: `k.with({ maxSteps: 1e9 })(a, b)`, or `.sync(a, b)`. */
  with(options: KernelRunOptions): KernelRun<P>;
  readonly kernelName: string;
  readonly ast: KernelAst;
  readonly numQPUs: number;
  /** How many QPUs run the kernel (1-12); returns the kernel. */
  setNumQPUs(n: number): Kernel<P>;
  /** The compiler's optimization level for the emulator and code() (0-2, default 2); returns the kernel. */
  setOptLevel(level: OptLevel): Kernel<P>;
  readonly optLevel: OptLevel;
  /** Runs the kernel on the reference interpreter. */
  interpret(...args: [...HostArgs<P>, TargetRunOptions?]): Promise<RunReport>;
  interpretSync(args: HostArgs<P>, opts?: TargetRunOptions): RunReport;
  /** Compiles the kernel (once per QPU count) and runs the machine code on the emulator. */
  emulate(...args: [...HostArgs<P>, TargetRunOptions?]): Promise<RunReport>;
  emulateSync(args: HostArgs<P>, opts?: TargetRunOptions): RunReport;
  /** The machine code for the current QPU count: words, assembly, and every compiler stage's dump. */
  code(): Compiled;
  /** The kernel as readable text (its AST), its variables named as in the source. */
  dump(): string;
}

export interface KernelOptions {
  readonly name?: string;
}

/**
 * Makes a kernel from its parameters' types and its function. The function runs once, now,
 * building the kernel: TypeScript code in it is the meta-language (loops unroll, helper
 * functions and classes generate code).
 */
export function kernel<const P extends readonly ParamType[]>(params: P, body: (...args: ParamValues<P>) => void, opts: KernelOptions = {}): Kernel<P> {
  const ast = build(params, body, opts.name ?? (body.name || 'kernel'));
  const name = ast.name;
  let qpus = 1;
  let opt: OptLevel = 2;
  const compiled = new Map<string, Compiled>();
  const codeFor = (n: number): Compiled => {
    let c = compiled.get(`${n}/${opt}`);
    if (!c) compiled.set(`${n}/${opt}`, (c = compile(ast, { qpus: n, opt })));
    return c;
  };
  const run = (args: readonly unknown[], r: Run): RunReport => {
    const { values, arrays } = hostArguments(ast, params, args);
    // Only an onProgress callback can start a run inside another; GPU memory is the running kernel's until it ends.
    if (running) throw new Error(`kernel ${name}: cannot run while kernel ${running} runs (from its onProgress callback); run it after`);
    running = name;
    try {
      return observed(name, r, (r) =>
        r.target === 'interpreter' ? runInterpreter(ast, values, arrays, r) : runEmulator(ast, codeFor(r.qpus), values, arrays, r),
      );
    } finally {
      running = undefined;
    }
  };
  /**
   * Options for one call: its own (`own`, anything the caller passed) over k.with()'s (`base`);
   * `fixed` is the target the call names (interpret, emulate), if it does.
   */
  const options = (own: unknown, fixed?: RunTarget, base?: KernelRunOptions): Run => runOptions(name, layered(name, own, base, fixed), qpus, fixed);
  /** A call with the options of k.with() (`base`) and its own, if its last argument has them. */
  const call = (args: readonly unknown[], fixed?: RunTarget, base?: KernelRunOptions): RunReport => {
    const split = splitOptions(args, params.length);
    return run(split.args, options(split.options, fixed, base));
  };
  const later = (args: readonly unknown[], fixed?: RunTarget, base?: KernelRunOptions) => Promise.resolve().then(() => call(args, fixed, base));
  const k = ((...args: unknown[]) => later(args)) as unknown as Kernel<P>;
  Object.defineProperties(k, {
    kernelName: { value: name },
    ast: { value: ast },
    numQPUs: { get: () => qpus },
    optLevel: { get: () => opt },
  });
  return Object.assign(k, {
    with(o: KernelRunOptions) {
      options(o); // checked now, and again at each call (the kernel's QPU count may have changed)
      const base: KernelRunOptions = Object.freeze({ ...o });
      const bound = (...args: unknown[]) => later(args, undefined, base);
      return Object.assign(bound, { sync: (...args: unknown[]) => call(args, undefined, base), options: base }) as unknown as KernelRun<P>;
    },
    setNumQPUs(n: number) {
      if (!Number.isInteger(n) || n < 1 || n > MAX_QPUS) throw new RangeError(`kernel ${name}: setNumQPUs(${describeHost(n)}): 1 to ${MAX_QPUS} QPUs`);
      qpus = n;
      return k;
    },
    setOptLevel(level: OptLevel) {
      if (!(OPT_LEVELS as readonly number[]).includes(level)) throw new RangeError(`kernel ${name}: setOptLevel(${describeHost(level)}): the levels are ${OPT_LEVELS.join(', ')}`);
      opt = level;
      return k;
    },
    interpret: (...args: unknown[]) => later(args, 'interpreter'),
    interpretSync: (args: readonly unknown[], o?: TargetRunOptions) => run(args, options(o, 'interpreter')),
    emulate: (...args: unknown[]) => later(args, 'emulator'),
    emulateSync: (args: readonly unknown[], o?: TargetRunOptions) => run(args, options(o, 'emulator')),
    code: () => codeFor(qpus),
    dump: () => printKernel(ast, 'user'),
  }) as Kernel<P>;
}

/** Runs the kernel's function once with a builder: the kernel's AST, checked. */
function build(params: readonly ParamType[], body: (...args: never) => void, name: string): KernelAst {
  const place = callerPlace();
  const paramNames = (place && sourceParameterNames(place, params.length)) ?? parameterNames(body);
  const b = new KernelBuilder(name);
  withBuilder(b, () => {
    const values = params.map((t, i) => {
      if (!t || !('ty' in t)) throw new DslError(`kernel ${name}: parameter ${i + 1}'s type must be Int, Float, Ptr(Int) or Ptr(Float)`);
      const v = b.newVar(t.ty, paramNames[i] ?? `arg${i}`);
      return t.ty === 'int' ? new IntVar(v, b) : t.ty === 'float' ? new FloatVar(v, b) : new PtrVar(v, b, t.ty === 'int*' ? 'int' : 'float');
    });
    (body as (...a: unknown[]) => void)(...values);
  });
  const vars: VarInfo[] = b.vars;
  const ast: KernelAst = { name, params: vars.slice(0, params.length), vars, body: b.body };
  try {
    checkKernel(ast);
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message))
      throw new DslError(`kernel ${name}: blocks or expressions nested too deeply to check (the host's stack ran out); nest less`);
    throw e;
  }
  return ast;
}

function runInterpreter(ast: KernelAst, values: number[], arrays: ArrayRegion[], r: Run): RunReport {
  const onProgress = r.onProgress;
  const progress = onProgress && ((steps: number, done: boolean) => onProgress({ target: 'interpreter', steps, maxSteps: r.budget, done }));
  const out = interpret(ast, { qpus: r.qpus, args: values, memory: gpuMemory, arrays, maxSteps: r.maxSteps, onProgress: progress });
  return { target: 'interpreter', qpus: r.qpus, steps: out.steps };
}

function runEmulator(ast: KernelAst, c: Compiled, values: number[], arrays: ArrayRegion[], r: Run): RunReport {
  const emu = emulatorTarget();
  const onProgress = r.onProgress;
  const hz = emu.machine.timing.clockHz;
  const progress =
    onProgress &&
    ((steps: number, cycles: number, done: boolean) => onProgress({ target: 'emulator', steps, maxSteps: r.budget, cycles, seconds: cycles / hz, done }));
  try {
    const run = emu.run(c, values, arrays, { maxSteps: r.maxSteps, strict: r.strict, onProgress: progress, raiseWith: RAISE_WITH_OPTION });
    return { target: 'emulator', qpus: r.qpus, run };
  } catch (e) {
    throw e instanceof EmulatorError ? inKernel(ast, c, e) : e;
  }
}

/**
 * An emulator error in a compiled kernel, with the kernel and the statement the failing
 * instruction was compiled from (file:line:col and the statement as text) added.
 */
function inKernel(ast: KernelAst, c: Compiled, e: EmulatorError): EmulatorError {
  const printer = messagePrinter(ast);
  const statement = (pc: number): string => {
    const s = c.statements[pc];
    return s ? `in ${s.loc ? s.loc + ' ' : ''}\`${printer.brief(s.shows ?? s)}\`` : '';
  };
  if (e.kind === 'deadlock' && e.blocked) {
    const waits = e.blocked.map((b) =>
      // Semaphore 15 is the compiler's end-of-kernel barrier (docs/compiler.md), not the user's.
      / 15 to be above 0/.test(b.waitingFor) && !c.statements[b.pc]
        ? `QPU ${b.qpu} has finished the kernel and waits for every other QPU to finish it`
        : `QPU ${b.qpu} ${statement(b.pc) || `at pc ${b.pc}`} waits for ${b.waitingFor}`,
    );
    return new EmulatorError('deadlock', `kernel ${ast.name}: deadlock: every QPU still running waits on another: ${waits.join('; ')}`, undefined, undefined, e.blocked);
  }
  const stmt = e.where ? statement(e.where.pc) : '';
  const out = new EmulatorError(e.kind, `kernel ${ast.name}${stmt ? ' ' + stmt : ''}: ${e.message}${KERNEL_HINTS[e.rule ?? ''] ?? ''}`, undefined, e.rule);
  Object.defineProperty(out, 'where', { value: e.where });
  return out;
}

/**
 * What a broken rule usually means in a compiled kernel, where the rule's own advice (in terms
 * of machine code) does not help: two QPUs' DMA on the same memory is a kernel that gives every
 * QPU the same elements to work on.
 */
const KERNEL_HINTS: Readonly<Record<string, string>> = {
  'dma-store-race': `; in a kernel this means two QPUs store to, or one loads from, the same memory in one run: give each QPU its own part of the arrays (me(), numQPUs()), or run the kernel on one QPU`,
};

/** Checks the host's arguments against the parameters and turns them into 32-bit values. */
export function hostArguments(ast: KernelAst, params: readonly ParamType[], args: readonly unknown[]): { values: number[]; arrays: ArrayRegion[] } {
  // Arrays are named by their parameters, on both targets: faults say "past the end of p".
  const paramName = (i: number) => ast.params[i]?.userName ?? ast.params[i]?.name ?? '?';
  const fail = (i: number, why: string): never => {
    throw new TypeError(`kernel ${ast.name}: argument ${i + 1} (${paramName(i)}): ${why}`);
  };
  if (args.length !== params.length)
    throw new TypeError(`kernel ${ast.name} takes ${counted(params.length, 'argument')} (then, optionally, run options such as { maxSteps }), not ${args.length}`);
  const arrays: ArrayRegion[] = [];
  const values = params.map((t, i) => {
    const a = args[i];
    if (t.ty === 'int') {
      if (typeof a !== 'number' || !Number.isInteger(a) || a < -(2 ** 31) || a > 2 ** 32 - 1) fail(i, `expected a 32-bit integer (a number), got ${describeHost(a)}`);
      return (a as number) | 0;
    }
    if (t.ty === 'float') {
      if (typeof a !== 'number') fail(i, `expected a number, got ${describeHost(a)}`);
      return floatBits(a as number) | 0;
    }
    const want = t.ty === 'int*' ? Int32Array : Float32Array;
    if (!(a instanceof want)) fail(i, `expected a SharedArray of ${t.ty === 'int*' ? 'int32 (SharedArray.int32)' : 'float32 (SharedArray.float32)'}, got ${describeHost(a)}`);
    const x = allocationOf(a as Int32Array);
    if (!x || x.memory !== gpuMemory) fail(i, `this ${want.name} is not in GPU memory: make it with SharedArray.${t.ty === 'int*' ? 'int32' : 'float32'}(n)`);
    arrays.push({ name: paramName(i), address: x!.alloc.address, bytes: x!.alloc.bytes });
    return x!.alloc.address | 0;
  });
  return { values, arrays };
}

/** The names of a function's parameters, read from its source, for readable dumps and errors. */
function parameterNames(fn: (...a: never[]) => unknown): string[] {
  const src = fn.toString();
  const m = /^(?:async\s*)?(?:function\b[^(]*)?\(([^)]*)\)/.exec(src) ?? /^([A-Za-z_$][\w$]*)\s*=>/.exec(src);
  if (!m) return [];
  return m[1]!
    .split(',')
    .map((s) => s.trim().replace(/[:=].*$/, '').trim())
    .filter(Boolean);
}

// ---- run options

/** One run's options, checked, with the defaults filled in. */
interface Run {
  readonly target: RunTarget;
  readonly qpus: number;
  /** As given: undefined gives the target's default budget and its time limit (budget.ts). */
  readonly maxSteps: number | undefined;
  /** The budget in force: maxSteps, or the target's default. */
  readonly budget: number;
  readonly strict: boolean;
  readonly onProgress: ((p: Progress) => void) | undefined;
}

const OPTION_NAMES: readonly (keyof KernelRunOptions)[] = ['target', 'qpus', 'maxSteps', 'strict', 'onProgress'];

/**
 * Checks a call's run options (`o`, from the caller: anything) for kernel `name`, whose own QPU
 * count is `qpus`; `fixed` is the target the call names (interpret, emulate), if it does.
 */
function runOptions(name: string, o: unknown, qpus: number, fixed?: RunTarget): Run {
  const fail = (Kind: typeof TypeError, why: string): never => {
    throw new Kind(`kernel ${name}: ${why}`);
  };
  if (o === undefined) o = {};
  if (!isPlainObject(o)) fail(TypeError, `run options are an object such as { maxSteps: 1e9 }, not ${describeHost(o)}`);
  const x = o as Record<string, unknown>;
  const unknown = Object.keys(x).filter((key) => !(OPTION_NAMES as readonly string[]).includes(key));
  if (unknown.length)
    fail(TypeError, `${unknown.length === 1 ? 'no run option is called' : 'no run options are called'} ${unknown.map(optionName).join(', ')}: the options are ${OPTION_NAMES.join(', ')}`);
  if (x.target !== undefined && x.target !== 'emulator' && x.target !== 'interpreter')
    fail(TypeError, `target must be 'emulator' or 'interpreter', not ${describeHost(x.target)}`);
  const target = (x.target as RunTarget | undefined) ?? fixed ?? 'emulator';
  if (fixed && target !== fixed)
    fail(TypeError, `${fixed === 'interpreter' ? 'interpret' : 'emulate'}() runs on the ${fixed}, but the options say target '${target}'; call the kernel itself to choose the target`);
  if (x.qpus !== undefined && !(typeof x.qpus === 'number' && Number.isInteger(x.qpus) && x.qpus >= 1 && x.qpus <= MAX_QPUS))
    fail(RangeError, `qpus must be 1 to ${MAX_QPUS}, not ${describeHost(x.qpus)}`);
  if (x.strict !== undefined && typeof x.strict !== 'boolean') fail(TypeError, `strict must be true or false, not ${describeHost(x.strict)}`);
  if (x.onProgress !== undefined && typeof x.onProgress !== 'function')
    fail(TypeError, `onProgress must be a function ((p) => { ... }), not ${describeHost(x.onProgress)}`);
  const budget = stepBudget(x.maxSteps, target === 'interpreter' ? INTERPRETER_STEPS : EMULATOR_STEPS, `kernel ${name}`);
  return {
    target,
    qpus: (x.qpus as number | undefined) ?? qpus,
    maxSteps: x.maxSteps as number | undefined,
    budget,
    strict: (x.strict as boolean | undefined) ?? true,
    onProgress: x.onProgress as Run['onProgress'],
  };
}

/**
 * The options a call runs with: its own (`own`) over k.with()'s (`base`) over those of an
 * oversight of this kernel's runs (runtime/oversight.ts: `qpu run`'s command line), whose target
 * gives way to the one a call names (`fixed`). Options that are not an object are returned as
 * they are, for runOptions to report.
 */
function layered(name: string, own: unknown, base: KernelRunOptions | undefined, fixed: RunTarget | undefined): unknown {
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
function observed(name: string, r: Run, go: (r: Run) => RunReport): RunReport {
  noteRun();
  const observer = overseen(name)?.observer;
  if (!observer) return go(r);
  const run: OverseenRun = { kernel: name, target: r.target, qpus: r.qpus, maxSteps: r.budget };
  let last: Progress | undefined;
  const onProgress = (p: Progress) => {
    last = p;
    observer.progress?.(run, p.steps, p.cycles);
    r.onProgress?.(p);
  };
  const start = performance.now();
  const ended = (error?: unknown) =>
    observer.ended?.(run, { steps: last?.steps, cycles: last?.cycles, seconds: last?.seconds, wallSeconds: (performance.now() - start) / 1000, error });
  observer.started?.(run);
  let report: RunReport;
  try {
    report = go({ ...r, onProgress });
  } catch (e) {
    ended(e);
    throw e;
  }
  ended();
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
function splitOptions(args: readonly unknown[], nparams: number): { args: readonly unknown[]; options: unknown } {
  const last = args[nparams];
  if (args.length === nparams + 1 && (last === undefined || isPlainObject(last))) return { args: args.slice(0, nparams), options: last };
  return { args, options: undefined };
}
