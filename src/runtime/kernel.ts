// Kernels: a TypeScript function in the language, built once into a kernel AST, callable from
// the host with SharedArrays and numbers. `k(...)` runs on the default target (the emulator, or
// on a usable Raspberry Pi its QPUs: runtime/default-target.ts) at once, and returns a Promise of
// its report (so that targets on other threads or devices fit); run options, as a last
// argument or bound with `k.with(options)`, choose the target, the QPU count, the step budget,
// strict mode and a progress callback. The compiler runs once per QPU count and its code is
// cached. Errors name the kernel, the statement and the user's own variable names.

import { BARRIER_SEMAPHORE } from '../compiler/frame.ts';
import { blockDeferredMessage, callerPlace, deferredKind, deferredResult, describeHost, DslError, KernelBuilder, userStack, withBuilder } from '../dsl/builder.ts';
import { sourceParameterNames } from '../dsl/names.ts';
import { checkSignature } from '../dsl/signature.ts';
import type { ParamType, ParamValue } from '../dsl/types.ts';
import { IntVar, FloatVar, PtrVar } from '../dsl/values.ts';
import { accessesMemory, type KernelAst, type VarInfo } from '../source/ast.ts';
import { checkKernel } from '../source/check.ts';
import { interpret, type ArrayRegion } from '../source/interpreter.ts';
import { messagePrinter, printKernel } from '../source/print.ts';
import { counted, RAISE_WITH_OPTION } from '../common/budget.ts';
import { EmulatorError } from '../emulator/errors.ts';
import { GATHER_AFTER_STORE_HINT } from '../vc4/rules.ts';
import { floatBits } from '../vc4/tables.ts';
import { allocationOf, gpuMemory, pin, wasFreed } from './shared-array.ts';
import { compile, type Compiled, OPT_LEVELS, type OptLevel } from '../compiler/driver.ts';
import { MAX_QPUS } from '../vc4/chip.ts';
import { EmulatorTarget } from './emulate.ts';
import { type HostArray, staged } from './staging.ts';
import { emulatorReport, type Estimate, interpreterReport, piReport } from './report.ts';
import { type Snapshot, snapshot } from './snapshot.ts';
import type { RunResult } from '../emulator/machine.ts';
import { piSession } from '../pi/session.ts';
import { runCompiledOnPi } from '../pi/target.ts';
import {
  type KernelRun,
  type KernelRunOptions,
  layered,
  observed,
  type Run,
  type RunReport,
  runOptions,
  type RunTarget,
  splitOptions,
  type TargetRunOptions,
} from './run-options.ts';

export type { KernelRun, KernelRunOptions, Progress, RunOptions, RunReport, RunTarget, TargetRunOptions } from './run-options.ts';
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
  /** The kernel on a target: `k.on('pi')(a, b)` is `k.with({ target: 'pi' })(a, b)`. */
  on(target: RunTarget): KernelRun<P>;
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
  /** The arguments as an array (`Parameters<typeof k>` too, options last), then options. */
  interpretSync(args: Readonly<HostArgs<P>> | readonly [...HostArgs<P>, KernelRunOptions?], opts?: TargetRunOptions): RunReport;
  /** Compiles the kernel (once per QPU count) and runs the machine code on the emulator. */
  emulate(...args: [...HostArgs<P>, TargetRunOptions?]): Promise<RunReport>;
  emulateSync(args: Readonly<HostArgs<P>> | readonly [...HostArgs<P>, KernelRunOptions?], opts?: TargetRunOptions): RunReport;
  /** The machine code for the current QPU count: words, assembly, and every compiler stage's dump. */
  code(): Compiled;
  /** The kernel as readable text (its AST), its variables named as in the source. */
  dump(): string;
}

/**
 * The mark of a function kernel(...) made (the command line tells kernels from look-alikes by
 * it); a registered symbol, so that another copy of qpu-ts recognises it too.
 */
export const KERNEL_BRAND: unique symbol = Symbol.for('qpu-ts.kernel');

export interface KernelOptions {
  readonly name?: string;
}

/**
 * Makes a kernel from its parameters' types and its function. The function runs once, now,
 * building the kernel: TypeScript code in it is the meta-language (loops unroll, helper
 * functions and classes generate code).
 */
