// Register allocation: each virtual register to a physical register of regfile A (ra0-ra31) or
// regfile B (rb0-rb31). Needs: IR and its interference (liveness.ts). Guarantees: two virtual
// registers that interfere get different registers; when the 64 registers are not enough, the
// result names virtual registers to spill instead (spill.ts rewrites them and allocation runs
// again), never a wrong assignment.
//
// The accumulators are not allocated: r0 and r1 are scratch for emit.ts and spill.ts, r2
// holds rotations' inputs (only r0-r3 rotate across all 16 lanes, Guide p. 20), r3 is free, r4
// is the TMU/SFU result and r5 the broadcast register.
//
// Placement between the files follows the read-port rule (Guide p. 17: one read from each
// regfile per instruction; a small immediate takes the B read): a register read beside a small
// immediate or a B-only register leans to A, one read beside a register already in A leans to
// B, and so on. A choice the rule cannot satisfy is still correct: emit.ts then copies one
// operand to an accumulator first, at the cost of an instruction.

import { lookupSource } from '../vc4/asm/names.ts';
import type { IrInstr, Src } from './ir.ts';
import { type Liveness, walkLive } from './liveness.ts';

/** Registers per file that hold virtual registers (addresses 32-63 are I/O). */
export const REGS_PER_FILE = 32;

export type Placement = { readonly file: 'a' | 'b'; readonly n: number };

export type AllocResult =
  | { readonly ok: true; readonly place: (Placement | undefined)[] }
  /** Spill these and try again; `stuck` names an unspillable register that found no room. */
  | { readonly ok: false; readonly spill: number[]; readonly stuck?: number };

/** The file a source must be read from, if it has only one ('b' for small immediates). */
function fixedFile(s: Src): 'a' | 'b' | undefined {
  if (s.k === 'imm') return 'b';
  if (s.k === 'v') return undefined;
  const r = lookupSource(s.name);
  if (!r || r.kind === 'acc' || r.file === 'either') return undefined;
  return r.file;
}

interface Partner {
  readonly other: Src;
}

/**
 * Where more values are live than the files hold (less a margin for spill code's temporaries),
 * picks values to spill: at each such point, the live value with the fewest uses per instruction
 * of its live range (a long-lived, rarely used value frees the most at the least cost).
 */
export function pressureSpills(code: readonly IrInstr[], live: Liveness, unspillable: ReadonlySet<number>, limit = 2 * REGS_PER_FILE - 4): number[] {
  const nregs = live.nregs;
  const range = new Float64Array(nregs);
  const uses = new Float64Array(nregs);
  let over = false;
  walkLive(live, (_, set) => {
    if (set.size > limit) over = true;
    for (let j = 0; j < set.size; j++) range[set.dense[j]!]! += 1;
  });
  if (!over) return [];
  for (const i of code)
    if (i.op === 'alu') for (const r of [i.dst, i.a, i.b]) r.k === 'v' && (uses[r.id]! += 1);
    else if (i.op === 'ldi' && i.dst.k === 'v') uses[i.dst.id]! += 1;
  // Walking backwards, values chosen at one point also relieve the points already passed.
  const chosen = new Uint8Array(nregs);
  const out: number[] = [];
  walkLive(live, (_, set) => {
    let count = 0;
    for (let j = 0; j < set.size; j++) if (!chosen[set.dense[j]!]) count++;
    while (count > limit) {
      let best = -1;
      for (let j = 0; j < set.size; j++) {
        const r = set.dense[j]!;
        if (chosen[r] || unspillable.has(r)) continue;
        if (best < 0 || uses[r]! / range[r]! < uses[best]! / range[best]!) best = r;
      }
      if (best < 0) break;
      chosen[best] = 1;
      out.push(best);
      count--;
    }
  });
  return out;
}

export function allocate(code: readonly IrInstr[], adj: readonly (readonly number[])[], nregs: number, unspillable: ReadonlySet<number>): AllocResult {
  // Who is read beside whom.
  const partners: Partner[][] = Array.from({ length: nregs }, () => []);
  const weight = new Float64Array(nregs);
  const seen = new Uint8Array(nregs);
  const order: number[] = [];
  const note = (id: number) => {
    if (!seen[id]) {
      seen[id] = 1;
      order.push(id);
    }
  };
  for (const i of code) {
    if (i.op === 'alu') {
      for (const r of [i.dst, i.a, i.b]) if (r.k === 'v') (note(r.id), (weight[r.id] += 1));
      if (i.a.k === 'v' && !(i.b.k === 'v' && i.b.id === i.a.id)) partners[i.a.id]!.push({ other: i.b });
      if (i.b.k === 'v' && !(i.a.k === 'v' && i.a.id === i.b.id)) partners[i.b.id]!.push({ other: i.a });
    } else if (i.op === 'ldi' && i.dst.k === 'v') note(i.dst.id), (weight[i.dst.id] += 1);
  }

  const place: (Placement | undefined)[] = new Array(nregs).fill(undefined);
  const spill: number[] = [];
  const used = { a: new Uint8Array(REGS_PER_FILE), b: new Uint8Array(REGS_PER_FILE) };
  let count = { a: 0, b: 0 };

  const freeIn = (id: number, file: 'a' | 'b'): number | undefined => {
    const taken = new Uint8Array(REGS_PER_FILE);
    for (const o of adj[id]!) {
      const p = place[o];
      if (p && p.file === file) taken[p.n] = 1;
    }
    // Reuse registers already in use elsewhere before opening new ones (keeps the files compact).
    let fresh: number | undefined;
    for (let n = 0; n < REGS_PER_FILE; n++) {
      if (taken[n]) continue;
      if (used[file][n]) return n;
      fresh ??= n;
    }
    return fresh;
  };

  for (const id of order) {
    const conflicts = { a: 0, b: 0 };
    for (const { other } of partners[id]!) {
      const f = other.k === 'v' ? place[other.id]?.file : fixedFile(other);
      if (f) conflicts[f]++;
    }
    const first: 'a' | 'b' =
      conflicts.a !== conflicts.b ? (conflicts.a < conflicts.b ? 'a' : 'b') : count.a <= count.b ? 'a' : 'b';
    const second = first === 'a' ? 'b' : 'a';
    let file: 'a' | 'b' = first;
    let n = freeIn(id, first);
    if (n === undefined) {
      file = second;
      n = freeIn(id, second);
    }
    if (n === undefined) {
      if (!unspillable.has(id)) {
        spill.push(id);
        continue;
      }
      // Spill the cheapest-to-reload spillable neighbours until a register is free.
      while (n === undefined) {
        let best: number | undefined;
        for (const o of adj[id]!) {
          if (!place[o] || unspillable.has(o)) continue;
          if (best === undefined || weight[o]! < weight[best]!) best = o;
        }
        if (best === undefined) return { ok: false, spill: [], stuck: id };
        spill.push(best);
        place[best] = undefined;
        file = first;
        n = freeIn(id, first);
        if (n === undefined) {
          file = second;
          n = freeIn(id, second);
        }
      }
    }
    place[id] = { file, n };
    if (!used[file][n]) {
      used[file][n] = 1;
      count = { ...count, [file]: count[file] + 1 };
    }
  }
  return spill.length ? { ok: false, spill } : { ok: true, place };
}

/** A placement as an assembly register name. */
export const placeName = (p: Placement): string => `r${p.file}${p.n}`;
