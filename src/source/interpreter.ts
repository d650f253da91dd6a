// The reference interpreter: what every construct of the language means, lane by lane and QPU
// by QPU, bit for bit as the chip computes it. The compiler and every other target must agree
// with it. Arithmetic comes from src/vc4/arith.ts, the same functions the emulator is checked
// against; each operator's function is its row of ops.ts. docs/language.md states each rule.
//
// QPUs run one at a time in turn (0, 1, ..., wrapping round), each until it ends or must wait on
// a semaphore, the mutex or a barrier, so runs are deterministic; or, given a seed (`interleave`), in a
// random interleaving drawn from it, switching at random statements (turns.ts). Memory is the
// GPU memory the kernel's arrays live in; reads and writes outside those arrays are errors.
// Messages name variables as the user's source does (print.ts messagePrinter); a caller's
// onProgress hears how far a long run has got (common/budget.ts).

import { MUTEX_MISUSE, TMU_FIFO_DEPTH } from '../vc4/rules.ts';
import { LANES, SEMAPHORE_COUNT_MAX, SEMAPHORES } from '../vc4/chip.ts';
import { CLOCK_EVERY, count, counted, INTERPRETER_PROGRESS_EVERY, INTERPRETER_STEPS, RAISE_WITH_OPTION, RunBudget } from '../common/budget.ts';
import type { BoolExpr, Cond, Expr, KernelAst, Stmt, VarRef } from './ast.ts';
import { countedLanes, elemBytes, type PtrTy, STORAGES, storageOf } from './ast.ts';
import { messagePrinter, type Printer } from './print.ts';
import { arithType, binaryImpl, comparisonOrder, comparisonRow, ORDER, unaryRow } from './ops.ts';
import { Interleaving } from '../common/interleave.ts';
import { sfuOf } from '../vc4/sfu-model.ts';
import { inTurn, interleaved, type Turn, TURN_ENDS, type Wait } from './turns.ts';
import { reduceLanes, scanLanes } from './lanes.ts';
import { combineQPUs, MeetingPoint } from './qpus.ts';
import { assertionError, logPrint, printedBefore, type PrintLog } from './checks.ts';
import { CheckedMemory, type Fail } from './interpreter-memory.ts';
import { Streams } from './streams.ts';
import type { InterpretOptions, InterpretResult } from './interpret-options.ts';

/** Lanes of a vector. */
const L = LANES;

export type { ArrayRegion } from './interpreter-memory.ts';
export type { InterpretOptions, InterpretResult, InterpreterQpu } from './interpret-options.ts';

export class InterpreterError extends Error {
  constructor(
    message: string,
    /** The rule broken, where the emulator reports the same misuse as a rule (mutex-relock, ...). */
    readonly rule?: string,
  ) {
    super(message);
    this.name = 'InterpreterError';
  }
}


/** A Break or Continue on its way out to its loop: `levels` loops further out than the innermost still to leave. */
type Jump = { readonly k: 'break' | 'continue'; readonly levels: number };
type Run = Generator<Wait, Jump | undefined, void>;

/** What a loop does with a jump out of its body (or a For's step): leaves, goes on, or passes it out. */
function atLoop(j: Jump | undefined): 'next' | 'leave' | Jump {
  if (!j || (j.k === 'continue' && j.levels === 0)) return 'next';
  if (j.levels === 0) return 'leave';
  return { k: j.k, levels: j.levels - 1 };
}

class QpuState implements Turn {
  readonly env: Int32Array;
  readonly fifo: Int32Array[] = [];
  steps = 0;
  /** The statement being executed, for error messages. */
  at: Stmt | undefined;
  done = false;
  waiting: Wait | undefined;
  /** Random interleavings: it waits, and no QPU has gone on since it last tried. */
  stuck = false;
  /** What it printed, and the rows of its log used (checks.ts logPrint). */
  readonly printed: PrintLog = { kept: [], ran: 0 };
  printRows = 0;
  constructor(
    readonly id: number,
    nvars: number,
  ) {
    this.env = new Int32Array(nvars * L);
  }
}

const ALWAYS = new Uint8Array(L).fill(1);

export function interpret(k: KernelAst, opts: InterpretOptions): InterpretResult {
  return new Interpreter(k, opts).run();
}

