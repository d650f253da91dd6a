// The debugger on the emulator: the compiled kernel replayed from its start, on copies of the
// arrays as they were when the session began, until an instruction the caller picks, one
// instruction at a time. Each step knows its statement (Compiled.statements). A variable is
// read from the register its value was given (Compiled.debug), while the last write to that
// register on that QPU was the variable's own: after another value took the register, or before
// the variable was first set, the debugger says so rather than show another value's lanes.
// Needs: compiled code, its call. Guarantees: the snapshot at the chosen instruction, at the
// end, or where the run failed (the QPUs' registers as they were); the arrays untouched.

import type { Compiled } from '../compiler/driver.ts';
import { ACC, REG_A, REG_B } from '../emulator/layout.ts';
import type { Qpu } from '../emulator/qpu.ts';
import { emulatorTarget } from '../runtime/targets.ts';
import type { KernelAst, Stmt, VarInfo } from '../source/ast.ts';
import { EmulatorError } from '../emulator/errors.ts';
import { EMULATOR_STEPS } from '../common/budget.ts';
import { inKernel } from '../runtime/kernel-errors.ts';
import { ACCUMULATORS, LANES } from '../vc4/chip.ts';
import { REGFILE_LOCATIONS } from '../vc4/registers.ts';
import { effectsOf } from '../vc4/effects.ts';
import type { Instr } from '../vc4/instr.ts';
import { funcsOf, type ReplayCall } from './interpreter-replay.ts';
import { type Lanes, lineOf, type QpuSnapshot, type Snapshot, type StepEvent, Stop, type StopAt } from './snapshot.ts';

/** Each register's first word in a QPU's R view, by name: ra0-ra31, rb0-rb31, r0-r5. */
const REGISTERS: readonly [string, number][] = [
  ...Array.from({ length: REGFILE_LOCATIONS }, (_, n): [string, number] => [`ra${n}`, REG_A + n * LANES]),
  ...Array.from({ length: REGFILE_LOCATIONS }, (_, n): [string, number] => [`rb${n}`, REG_B + n * LANES]),
  ...Array.from({ length: ACCUMULATORS }, (_, n): [string, number] => [`r${n}`, ACC + n * LANES]),
];
const WORD = new Map(REGISTERS);

/** What each instruction means to the debugger, worked out once for compiled code: its user statement, its line, the registers it writes. */
interface Layout {
  readonly stmt: readonly (Stmt | undefined)[];
  /** A number for each source line (-1: none), so that steps compare lines without strings. */
  readonly line: Int32Array;
  /** For each instruction, pairs (register index, virtual register) of the values it writes; -1 for a register it writes with none of them. */
  readonly writes: readonly Int32Array[];
  /** For each instruction, pairs of the values its register holds as it starts (a copy left out). */
  readonly holds: readonly Int32Array[];
  /** A number for each statement (-1: none). */
  readonly stmtId: Int32Array;
  /** The func whose body each instruction is in (-1: the kernel's own). */
  readonly func: Int32Array;
  /** 1 for a loop head's instruction in the slot of the branch back (loop-slots.ts). */
  readonly ahead: Uint8Array;
  readonly statements: number;
}
const layouts = new WeakMap<Compiled, Layout>();
const REGISTER_INDEX = new Map(REGISTERS.map(([name], i) => [name, i]));

/** The REGISTERS an instruction writes (regfile locations, r0-r3, r5), by index. */
function registersWritten(i: Instr): number[] {
  const e = effectsOf(i);
  return [...e.writesA.map((n) => `ra${n}`), ...e.writesB.map((n) => `rb${n}`), ...e.accWrites.map((n) => `r${n}`)].flatMap((name) => {
    const r = REGISTER_INDEX.get(name);
    return r === undefined ? [] : [r];
  });
}

