// Two ALU instructions as one: an operation on the add ALU and one on the mul ALU share an
// instruction word when their read ports, write files and signals fit (Guide pp. 26-29). The
// scheduler (schedule.ts) pairs instructions that do not depend on each other.
// Needs: two ALU instructions that do no I/O and neither depends on the other. Guarantees: one
// instruction that computes what both did, or undefined when they cannot share one.

import { SIG_SMALL_IMM } from '../vc4/fields.ts';
import type { AluInstr, Instr } from '../vc4/instr.ts';
import { ADD_OP_BY_NAME, COND_NEVER, MUL_OP_BY_NAME, MUX_A, MUX_B, SIG_NONE } from '../vc4/tables.ts';
import { W_ACC0, W_NOP } from '../vc4/registers.ts';
import { hasRotation } from '../vc4/canonical.ts';

const OR = ADD_OP_BY_NAME.get('or')!.code;
const V8MIN = MUL_OP_BY_NAME.get('v8min')!.code;
const NO_WRITE = W_NOP;

/** One ALU's half of an instruction, in a form either ALU can take. */
interface Half {
  op: number;
  a: number;
  b: number;
  cond: number;
  waddr: number;
  /** The regfile this half's destination must be in, or undefined for either (accumulators, nothing). */
  file: 'a' | 'b' | undefined;
}

/** A plain ALU instruction: one ALU working, no pack, unpack or signal but a small immediate. */
function plain(i: Instr): i is AluInstr {
  return i.kind === 'alu' && i.pack === 0 && i.unpack === 0 && i.pm === 0 && (i.sig === SIG_NONE || i.sig === SIG_SMALL_IMM);
}

/** The file a write address needs: regfile A/B for 0-31, none for r0-r3 and nothing; r5 and I/O never pair. */
function destFile(addr: number, ws: number, isMul: boolean): 'a' | 'b' | undefined | null {
  if (addr === NO_WRITE || (addr >= W_ACC0 && addr <= W_ACC0 + 3)) return undefined;
  if (addr >= W_ACC0) return null;
  return (ws === 1) !== isMul ? 'b' : 'a';
}

function addHalf(i: AluInstr): Half | null {
  if (i.opMul !== 0 || i.waddrMul !== NO_WRITE) return null;
  const file = destFile(i.waddrAdd, i.ws, false);
  return file === null ? null : { op: i.opAdd, a: i.addA, b: i.addB, cond: i.condAdd, waddr: i.waddrAdd, file };
}

function mulHalf(i: AluInstr): Half | null {
  if (i.opAdd !== 0 || i.waddrAdd !== NO_WRITE) return null;
  const file = destFile(i.waddrMul, i.ws, true);
  return file === null ? null : { op: i.opMul, a: i.mulA, b: i.mulB, cond: i.condMul, waddr: i.waddrMul, file };
}

/** Reads of regfile A, regfile B (or a small immediate) by an instruction's working half. */
function ports(i: AluInstr, h: Half): { a?: number; b?: number } {
  const muxes = [h.a, h.b];
  return {
    a: muxes.includes(MUX_A) ? i.raddrA : undefined,
    b: muxes.includes(MUX_B) || hasRotation(i) ? i.raddrB : undefined,
  };
}

/** `x` on the add ALU and `y` on the mul ALU (moving a move from one to the other), or undefined. */
export function pairInstrs(x: Instr, y: Instr): AluInstr | undefined {
  if (!plain(x) || !plain(y)) return undefined;
  for (const [p, q] of [
    [x, y],
    [y, x],
  ] as const) {
    const add = addHalf(p);
    // The mul half: q's mul operation, or q's move on the add ALU moved over (v8min x, x copies
    // x exactly); a half that sets flags stays alone (the add ALU's result would set them).
    let mul = mulHalf(q);
    if (!mul && q.sf === 0) {
      const h = addHalf(q);
      if (h && h.op === OR && h.a === h.b) mul = { ...h, op: V8MIN };
    }
    if (!add || !mul || add.op === 0 || mul.op === 0 || (q.sf === 1 && mulHalf(q))) continue;
    // Flags come from the add ALU's result unless it writes never (Guide p. 28).
    if (p.sf === 1 && add.cond === COND_NEVER) continue;
    if (hasRotation(p)) continue; // it would rotate q's result
    const merged = merge(p, add, q, mul);
    if (merged) return merged;
  }
  return undefined;
}

function merge(p: AluInstr, add: Half, q: AluInstr, mul: Half): AluInstr | undefined {
  const pp = ports(p, add);
  const qp = ports(q, mul);
  if (pp.a !== undefined && qp.a !== undefined && pp.a !== qp.a) return undefined;
  if (pp.b !== undefined && qp.b !== undefined && (pp.b !== qp.b || p.sig !== q.sig)) return undefined;
  // Write swap: the add ALU writes file A (ws 0) or B (ws 1), the mul ALU the other.
  const ws = [0, 1].find((w) => (add.file === undefined || add.file === (w ? 'b' : 'a')) && (mul.file === undefined || mul.file === (w ? 'a' : 'b')));
  if (ws === undefined) return undefined;
  const usesB = pp.b !== undefined ? p : qp.b !== undefined ? q : undefined;
  return {
    kind: 'alu',
    sig: usesB?.sig ?? SIG_NONE,
    unpack: 0,
    pm: 0,
    pack: 0,
    condAdd: add.cond,
    condMul: mul.cond,
    sf: p.sf,
    ws,
    waddrAdd: add.waddr,
    waddrMul: mul.waddr,
    opMul: mul.op,
    opAdd: add.op,
    raddrA: pp.a ?? qp.a ?? NO_WRITE,
    raddrB: pp.b ?? qp.b ?? NO_WRITE,
    addA: add.a,
    addB: add.b,
    mulA: mul.a,
    mulB: mul.b,
  };
}
