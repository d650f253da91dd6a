// Register allocation: each virtual register to a physical register of regfile A (ra0-ra31) or
// regfile B (rb0-rb31). Needs: IR and its interference (liveness.ts). Guarantees: two virtual
// registers that interfere get different registers; when the 64 registers are not enough, the
// result names virtual registers to spill instead (spill.ts rewrites them and allocation runs
// again), never a wrong assignment.
//
// Accumulators (pass `acc`, accumulators.ts): the values given r1-r3 stay out of the files. r0
// stays emit.ts's scratch (an operand copied out of a file whose read port is taken, a
// rotation's input: only r0-r3 rotate across all 16 lanes, Guide p. 20), r4 is the TMU/SFU
// result and r5 the broadcast register.
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
// operand to an accumulator first, at the cost of an instruction. With pairing (pass `pair`), a
// tie is broken by what neighbouring instructions on the other ALU read (pairing-files.ts), and
// the values rotations read are coloured first.

import { lookupDest, lookupSource } from '../vc4/asm/names.ts';
import { Neighbours, PAIRING_WEIGHT, type Partner } from './pairing-files.ts';
import { type Accumulator, type IrInstr, isColour, isInsert, type PRegName, type Src } from './ir.ts';
import { loops } from './cfg.ts';
import { type Liveness, walkLive } from './liveness.ts';

/** Registers per file that hold virtual registers (addresses 32-63 are I/O). */
export const REGS_PER_FILE = 32;

export type Placement = { readonly file: RegFile | 'acc'; readonly n: number };
type RegFile = 'a' | 'b';
/** A place in regfile A or B. */
type FilePlace = { readonly file: RegFile; readonly n: number };


export type AllocResult =
  | { readonly ok: true; readonly place: (Placement | undefined)[] }
  /** Spill these and try again; `stuck` names an unspillable register that found no room. */
  | { readonly ok: false; readonly spill: number[]; readonly stuck?: number };

/**
 * The values only regfile A can hold: an insert's destination, which regfile A's pack writes, a
 * colour's word, which its unpack reads (operands.ts INSERTS, COLOURS), and a function's link.
 */
export function fileAOnly(code: readonly IrInstr[]): Set<number> {
  const out = new Set<number>();
  for (const i of code) {
    // A call's link and a return's register: a branch reads and writes regfile A only (Guide p. 34).
    if (i.op === 'branch') for (const r of [i.link, i.via]) if (r?.k === 'v') out.add(r.id);
    if (i.op !== 'alu') continue;
    if (isInsert(i.code) && i.dst.k === 'v') out.add(i.dst.id);
    if (isColour(i.code) && i.a.k === 'v') out.add(i.a.id);
  }
  return out;
}

/**
 * Functions' links (lower-funcs.ts): an even regfile-A register, since a return's raddr_a bit 0
 * makes the branch set the flags (vc4asm's addendum; the validator warns of it).
 */
function linkRegisters(code: readonly IrInstr[]): Set<number> {
  const out = new Set<number>();
  for (const i of code) if (i.op === 'branch') for (const r of [i.link, i.via]) if (r?.k === 'v') out.add(r.id);
  return out;
}

/** The words inserts change: in regfile A, they can share the insert's register (pass coalesce), which spares a copy. */
export function insertedInto(code: readonly IrInstr[]): Set<number> {
  const out = new Set<number>();
  for (const i of code) if (i.op === 'alu' && isInsert(i.code) && i.a.k === 'v') out.add(i.a.id);
  return out;
}

/** The values a rotation reads (the first operand of an ALU operation with a rotation). */
export function rotationInputs(code: readonly IrInstr[]): Set<number> {
  const out = new Set<number>();
  for (const i of code) if (i.op === 'alu' && i.rot !== undefined && i.a.k === 'v') out.add(i.a.id);
  return out;
}

/** The file a source must be read from, if it has only one ('b' for small immediates). */
function fixedFile(s: Src): RegFile | undefined {
  if (s.k === 'imm') return 'b';
  if (s.k === 'v') return undefined;
  const r = lookupSource(s.name);
  if (!r || r.kind === 'acc' || r.file === 'either') return undefined;
  return r.file;
}

/** A copy inside a loop costs this many outside it (it runs on every iteration). */
export const LOOP_WEIGHT = 8;

