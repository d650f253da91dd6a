// The language's loops: While and For, and the jumps out of them, Break and Continue, of the
// innermost loop or, given its handle, of a loop further out (Quasar's multi-level break, with
// no flag variables). Each records a statement in the kernel being built.

import { assignedIn, boolOperands, type Cond, containsVar, type Stmt } from '../source/ast.ts';
import { builder, checkOwner, describeHost, type KernelBuilder, type OpenLoop } from './builder.ts';
import { condOf, notInWhere } from './control.ts';
import type { BoolValue, CondValue } from './values.ts';

/**
 * A While or For, as its body receives it: `Break(loop)` leaves it and `Continue(loop)` goes on
 * with its next pass from loops nested inside it.
 */
export class Loop implements OpenLoop {
  /** While its For's step is being built: a Continue of it there is refused. */
  inStep = false;
  /** @internal */
  constructor(
    readonly owner: KernelBuilder,
    readonly kind: 'While' | 'For',
  ) {}
}

/** Builds a loop's blocks with the loop open (its jumps' target). */
function open<T>(b: KernelBuilder, loop: Loop, build: () => T): T {
  b.loops.push(loop);
  try {
    return build();
  } finally {
    b.loops.pop();
  }
}

/**
 * Refuses a loop whose condition reads the results of the call of a func made just before it
 * (`While(f(i).lt(5), ...)`: the call runs once, when the condition is built) and no variable
 * the loop assigns: the condition could never change. (`const lim = f(n); While(i.lt(lim), ...)`
 * is fine: i changes.)
 */
function callInCondition(b: KernelBuilder, what: string, cond: Cond, inLoop: readonly Stmt[], before: Stmt | undefined): void {
  if (before?.k !== 'call') return;
  const changed = assignedIn(inLoop);
  const reads = (id: number) => boolOperands(cond.b).some((e) => containsVar(e, id));
  if ([...changed].some(reads)) return;
  const read = before.outs.find((o) => reads(o.id));
  if (!read) return;
  const v = b.vars[read.id]!;
  const f = b.funcs[before.f]?.name ?? 'func';
  throw b.error(
    `${what}'s condition reads ${v.userName ?? v.name}, from the call of func ${f} just before the loop, and nothing the loop assigns: ` +
      `a call in a condition runs once, before the loop, so the condition would never change; call it in the loop and test a variable ` +
      `(const r = Int(${f}(...)); ${what}(r.lt(n), () => { ...; r.set(${f}(...)) }))`,
  );
}

/** Runs `body` while the condition holds (any(c) for a vector condition). `body` gets the loop, for Break(loop) and Continue(loop). */
export function While(c: CondValue | BoolValue, body: (loop: Loop) => void): void {
  const b = builder('While');
  notInWhere(b, 'While');
  const cond = condOf(c, 'While');
  const before = b.last();
  const loop = new Loop(b, 'While');
  const stmts = open(b, loop, () => b.collect(body, loop));
  callInCondition(b, 'While', cond, stmts, before);
  b.emit({ k: 'while', c: cond, body: stmts });
}

/**
 * A loop: while the condition holds, run `body`, then `step`. As QPULib's
 * `For (Int i = 0, i < n, i = i + 16)` is written
 * `const i = Int(0); For(i.lt(n), () => i.set(i.add(16)), () => { ... })`. `body` gets the
 * loop, for Break(loop) and Continue(loop); a Continue goes on to the step.
 */
export function For(c: CondValue | BoolValue, step: () => void, body: (loop: Loop) => void): void {
  const b = builder('For');
  notInWhere(b, 'For');
  const cond = condOf(c, 'For');
  const before = b.last();
  const loop = new Loop(b, 'For');
  // The step belongs to the loop too: a Break there leaves this For.
  const [bodyStmts, stepStmts] = open(b, loop, () => {
    const inBody = b.collect(body, loop);
    loop.inStep = true;
    return [inBody, b.collect(step)];
  });
  callInCondition(b, 'For', cond, [...bodyStmts, ...stepStmts], before);
  b.emit({ k: 'for', c: cond, step: stepStmts, body: bodyStmts });
}

/** The jump statement to `loop` (the innermost one without), checked. */
function jump(k: 'break' | 'continue', loop: Loop | undefined): Stmt {
  const what = k === 'break' ? 'Break' : 'Continue';
  const b = builder(what);
  notInWhere(b, what);
  const inFunc = b.inFunc !== undefined ? ` (a Break or Continue in func ${b.inFunc} reaches only loops inside it)` : '';
  if (b.loops.length === 0) throw b.error(`${what} outside a While or For${inFunc}`);
  if (loop !== undefined && !(loop instanceof Loop)) throw b.error(`${what}(${describeHost(loop)}): give it the loop its body received (For(c, step, (loop) => ...)), or nothing for the innermost`);
  if (loop) checkOwner(loop.owner, what);
  const target: OpenLoop = loop ?? b.loops[b.loops.length - 1]!;
  const at = b.loops.lastIndexOf(target);
  if (at < 0) throw b.error(`${what}(loop): that ${target.kind} does not hold this statement (it has ended, or the statement is not inside it)${inFunc}`);
  if (k === 'continue' && target.inStep) throw b.error(`Continue in its For's step: the step is what a Continue goes on to; use Break to leave the loop`);
  const levels = b.loops.length - 1 - at;
  return levels ? { k, levels } : { k };
}

/** Leaves the innermost While or For (from a For's step too), or `loop`, which holds it. */
export function Break(loop?: Loop): void {
  builder('Break').emit(jump('break', loop));
}

/** Ends this pass of the innermost While or For, or of `loop`: a For goes on to its step, then both to their test. */
export function Continue(loop?: Loop): void {
  builder('Continue').emit(jump('continue', loop));
}