class Interpreter {
  private readonly semaphores = new Uint8Array(SEMAPHORES);
  /** The arrays' memory, every access checked (interpreter-memory.ts). */
  private readonly mem: CheckedMemory;
  private mutexHolder = -1;
  private states: QpuState[] = [];
  /** Where QPUs meet: barriers and operations across QPUs (qpus.ts). */
  private meetings!: MeetingPoint;
  /** Each QPU's broadcast stream (streams.ts). */
  private streams!: Streams;
  /** Statements left, the host-time limit of a run given no maxSteps, progress reports (common/budget.ts). */
  private readonly budget: RunBudget;
  private readonly printer: Printer;
  /** Random interleavings: the schedule (undefined: the QPUs run in turn). */
  private readonly turns: Interleaving | undefined;

  constructor(
    private readonly k: KernelAst,
    private readonly opts: InterpretOptions,
  ) {
    this.budget = new RunBudget(opts.maxSteps, INTERPRETER_STEPS, `kernel ${k.name}`, INTERPRETER_PROGRESS_EVERY, !!opts.onProgress, RAISE_WITH_OPTION);
    this.printer = messagePrinter(k);
    this.turns = opts.interleave === undefined ? undefined : new Interleaving(opts.interleave);
    this.sfu = sfuOf(opts.sfu);
    this.mem = new CheckedMemory(opts.memory, opts.arrays);
  }
  private readonly sfu: (fn: number, bits: number) => number;

  run(): InterpretResult {
    const { args } = this.opts;
    if (args.length !== this.k.params.length)
      throw new InterpreterError(`kernel ${this.k.name} takes ${this.k.params.length} arguments, not ${args.length}`);
    let failed = false;
    try {
      return this.runAll();
    } catch (e) {
      failed = true;
      if (e instanceof Error) e.message += printedBefore(this.states.map((q) => q.printed));
      throw e;
    } finally {
      this.reportProgress(true, failed);
    }
  }

  private runAll(): InterpretResult {
    const { qpus, args } = this.opts;
    const states = (this.states = Array.from({ length: qpus }, (_, id) => new QpuState(id, this.k.vars.length)));
    this.meetings = new MeetingPoint(qpus);
    this.streams = new Streams(this.k, qpus, this.printer);
    const runs = states.map((q) => {
      args.forEach((a, i) => q.env.fill(a | 0, i * L, i * L + L));
      return this.block(q, this.k.body, ALWAYS);
    });
    const resume = (q: Turn) => this.resume(runs[q.id]!);
    if (this.turns) interleaved(states, resume, this.turns, () => this.deadlock());
    else inTurn(states, resume, () => this.deadlock());
    return { steps: states.map((q) => q.steps), printed: states.map((q) => q.printed) };
  }

  /** Runs a QPU on; its statements and expressions recurse, so a deep enough nest exhausts the host's stack. */
  private resume(run: Run): IteratorResult<Wait, Jump | undefined> {
    try {
      return run.next();
    } catch (e) {
      if (e instanceof RangeError && /call stack/i.test(e.message))
        throw new InterpreterError(
          `kernel ${this.k.name}: expressions or blocks nested too deeply to run (the host's stack ran out); ` +
            `break long expressions up with intermediate variables`,
        );
      throw e;
    }
  }

  // ---- errors

  private where(q: QpuState): string {
    return q.at ? this.place(q.at) : 'at the start';
  }

  /** A statement as messages show it: where it is, and its text. */
  private place(s: Stmt): string {
    return `${s.loc ? s.loc + ', ' : ''}\`${this.printer.brief(s)}\``;
  }

  /** Every QPU, in order: those that finished, and where each other waits and for what. */
  private deadlock(): InterpreterError {
    const each = this.states.map((q) => {
      if (q.done) return `QPU ${q.id} has finished the kernel`;
      const s = q.at;
      const at = s ? ` in ${s.loc ? s.loc + ' ' : ''}\`${this.printer.brief(s)}\`` : '';
      return `QPU ${q.id}${at} waits for ${q.waiting!.what}`;
    });
    return new InterpreterError(`kernel ${this.k.name}: deadlock: every QPU still running waits on another: ${each.join('; ')}`);
  }

  private fail(q: QpuState, message: string, rule?: string): never {
    throw new InterpreterError(`kernel ${this.k.name}, QPU ${q.id} (${this.where(q)}): ${rule ? `[${rule}] ` : ''}${message}`, rule);
  }

