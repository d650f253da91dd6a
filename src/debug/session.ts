// A debugging session of one kernel call: `debug(k, args, options)`. It stops the run at a step
// (a statement on the interpreter, an instruction on the emulator), lets the caller look at every
// QPU's variables, state and (emulator) registers, and moves on: to the next breakpoint (on a
// source line, with a condition on lanes' values), one step of the selected QPU, its next
// statement, or one step back. Every move replays the run from its start (both targets are
// deterministic), so going back costs what going forward does, and nothing the run does can
// reach the caller's arrays: the replays run on copies of them as they were when the session
// began.

import { compile, type Compiled, type OptLevel } from '../compiler/driver.ts';
import { hostArguments } from '../runtime/host-args.ts';
import type { Kernel } from '../runtime/kernel.ts';
import { snapshot } from '../runtime/snapshot.ts';
import type { ParamType } from '../dsl/types.ts';
import type { KernelAst, Stmt, VarInfo } from '../source/ast.ts';
import { writtenStatements } from '../source/print.ts';
import { LANES, MAX_QPUS } from '../vc4/chip.ts';
import type { SfuMode } from '../vc4/sfu-model.ts';
import { replayEmulator } from './emulator-replay.ts';
import { type ReplayCall, replayInterpreter } from './interpreter-replay.ts';
import { type Lanes, type Snapshot, type StepEvent, type StopAt, userName } from './snapshot.ts';
import { evaluate, holds, namesOf, parseWatch, type Scope, type WatchExpr, type WatchValue } from './watch.ts';
import { funcsOf } from './interpreter-replay.ts';

export type DebugTarget = 'interpreter' | 'emulator';

export interface DebugOptions {
  /** Step by statement on the reference interpreter (default), or by instruction on the emulator. */
  readonly target?: DebugTarget;
  /** QPUs that run the kernel (default the kernel's numQPUs). */
  readonly qpus?: number;
  /** The emulator: the optimization level of the code (default the kernel's). */
  readonly opt?: OptLevel;
  /** The run's step budget (statements or instructions, all QPUs). */
  readonly maxSteps?: number;
  /** As the run options of the same names: the SFU's results, a random interleaving of the QPUs, the emulator's strict mode. */
  readonly sfu?: SfuMode;
  readonly interleave?: number;
  readonly strict?: boolean;
}

export interface Breakpoint {
  readonly id: number;
  /** The file it is in, as the statements name it, or undefined for any. */
  readonly file: string | undefined;
  readonly line: number;
  /** Stop only where this holds in some lane the enclosing Wheres keep (watch.ts). */
  readonly condition?: string;
  readonly expr?: WatchExpr;
}

export type StopReason = 'entry' | 'step' | 'breakpoint' | 'end' | 'error';

export interface Stopped {
  readonly reason: StopReason;
  readonly snapshot: Snapshot;
  readonly breakpoint?: Breakpoint;
}

/** A variable's lanes on one QPU, decoded by its type. */
export interface VariableView {
  readonly name: string;
  readonly ty: string;
  readonly lanes?: readonly number[];
  readonly unavailable?: string;
}

export class DebugError extends Error {}

/** Starts a session of a call of `k` with `args`: stopped before the run's first step. */
export function debug<P extends readonly ParamType[]>(k: Kernel<P>, args: readonly unknown[], opts: DebugOptions = {}): DebugSession {
  return new DebugSession(k.ast, args, { qpus: k.numQPUs, opt: k.optLevel, ...opts });
}

export class DebugSession {
  readonly target: DebugTarget;
  readonly qpus: number;
  readonly code?: Compiled;
  readonly breakpoints: Breakpoint[] = [];
  private selected = 0;
  /** The func each statement of the kernel's funcs belongs to. */
  private readonly funcs: WeakMap<Stmt, number>;

