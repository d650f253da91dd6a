// Liveness: which virtual registers hold a value that may still be read, before and after each IR
// instruction. Needs: IR from lower.ts (every branch followed by its 3 delay-slot nops, labels
// unique). Guarantees: for each instruction, the set of virtual registers live on entry and on
// exit, along every control-flow path, and the interference between virtual registers that the
// register allocator must respect.
//
// Control flow follows the hardware: a branch takes effect after its three delay slots, so the
// last delay slot is the instruction whose successors are the target (and, for a conditional
// branch, the next instruction). The program end has none.

import { def, type IrInstr, uses } from './ir.ts';

/** A set of virtual registers as a bitset, one bit per register. */
export class RegSet {
  readonly bits: Uint32Array;
  constructor(
    readonly size: number,
    bits?: Uint32Array,
  ) {
    this.bits = bits ?? new Uint32Array((size + 31) >>> 5);
  }
  has(r: number): boolean {
    return ((this.bits[r >>> 5]! >>> (r & 31)) & 1) === 1;
  }
  add(r: number): void {
    this.bits[r >>> 5]! |= 1 << (r & 31);
  }
  delete(r: number): void {
    this.bits[r >>> 5]! &= ~(1 << (r & 31));
  }
  /** Adds every member of o; returns whether this set grew. */
  union(o: RegSet): boolean {
    let grew = false;
    for (let i = 0; i < this.bits.length; i++) {
      const x = (this.bits[i]! | o.bits[i]!) >>> 0;
      if (x !== this.bits[i]) {
        this.bits[i] = x;
        grew = true;
      }
    }
    return grew;
  }
  copy(): RegSet {
    const s = new RegSet(this.size);
    s.bits.set(this.bits);
    return s;
  }
  *[Symbol.iterator](): IterableIterator<number> {
    for (let w = 0; w < this.bits.length; w++) {
      let x = this.bits[w]!;
      while (x) {
        const b = 31 - Math.clz32(x & -x);
        yield w * 32 + b;
        x &= x - 1;
      }
    }
  }
  get count(): number {
    let n = 0;
    for (const _ of this) n++;
    return n;
  }
}

/** The successors of each IR instruction, by index (code.length means "falls off the end"). */
export function successors(code: readonly IrInstr[]): number[][] {
  const labels = new Map<string, number>();
  code.forEach((i, n) => {
    if (i.op === 'label') labels.set(i.name, n);
  });
  const succs = code.map((i, n) => (i.op === 'end' ? [] : [n + 1]));
  code.forEach((i, n) => {
    if (i.op !== 'branch') return;
    const last = n + 3;
    const target = labels.get(i.label);
    if (target === undefined) throw new Error(`internal: branch to unknown label ${i.label}`);
    succs[last] = i.cond === 'always' ? [target] : [n + 4, target];
  });
  return succs;
}

export interface Liveness {
  readonly liveIn: RegSet[];
  readonly liveOut: RegSet[];
}

/** Backward dataflow to a fixed point: live-in = uses ∪ (live-out − def). */
export function liveness(code: readonly IrInstr[], nregs: number): Liveness {
  const succs = successors(code);
  const n = code.length;
  const W = (nregs + 31) >>> 5;
  // One flat array per direction; each instruction's set is a W-word slice.
  const inBits = new Uint32Array(n * W);
  const outBits = new Uint32Array(n * W);
  const useOf = code.map(uses);
  const defOf = code.map(def);
  const tmp = new Uint32Array(W);
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = n - 1; i >= 0; i--) {
      const o = i * W;
      for (const s of succs[i]!) {
        if (s >= n) continue;
        const so = s * W;
        for (let w = 0; w < W; w++) outBits[o + w] = (outBits[o + w]! | inBits[so + w]!) >>> 0;
      }
      for (let w = 0; w < W; w++) tmp[w] = outBits[o + w]!;
      const d = defOf[i];
      if (d) tmp[d.id >>> 5]! &= ~(1 << (d.id & 31));
      for (const u of useOf[i]!) tmp[u.id >>> 5]! |= 1 << (u.id & 31);
      for (let w = 0; w < W; w++) {
        const x = (inBits[o + w]! | tmp[w]!) >>> 0;
        if (x !== inBits[o + w]) {
          inBits[o + w] = x;
          changed = true;
        }
      }
    }
  }
  const sets = (bits: Uint32Array) => code.map((_, i) => new RegSet(nregs, bits.subarray(i * W, i * W + W)));
  return { liveIn: sets(inBits), liveOut: sets(outBits) };
}

/** Interference: two virtual registers interfere when one is written while the other is live. */
export function interference(code: readonly IrInstr[], live: Liveness, nregs: number): RegSet[] {
  const adj = Array.from({ length: nregs }, () => new RegSet(nregs));
  code.forEach((i, n) => {
    const d = def(i);
    if (!d) return;
    for (const o of live.liveOut[n]!) {
      if (o === d.id) continue;
      adj[d.id]!.add(o);
      adj[o]!.add(d.id);
    }
  });
  return adj;
}

/** The IR with each instruction's live-out set, for `--dump`. */
export function printLiveness(code: readonly IrInstr[], live: Liveness, text: (i: IrInstr) => string): string {
  return (
    code
      .map((i, n) => {
        const out = [...live.liveOut[n]!].map((r) => `%${r}`).join(' ');
        const line = i.op === 'label' ? text(i) : `    ${text(i)}`;
        return out ? `${line.padEnd(40)} # live: ${out}` : line;
      })
      .join('\n') + '\n'
  );
}