  // ---- statements

  private *block(q: QpuState, ss: readonly Stmt[], mask: Uint8Array): Run {
    for (const s of ss) {
      const r = yield* this.stmt(q, s, mask);
      if (r) return r;
    }
    return undefined;
  }

  private step(q: QpuState, s: Stmt, mask: Uint8Array): void {
    this.opts.debug?.(q, s, mask, this.states);
    q.at = s;
    q.waiting = undefined; // it goes on: what it last waited for is over
    const budget = this.budget;
    if (budget.left-- <= 0) this.fail(q, budget.spent('statement', this.progress()));
    q.steps++;
    if (budget.watch && ++budget.clock >= CLOCK_EVERY) {
      budget.clock = 0;
      if (budget.timeUp()) this.fail(q, budget.timeSpent(this.progress()));
      this.reportProgress(false);
    }
  }

  /** Statements all QPUs have run. */
  private statements(): number {
    let n = 0;
    for (const x of this.states) n += x.steps;
    return n;
  }

  private reportProgress(done: boolean, failed = false): void {
    const onProgress = this.opts.onProgress;
    if (!onProgress) return;
    const n = this.statements();
    this.budget.progress(n, done, () => onProgress(n, done), failed);
  }

  /** How far the run got, for the budget's and the time limit's messages: "2,000 statements (QPU 0 1,000, QPU 1 1,000)". */
  private progress(): string {
    const each = this.states.length > 1 ? ` (${this.states.map((x) => `QPU ${x.id} ${count(x.steps)}`).join(', ')})` : '';
    return `${counted(this.statements(), 'statement')}${each}`;
  }

