// Register allocation: each virtual register to a physical register of regfile A (ra0-ra31) or
// regfile B (rb0-rb31). Needs: IR and its interference (liveness.ts). Guarantees: two virtual
// registers that interfere get different registers; when the 64 registers are not enough, the
// result names virtual registers to spill instead (spill.ts rewrites them and allocation runs
// again), never a wrong assignment.
//
// Accumulators (pass `acc`, from -O1, as Mesa's vc4 allocator does): r1, r2 and r3 hold values
// too, first the shortest-lived, wherever nothing else writes them while the value lives (r1 is
// spill.ts's scratch for spill-row numbers).
// An accumulator has no read port to share and no write-to-read latency (Guide p. 17), so a value
// there costs no copy and no nop. r0 stays emit.ts's scratch (an operand copied out of a file
// whose read port is taken, a rotation's input: only r0-r3 rotate across all 16 lanes, Guide
// p. 20), r4 is the TMU/SFU result and r5 the broadcast register.
//
// Copies (pass `coalesce`, from -O1): a value copied to or from another that does not interfere
// with it takes that value's register when it is free, unless the file costs more copies than
// the ones saved (weighed by loop depth); the copy then moves a register onto itself, and emit.ts
// leaves it out.
//
// Placement between the files follows the read-port rule (Guide p. 17: one read from each
// regfile per instruction; a small immediate takes the B read): a register read beside a small
// immediate or a B-only register leans to A, one read beside a register already in A leans to
// B, and so on. A choice the rule cannot satisfy is still correct: emit.ts then copies one
// operand to an accumulator first, at the cost of an instruction.

import { lookupSource } from '../vc4/asm/names.ts';
import { type Accumulator, def, type IrInstr, type PRegName, type Src } from './ir.ts';
import { loops } from './cfg.ts';
import { type Liveness, walkLive } from './liveness.ts';

/** Registers per file that hold virtual registers (addresses 32-63 are I/O). */
export const REGS_PER_FILE = 32;

export type Placement = { readonly file: 'a' | 'b' | 'acc'; readonly n: number };

/** The accumulators that hold values, in the order tried (r0 is emit.ts's scratch). */
export const VALUE_ACCUMULATORS = [3, 1, 2] as const;

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
  /** How much a copy in that instruction costs: LOOP_WEIGHT to the power of its loop depth. */
  readonly weight: number;
}

/** A copy inside a loop costs this many outside it (it runs on every iteration). */
const LOOP_WEIGHT = 8;

