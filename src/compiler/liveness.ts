// Liveness: which virtual registers hold a value that may still be read, after each IR
// instruction. Needs: IR from lower.ts (every branch followed by its 3 delay-slot nops, labels
// unique). Guarantees: the set of virtual registers live on exit from each instruction, along
// every control-flow path, given to a visitor one instruction at a time; and the interference
// between virtual registers that the register allocator must respect.
//
// The dataflow runs over the basic blocks of cfg.ts with bitsets; within a block the live set
// is walked backwards as a sparse set, so long straight-line kernels with tens of thousands of
// values cost time and memory in proportion to their size, not to its square.

import { type Block, buildCfg, functionRegions } from './cfg.ts';
import { def, type IrInstr, isInsert, uses } from './ir.ts';

/** A set of small integers with O(1) add, delete and test, and iteration over its members only. */
export class SparseSet {
  readonly dense: Int32Array;
  private readonly index: Int32Array;
  size = 0;
  constructor(capacity: number) {
    this.dense = new Int32Array(capacity);
    this.index = new Int32Array(capacity);
  }
  has(x: number): boolean {
    const i = this.index[x]!;
    return i < this.size && this.dense[i] === x;
  }
  add(x: number): void {
    if (this.has(x)) return;
    this.dense[this.size] = x;
    this.index[x] = this.size++;
  }
  delete(x: number): void {
    if (!this.has(x)) return;
    const i = this.index[x]!;
    const last = this.dense[--this.size]!;
    this.dense[i] = last;
    this.index[last] = i;
  }
  clear(): void {
    this.size = 0;
  }
}

/** Live-out sets of the basic blocks, from which each instruction's can be walked. */
export interface Liveness {
  readonly code: readonly IrInstr[];
  readonly nregs: number;
  readonly blocks: readonly Block[];
  /** Bitset per block, W words each. */
  readonly blockOut: Uint32Array;
}

export function liveness(code: readonly IrInstr[], nregs: number): Liveness {
  const { blocks } = buildCfg(code);
  const W = (nregs + 31) >>> 5;
  const B = blocks.length;
  const use = new Uint32Array(B * W);
  const kill = new Uint32Array(B * W);
  blocks.forEach((b, bi) => {
    const o = bi * W;
    for (let k = b.last; k >= b.first; k--) {
      const i = code[k]!;
      const d = def(i);
      if (d) {
        kill[o + (d.id >>> 5)]! |= 1 << (d.id & 31);
        use[o + (d.id >>> 5)]! &= ~(1 << (d.id & 31));
      }
      for (const u of uses(i)) use[o + (u.id >>> 5)]! |= 1 << (u.id & 31);
    }
  });
  const inB = new Uint32Array(B * W);
  const outB = new Uint32Array(B * W);
  const calls = callSummaries(code, blocks, W);
  /** Block bi's live-out: what its successors need, or for a call, what the call leaves and the function reads. */
  const out = (bi: number, returns: boolean): void => {
    const o = bi * W;
    const call = calls.at.get(bi);
    if (call) {
      const f = calls.funcs.get(call.label)!;
      const ro = call.returnTo * W;
      for (let w = 0; w < W; w++) outB[o + w] = (f.gen[w]! | (inB[ro + w]! & ~f.kill[w]!)) >>> 0;
      return;
    }
    if (!returns && calls.rets.has(bi)) return; // a function's needs alone: nothing after its return
    for (const s of blocks[bi]!.succs) {
      const so = s * W;
      for (let w = 0; w < W; w++) outB[o + w] = (outB[o + w]! | inB[so + w]!) >>> 0;
    }
  };
  const solve = (ids: readonly number[], returns: boolean): void => {
    for (let changed = true; changed; ) {
      changed = false;
      for (let j = ids.length - 1; j >= 0; j--) {
        const bi = ids[j]!;
        const o = bi * W;
        out(bi, returns);
        for (let w = 0; w < W; w++) {
          const x = ((use[o + w]! | (outB[o + w]! & ~kill[o + w]!)) | inB[o + w]!) >>> 0;
          if (x !== inB[o + w]) {
            inB[o + w] = x;
            changed = true;
          }
        }
      }
    }
  };
  // Each function's own needs first, callees before callers: what it reads before writing.
  for (const f of calls.order) {
    const s = calls.funcs.get(f)!;
    solve(s.blocks, false);
    s.gen.set(inB.subarray(s.blocks[0]! * W, s.blocks[0]! * W + W));
    for (const bi of s.blocks) (inB.fill(0, bi * W, bi * W + W), outB.fill(0, bi * W, bi * W + W));
  }
  solve(blocks.map((_, bi) => bi), true);
  return { code, nregs, blocks, blockOut: outB };
}

/** A function as liveness sees it (lower-funcs.ts): its blocks, entry first, and what a call of it reads and surely writes. */
interface FuncSummary {
  readonly blocks: number[];
  /** Live on entry when nothing is live after its return: its parameters, the kernel's values it reads, its link. */
  readonly gen: Uint32Array;
  /** Written on every path through it: the results, computed in the block that returns. */
  readonly kill: Uint32Array;
}