/** How many loops (a label and a later branch back to it) hold each instruction. */
export function loopDepths(code: readonly IrInstr[]): Int32Array {
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
 * Colours the virtual registers, in the order the code first mentions them (with `pairing`, the
 * values rotations read first), onto regfiles A and B (the values in `accumulators` stay there);
 * or names registers to spill.
 */
export function allocate(
  code: readonly IrInstr[],
  adj: readonly (readonly number[])[],
  nregs: number,
  unspillable: ReadonlySet<number>,
  accumulators: ReadonlyMap<number, number> = new Map(),
  coalesce = false,
  /** The scheduler will pair (pass `pair`): lean apart the files of what neighbouring instructions on the two ALUs read. */
  pairing = false,
): AllocResult {
  const uses = usesOf(code, nregs, coalesce, pairing);
  const files = new Files(nregs, adj, fileAOnly(code), insertedInto(code), linkRegisters(code));
  const spill: number[] = [];
  for (const [id, n] of accumulators) files.place[id] = { file: 'acc', n };
  for (const id of uses.order) {
    if (files.place[id]) continue;
    const { first, at } = chooseRegister(id, files, uses, coalesce);
    if (at) {
      files.take(id, at);
      continue;
    }
    if (!unspillable.has(id)) {
      spill.push(id);
      continue;
    }
    const room = makeRoom(id, first, files, uses.weight, unspillable, spill);
    if (!room) return { ok: false, spill: [], stuck: id };
    files.take(id, room);
  }
  if (spill.length) return { ok: false, spill };
  improveFiles(files.place, uses.partners, adj, uses.copies, files.onlyA);
  return { ok: true, place: files.place };
}

/** What allocation weighs, from one pass over the code. */
interface Uses {
  /** For each register, the other operand of each instruction that reads it, weighed by loop depth. */
  readonly partners: Partner[][];
  /** With pairing: for each register, what instructions near those that read it read on the other ALU (Neighbours). */
  readonly nearby: Partner[][];
  /** For each register, the registers it is copied to or from (with `coalesce`), weighed the same. */
  readonly copies: Partner[][];
  /** How many ALU operands and load immediates each register is: what spilling it costs. */
  readonly weight: Float64Array;
  /** The registers in the order they are coloured in: the code's first mention of each (with pairing, the values rotations read first). */
  readonly order: number[];
  /** With pairing: the file each value leans to for its writes (copiedOut). */
  readonly writeLean: (RegFile | undefined)[];
}

/**
 * A value a loop changes and copies to an I/O register only one file can write (`mov vw_addr, p`
 * and `add p, p, inc`: vw_ and vr_ registers, Guide p. 37): the scheduler shares a word between
 * the copy and the change, which must then write different files (p. 27), so the value leans to
 * the other file. Its partners placed before it see it there already (chooseRegister).
 */
function copiedOut(code: readonly IrInstr[], depth: Int32Array, nregs: number): (RegFile | undefined)[] {
  const lean: (RegFile | undefined)[] = new Array(nregs).fill(undefined);
  const changed = new Uint8Array(nregs);
  code.forEach((i, n) => {
    if (i.op === 'alu' && i.dst.k === 'v' && depth[n]! > 0) changed[i.dst.id] = 1;
  });
  for (const i of code) {
    if (i.op !== 'alu' || i.code !== 'mov' || i.dst.k !== 'p' || i.a.k !== 'v' || !changed[i.a.id]) continue;
    const d = lookupDest(i.dst.name);
    if (d && d.file !== 'either') lean[i.a.id] = otherFile(d.file);
  }
  return lean;
}

/** Who is read beside whom, and who is copied to whom. */
function usesOf(code: readonly IrInstr[], nregs: number, coalesce: boolean, pairing: boolean): Uses {
  const partners: Partner[][] = Array.from({ length: nregs }, () => []);
  const nearby: Partner[][] = Array.from({ length: nregs }, () => []);
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
  const neighbours = new Neighbours();
  // Copies between virtual registers (`mov %x, %y`, no rotation, no flags): sharing a register
  // makes the copy a move onto itself, which emit.ts leaves out.
  const copies: Partner[][] = coalesce ? Array.from({ length: nregs }, () => []) : [];
  code.forEach((i, n) => {
    // So are an insert's destination and the word it changes: sharing spares emit.ts a copy.
    const copying = i.op === 'alu' && (i.code === 'mov' || isInsert(i.code)) && !i.setf && i.rot === undefined;
    if (coalesce && copying && i.dst.k === 'v' && i.a.k === 'v' && i.dst.id !== i.a.id) {
      const w = LOOP_WEIGHT ** Math.min(depth[n]!, 4);
      copies[i.dst.id]!.push({ other: i.a, weight: w });
      copies[i.a.id]!.push({ other: i.dst, weight: w });
    }
    if (i.op === 'alu') {
      for (const r of [i.dst, i.a, i.b]) if (r.k === 'v') (note(r.id), (weight[r.id]! += 1));
      const w = LOOP_WEIGHT ** Math.min(depth[n]!, 4);
      if (i.a.k === 'v' && !(i.b.k === 'v' && i.b.id === i.a.id)) partners[i.a.id]!.push({ other: i.b, weight: w });
      if (i.b.k === 'v' && !(i.a.k === 'v' && i.a.id === i.b.id)) partners[i.b.id]!.push({ other: i.a, weight: w });
      if (pairing) neighbours.see(i, w * PAIRING_WEIGHT, nearby);
    } else if (i.op === 'ldi' && i.dst.k === 'v') note(i.dst.id), (weight[i.dst.id]! += 1);
    else if (i.op === 'branch') for (const r of [i.link, i.via]) if (r?.k === 'v') (note(r.id), (weight[r.id]! += 1));
    if (i.op !== 'alu') neighbours.clear();
  });
  // Values a rotation reads are coloured first: emit.ts copies each to r0 beside another
  // rotation, whose amount takes regfile B's port, so they want regfile A before it fills.
  const rotated = pairing ? rotationInputs(code) : new Set<number>();
  const first = order.filter((id) => rotated.has(id));
  const writeLean = pairing ? copiedOut(code, depth, nregs) : new Array<RegFile | undefined>(nregs).fill(undefined);
  return { partners, nearby, copies, weight, order: first.length ? [...first, ...order.filter((id) => !rotated.has(id))] : order, writeLean };
}

const otherFile = (f: RegFile): RegFile => (f === 'a' ? 'b' : 'a');

/** The registers placed so far, and which registers of each file are in use anywhere. */
class Files {
  readonly place: (Placement | undefined)[];
  private readonly used = { a: new Uint8Array(REGS_PER_FILE), b: new Uint8Array(REGS_PER_FILE) };
  /** Registers in use in each file. */
  readonly count = { a: 0, b: 0 };
  constructor(
    nregs: number,
    readonly adj: readonly (readonly number[])[],
    /** The values only regfile A can hold (fileAOnly). */
    readonly onlyA: ReadonlySet<number>,
    /** The values that lean to regfile A when nothing else decides (insertedInto). */
    readonly leanA: ReadonlySet<number>,
    /** The values only an even register can hold (linkRegisters). */
    readonly even: ReadonlySet<number> = new Set(),
  ) {
    this.place = new Array(nregs).fill(undefined);
  }

  /** The files `id` may be placed in, `first` first. */
  filesFor(id: number, first: RegFile): readonly RegFile[] {
    return this.onlyA.has(id) ? ['a'] : [first, otherFile(first)];
  }

  /** A register of `file` no neighbour of `id` holds: one in use elsewhere first (keeps the files compact). */
  freeIn(id: number, file: RegFile): number | undefined {
    // The registers of `file` its neighbours hold, as bits.
    let taken = 0;
    for (const o of this.adj[id]!) {
      const p = this.place[o];
      if (p && p.file === file) taken |= 1 << p.n;
    }
    let fresh: number | undefined;
    const step = this.even.has(id) ? 2 : 1;
    for (let n = 0; n < REGS_PER_FILE; n += step) {
      if (taken & (1 << n)) continue;
      if (this.used[file][n]) return n;
      fresh ??= n;
    }
    return fresh;
  }

  /** A free register for `id` in `first`, else in the other file. */
  freeAt(id: number, first: RegFile): FilePlace | undefined {
    for (const file of this.filesFor(id, first)) {
      const n = this.freeIn(id, file);
      if (n !== undefined) return { file, n };
    }
    return undefined;
  }

  take(id: number, at: FilePlace): void {
    this.place[id] = at;
    if (!this.used[at.file][at.n]) {
      this.used[at.file][at.n] = 1;
      this.count[at.file]++;
    }
  }
}

/** The weights of partners in each file (the accumulators, and the unplaced with no `lean`, weigh nothing). */
function fileWeights(partners: readonly Partner[], place: readonly (Placement | undefined)[], lean?: readonly (RegFile | undefined)[]): { a: number; b: number } {
  const w = { a: 0, b: 0 };
  for (const { other, weight } of partners) {
    const f = other.k === 'v' ? (place[other.id]?.file ?? lean?.[other.id]) : fixedFile(other);
    if (f && f !== 'acc') w[f] += weight;
  }
  return w;
}

/**
 * The file `id` leans to (the one its partners' files conflict with less; the emptier when even),
 * and a free register for it: in that file, or a copy partner's when sharing it saves more copies
 * than that file costs over the other, or in the other file.
 */
function chooseRegister(id: number, files: Files, uses: Uses, coalesce: boolean): { first: RegFile; at?: FilePlace } {
  // Conflicts in one instruction cost a copy and decide; those with neighbours, which the
  // scheduler may or may not pair, only break a tie.
  const conflicts = fileWeights(uses.partners[id]!, files.place, uses.writeLean);
  const nearby = fileWeights(uses.nearby[id]!, files.place);
  const lean = conflicts.a !== conflicts.b ? conflicts : nearby;
  const onlyA = files.onlyA.has(id);
  const even = lean.a === lean.b;
  const own = uses.writeLean[id] ?? (files.leanA.has(id) ? 'a' : undefined);
  const first: RegFile = onlyA ? 'a' : !even ? (lean.a < lean.b ? 'a' : 'b') : (own ?? (files.count.a <= files.count.b ? 'a' : 'b'));
  let file = first;
  let n = files.freeIn(id, first);
  const shared = coalesce ? copyTarget(id, uses.copies[id]!, files.place, files.adj) : undefined;
  if (shared && (!onlyA || shared.file === 'a') && shared.gain > conflicts[shared.file] - conflicts[first]) [file, n] = [shared.file, shared.n];
  if (n === undefined && !onlyA) {
    file = otherFile(first);
    n = files.freeIn(id, file);
  }
  return { first, at: n === undefined ? undefined : { file, n } };
}

/**
 * For an unspillable register with no register free: spills the cheapest-to-reload spillable
 * neighbours (added to `spill`) until one is, and returns it; undefined when none is left to spill.
 */
function makeRoom(
  id: number,
  first: RegFile,
  files: Files,
  weight: Float64Array,
  unspillable: ReadonlySet<number>,
  spill: number[],
): FilePlace | undefined {
  for (;;) {
    let best: number | undefined;
    const room = files.filesFor(id, first);
    for (const o of files.adj[id]!) {
      const p = files.place[o];
      if (!p || p.file === 'acc' || !room.includes(p.file) || unspillable.has(o)) continue;
      if (best === undefined || weight[o]! < weight[best]!) best = o;
    }
    if (best === undefined) return undefined;
    spill.push(best);
    files.place[best] = undefined;
    const at = files.freeAt(id, first);
    if (at) return at;
  }
}

/** The register of a placed copy partner that `id` could share, with the copies it saves. */
function copyTarget(
  id: number,
  copies: readonly Partner[],
  place: readonly (Placement | undefined)[],
  adj: readonly (readonly number[])[],
): { file: RegFile; n: number; gain: number } | undefined {
  let best: { file: RegFile; n: number; gain: number } | undefined;
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
function fileOf(s: Src, place: readonly (Placement | undefined)[]): RegFile | undefined {
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
  onlyA: ReadonlySet<number>,
): void {
  // A value sharing its register with a copy partner stays: moving it would bring the copy back.
  const sharing = (id: number, pl: Placement) =>
    copies[id]?.some((c) => c.other.k === 'v' && place[c.other.id]?.file === pl.file && place[c.other.id]!.n === pl.n);
  for (let round = 0; round < 3; round++) {
    let moved = false;
    for (let id = 0; id < place.length; id++) {
      const pl = place[id];
      if (!pl || pl.file === 'acc' || onlyA.has(id) || !partners[id]!.length || sharing(id, pl)) continue;
      const other = otherFile(pl.file);
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


