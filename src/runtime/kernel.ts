// Kernels: a TypeScript function in the language, built once into a kernel AST, callable from
// the host with SharedArrays and numbers. `k(...)` runs on the default target, the emulator, and
// returns a Promise (so that targets on other threads or devices fit); `k.interpret(...)` and
// `k.emulate(...)` choose a target. The compiler runs once per QPU count and its code is cached.

import { describeHost, DslError, KernelBuilder, withBuilder } from '../dsl/builder.ts';
import type { ParamType, ParamValue } from '../dsl/types.ts';
import { IntVar, FloatVar, PtrVar } from '../dsl/values.ts';
import type { KernelAst, VarInfo } from '../source/ast.ts';
import { checkKernel } from '../source/check.ts';
import { interpret, type ArrayRegion } from '../source/interpreter.ts';
import { Printer, printKernel } from '../source/print.ts';
import { EMULATOR_STEPS, stepBudget } from '../emulator/budget.ts';
import { EmulatorError } from '../emulator/errors.ts';
import { floatBits } from '../vc4/tables.ts';
import { allocationOf, gpuMemory } from './shared-array.ts';
import { compile, type Compiled, OPT_LEVELS, type OptLevel } from '../compiler/compile.ts';
import type { RunResult } from '../emulator/machine.ts';
import { EmulatorTarget } from './emulate.ts';
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
  readonly target: 'interpreter' | 'emulator';
  readonly qpus: number;
  /** Interpreter: statements executed per QPU. */
  readonly steps?: readonly number[];
  /** Emulator: instructions, cycles, stalls and the estimated time on a Pi (emulator/machine.ts). */
  readonly run?: RunResult;
}

export interface RunOptions {
  /** Statements (interpreter) or instructions (emulator) all QPUs may execute in total. */
  readonly maxSteps?: number;
}

let target: EmulatorTarget | undefined;
/** The emulator that runs kernels, on the GPU memory SharedArrays live in. */
export function emulatorTarget(): EmulatorTarget {
  return (target ??= new EmulatorTarget(gpuMemory));
}

export interface Kernel<P extends readonly ParamType[]> {
  /** Runs the kernel on the default target: the emulator. */
  (...args: HostArgs<P>): Promise<RunReport>;
  readonly kernelName: string;
  readonly ast: KernelAst;
  readonly numQPUs: number;
  /** How many QPUs run the kernel (1-12); returns the kernel. */
  setNumQPUs(n: number): Kernel<P>;
  /** The compiler's optimization level for the emulator and code() (0-2, default 2); returns the kernel. */
  setOptLevel(level: OptLevel): Kernel<P>;
  readonly optLevel: OptLevel;
  /** Runs the kernel on the reference interpreter. */
  interpret(...args: HostArgs<P>): Promise<RunReport>;
  interpretSync(args: HostArgs<P>, opts?: RunOptions): RunReport;
  /** Compiles the kernel (once per QPU count) and runs the machine code on the emulator. */
  emulate(...args: HostArgs<P>): Promise<RunReport>;
  emulateSync(args: HostArgs<P>, opts?: RunOptions): RunReport;
  /** The machine code for the current QPU count: words, assembly, and every compiler stage's dump. */
  code(): Compiled;
  /** The kernel as readable text (its AST). */
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
  const name = opts.name ?? (body.name || 'kernel');
  const paramNames = parameterNames(body);
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

  let qpus = 1;
  const runInterpreter = (args: readonly unknown[], o: RunOptions = {}): RunReport => {
    const { values, arrays } = hostArguments(ast, params, args);
    const r = interpret(ast, { qpus, args: values, memory: gpuMemory, arrays, maxSteps: o.maxSteps });
    return { target: 'interpreter', qpus, steps: r.steps };
  };
  let opt: OptLevel = 2;
  const compiled = new Map<string, Compiled>();
  const code = (): Compiled => {
    let c = compiled.get(`${qpus}/${opt}`);
    if (!c) compiled.set(`${qpus}/${opt}`, (c = compile(ast, { qpus, opt })));
    return c;
  };
  const runEmulator = (args: readonly unknown[], o: RunOptions = {}): RunReport => {
    const { values, arrays } = hostArguments(ast, params, args);
    stepBudget(o.maxSteps, EMULATOR_STEPS, `kernel ${name}`); // checked as the interpreter checks it, before compiling
    const c = code();
    try {
      const run = emulatorTarget().run(c, values, arrays, { maxSteps: o.maxSteps });
      return { target: 'emulator', qpus, run };
    } catch (e) {
      throw e instanceof EmulatorError ? inKernel(ast, c, e) : e;
    }
  };
  const k = ((...args: unknown[]) => Promise.resolve().then(() => runEmulator(args))) as unknown as Kernel<P>;
  Object.defineProperties(k, {
    kernelName: { value: name },
    ast: { value: ast },
    numQPUs: { get: () => qpus },
    optLevel: { get: () => opt },
  });
  return Object.assign(k, {
    setNumQPUs(n: number) {
      if (!Number.isInteger(n) || n < 1 || n > 12) throw new RangeError(`kernel ${name}: setNumQPUs(${n}): 1 to 12 QPUs`);
      qpus = n;
      return k;
    },
    setOptLevel(level: OptLevel) {
      if (!(OPT_LEVELS as readonly number[]).includes(level)) throw new RangeError(`kernel ${name}: setOptLevel(${level}): the levels are ${OPT_LEVELS.join(', ')}`);
      opt = level;
      return k;
    },
    interpret: (...args: unknown[]) => Promise.resolve().then(() => runInterpreter(args)),
    interpretSync: (args: readonly unknown[], o?: RunOptions) => runInterpreter(args, o),
    emulate: (...args: unknown[]) => Promise.resolve().then(() => runEmulator(args)),
    emulateSync: (args: readonly unknown[], o?: RunOptions) => runEmulator(args, o),
    code,
    dump: () => printKernel(ast),
  }) as Kernel<P>;
}

/**
 * An emulator error in a compiled kernel, with the kernel and the statement the failing
 * instruction was compiled from (file:line:col and the statement as text) added.
 */
function inKernel(ast: KernelAst, c: Compiled, e: EmulatorError): EmulatorError {
  const names = new Map(ast.vars.map((v) => [v.id, v.name]));
  const printer = new Printer((id) => names.get(id) ?? `v${id}`);
  const statement = (pc: number): string => {
    const s = c.statements[pc];
    return s ? `in ${s.loc ? s.loc + ' ' : ''}\`${printer.brief(s)}\`` : '';
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
  const out = new EmulatorError(e.kind, `kernel ${ast.name}${stmt ? ' ' + stmt : ''}: ${e.message}`, undefined, e.rule);
  Object.defineProperty(out, 'where', { value: e.where });
  return out;
}

/** Checks the host's arguments against the parameters and turns them into 32-bit values. */
export function hostArguments(ast: KernelAst, params: readonly ParamType[], args: readonly unknown[]): { values: number[]; arrays: ArrayRegion[] } {
  const fail = (i: number, why: string): never => {
    throw new TypeError(`kernel ${ast.name}: argument ${i + 1} (${ast.params[i]?.name ?? '?'}): ${why}`);
  };
  if (args.length !== params.length) throw new TypeError(`kernel ${ast.name} takes ${params.length} arguments, not ${args.length}`);
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
    arrays.push({ name: ast.params[i]!.name, address: x!.alloc.address, bytes: x!.alloc.bytes });
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