  private *stmt(q: QpuState, s: Stmt, mask: Uint8Array): Run {
    this.step(q, s, mask);
    if (this.turns?.switchNow()) yield TURN_ENDS;
    switch (s.k) {
      case 'assign':
        this.assign(q, s.v, this.eval(q, s.e), mask);
        return undefined;
      case 'store':
      case 'storeNB':
        this.mem.store(this.eval(q, s.ptr)[0]!, this.eval(q, s.e), s.k === 'store' && s.n ? countedLanes(this.eval(q, s.n)[0]!) : L, elemBytes(s.ptr.ty as PtrTy), this.failing(q));
        return undefined;
      case 'scatter':
        if (s.how === 'atomicAdd') yield* this.awaitMutex(q);
        this.scatter(q, s, mask);
        return undefined;
      case 'if':
        if (this.cond(q, s.c)) return yield* this.block(q, s.then, mask);
        return yield* this.block(q, s.else, mask);
      case 'while':
        while (this.cond(q, s.c)) {
          const j = atLoop(yield* this.block(q, s.body, mask));
          if (j === 'leave') break;
          if (j !== 'next') return j;
          this.step(q, s, mask);
        }
        return undefined;
      case 'for':
        while (this.cond(q, s.c)) {
          // A Continue goes on to the step; a Break in the step leaves this loop too.
          for (const part of [s.body, s.step]) {
            const j = atLoop(yield* this.block(q, part, mask));
            if (j === 'leave') return undefined;
            if (j !== 'next') return j;
          }
          this.step(q, s, mask);
        }
        return undefined;
      case 'where': {
        const b = this.bool(q, s.b);
        const yes = new Uint8Array(L);
        const no = new Uint8Array(L);
        for (let l = 0; l < L; l++) {
          yes[l] = mask[l]! & b[l]!;
          no[l] = mask[l]! & (b[l]! ^ 1);
        }
        yield* this.block(q, s.then, yes);
        yield* this.block(q, s.else, no);
        return undefined;
      }
      case 'break':
      case 'continue':
        return { k: s.k, levels: s.levels ?? 0 };
      case 'gather': {
        if (q.fifo.length >= TMU_FIFO_DEPTH)
          this.fail(q, `a gather with ${q.fifo.length} already outstanding: the TMU FIFO holds ${TMU_FIFO_DEPTH}; receive some first`);
        const p = this.eval(q, s.ptr);
        const out = new Int32Array(L);
        for (let l = 0; l < L; l++) out[l] = this.mem.read(p[l]!, l, this.failing(q), true);
        q.fifo.push(out);
        return undefined;
      }
      case 'receive': {
        const v = q.fifo.shift();
        if (!v) this.fail(q, 'receive with nothing gathered');
        this.assign(q, s.v, v, ALWAYS);
        return undefined;
      }
      case 'stream':
        this.streams.start(q.id, s, this.eval(q, s.ptr), this.failing(q));
        return undefined;
      case 'next':
        this.assign(q, s.v, new Int32Array(L).fill(this.streams.next(q.id, s, this.mem, this.failing(q))), ALWAYS);
        return undefined;
      case 'sema': {
        while (s.down ? this.semaphores[s.n] === 0 : this.semaphores[s.n] === SEMAPHORE_COUNT_MAX)
          yield { what: `semaphore ${s.n} to ${s.down ? 'be above 0' : `be below ${SEMAPHORE_COUNT_MAX}`} (it is ${this.semaphores[s.n]})` };
        this.semaphores[s.n]! += s.down ? -1 : 1;
        return undefined;
      }
      case 'barrier':
      case 'combine': {
        const ty = s.k === 'combine' ? (s.v.ty as 'int' | 'float') : undefined;
        const ticket = this.meetings.arrive(q.id, s, ty, s.k === 'combine' ? this.eval(q, s.v) : undefined, (x) => this.place(x));
        if (typeof ticket !== 'number') this.fail(q, ticket.error);
        while (!this.meetings.passed(ticket)) yield { what: this.meetings.waitingFor() };
        if (s.k === 'combine') this.assign(q, s.v, combineQPUs(s.op, ty!, this.meetings.results, q.id, s.scan), ALWAYS);
        return undefined;
      }
      case 'call': {
        // The function in every lane; its results only in the lanes the caller's Wheres keep (ast.ts).
        const f = this.k.funcs![s.f]!;
        const args = s.args.map((e) => this.eval(q, e));
        f.params.forEach((p, i) => this.assign(q, p, args[i]!, ALWAYS));
        yield* this.block(q, f.body, ALWAYS);
        const results = f.results.map((e) => this.eval(q, e));
        s.outs.forEach((o, i) => this.assign(q, o, results[i]!, mask));
        return undefined;
      }
      case 'print':
        q.printRows = logPrint(q.printed, q.printRows, { s, values: s.values.map((e) => this.eval(q, e)) });
        return undefined;
      case 'assert': {
        const b = this.bool(q, s.b);
        const lanes: number[] = [];
        for (let l = 0; l < L; l++) if (mask[l] && !b[l]) lanes.push(l);
        if (lanes.length) throw assertionError(this.k.name, s, this.printer.head(s.shows ?? s), [{ qpu: q.id, lanes, values: s.values.map((e) => this.eval(q, e)) }]);
        return undefined;
      }
      case 'mutex': {
        if (s.lock) {
          yield* this.awaitMutex(q);
          this.mutexHolder = q.id;
        } else {
          if (this.mutexHolder !== q.id) this.fail(q, MUTEX_MISUSE['mutex-unlock-unheld'], 'mutex-unlock-unheld');
          this.mutexHolder = -1;
        }
        return undefined;
      }
    }
  }

  /** Waits until no QPU holds the mutex; this one holding it already is an error (the chip would wait for ever). */
  private *awaitMutex(q: QpuState): Run {
    if (this.mutexHolder === q.id) this.fail(q, MUTEX_MISUSE['mutex-relock'], 'mutex-relock');
    while (this.mutexHolder !== -1) yield { what: `the mutex, held by QPU ${this.mutexHolder}` };
    return undefined;
  }

  private assign(q: QpuState, v: VarRef, x: Int32Array, mask: Uint8Array): void {
    const base = v.id * L;
    for (let l = 0; l < L; l++) if (mask[l]) q.env[base + l] = x[l]!;
  }

  // ---- memory

  /** A scatter (ast.ts): lane after lane, in the lanes of the mask, a write or an add at the lane's own address. */
  private scatter(q: QpuState, s: Stmt & { k: 'scatter' }, mask: Uint8Array): void {
    const ptr = this.eval(q, s.ptr);
    const x = this.eval(q, s.e);
    const add = s.how === 'store' ? undefined : binaryImpl('add', arithType(s.e.ty))!.fn;
    for (let l = 0; l < L; l++) if (mask[l]) this.mem.scatter(ptr[l]!, x[l]!, add, l, this.failing(q));
  }

  /** The error for QPU q, as the memory's checks raise it. */
  private failing(q: QpuState): Fail {
    return (message, rule) => this.fail(q, message, rule);
  }

