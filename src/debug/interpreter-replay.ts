// The debugger on the reference interpreter: a run replayed from its start, on copies of the
// arrays as they were when the session began, until a step the caller picks (a statement a QPU
// is about to run, or a loop testing its condition again). The interpreter is deterministic, so
// every replay runs the same way: stepping backwards is replaying to an earlier step.
// Needs: a kernel's AST, its call (values, arrays) and QPU count. Guarantees: the snapshot of
// the run at the chosen step, at the end, or where it failed, and the arrays untouched.

import { gpuMemory } from '../runtime/shared-array.ts';
import type { Snapshot as ArraySnapshot } from '../runtime/snapshot.ts';
import { childBlocks, type KernelAst, type Stmt, type VarInfo } from '../source/ast.ts';
import { interpret, type InterpreterQpu } from '../source/interpreter.ts';
import { LANES } from '../vc4/chip.ts';
import { INTERPRETER_STEPS } from '../common/budget.ts';
import type { SfuMode } from '../vc4/sfu-model.ts';
import { lineOf, type QpuSnapshot, type Snapshot, type StepEvent, Stop, type StopAt } from './snapshot.ts';

export interface ReplayCall {
  readonly values: readonly number[];
  readonly arrays: ArraySnapshot;
  readonly qpus: number;
  /** The run's budget; without one, the target's default (never a time limit: every replay must run the same way). */
  readonly maxSteps?: number;
  readonly sfu?: SfuMode;
  readonly interleave?: number;
  /** The emulator: stop at broken hardware rules (default true). */
  readonly strict?: boolean;
}

/** The variables a statement sets once it has run; a call, its func's parameters as its body starts (its results when it returns). */
function assigns(k: KernelAst, s: Stmt): readonly number[] {
  switch (s.k) {
    case 'assign':
    case 'receive':
    case 'next':
    case 'combine':
      return [s.v.id];
    case 'call':
      return k.funcs![s.f]!.params.map((p) => p.id);
    default:
      return [];
  }
}

/** Which func each statement of a func's body belongs to (the kernel's own are in none). */
export function funcsOf(k: KernelAst): WeakMap<Stmt, number> {
  const out = new WeakMap<Stmt, number>();
  const walk = (ss: readonly Stmt[], f: number) => {
    for (const s of ss) {
      out.set(s, f);
      for (const b of childBlocks(s)) walk(b, f);
    }
  };
  (k.funcs ?? []).forEach((f, i) => walk(f.body, i));
  return out;
}

/** A number for each source line of the statements seen (-1: none), so that steps compare lines without strings. */
const lineIds = new Map<string, number>();
const lineCache = new WeakMap<Stmt, number>();
function lineNumber(s: Stmt): number {
  let id = lineCache.get(s);
  if (id === undefined) {
    const key = lineOf(s);
    id = key === undefined ? -1 : (lineIds.get(key) ?? lineIds.set(key, lineIds.size).get(key)!);
    lineCache.set(s, id);
  }
  return id;
}