  /** The QPU that steps and whose variables show (default 0). */
  get qpu(): number {
    return this.selected;
  }
  set qpu(q: number) {
    if (!Number.isInteger(q) || q < 0 || q >= this.qpus) throw new DebugError(`kernel ${this.ast.name}: qpu is 0 to ${this.qpus - 1}, not ${String(q)}`);
    this.selected = q;
  }
  private nextId = 1;
  private readonly call: ReplayCall;
  private readonly byName: Map<string, VarInfo>;
  private readonly lines: Set<string>;
  stopped: Stopped;

  constructor(
    readonly ast: KernelAst,
    args: readonly unknown[],
    opts: DebugOptions & { qpus: number },
  ) {
    const target = (this.target = opts.target ?? 'interpreter');
    if (target !== 'interpreter' && target !== 'emulator') throw new DebugError(`kernel ${ast.name}: the debugger runs on the interpreter or the emulator, not ${String(target)}`);
    if (!Number.isInteger(opts.qpus) || opts.qpus < 1 || opts.qpus > MAX_QPUS) throw new DebugError(`kernel ${ast.name}: qpus must be 1 to ${MAX_QPUS}, not ${String(opts.qpus)}`);
    this.qpus = opts.qpus;
    const params = ast.params.map((v) => ({ ty: v.ty }) as ParamType);
    const { values, arrays } = hostArguments(ast, params, args);
    this.call = { values, arrays: snapshot(arrays), qpus: this.qpus, maxSteps: opts.maxSteps, sfu: opts.sfu, interleave: opts.interleave, strict: opts.strict };
    if (target === 'emulator') this.code = compile(ast, { qpus: this.qpus, opt: opts.opt ?? 2 });
    this.byName = new Map(ast.vars.map((v) => [userName(v), v]));
    this.lines = new Set([...writtenStatements(ast).keys()].map((loc) => loc.replace(/:\d+$/, '')));
    this.funcs = funcsOf(ast);
    this.stopped = this.run(() => true, 'entry');
  }

  /** Replays the run to the first step `at` picks. */
  private run(at: StopAt, reason: StopReason, breakpointOf?: (e: StepEvent) => Breakpoint | undefined): Stopped {
    let hit: Breakpoint | undefined;
    const stopAt: StopAt = (e) => {
      if (!at(e)) return false;
      hit = breakpointOf?.(e);
      return true;
    };
    const snap = this.code ? replayEmulator(this.ast, this.code, this.call, stopAt) : replayInterpreter(this.ast, this.call, stopAt);
    const r: StopReason = snap.ended ? (snap.error !== undefined ? 'error' : 'end') : snap.event === 0 ? 'entry' : reason;
    return (this.stopped = { reason: r, snapshot: snap, ...(hit && !snap.ended ? { breakpoint: hit } : {}) });
  }

  /** Runs on to the `count`-th next breakpoint any QPU reaches, or the end; the QPU stopped (at a breakpoint or an error) becomes the selected one. */
  continue(count = 1): Stopped {
    positive(count);
    const from = this.stopped.snapshot.event;
    const hitOf = (e: StepEvent) => this.breakpoints.find((b) => this.hits(b, e));
    let hits = 0;
    const st = this.run((e) => e.n > from && hitOf(e) !== undefined && ++hits >= positive(count), 'breakpoint', hitOf);
    if (st.reason === 'breakpoint' || st.reason === 'error') this.selected = st.snapshot.qpu;
    return st;
  }

  /** `count` steps of the selected QPU: its next statements (interpreter) or instructions (emulator). */
  step(count = 1): Stopped {
    return this.forward((e) => e.qpu === this.selected, count);
  }

  /**
   * The selected QPU's next statement (`count` of them): on the emulator, its first instruction
   * of another statement; a func it calls runs through, as gdb's next steps over a call.
   */
  next(count = 1): Stopped {
    const depth = this.funcOf(this.here());
    // Instructions of no statement (a call's and a return's own, the kernel's start and end) are passed by.
    return this.forward((e) => e.qpu === this.selected && e.entersStatement && e.stmt !== undefined && this.within(e.stmt, depth), count);
  }