function layoutOf(ast: KernelAst, c: Compiled): Layout {
  let l = layouts.get(c);
  if (l) return l;
  const lines = new Map<string, number>();
  const stmt = c.instrs.map((_, pc) => statementOf(c, pc));
  const line = Int32Array.from(stmt, (st) => {
    const key = lineOf(st);
    if (key === undefined) return -1;
    if (!lines.has(key)) lines.set(key, lines.size);
    return lines.get(key)!;
  });
  const pairs = (vregs: readonly number[]) =>
    vregs.flatMap((vreg) => {
      const reg = c.debug.registerOf(vreg);
      return reg === undefined ? [] : [REGISTER_INDEX.get(reg)!, vreg];
    });
  // A register an instruction writes with no value of the kernel's (emit.ts's copy to r0, the
  // barrier's counter in r3) holds none of them afterwards: -1 first, then the values written.
  const writes = c.instrs.map((instr, pc) => {
    const values = pairs(c.debug.defs[pc] ?? []);
    const mine = new Set(values.filter((_, k) => k % 2 === 0));
    const others = registersWritten(instr).filter((r) => !mine.has(r)).flatMap((r) => [r, -1]);
    return Int32Array.from([...others, ...values]);
  });
  const holds = c.instrs.map((_, pc) => Int32Array.from(pairs(c.debug.aliases[pc] ?? [])));
  const ids = new Map<Stmt, number>();
  const stmtId = Int32Array.from(stmt, (st) => (st === undefined ? -1 : (ids.get(st) ?? ids.set(st, ids.size).get(st)!)));
  const funcs = funcsOf(ast);
  const func = Int32Array.from(stmt, (st) => (st === undefined ? -1 : (funcs.get(st) ?? -1)));
  const ahead = Uint8Array.from(c.instrs, (_, pc) => (c.debug.ahead[pc] ? 1 : 0));
  layouts.set(c, (l = { stmt, line, writes, holds, stmtId, statements: ids.size, func, ahead }));
  return l;
}