/** Replays the kernel on the interpreter until `stopAt` says stop (or the run ends or fails). */
export function replayInterpreter(k: KernelAst, call: ReplayCall, stopAt: StopAt): Snapshot {
  let n = 0;
  let last: { qpu: number; all: readonly InterpreterQpu[] } | undefined;
  // Per QPU: the variables set so far (a statement's after it has run), the statement it last stepped, its mask.
  const set = Array.from({ length: call.qpus }, () => new Set<number>(k.params.map((p) => p.id)));
  const pending: (Stmt | undefined)[] = new Array(call.qpus).fill(undefined);
  const masks: Uint8Array[] = Array.from({ length: call.qpus }, () => new Uint8Array(LANES).fill(1));
  const read = (q: InterpreterQpu, v: VarInfo) =>
    set[q.id]!.has(v.id) ? q.env.slice(v.id * LANES, v.id * LANES + LANES) : { unavailable: 'not set yet' };
  // One event, updated at every step: the predicate reads it during the call only.
  let current: InterpreterQpu | undefined;
  const event: { -readonly [K in keyof StepEvent]: StepEvent[K] } = {
    n: 0,
    qpu: 0,
    stmt: undefined,
    entersStatement: true,
    entersLine: true,
    variable: (v) => read(current!, v),
  };
  const lines = new Int32Array(call.qpus).fill(-2);
  // Per QPU, the calls under way: a step outside the innermost one's func means it has returned, its results set.
  const inFunc = funcsOf(k);
  const calls: Extract<Stmt, { k: 'call' }>[][] = Array.from({ length: call.qpus }, () => []);
  const returned = (q: number, s: Stmt | undefined) => {
    const stack = calls[q]!;
    while (stack.length && (s === undefined || inFunc.get(s) !== stack.at(-1)!.f)) for (const o of stack.pop()!.outs) set[q]!.add(o.id);
  };
  const hook = (q: InterpreterQpu, s: Stmt, mask: Uint8Array, all: readonly InterpreterQpu[]) => {
    const before = pending[q.id];
    if (before) for (const id of assigns(k, before)) set[q.id]!.add(id);
    returned(q.id, s);
    if (s.k === 'call') calls[q.id]!.push(s);
    pending[q.id] = s;
    masks[q.id] = mask;
    last = { qpu: q.id, all };
    const line = lineNumber(s);
    // A loop testing its condition again starts a pass: on its line again, even when its body is on the same line.
    event.entersLine = line !== lines[q.id] || s.k === 'while' || s.k === 'for';
    lines[q.id] = line;
    current = q;
    event.n = n++;
    event.qpu = q.id;
    event.stmt = s;
    event.mask = mask;
    if (stopAt(event)) throw new Stop(capture(event.n, q.id, all, false, undefined, s));
  };
  const capture = (event: number, qpu: number, all: readonly InterpreterQpu[], ended: boolean, error?: string, at?: Stmt): Snapshot => {
    const envs = all.map((q) => q.env.slice());
    const sets = set.map((x) => new Set(x));
    const qpus = all.map(
      (q): QpuSnapshot => ({
        id: q.id,
        state: q.done ? 'done' : q.waiting && q.id !== qpu ? 'waiting' : 'running',
        ...(q.waiting && !q.done && q.id !== qpu ? { waitingFor: q.waiting.what } : {}),
        // The QPU stopped is about to run `at`; the others are where they last stepped.
        stmt: q.id === qpu && at ? at : q.at,
        mask: masks[q.id]!.slice(),
        steps: q.steps,
      }),
    );
    return {
      event,
      qpu,
      qpus,
      ended,
      ...(error !== undefined ? { error } : {}),
      variable: (q, v) => (sets[q]!.has(v.id) ? envs[q]!.slice(v.id * LANES, v.id * LANES + LANES) : { unavailable: 'not set yet' }),
    };
  };
  try {
    call.arrays.replay(gpuMemory, call.values, (values, arrays) =>
      interpret(k, { qpus: call.qpus, args: values, memory: gpuMemory, arrays, maxSteps: call.maxSteps ?? INTERPRETER_STEPS, sfu: call.sfu, interleave: call.interleave, debug: hook }),
    );
  } catch (e) {
    if (e instanceof Stop) return e.snapshot;
    if (!(e instanceof Error)) throw e;
    return last ? capture(n, last.qpu, last.all, true, e.message) : emptyEnd(k, call.qpus, n, e.message);
  }
  // Each QPU's last statement has run, and its calls have returned: their assignments count.
  pending.forEach((s, q) => {
    if (s) for (const id of assigns(k, s)) set[q]!.add(id);
    returned(q, undefined);
  });
  return last ? capture(n, last.qpu, last.all, true) : emptyEnd(k, call.qpus, n);
}

/** The end of a run in which no QPU took a step (an empty kernel, or one that failed before its first). */
function emptyEnd(k: KernelAst, qpus: number, n: number, error?: string): Snapshot {
  return {
    event: n,
    qpu: 0,
    qpus: Array.from({ length: qpus }, (_, id) => ({ id, state: error ? 'running' : 'done', stmt: undefined, steps: 0 })),
    ended: true,
    ...(error !== undefined ? { error } : {}),
    variable: () => ({ unavailable: `kernel ${k.name} ran no statement` }),
  };
}