export function kernel<const P extends readonly ParamType[]>(params: P, body: (...args: ParamValues<P>) => void, opts?: KernelOptions): Kernel<P> {
  let ast: KernelAst;
  try {
    ast = build(params, body, opts);
  } catch (e) {
    throw userStack(e, kernel);
  }
  const name = ast.name;
  let qpus = 1;
  let opt: OptLevel = 2;
  const compiled = new Map<string, Compiled>();
  const codeFor = (n: number, level: OptLevel = opt): Compiled => {
    let c = compiled.get(`${n}/${level}`);
    if (!c) compiled.set(`${n}/${level}`, (c = compile(ast, { qpus: n, opt: level })));
    return c;
  };
  /**
   * The cycle model's figures for a run on the interpreter or the pi target: the compiled code
   * on the emulator, on copies of the arrays as they were before the run (runtime/report.ts).
   */
  const estimateOf = (values: readonly number[], snap: Snapshot | undefined, r: Run, level: OptLevel): { now: Estimate; later: Estimate } => {
    const now = (): RunResult => {
      if (!snap) throw new Error(`kernel ${name}: this run on the ${r.target} has no cycle-model figures (report.run and what comes from it): it ran with { estimate: false }`);
      // In time order: the cycle model's figures are those of the machine's own order, not of a random interleaving.
      const budget: Run = { ...r, onProgress: undefined, interleave: undefined, maxSteps: r.target === 'interpreter' ? undefined : r.maxSteps };
      return snap.replay(gpuMemory, values, (v, regions) => emulatorRun(ast, codeFor(r.qpus, level), v, regions, budget));
    };
    // Read from a report, after the run: a run of its own.
    const later = (): RunResult => {
      try {
        return exclusive(name, now);
      } catch (e) {
        throw userStack(e, later);
      }
    };
    return { now, later };
  };
  const run = (args: readonly unknown[], r: Run): RunReport => {
    const { values, arrays } = hostArguments(ast, params, args);
    return exclusive(name, () => {
      // Its arrays cannot be freed until it ends (SharedArray.free from onProgress is refused).
      const unpin = pin(arrays, `kernel ${name}`);
      try {
        return observed(name, r, (r) => {
          const level = opt;
          if (r.target === 'emulator') return emulatorReport(r.qpus, staged(gpuMemory, values, arrays, (v, regions) => emulatorRun(ast, codeFor(r.qpus), v, regions, r)));
          const snap = r.estimate === false ? undefined : snapshot(arrays);
          const estimate = estimateOf(values, snap, r, level);
          if (r.target === 'pi') return runPi(codeFor(r.qpus), values, arrays, r, estimate);
          const statements = staged(gpuMemory, values, arrays, (v, regions) => runInterpreter(ast, v, regions, r));
          return interpreterReport(r.qpus, statements, estimate.later, r.estimate ? estimate.now() : undefined);
        });
      } finally {
        unpin();
      }
    });
  };
  /**
   * Options for one call: its own (`own`, anything the caller passed) over k.with()'s (`base`);
   * `fixed` is the target the call names (interpret, emulate), if it does.
   */
  const options = (own: unknown, fixed?: RunTarget, base?: KernelRunOptions): Run => runOptions(name, layered(name, own, base, fixed), qpus, fixed);
  /** A call with the options of k.with() (`base`) and its own, if its last argument has them. */
  const call = (args: readonly unknown[], fixed?: RunTarget, base?: KernelRunOptions): RunReport => {
    try {
      const split = splitOptions(args, params.length);
      return run(split.args, options(split.options, fixed, base));
    } catch (e) {
      throw userStack(e, call);
    }
  };
  /** interpretSync and emulateSync: the arguments as an array, then the options. */
  const now = (what: string, args: unknown, o: unknown, fixed: RunTarget): RunReport => {
    try {
      if (!Array.isArray(args)) throw new TypeError(`kernel ${name}: ${what} takes the kernel's arguments as an array, then options: k.${what}([a, b], { maxSteps }); got ${describeHost(args)}`);
      // Parameters<typeof k> may end with options too.
      const split = splitOptions(args, params.length);
      if (split.options !== undefined && o !== undefined) throw new TypeError(`kernel ${name}: ${what} was given options twice: at the end of the arguments and after them; give them once`);
      return run(split.args, options(split.options ?? o, fixed));
    } catch (e) {
      throw userStack(e, now);
    }
  };
  /**
   * A call that returns a Promise: the run happens now, inside the call, so that the arrays hold
   * the results when it returns, awaited or not (forgetting `await` must not read stale values);
   * its error, if any, rejects the Promise.
   */
  const later = (args: readonly unknown[], fixed?: RunTarget, base?: KernelRunOptions): Promise<RunReport> => {
    try {
      return Promise.resolve(call(args, fixed, base));
    } catch (e) {
      return Promise.reject(e);
    }
  };
  const k = ((...args: unknown[]) => later(args)) as unknown as Kernel<P>;
  Object.defineProperties(k, {
    [KERNEL_BRAND]: { value: true },
    kernelName: { value: name },
    ast: { value: ast },
    numQPUs: { get: () => qpus },
    optLevel: { get: () => opt },
  });
  return Object.assign(k, {
    on(t: RunTarget) {
      return (k as Kernel<P>).with({ target: t });
    },
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
    interpretSync: (args: readonly unknown[], o?: TargetRunOptions) => now('interpretSync', args, o, 'interpreter'),
    emulate: (...args: unknown[]) => later(args, 'emulator'),
    emulateSync: (args: readonly unknown[], o?: TargetRunOptions) => now('emulateSync', args, o, 'emulator'),
    code: () => codeFor(qpus),
    dump: () => printKernel(ast, 'user'),
  }) as Kernel<P>;
}

