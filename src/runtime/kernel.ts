// Kernels: a TypeScript function in the language, built once into a kernel AST, callable from
// the host with SharedArrays and numbers. `k(...)` runs on the default target (the emulator, or
// on a usable Raspberry Pi its QPUs: runtime/default-target.ts) at once, and returns a Promise of
// its report (so that targets on other threads or devices fit); run options, as a last
// argument or bound with `k.with(options)`, choose the target, the QPU count, the step budget,
// strict mode and a progress callback; the target runs it (runtime/targets.ts). The compiler runs
// once per QPU count and level, and its code is cached. Errors name the kernel, the statement
// and the user's own variable names (runtime/kernel-errors.ts).

import { blockDeferredMessage, callerPlace, deferredKind, deferredResult, describeHost, DslError, KernelBuilder, userStack, withBuilder } from '../dsl/builder.ts';
import { checkFuncVariables } from '../dsl/funcs.ts';
import { sourceParameterNames } from '../dsl/names.ts';
import { checkSignature } from '../dsl/signature.ts';
import type { ParamType } from '../dsl/types.ts';
import { IntVar, FloatVar, PtrVar } from '../dsl/values.ts';
import { type FuncAst, type KernelAst, storageOf, type VarInfo } from '../source/ast.ts';
import { checkKernel } from '../source/check.ts';
import { printKernel } from '../source/print.ts';
import { pin } from './shared-array.ts';
import { compile, type Compiled, OPT_LEVELS, type OptLevel } from '../compiler/driver.ts';
import { MAX_QPUS } from '../vc4/chip.ts';
import { hostArguments } from './host-args.ts';
import { exclusive, type RunnableKernel, TARGETS } from './targets.ts';
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
import { overseen } from './oversight.ts';

export type { KernelRun, KernelRunOptions, Progress, RunOptions, RunReport, RunTarget, TargetRunOptions } from './run-options.ts';
export { emulatorTarget } from './targets.ts';
export type { HostArg, HostArgs, ParamValues } from './types.ts';
import type { HostArgs, ParamValues } from './types.ts';
export { hostArguments } from './host-args.ts';

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
  /** Whether the kernel's assert statements are kept (default true); false leaves them out, on every target. */
  readonly assertions?: boolean;
}

/**
 * Makes a kernel from its parameters' types and its function. The function runs once, now,
 * building the kernel: TypeScript code in it is the meta-language (loops unroll, helper
 * functions and classes generate code).
 */
export function kernel<const P extends readonly ParamType[]>(params: P, body: (...args: ParamValues<P & {}>) => void, opts?: KernelOptions): Kernel<P> {
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
  const runnable: RunnableKernel = { name, ast, code: codeFor };
  const run = (args: readonly unknown[], r: Run): RunReport => {
    const { values, arrays } = hostArguments(ast, params, args);
    overseen(name)?.debugRun?.({ ast, optLevel: opt }, args, r.qpus);
    return exclusive(name, () => {
      // Its arrays cannot be freed until it ends (SharedArray.free from onProgress is refused).
      const unpin = pin(arrays, `kernel ${name}`);
      try {
        const report = observed(name, r, (r) => TARGETS[r.target].run(runnable, { values, arrays, r, level: opt }));
        for (const line of report.printed) console.log(line); // what the kernel's print statements showed
        return report;
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
  b.assertions = opts?.assertions ?? true;
  const at = place ? ` (${place.loc})` : '';
  const deferred = deferredKind(body);
  if (deferred) throw new DslError(`kernel ${name}${at}: ${blockDeferredMessage(`the kernel's function is ${deferred}`)}`);
  withBuilder(b, () => {
    const values = params.map((t, i) => {
      const v = b.newVar(t.ty, paramNames[i] ?? `arg${i}`);
      return t.ty === 'int' ? new IntVar(v, b) : t.ty === 'float' ? new FloatVar(v, b) : new PtrVar(v, b, storageOf(t.ty));
    });
    const later = deferredResult((body as (...a: unknown[]) => unknown)(...values));
    if (later) throw new DslError(`kernel ${name}${at}: ${blockDeferredMessage(`the kernel's function returned ${later}`)}`);
  });
  const vars: VarInfo[] = b.vars;
  // A func whose body failed to build (an error the kernel's function caught) is never called: its place stays empty.
  const funcs = b.funcs.map((f): FuncAst => f ?? { name: 'unbuilt', params: [], body: [], results: [] });
  const ast: KernelAst = { name, params: vars.slice(0, params.length), vars, body: b.body, ...(funcs.length ? { funcs } : {}) };
  try {
    checkFuncVariables(b);
    checkKernel(ast);
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message))
      throw new DslError(`kernel ${name}: blocks or expressions nested too deeply to check (the host's stack ran out); nest less`);
    throw e;
  }
  return ast;
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
