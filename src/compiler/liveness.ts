// Liveness: which virtual registers hold a value that may still be read, after each IR
// instruction. Needs: IR from lower.ts (every branch followed by its 3 delay-slot nops, labels
// unique). Guarantees: the set of virtual registers live on exit from each instruction, along
// every control-flow path, given to a visitor one instruction at a time; and the interference
// between virtual registers that the register allocator must respect.
//
// The dataflow runs over the basic blocks of cfg.ts with bitsets; within a block the live set
// is walked backwards as a sparse set, so long straight-line kernels with tens of thousands of
// values cost time and memory in proportion to their size, not to its square.

import { type Block, buildCfg } from './cfg.ts';
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
  for (let changed = true; changed; ) {
    changed = false;
    for (let bi = B - 1; bi >= 0; bi--) {
      const o = bi * W;
      for (const s of blocks[bi]!.succs) {
        const so = s * W;
        for (let w = 0; w < W; w++) outB[o + w] = (outB[o + w]! | inB[so + w]!) >>> 0;
      }
      for (let w = 0; w < W; w++) {
        const x = ((use[o + w]! | (outB[o + w]! & ~kill[o + w]!)) | inB[o + w]!) >>> 0;
        if (x !== inB[o + w]) {
          inB[o + w] = x;
          changed = true;
        }
      }
    }
  }
  return { code, nregs, blocks, blockOut: outB };
}

/**
 * Calls `visit(k, live)` for every instruction k with the set live on its exit, walking each
 * block backwards. `live` is shared: read it during the call only.
 */
export function walkLive(l: Liveness, visit: (k: number, live: SparseSet) => void): void {
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
      visit(k, live);
      const d = def(i);
      if (d) live.delete(d.id);
      for (const u of uses(i)) live.add(u.id);
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
  return adj.map((a) => (a.length < 2 ? a : [...new Set(a)]));
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
