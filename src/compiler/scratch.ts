// Pass `scratch` (from -O1, after allocation): values in r0 where emit.ts needs no scratch.
// Accumulator r0 is emit.ts's scratch: an operand copied out of a file whose read port is taken,
// a rotation's input held outside r0-r3, a byte unpacked outside regfile A. Once every value has
// its place, which instructions need that copy is known; a value that lives only where none does
// can live in r0 instead of a regfile, where it takes no read port and has no write-to-read
// latency (Guide p. 17). What that buys is a port: a loop's bound in r0 frees regfile B's port
// for the `read vw_wait` beside the test against it (rot3D's loops).
// Needs: the IR, its liveness and interference, and a placement (regalloc.ts) in which every
// value has a place. Guarantees: a value moved to r0 is live at no instruction before which
// emit.ts writes r0, and interferes with no other value moved there; nothing moves when the IR
// names r0 itself (no lowering does); only regfile values move, and never one that only regfile
// A can hold, one a byte is unpacked from, or one an insert changes.

import { def, type IrInstr, isUnpack, p, type Src, uses } from './ir.ts';
import { type Liveness, walkLive } from './liveness.ts';
import { copiesFirst, unpacksThroughScratch } from './emit.ts';
import { fileAOnly, insertedInto, LOOP_WEIGHT, loopDepths, type Placement, placeName } from './regalloc.ts';

const SCRATCH = 'r0';

/** Moves values from the regfiles into r0 (in `place`), the most read inside loops first; returns how many moved. */
export function lendScratch(code: readonly IrInstr[], live: Liveness, adj: readonly (readonly number[])[], place: (Placement | undefined)[]): number {
  if (namesScratch(code)) return 0;
  const busy = scratchBusy(code, live, place);
  const depth = loopDepths(code);
  // A loop's test goes between the last write of what it tests and the branch, three delay
  // slots before the loop's end, where the code is the most crowded: its operands come first.
  const reads = new Float64Array(live.nregs);
  code.forEach((i, n) => {
    const w = LOOP_WEIGHT ** Math.min(depth[n]!, 4);
    const test = i.op === 'alu' && i.setf && depth[n]! > 0 ? LOOP_WEIGHT ** 4 : 1;
    for (const u of uses(i)) reads[u.id]! += w * test;
  });
  const kept = new Set([...fileAOnly(code), ...insertedInto(code)]);
  for (const i of code) if (i.op === 'alu' && isUnpack(i.code) && i.a.k === 'v') kept.add(i.a.id);
  const order = [...reads.keys()].filter((id) => {
    const pl = place[id];
    return pl && pl.file !== 'acc' && !busy[id] && !kept.has(id) && reads[id]! > 0;
  });
  order.sort((x, y) => reads[y]! - reads[x]! || x - y);
  const inR0 = new Uint8Array(live.nregs);
  let moved = 0;
  for (const id of order) {
    if (adj[id]!.some((o) => inR0[o])) continue;
    inR0[id] = 1;
    place[id] = { file: 'acc', n: 0 };
    moved++;
  }
  return moved;
}

/** The values live where emit.ts writes r0 (a copy just before the instruction). */
function scratchBusy(code: readonly IrInstr[], live: Liveness, place: readonly (Placement | undefined)[]): Uint8Array {
  const inside = writesOfScratch(code, place);
  const busy = new Uint8Array(live.nregs);
  walkLive(live, (k, set) => {
    if (!inside[k]) return;
    // Live after k, written at k, or read at k (emit.ts's copy goes just before k).
    for (let j = 0; j < set.size; j++) busy[set.dense[j]!] = 1;
    const d = def(code[k]!);
    if (d) busy[d.id] = 1;
    for (const u of uses(code[k]!)) busy[u.id] = 1;
  });
  return busy;
}

/** The instructions at which emit.ts copies something to r0. */
function writesOfScratch(code: readonly IrInstr[], place: readonly (Placement | undefined)[]): Uint8Array {
  const inside = new Uint8Array(code.length);
  const phys = (s: Src): Src => (s.k === 'v' && place[s.id] ? p(placeName(place[s.id]!)) : s);
  for (let k = 0; k < code.length; k++) {
    const i = code[k]!;
    if (i.op === 'alu' && needsScratch(i, phys)) inside[k] = 1;
  }
  return inside;
}

/** Whether the IR itself names r0 (no lowering does): then r0 is left alone. */
function namesScratch(code: readonly IrInstr[]): boolean {
  const r0 = (s: Src) => s.k === 'p' && s.name === SCRATCH;
  return code.some((i) => (i.op === 'alu' && (r0(i.dst) || r0(i.a) || r0(i.b))) || (i.op === 'ldi' && r0(i.dst)));
}

/** Whether emit.ts writes r0 for this operation under the placement. */
function needsScratch(i: Extract<IrInstr, { op: 'alu' }>, phys: (s: Src) => Src): boolean {
  const a = phys(i.a);
  return isUnpack(i.code) ? unpacksThroughScratch(a) : copiesFirst(i, a, phys(i.b));
}
