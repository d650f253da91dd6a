// Broadcast streams (ast.ts `stream` and `next`; the language's `stream(p)` and `s.next()`,
// src/dsl/streams.ts): what they mean, for the reference interpreter.
//
// Each QPU has one stream, as the chip has one uniform stream per QPU (Guide p. 22): `stream`
// starts it at an address, the same in every lane, and each `next` gives every lane the word
// there and moves on one word. A `next` reads the stream its own `stream` statement started: if
// another has started on that QPU since, or none has, it is an error rather than a read of
// someone else's data (on a chip it would read the other stream, or the kernel's own arguments).
// The words are read as a gather's are, through a cache that this run's stores do not update:
// reading a word the run has stored is an error (rule stream-after-store, vc4/rules.ts).

import { LANES } from '../vc4/chip.ts';
import { hex } from '../common/memory.ts';
import type { KernelAst, Stmt } from './ast.ts';
import { childBlocks } from './ast.ts';
import type { CheckedMemory, Fail } from './interpreter-memory.ts';
import type { Printer } from './print.ts';

type StreamStmt = Stmt & { k: 'stream' };
type NextStmt = Stmt & { k: 'next' };

/** The QPUs' streams during one run. */
export class Streams {
  /** Per QPU: the stream statement that last ran, and the address of its next word. */
  private readonly at: ({ s: StreamStmt; address: number } | undefined)[];
  /** The kernel's stream statements by number, for messages. */
  private readonly byId = new Map<number, StreamStmt>();

  constructor(
    k: KernelAst,
    qpus: number,
    private readonly printer: Printer,
  ) {
    this.at = new Array(qpus).fill(undefined);
    const walk = (ss: readonly Stmt[]) => {
      for (const s of ss) {
        if (s.k === 'stream') this.byId.set(s.id, s);
        childBlocks(s).forEach(walk);
      }
    };
    walk(k.body);
    for (const f of k.funcs ?? []) walk(f.body);
  }

  /** QPU q runs `s` with its pointer's lanes `ptr`: the stream starts at their address, which must be one. */
  start(q: number, s: StreamStmt, ptr: Int32Array, fail: Fail): void {
    for (let l = 1; l < LANES; l++)
      if (ptr[l] !== ptr[0])
        fail(`a stream starts at one address, and lane 0's is ${hex(ptr[0]!)} but lane ${l}'s ${hex(ptr[l]!)}: give it the same address in every lane (a pointer without index())`);
    this.at[q] = { s, address: ptr[0]! >>> 0 };
  }

  /** QPU q runs `s`: the word its stream is at, which then moves on. */
  next(q: number, s: NextStmt, mem: CheckedMemory, fail: Fail): number {
    const cur = this.at[q];
    const mine = this.byId.get(s.stream);
    const named = (x: StreamStmt | undefined) => (x ? `\`${this.printer.brief(x)}\`${x.loc ? ` (${x.loc})` : ''}` : 'its stream');
    if (!cur) fail(`s.next() before its stream has started on this QPU: run ${named(mine)} first`);
    if (cur.s.id !== s.stream)
      fail(`s.next() reads ${named(mine)}, but ${named(cur.s)} has started on this QPU since: a QPU reads one stream at a time, so start it again before reading it`);
    const word = mem.readStream(cur.address, fail);
    cur.address = (cur.address + 4) >>> 0;
    return word;
  }
}