export function replayEmulator(ast: KernelAst, c: Compiled, call: ReplayCall & { readonly strict?: boolean }, stopAt: StopAt): Snapshot {
  const emu = emulatorTarget();
  const layout = layoutOf(ast, c);
  let n = 0;
  let lastQpu = 0;
  const qpus = c.qpus;
  // Per QPU: the instruction it last stepped (its writes count once it has run), and each register's last writer (-1: none yet).
  const previous = new Int32Array(qpus).fill(-1);
  const writer = Array.from({ length: qpus }, () => new Int32Array(REGISTERS.length).fill(-1));
  // Per QPU: the virtual registers written so far (a variable never written is not set yet, whatever its register holds).
  const written = Array.from({ length: qpus }, () => new Set<number>());
  // Per QPU and statement: the instruction it entered the statement's line at in this pass.
  const entered = Array.from({ length: qpus }, () => new Int32Array(layout.statements).fill(-1));
  const note = (q: number, w: Int32Array) => {
    for (let i = 0; i < w.length; i += 2) {
      writer[q]![w[i]!] = w[i + 1]!;
      if (w[i + 1]! >= 0) written[q]!.add(w[i + 1]!);
    }
  };
  // Per QPU: the loop-head copies run in a branch's slots since the last instruction that was not one.
  const pending = Array.from({ length: qpus }, () => [] as number[]);
  const clobber = (q: number, w: Int32Array) => {
    for (let i = 0; i < w.length; i += 2) writer[q]![w[i]!] = -1;
  };
  // A loop head's copies wrote the next pass's values: they count once the branch has jumped
  // (`now` is not the instruction after the slots); on the way out their registers hold none.
  // A stop at such a copy waits for the branch too: kept, then made if the branch jumped, dropped if not.
  const stopAhead: (Snapshot | undefined)[] = new Array(qpus).fill(undefined);
  const settle = (q: number, now: number) => {
    const p = pending[q]!;
    if (!p.length) return;
    const out = now === p[p.length - 1]! + 1;
    for (const pc of p) (out ? clobber : note)(q, layout.writes[pc]!);
    p.length = 0;
    const stop = stopAhead[q];
    stopAhead[q] = undefined;
    if (stop && !out) throw new Stop(stop);
  };
  const applyPrevious = (q: number, now = -1) => {
    const pc = previous[q]!;
    if (pc >= 0 && layout.ahead[pc]) pending[q]!.push(pc);
    else if (pc >= 0) note(q, layout.writes[pc]!);
    if (now < 0 || !layout.ahead[now]) settle(q, now);
  };
  const read = (R: Int32Array, writers: Int32Array, v: VarInfo, done: ReadonlySet<number>): Lanes => {
    const vreg = c.debug.homes.get(v.id);
    if (vreg === undefined) return { unavailable: 'not in the compiled code (the compiler removed it)' };
    const reg = c.debug.registerOf(vreg);
    if (!reg) {
      const to = c.debug.spilledTo(vreg);
      return { unavailable: to && to !== 'constant' ? `spilled to ${to === 'vpm' ? 'a VPM row' : 'scratch memory'}: the debugger does not read spilled values yet` : 'kept in no register: the compiler computes it where it is used' };
    }
    const last = writers[REGISTER_INDEX.get(reg)!]!;
    if (last !== vreg) return { unavailable: done.has(vreg) ? `not in a register here (${reg} holds another value now)` : 'not set yet' };
    const w = WORD.get(reg)!;
    return R.slice(w, w + LANES);
  };
  const machine = () => emu.machine.lastRun;
  // One event, updated at every step: the predicate reads it during the call only.
  let current = 0;
  const event: { -readonly [K in keyof StepEvent]: StepEvent[K] } = {
    n: 0,
    qpu: 0,
    stmt: undefined,
    pc: 0,
    entersStatement: true,
    entersLine: true,
    variable: (v) => read(machine()[current]!.R, writer[current]!, v, written[current]!),
  };
  // A step that waited (a semaphore, the mutex) or let another QPU go first is tried again: the same step, not another.
  const counted = new Float64Array(qpus).fill(-1);
  const trace = (q: number, pc: number) => {
    const count = machine()[q]!.count;
    if (counted[q] === count && previous[q] === pc) return;
    counted[q] = count;
    applyPrevious(q, pc);
    note(q, layout.holds[pc]!);
    const before = previous[q]!;
    event.entersStatement = before < 0 || layout.stmt[before] !== layout.stmt[pc];
    // A jump back (a loop's next pass) enters its line again, even when the loop is all on one line.
    // The scheduler mixes statements' instructions: coming back to a statement further on in
    // the same pass is not entering its line again (only from its first instruction of the pass on).
    // A loop head's copy in the branch's slots starts the next pass; the jump after it goes on with
    // that pass (its line entered again only if it is another line).
    const fromAhead = before >= 0 && layout.ahead[before] === 1;
    event.entersLine = before < 0 || layout.line[before] !== layout.line[pc] || (pc < before && !fromAhead);
    const id = layout.stmtId[pc]!;
    if (event.entersLine && id >= 0) {
      // A jump back within the kernel or one func is a loop's next pass; back from a func's body, a return.
      const pass = before >= 0 && layout.func[pc] === layout.func[before] && (layout.ahead[pc] === 1 ? !fromAhead : pc < before && !fromAhead);
      const first = entered[q]![id]!;
      if (first >= 0 && pc > first && !pass) event.entersLine = false;
      else entered[q]![id] = pc;
    }
    previous[q] = pc;
    lastQpu = current = q;
    event.n = n++;
    event.qpu = q;
    event.stmt = layout.stmt[pc];
    event.pc = pc;
    if (!stopAt(event)) return;
    if (layout.ahead[pc]) stopAhead[q] ??= capture(event.n, q, false);
    else throw new Stop(capture(event.n, q, false));
  };
  const capture = (event: number, qpu: number, ended: boolean, error?: string): Snapshot => {
    const qs = machine();
    const regs = qs.map((q) => q.R.slice());
    const writers = writer.map((w) => w.slice());
    const done = written.map((w) => new Set(w));
    return {
      event,
      qpu,
      qpus: qs.map((q) => qpuSnapshot(c, q, ended && error === undefined)),
      ended,
      ...(error !== undefined ? { error } : {}),
      variable: (q, v) => read(regs[q]!, writers[q]!, v, done[q]!),
      vpm: emu.machine.vpm.slice(),
    };
  };
  try {
    // An explicit budget: no time limit, so that every replay runs the same way.
    call.arrays.replay(emu.memory, call.values, (values, arrays) =>
      emu.run(c, values, arrays, { trace, maxSteps: call.maxSteps ?? EMULATOR_STEPS, strict: call.strict ?? true, sfu: call.sfu, interleave: call.interleave }),
    );
  } catch (e) {
    if (e instanceof Stop) return e.snapshot;
    if (!(e instanceof Error)) throw e;
    // An emulator error in the kernel's terms: its statement and the user's names (runtime/kernel-errors.ts).
    return capture(n, lastQpu, true, (e instanceof EmulatorError ? inKernel(ast, c, e) : e).message);
  }
  for (let q = 0; q < qpus; q++) applyPrevious(q);
  return capture(n, lastQpu, true);
}

/** The user's statement of instruction pc. */
function statementOf(c: Compiled, pc: number) {
  const s = c.statements[pc];
  return s ? (s.shows ?? s) : undefined;
}

function qpuSnapshot(c: Compiled, q: Qpu, done: boolean): QpuSnapshot {
  const registers = new Map(REGISTERS.map(([name, w]) => [name, q.R.slice(w, w + LANES)]));
  const state = done || q.state === 'done' ? 'done' : q.state === 'blocked' ? 'waiting' : 'running';
  return {
    id: q.id,
    state,
    ...(q.state === 'blocked' ? { waitingFor: q.waitingFor } : {}),
    stmt: statementOf(c, Math.min(q.pc, c.instrs.length - 1)),
    pc: q.pc,
    // Instructions it has executed (the one it is about to run not yet).
    steps: q.count,
    machine: {
      registers,
      flags: { z: Uint8Array.from(q.Z), n: Uint8Array.from(q.N), c: Uint8Array.from(q.C) },
      cycles: q.time,
      tmuQueued: q.tmuQueued,
    },
  };
}