/** How many loops (a label and a later branch back to it) hold each instruction. */
function loopDepths(code: readonly IrInstr[]): Int32Array {
  const diff = new Int32Array(code.length + 1);
  for (const [top, end] of loops(code)) (diff[top]!++, diff[end - 2]!--);
  const depth = new Int32Array(code.length);
  let d = 0;
  for (let n = 0; n < code.length; n++) depth[n] = d += diff[n]!;
  return depth;
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

/**
 * Values for the accumulators: the shortest-lived first, each to an accumulator that no value it
 * interferes with holds and that no instruction writes while it lives (from an instruction that
 * writes the accumulator to the last that reads that write, no value may be live across, nor
 * defined inside).
 */
export function accumulatorValues(live: Liveness, adj: readonly (readonly number[])[]): Map<number, number> {
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
  const order = [...range.keys()].filter((id) => range[id]! > 0).sort((x, y) => range[x]! - range[y]! || x - y);
  for (const id of order) {
    const x = VALUE_ACCUMULATORS.findIndex((n, x) => !busy[x]![id] && !adj[id]!.some((o) => out.get(o) === n));
    if (x >= 0) out.set(id, VALUE_ACCUMULATORS[x]!);
  }
  return out;
}

export function allocate(
  code: readonly IrInstr[],
  adj: readonly (readonly number[])[],
  nregs: number,
  unspillable: ReadonlySet<number>,
  accumulators: ReadonlyMap<number, number> = new Map(),
  coalesce = false,
): AllocResult {
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
  const depth = loopDepths(code);
  // Copies between virtual registers (`mov %x, %y`, no rotation, no flags): sharing a register
  // makes the copy a move onto itself, which emit.ts leaves out.
  const copies: Partner[][] = coalesce ? Array.from({ length: nregs }, () => []) : [];
  code.forEach((i, n) => {
    if (coalesce && i.op === 'alu' && i.code === 'mov' && !i.setf && i.rot === undefined && i.dst.k === 'v' && i.a.k === 'v' && i.dst.id !== i.a.id) {
      const w = LOOP_WEIGHT ** Math.min(depth[n]!, 4);
      copies[i.dst.id]!.push({ other: i.a, weight: w });
      copies[i.a.id]!.push({ other: i.dst, weight: w });
    }
    if (i.op === 'alu') {
      for (const r of [i.dst, i.a, i.b]) if (r.k === 'v') (note(r.id), (weight[r.id] += 1));
      const w = LOOP_WEIGHT ** Math.min(depth[n]!, 4);
      if (i.a.k === 'v' && !(i.b.k === 'v' && i.b.id === i.a.id)) partners[i.a.id]!.push({ other: i.b, weight: w });
      if (i.b.k === 'v' && !(i.a.k === 'v' && i.a.id === i.b.id)) partners[i.b.id]!.push({ other: i.a, weight: w });
    } else if (i.op === 'ldi' && i.dst.k === 'v') note(i.dst.id), (weight[i.dst.id] += 1);
  });

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

  for (const [id, n] of accumulators) place[id] = { file: 'acc', n };
  for (const id of order) {
    if (place[id]) continue;
    const conflicts = { a: 0, b: 0 };
    for (const { other, weight: w } of partners[id]!) {
      const f = other.k === 'v' ? place[other.id]?.file : fixedFile(other);
      if (f && f !== 'acc') conflicts[f] += w;
    }
    const first: 'a' | 'b' =
      conflicts.a !== conflicts.b ? (conflicts.a < conflicts.b ? 'a' : 'b') : count.a <= count.b ? 'a' : 'b';
    const second = first === 'a' ? 'b' : 'a';
    let file: 'a' | 'b' = first;
    let n = freeIn(id, first);
    // A copy partner's register, when it is free here and the copies it saves outweigh what its
    // file costs over the file preferred.
    const shared = coalesce ? copyTarget(id, copies[id]!, place, adj) : undefined;
    if (shared && shared.gain > conflicts[shared.file] - conflicts[first]) [file, n] = [shared.file, shared.n];
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
          if (!place[o] || place[o]!.file === 'acc' || unspillable.has(o)) continue;
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
  if (spill.length) return { ok: false, spill };
  improveFiles(place, partners, adj, copies);
  return { ok: true, place };
}

/** The register of a placed copy partner that `id` could share, with the copies it saves. */
function copyTarget(
  id: number,
  copies: readonly Partner[],
  place: readonly (Placement | undefined)[],
  adj: readonly (readonly number[])[],
): { file: 'a' | 'b'; n: number; gain: number } | undefined {
  let best: { file: 'a' | 'b'; n: number; gain: number } | undefined;
  for (const { other, weight } of copies) {
    const p = other.k === 'v' ? place[other.id] : undefined;
    if (!p || p.file === 'acc') continue;
    if (best && best.file === p.file && best.n === p.n) {
      best.gain += weight;
      continue;
    }
    if (adj[id]!.some((o) => place[o]?.file === p.file && place[o]!.n === p.n)) continue;
    const gain = copies.reduce((g, c) => g + (c.other.k === 'v' && place[c.other.id]?.file === p.file && place[c.other.id]!.n === p.n ? c.weight : 0), 0);
    if (!best || gain > best.gain) best = { file: p.file, n: p.n, gain };
  }
  return best;
}

/** The file a source is read from, if it is a regfile ('b' for small immediates). */
function fileOf(s: Src, place: readonly (Placement | undefined)[]): 'a' | 'b' | undefined {
  if (s.k !== 'v') return fixedFile(s);
  const f = place[s.id]?.file;
  return f === 'acc' ? undefined : f;
}

/**
 * Instructions a move to the other file must spare a copy in, at least: a smaller gain is not
 * worth the moves it prevents from pairing (a move pairs with another only when they read
 * different files), which the count does not see.
 */
const MIN_GAIN = 2;

/**
 * The greedy choice of files sees only the partners placed before each value. Afterwards, a
 * value moves to the other file when a register is free there and fewer of the instructions
 * that read it would then need both operands from one file (each such costs emit.ts a copy).
 */
function improveFiles(
  place: (Placement | undefined)[],
  partners: readonly Partner[][],
  adj: readonly (readonly number[])[],
  copies: readonly Partner[][],
): void {
  // A value sharing its register with a copy partner stays: moving it would bring the copy back.
  const sharing = (id: number, pl: Placement) =>
    copies[id]?.some((c) => c.other.k === 'v' && place[c.other.id]?.file === pl.file && place[c.other.id]!.n === pl.n);
  for (let round = 0; round < 3; round++) {
    let moved = false;
    for (let id = 0; id < place.length; id++) {
      const pl = place[id];
      if (!pl || pl.file === 'acc' || !partners[id]!.length || sharing(id, pl)) continue;
      const other: 'a' | 'b' = pl.file === 'a' ? 'b' : 'a';
      let clash = 0;
      for (const { other: o, weight: w } of partners[id]!) {
        const f = fileOf(o, place);
        if (f === pl.file) clash += w;
        else if (f === other) clash -= w;
      }
      if (clash < MIN_GAIN) continue;
      const taken = new Uint8Array(REGS_PER_FILE);
      for (const o of adj[id]!) if (place[o]?.file === other) taken[place[o]!.n] = 1;
      const n = taken.indexOf(0);
      if (n < 0) continue;
      place[id] = { file: other, n };
      moved = true;
    }
    if (!moved) return;
  }
}

/** A placement as an assembly register name. */
export const placeName = (p: Placement): PRegName => (p.file === 'acc' ? (`r${p.n}` as Accumulator) : `r${p.file}${p.n}`);