  // ---- expressions

  private eval(q: QpuState, e: Expr): Int32Array {
    const out = new Int32Array(L);
    switch (e.k) {
      case 'lit':
        return out.fill(e.bits);
      case 'var':
        return q.env.slice(e.id * L, e.id * L + L);
      case 'special':
        if (e.what === 'index') for (let l = 0; l < L; l++) out[l] = l;
        else out.fill(e.what === 'me' ? q.id : this.opts.qpus);
        return out;
      case 'bin': {
        const a = this.eval(q, e.a);
        const b = this.eval(q, e.b);
        const f = binaryImpl(e.op, e.ty)?.fn;
        if (!f) throw new InterpreterError(`no ${e.ty} operation ${e.op}`);
        for (let l = 0; l < L; l++) out[l] = f(a[l]!, b[l]!, this.sfu);
        return out;
      }
      case 'un': {
        const a = this.eval(q, e.a);
        const f = unaryRow(e.op)?.fn;
        if (!f) throw new InterpreterError(`no operation ${e.op}`);
        for (let l = 0; l < L; l++) out[l] = f(a[l]!, this.sfu);
        return out;
      }
      case 'rotate': {
        const a = this.eval(q, e.a);
        const n = this.eval(q, e.n)[0]! & (L - 1);
        for (let l = 0; l < L; l++) out[(l + n) & (L - 1)] = a[l]!;
        return out;
      }
      case 'ptradd': {
        const p = this.eval(q, e.p);
        const n = this.eval(q, e.n);
        const shift = Math.log2(elemBytes(e.ty));
        for (let l = 0; l < L; l++) out[l] = (p[l]! + (n[l]! << shift)) | 0;
        return out;
      }
      case 'load': {
        const base = this.eval(q, e.ptr)[0]! >>> 0;
        const n = e.n ? countedLanes(this.eval(q, e.n)[0]!) : L;
        const { bytes, signed } = STORAGES[storageOf(e.ptr.ty as PtrTy)];
        const fail = this.failing(q);
        for (let l = 0; l < n; l++) out[l] = bytes === 4 ? this.mem.read((base + 4 * l) >>> 0, l, fail) : this.mem.readNarrow((base + bytes * l) >>> 0, bytes, signed, l, fail);
        return out;
      }
      case 'lane': {
        const a = this.eval(q, e.a);
        return out.fill(a[this.eval(q, e.n)[0]! & (L - 1)]!);
      }
      case 'select': {
        // Both values in every lane, then the condition (the order lowering computes them in).
        const a = this.eval(q, e.a);
        const b = this.eval(q, e.b);
        const c = this.bool(q, e.c);
        for (let l = 0; l < L; l++) out[l] = c[l] ? a[l]! : b[l]!;
        return out;
      }
      case 'reduce':
        return reduceLanes(e.op, e.ty, this.eval(q, e.a));
      case 'scan':
        return scanLanes(e.ty, this.eval(q, e.a), e.exclusive);
    }
  }

  private bool(q: QpuState, b: BoolExpr): Uint8Array {
    const out = new Uint8Array(L);
    switch (b.k) {
      case 'cmp': {
        const x = this.eval(q, b.a);
        const y = this.eval(q, b.b);
        const row = comparisonRow(b.op);
        if (!row?.[arithType(b.ty)]) throw new InterpreterError(`no ${arithType(b.ty)} comparison ${b.op}`);
        const order = ORDER[comparisonOrder(row, b.ty)];
        for (let l = 0; l < L; l++) out[l] = row.holds(order(x[l]!, y[l]!)) ? 1 : 0;
        return out;
      }
      case 'and':
      case 'or': {
        const x = this.bool(q, b.a);
        const y = this.bool(q, b.b);
        for (let l = 0; l < L; l++) out[l] = b.k === 'and' ? x[l]! & y[l]! : x[l]! | y[l]!;
        return out;
      }
      case 'not': {
        const x = this.bool(q, b.a);
        for (let l = 0; l < L; l++) out[l] = x[l]! ^ 1;
        return out;
      }
    }
  }

  private cond(q: QpuState, c: Cond): boolean {
    const b = this.bool(q, c.b);
    return c.k === 'any' ? b.some((x) => x === 1) : b.every((x) => x === 1);
  }
}
