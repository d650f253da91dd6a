// Checks on a built kernel that the language's types cannot make: gathers and receives. The TMU
// FIFO holds TMU_FIFO_DEPTH outstanding gathers (src/vc4/rules.ts), so the kernel must never
// have more, and never receive with none. The count is followed through the program: the two
// sides of an If must agree, and a loop body must leave it as it found it. Where the count
// cannot be known (a Break or Continue out of a loop that gathers), the run-time check of the targets
// reports the problem instead. A kernel that ends with gathers outstanding never sees what they
// read: an error too. Messages name variables as the user's source does.

import { TMU_FIFO_DEPTH } from '../vc4/rules.ts';
import type { KernelAst, Stmt } from './ast.ts';
import { messagePrinter } from './print.ts';
import { firstMeeting, meetingSemaphores } from './qpus.ts';

export class CheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckError';
  }
}

/**
 * `fifo: false` leaves the gathers' count unchecked: for a kernel pass `pipeline` has changed,
 * whose prefetches leave a number that only the run knows (the targets check it as they run).
 */
export function checkKernel(k: KernelAst, opts: { fifo?: boolean } = {}): void {
  const p = messagePrinter(k);
  const fail = (s: Stmt, why: string): never => {
    throw new CheckError(`kernel ${k.name}${s.loc ? ` (${s.loc})` : ''}: \`${p.brief(s)}\`: ${why}`);
  };

  /** The outstanding count after the statements, undefined when unknown, or NOWHERE when they always jump away (Break, Continue). */
  const walk = (ss: readonly Stmt[], n: number | undefined): number | undefined => {
    for (const s of ss) {
      switch (s.k) {
        case 'break':
        case 'continue':
          return NOWHERE;
        case 'gather':
          lastGather = s;
          if (n !== undefined && n >= TMU_FIFO_DEPTH)
            fail(s, `more than ${TMU_FIFO_DEPTH} gathers outstanding: the TMU FIFO holds ${TMU_FIFO_DEPTH}; receive before gathering more`);
          if (n !== undefined) n++;
          break;
        case 'assert':
          // A failing assertion ends the QPU (compiled code), which must not leave the TMU with requests.
          if (n !== undefined && n > 0) fail(s, `an assertion with ${n} gather${n > 1 ? 's' : ''} outstanding: receive ${n > 1 ? 'them' : 'it'} first (a QPU that fails an assertion ends there)`);
          break;
        case 'receive':
          if (n === 0) fail(s, 'receive with nothing gathered');
          if (n !== undefined) n--;
          break;
        case 'if': {
          // A branch that jumps away leaves nothing here: the other one's count goes on.
          const a = walk(s.then, n);
          const b = walk(s.else, n);
          if (a === NOWHERE || b === NOWHERE) {
            n = a === NOWHERE ? b : a;
            if (n === NOWHERE) return NOWHERE;
            break;
          }
          if (a !== b && a !== undefined && b !== undefined)
            fail(s, `its two branches leave different numbers of gathers outstanding (${a} and ${b})`);
          n = a === b ? a : undefined;
          break;
        }
        case 'while':
        case 'for': {
          if (jumpsOut(s.body, 0) || (s.k === 'for' && jumpsOut(s.step, 0))) {
            walk(s.k === 'for' ? [...s.body, ...s.step] : s.body, n);
            n = undefined;
            break;
          }
          const body = s.k === 'for' ? [...s.body, ...s.step] : s.body;
          const after = walk(body, n);
          if (n !== undefined && after !== undefined && after !== n)
            fail(s, `each pass of the loop leaves ${after - n > 0 ? after - n + ' more' : n - after + ' fewer'} gathers outstanding, so the FIFO ${after > n ? 'overflows' : 'runs dry'}`);
          break;
        }
        default:
          break;
      }
    }
    return n;
  };
  const meeting = firstMeeting(k.body);
  const semas = meeting && meetingSemaphores(k);
  if (semas && 'error' in semas) fail(meeting!, semas.error);
  if (opts.fifo === false) return;
  let lastGather: Stmt | undefined;
  const end = walk(k.body, 0);
  const left = end === NOWHERE ? undefined : end;
  // What a gather reads is only seen through receive: one never received is a read for nothing, or a receive forgotten.
  if (left !== undefined && left > 0 && lastGather)
    fail(lastGather, `${left === 1 ? 'a gather is' : `${left} gathers are`} never received${left > 1 ? ' (this is the last)' : ''}: the kernel ends with its values in the TMU FIFO; take each with receive(v), or remove the gather`);
}

/** What walk gives for statements that always jump away (a Break or Continue): no count reaches what follows. */
const NOWHERE = -1;

/**
 * Whether statements `depth` loops inside a loop's body hold a Break or Continue that leaves the
 * loop or ends its pass early: then what a pass leaves in the FIFO is not known.
 */
function jumpsOut(ss: readonly Stmt[], depth: number): boolean {
  return ss.some((s) => {
    if (s.k === 'break' || s.k === 'continue') return (s.levels ?? 0) >= depth;
    if (s.k === 'if') return jumpsOut(s.then, depth) || jumpsOut(s.else, depth);
    if (s.k === 'while' || s.k === 'for') return jumpsOut(s.body, depth + 1) || (s.k === 'for' && jumpsOut(s.step, depth + 1));
    return false;
  });
}