  /** On until the func the selected QPU is in returns (its next statement outside it); outside a func, next. */
  out(): Stopped {
    const f = this.funcOf(this.here());
    if (f === undefined) return this.next();
    return this.forward((e) => e.qpu === this.selected && e.entersStatement && e.stmt !== undefined && this.funcOf(e.stmt) !== f, 1);
  }

  /** One step back (`count`): the selected QPU's step before this one (`statement`: its statement before, on the emulator). */
  back(statement = false, count = 1): Stopped {
    positive(count);
    const to = this.stopped.snapshot.event;
    const last: number[] = [];
    // A first replay finds the step; a second stops there.
    this.run((e) => {
      if (e.n >= to) return true;
      if (e.qpu === this.selected && (!statement || (e.entersStatement && e.stmt !== undefined))) last.push(e.n);
      if (last.length > positive(count)) last.shift();
      return false;
    }, 'step');
    const at = last.length < positive(count) ? -1 : last[0]!;
    return at <= 0 ? this.restart() : this.run((e) => e.n === at, 'step');
  }

  /** The first step after this one that `pick` picks, `count` times. */
  private forward(pick: (e: StepEvent) => boolean, count: number): Stopped {
    positive(count);
    const from = this.stopped.snapshot.event;
    let seen = 0;
    return this.run((e) => e.n > from && pick(e) && ++seen >= positive(count), 'step');
  }

  /** The selected QPU's statement where the run stopped. */
  private here(): Stmt | undefined {
    return this.stopped.snapshot.qpus[this.selected]?.stmt;
  }

  /** The func a statement of the user's kernel belongs to (undefined: the kernel's own body). */
  private funcOf(s: Stmt | undefined): number | undefined {
    return s ? this.funcs.get(s) : undefined;
  }

  /** Whether a statement is where `next` stops from a statement of func `depth`: not inside another func it calls. */
  private within(s: Stmt | undefined, depth: number | undefined): boolean {
    const f = this.funcOf(s);
    return f === undefined || f === depth;
  }

  /** Back to the start: stopped before the run's first step. */
  restart(): Stopped {
    return this.run(() => true, 'entry');
  }

  /** Runs to the end, past every breakpoint. */
  finish(): Stopped {
    return this.run(() => false, 'end');
  }

  /** A breakpoint on a line ("file.ts:12", or "12" for that line of any file), with an optional condition. */
  break(where: string | number, condition?: string): Breakpoint {
    const m = /^(?:(.*):)?(\d+)$/.exec(String(where).trim());
    if (!m) throw new DebugError(`a breakpoint is a line: 12, or file.ts:12; not ${JSON.stringify(where)}`);
    const file = m[1];
    const line = Number(m[2]);
    const here = [...this.lines].filter((l) => l.endsWith(`:${line}`) && (file === undefined || sameFile(l.slice(0, l.lastIndexOf(':')), file)));
    if (!here.length) throw new DebugError(`no statement of kernel ${this.ast.name} is on line ${file ? `${file}:` : ''}${line}; its statements are on ${this.linesText()}`);
    const expr = condition === undefined ? undefined : parseWatch(condition);
    const unknown = expr && namesOf(expr).find((n) => !this.byName.has(n) && n !== 'index' && n !== 'qpu');
    if (unknown !== undefined) throw new DebugError(`kernel ${this.ast.name} has no variable ${unknown} (the condition ${condition})`);
    const b: Breakpoint = { id: this.nextId++, file, line, ...(condition !== undefined ? { condition, expr } : {}) };
    this.breakpoints.push(b);
    return b;
  }

  /** Removes a breakpoint; false if there is none with that number. */
  delete(id: number): boolean {
    const i = this.breakpoints.findIndex((b) => b.id === id);
    if (i >= 0) this.breakpoints.splice(i, 1);
    return i >= 0;
  }

