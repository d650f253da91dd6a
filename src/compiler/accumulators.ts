// Pass `acc` (from -O1, as Mesa's vc4 allocator does): values for r1, r2 and r3, first the
// shortest-lived, wherever nothing else writes the accumulator while the value lives (r1 is
// spill.ts's scratch for spill-row numbers). An accumulator has no read port to share and no
// write-to-read latency (Guide p. 17), so a value there costs no copy and no nop.
// Needs: the IR with its liveness and interference. Guarantees: two values that interfere never
// share an accumulator, and no value lives in one across a write of it (the map it returns is
// what allocate() in regalloc.ts keeps out of the register files).

import { def, isUnpack } from './ir.ts';
import { type Liveness, walkLive } from './liveness.ts';
import { fileAOnly, insertedInto, rotationInputs } from './regalloc.ts';

/** The accumulators that hold values, in the order tried (r0 is emit.ts's scratch). */
export const VALUE_ACCUMULATORS = [3, 1, 2] as const;

/**
 * Values for the accumulators: the shortest-lived first, each to an accumulator that no value it
 * interferes with holds and that no instruction writes while it lives (from an instruction that
 * writes the accumulator to the last that reads that write, no value may be live across, nor
 * defined inside).
 */
export function accumulatorValues(live: Liveness, adj: readonly (readonly number[])[], pairing = false): Map<number, number> {
  const { code, nregs } = live;
  const busy = VALUE_ACCUMULATORS.map(() => new Uint8Array(nregs));
  const name = (n: number) => `r${n}`;
  // The instructions inside each accumulator's write-to-last-read stretches.
  const inside = VALUE_ACCUMULATORS.map(() => new Uint8Array(code.length));
  VALUE_ACCUMULATORS.forEach((n, x) => {
    for (let k = 0; k < code.length; k++) {
      const i = code[k]!;
      if (!((i.op === 'alu' || i.op === 'ldi') && i.dst.k === 'p' && i.dst.name === name(n))) continue;
      let last = k;
      for (let j = k + 1; j < code.length; j++) {
        const c = code[j]!;
        if (c.op === 'label' || c.op === 'branch') break;
        if (c.op === 'alu' && [c.a, c.b].some((s) => s.k === 'p' && s.name === name(n))) last = j;
        if ((c.op === 'alu' || c.op === 'ldi') && c.dst.k === 'p' && c.dst.name === name(n)) break;
      }
      // The write itself, even unread: a value live across it would be lost.
      for (let j = k; j < Math.max(last, k + 1); j++) inside[x]![j] = 1;
    }
  });
  const range = new Int32Array(nregs);
  walkLive(live, (k, set) => {
    for (let j = 0; j < set.size; j++) range[set.dense[j]!]!++;
    const d = def(code[k]!);
    if (d) range[d.id]!++;
    VALUE_ACCUMULATORS.forEach((_, x) => {
      if (!inside[x]![k]) return;
      for (let j = 0; j < set.size; j++) busy[x]![set.dense[j]!] = 1;
      if (d) busy[x]![d.id] = 1;
    });
  });
  const out = new Map<number, number>();
  // Each value's accumulator as it is chosen (0: none), for the neighbours' look-ups.
  const held = new Uint8Array(nregs);
  // A value a byte or half-word is unpacked from stays out (only regfile A unpacks, emit.ts), and
  // so do those only regfile A can hold and the words inserts change (which share the insert's
  // register when coalesced).
  const unpacked = new Set([...fileAOnly(code), ...insertedInto(code)]);
  for (const i of code) if (i.op === 'alu' && isUnpack(i.code) && i.a.k === 'v') unpacked.add(i.a.id);
  // Values a rotation reads first: only r0-r3 rotate across all 16 lanes (Guide p. 20), so
  // one elsewhere costs emit.ts a copy to r0, and a wait before the rotation reads it. Not when
  // the scheduler pairs: the copy then shares a word with the rotation before (pairing-files.ts),
  // and the accumulators do more for short-lived values, such as the products a rotated value
  // is multiplied into (a broadcast lane's multiply-add, as SGEMM's was before streams: 3.3 instructions
  // with its rows of A in r1-r3, 2 without).
  const rotates = pairing ? new Set<number>() : rotationInputs(code);
  const first = (id: number) => (rotates.has(id) ? 0 : 1);
  const order = [...range.keys()].filter((id) => range[id]! > 0 && !unpacked.has(id)).sort((x, y) => first(x) - first(y) || range[x]! - range[y]! || x - y);
  for (const id of order) {
    let free = 0;
    VALUE_ACCUMULATORS.forEach((n, x) => {
      if (!busy[x]![id]) free |= 1 << n;
    });
    if (!free) continue;
    for (const o of adj[id]!) free &= ~(1 << held[o]!);
    const n = VALUE_ACCUMULATORS.find((n) => free & (1 << n));
    if (n === undefined) continue;
    out.set(id, n);
    held[id] = n;
  }
  return out;
}