/** Runs the kernel's function once with a builder: the kernel's AST, checked. */
function build(params: readonly ParamType[], body: (...args: never) => void, opts: KernelOptions | undefined): KernelAst {
  const place = callerPlace();
  const name = checkSignature(params, body, opts, place);
  const paramNames = (place && sourceParameterNames(place, params.length)) ?? parameterNames(body);
  const b = new KernelBuilder(name);
  const at = place ? ` (${place.loc})` : '';
  const deferred = deferredKind(body);
  if (deferred) throw new DslError(`kernel ${name}${at}: ${blockDeferredMessage(`the kernel's function is ${deferred}`)}`);
  withBuilder(b, () => {
    const values = params.map((t, i) => {
      const v = b.newVar(t.ty, paramNames[i] ?? `arg${i}`);
      return t.ty === 'int' ? new IntVar(v, b) : t.ty === 'float' ? new FloatVar(v, b) : new PtrVar(v, b, t.ty === 'int*' ? 'int' : 'float');
    });
    const later = deferredResult((body as (...a: unknown[]) => unknown)(...values));
    if (later) throw new DslError(`kernel ${name}${at}: ${blockDeferredMessage(`the kernel's function returned ${later}`)}`);
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

/**
 * Runs `go` as the one kernel run in progress: both targets use the one GPU memory, and only an
 * onProgress callback (or a report's estimate read from one) could start a run inside another.
 */
function exclusive<T>(name: string, go: () => T): T {
  if (running) throw new Error(`kernel ${name}: cannot run while kernel ${running} runs (from its onProgress callback); run it after`);
  running = name;
  try {
    return go();
  } finally {
    running = undefined;
  }
}

/** A run on the interpreter: the statements each QPU ran. */
function runInterpreter(ast: KernelAst, values: number[], arrays: ArrayRegion[], r: Run): readonly number[] {
  const onProgress = r.onProgress;
  const progress = onProgress && ((steps: number, done: boolean) => onProgress({ target: 'interpreter', steps, maxSteps: r.budget, done }));
  return interpret(ast, { qpus: r.qpus, args: values, memory: gpuMemory, arrays, maxSteps: r.maxSteps, onProgress: progress, interleave: r.interleave }).steps;
}

/** A run of the compiled code on the emulator. */
function emulatorRun(ast: KernelAst, c: Compiled, values: number[], arrays: ArrayRegion[], r: Run): RunResult {
  const emu = emulatorTarget();
  const onProgress = r.onProgress;
  const hz = emu.machine.timing.clockHz;
  const progress =
    onProgress &&
    ((steps: number, cycles: number, done: boolean) => onProgress({ target: 'emulator', steps, maxSteps: r.budget, cycles, seconds: cycles / hz, done }));
  try {
    return emu.run(c, values, arrays, { maxSteps: r.maxSteps, strict: r.strict, onProgress: progress, raiseWith: RAISE_WITH_OPTION, interleave: r.interleave });
  } catch (e) {
    throw e instanceof EmulatorError ? inKernel(ast, c, e) : e;
  }
}

/**
 * A run on the Pi's QPUs, arrays in its GPU memory (copied there if they live elsewhere), with
 * the cycle model's estimate: first, when asked (r.estimate), else when the report's `run` is
 * first read; either way on copies of the arrays as they were before the run.
 */
function runPi(c: Compiled, values: number[], arrays: HostArray[], r: Run, estimate: { now: Estimate; later: Estimate }): RunReport {
  const ran = r.estimate ? estimate.now() : undefined;
  const s = piSession();
  const pi = staged(s.memory, values, arrays, (v) => runCompiledOnPi(s, c, v, { timeoutMs: r.timeoutMs }));
  r.onProgress?.({ target: 'pi', steps: ran?.total.instructions ?? 0, maxSteps: r.budget, done: true });
  return piReport(r.qpus, pi, estimate.later, ran);
}

/**
 * An emulator error in a compiled kernel, with the kernel and the statement the failing
 * instruction was compiled from (file:line:col and the statement as text) added.
 */
function inKernel(ast: KernelAst, c: Compiled, e: EmulatorError): EmulatorError {
  const printer = messagePrinter(ast);
  const statement = (pc: number, memory = false): string => {
    // An instruction can hold two statements' work (paired): a memory fault is the one that accesses memory.
    const paired = c.pairedStatements[pc];
    const s = memory && paired && accessesMemory(paired) && !accessesMemory(c.statements[pc] ?? paired) ? paired : c.statements[pc];
    return s ? `in ${s.loc ? s.loc + ' ' : ''}\`${printer.brief(s.shows ?? s)}\`` : '';
  };
  if (e.kind === 'deadlock' && e.blocked) {
    const waits = e.blocked.map((b) => ({
      qpu: b.qpu,
      // The compiler's end-of-kernel barrier (docs/compiler.md), not the user's.
      text: b.semaphore === BARRIER_SEMAPHORE && !c.statements[b.pc]
        ? `QPU ${b.qpu} has finished the kernel and waits for every other QPU to finish it`
        : `QPU ${b.qpu} ${statement(b.pc) || `at pc ${b.pc}`} waits for ${b.waitingFor}`,
    }));
    // Every QPU in order, as the interpreter lists them: those that ended too.
    for (const q of e.finished ?? []) waits.push({ qpu: q, text: `QPU ${q} has finished the kernel` });
    waits.sort((a, b) => a.qpu - b.qpu);
    const text = waits.map((w) => w.text).join('; ');
    return new EmulatorError('deadlock', `kernel ${ast.name}: deadlock: every QPU still running waits on another: ${text}`, undefined, undefined, e.blocked, e.finished);
  }
  const stmt = e.where ? statement(e.where.pc, e.kind === 'fault' || MEMORY_RULES.test(e.rule ?? '')) : '';
  const out = new EmulatorError(e.kind, `kernel ${ast.name}${stmt ? ' ' + stmt : ''}: ${e.message}${KERNEL_HINTS[e.rule ?? ''] ?? ''}`, undefined, e.rule);
  Object.defineProperty(out, 'where', { value: e.where });
  return out;
}

/** Rules about memory requests (rules.ts): their statement is the one that reads or writes memory. */
const MEMORY_RULES = /^(dma|tmu|vpm)-|race/;

/**
 * What a broken rule usually means in a compiled kernel, where the rule's own advice (in terms
 * of machine code) does not help: two QPUs' DMA on the same memory is a kernel that gives every
 * QPU the same elements to work on.
 */
const KERNEL_HINTS: Readonly<Record<string, string>> = {
  'gather-after-store': GATHER_AFTER_STORE_HINT,
  'dma-store-race': `; in a kernel this means two QPUs store to, or one loads from, the same memory in one run: give each QPU its own part of the arrays (me(), numQPUs()), or run the kernel on one QPU`,
};

/** Checks the host's arguments against the parameters and turns them into 32-bit values. */
export function hostArguments(ast: KernelAst, params: readonly ParamType[], args: readonly unknown[]): { values: number[]; arrays: HostArray[] } {
  // Arrays are named by their parameters, on both targets: faults say "past the end of p".
  const paramName = (i: number) => ast.params[i]?.userName ?? ast.params[i]?.name ?? '?';
  const fail = (i: number, why: string): never => {
    throw new TypeError(`kernel ${ast.name}: argument ${i + 1} (${paramName(i)}): ${why}`);
  };
  if (args.length !== params.length)
    throw new TypeError(`kernel ${ast.name} takes ${counted(params.length, 'argument')} (then, optionally, run options such as { maxSteps }), not ${args.length}`);
  const arrays: HostArray[] = [];
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
    if (!x) fail(i, wasFreed(a) ? 'this SharedArray was freed (SharedArray.free)' : `this ${want.name} is not in GPU memory: make it with SharedArray.${t.ty === 'int*' ? 'int32' : 'float32'}(n)`);
    arrays.push({ name: paramName(i), address: x!.alloc.address, bytes: x!.alloc.bytes, index: i, memory: x!.memory, alloc: x!.alloc });
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