/**
 * The calls and functions of the code. A call's block ends with the call's last delay slot; for
 * liveness it goes on at its return point, having read what the function reads (gen) and written
 * what it surely writes (kill): paths that enter from one call and return to another never
 * happen, so they must not make a value look live. The functions' own blocks see, after their
 * return, what is live at every return point: a value live across any call is live through the body.
 */
function callSummaries(code: readonly IrInstr[], blocks: readonly Block[], W: number) {
  const blockAt = new Map<number, number>();
  blocks.forEach((b, bi) => blockAt.set(b.first, bi));
  const at = new Map<number, { label: string; returnTo: number }>();
  const rets = new Set<number>();
  const funcs = new Map<string, FuncSummary>();
  const callees = new Map<string, Set<string>>();
  const regions = functionRegions(code);
  const inFunc = (k: number) => [...regions].find(([, [a, b]]) => k >= a && k <= b)?.[0];
  blocks.forEach((b, bi) => {
    const branch = code[b.last - 3];
    if (branch?.op !== 'branch') return;
    if (branch.via) rets.add(bi);
    if (!branch.link) return;
    at.set(bi, { label: branch.label, returnTo: blockAt.get(b.last + 1)! });
    const caller = inFunc(b.last) ?? '';
    callees.set(caller, (callees.get(caller) ?? new Set()).add(branch.label));
  });
  for (const [label, [from, to]] of regions) {
    const ids = blocks.flatMap((b, bi) => (b.first >= from && b.last <= to ? [bi] : []));
    const kill = new Uint32Array(W);
    const last = blocks[ids[ids.length - 1]!]!;
    for (let k = last.first; k < last.last - 3; k++) {
      const i = code[k]!;
      const d = def(i);
      if (d && !((i.op === 'alu' || i.op === 'ldi') && i.cond)) kill[d.id >>> 5]! |= 1 << (d.id & 31);
    }
    funcs.set(label, { blocks: ids, gen: new Uint32Array(W), kill });
  }
  // Callees before callers (there is no recursion).
  const order: string[] = [];
  const visit = (f: string) => {
    if (order.includes(f)) return;
    for (const g of callees.get(f) ?? []) visit(g);
    if (f) order.push(f);
  };
  visit('');
  for (const f of funcs.keys()) visit(f);
  return { at, rets, funcs, order };
}

/**
 * Calls `visit(k, live)` for every instruction k with the set live on its exit, walking each
 * block backwards. `live` is shared: read it during the call only. When `visit` returns true,
 * the instruction counts as gone: what it reads is not made live (dead.ts removes it).
 */
export function walkLive(l: Liveness, visit: (k: number, live: SparseSet) => boolean | void): void {
  const W = (l.nregs + 31) >>> 5;
  const live = new SparseSet(l.nregs);
  l.blocks.forEach((b, bi) => {
    live.clear();
    const o = bi * W;
    for (let w = 0; w < W; w++) {
      let x = l.blockOut[o + w]!;
      while (x) {
        const low = x & -x;
        live.add(w * 32 + 31 - Math.clz32(low));
        x = (x ^ low) >>> 0;
      }
    }
    for (let k = b.last; k >= b.first; k--) {
      const i = l.code[k]!;
      const gone = visit(k, live);
      const d = def(i);
      if (d) live.delete(d.id);
      if (!gone) for (const u of uses(i)) live.add(u.id);
    }
  });
}

/**
 * Interference: two virtual registers interfere when one is written while the other is live; and
 * an insert's destination with the value it inserts (unless that is the word it changes too),
 * which emit.ts may read after copying the word into the destination (operands.ts INSERTS).
 */
export function interference(l: Liveness): number[][] {
  const adj: number[][] = Array.from({ length: l.nregs }, () => []);
  const edge = (x: number, y: number) => (adj[x]!.push(y), adj[y]!.push(x));
  walkLive(l, (k, live) => {
    const i = l.code[k]!;
    const d = def(i);
    if (!d) return;
    for (let j = 0; j < live.size; j++) {
      const o = live.dense[j]!;
      if (o !== d.id) edge(d.id, o);
    }
    if (i.op === 'alu' && isInsert(i.code) && i.b.k === 'v' && i.b.id !== d.id && !(i.a.k === 'v' && i.a.id === i.b.id)) edge(d.id, i.b.id);
  });
  // Each neighbour once: a stamp per register marks those already kept for this one.
  const seen = new Int32Array(l.nregs).fill(-1);
  return adj.map((a, x) => {
    if (a.length < 2) return a;
    let n = 0;
    for (const y of a) if (seen[y] !== x) (seen[y] = x), (a[n++] = y);
    a.length = n;
    return a;
  });
}

/** The IR with each instruction's live-out set, for `--dump liveness`. */
export function printLiveness(l: Liveness, text: (i: IrInstr) => string): string {
  const outs: string[] = new Array(l.code.length).fill('');
  walkLive(l, (k, live) => {
    outs[k] = [...live.dense.subarray(0, live.size)].sort((a, b) => a - b).map((r) => `%${r}`).join(' ');
  });
  return (
    l.code
      .map((i, n) => {
        const line = i.op === 'label' ? text(i) : `    ${text(i)}`;
        return outs[n] ? `${line.padEnd(40)} # live: ${outs[n]}` : line;
      })
      .join('\n') + '\n'
  );
}