  /** The selected QPU's variables (those set so far), lanes decoded by type. */
  variables(qpu = this.qpu, all = false): VariableView[] {
    const out: VariableView[] = [];
    for (const v of this.ast.vars) {
      const lanes = this.stopped.snapshot.variable(qpu, v);
      if (!(lanes instanceof Int32Array) && lanes.unavailable === 'not set yet' && !all) continue;
      out.push(view(v, lanes));
    }
    return out;
  }

  /** A variable on every QPU: a grid of QPUs by lanes. */
  grid(name: string): VariableView[] {
    const v = this.variable(name);
    return Array.from({ length: this.qpus }, (_, q) => view(v, this.stopped.snapshot.variable(q, v)));
  }

  /** A watch expression's value on a QPU where the run stopped. */
  evaluate(expr: string, qpu = this.qpu): WatchValue {
    return evaluate(parseWatch(expr), this.scope(qpu, (v) => this.stopped.snapshot.variable(qpu, v)));
  }

  private variable(name: string): VarInfo {
    const v = this.byName.get(name);
    if (!v) throw new DebugError(`kernel ${this.ast.name} has no variable ${name}`);
    return v;
  }

  /** Names as watch expressions see them on QPU q. */
  private scope(q: number, read: (v: VarInfo) => Lanes): Scope {
    return (name) => {
      if (name === 'index') return { ty: 'int', lanes: Array.from({ length: LANES }, (_, l) => l) };
      if (name === 'qpu') return { ty: 'int', lanes: [q] };
      const v = this.byName.get(name);
      if (!v) return undefined;
      const lanes = read(v);
      return lanes instanceof Int32Array ? watchValue(v, lanes) : lanes;
    };
  }

  /** Whether breakpoint b stops the run at step e. */
  private hits(b: Breakpoint, e: StepEvent): boolean {
    const loc = e.stmt?.loc;
    if (!loc || !e.entersLine) return false;
    const parts = /^(.*):(\d+):\d+$/.exec(loc);
    if (!parts || Number(parts[2]) !== b.line || (b.file !== undefined && !sameFile(parts[1]!, b.file))) return false;
    if (!b.expr) return true;
    try {
      return holds(evaluate(b.expr, this.scope(e.qpu, (v) => e.variable(v))), e.mask);
    } catch {
      return false; // a variable not set yet, or a division by zero in some lane: the condition does not hold
    }
  }

  private linesText(): string {
    const lines = [...this.lines].map((l) => Number(l.slice(l.lastIndexOf(':') + 1))).sort((a, b) => a - b);
    return lines.length ? `lines ${[...new Set(lines)].join(', ')}` : 'no line (the kernel has no statement)';
  }
}

/** Whether a statement's file is the file a breakpoint names: the same path, or the same file name at the end of it. */
function sameFile(stmtFile: string, given: string): boolean {
  const norm = (f: string) => f.replace(/\\/g, '/');
  const a = norm(stmtFile);
  const b = norm(given);
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}

function watchValue(v: VarInfo, lanes: Int32Array): WatchValue {
  const float = v.ty === 'float';
  return { ty: float ? 'float' : v.ty.endsWith('*') ? 'ptr' : 'int', lanes: Array.from(lanes, (x) => (float ? new Float32Array(new Int32Array([x]).buffer)[0]! : x)) };
}

function view(v: VarInfo, lanes: Lanes): VariableView {
  if (!(lanes instanceof Int32Array)) return { name: userName(v), ty: v.ty, unavailable: lanes.unavailable };
  return { name: userName(v), ty: v.ty, lanes: watchValue(v, lanes).lanes };
}


/** A count of steps or hits: a whole number from 1. */
function positive(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new DebugError(`a count is a whole number from 1, not ${String(n)}`);
  return n;
}
