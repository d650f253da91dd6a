// Two ALU instructions as one: an operation on the add ALU and one on the mul ALU share an
// instruction word when their read ports, write files and signals fit (Guide pp. 26-29). The
// scheduler (schedule.ts) pairs instructions that do not depend on each other.
// A word that only reads a register (`read vw_wait`) or signals (`ldtmu0`) lends that read to the
// other's free port and its signal to the other.
// Needs: two ALU instructions, neither depending on the other, not reaching one I/O unit (the
// scheduler keeps each unit's I/O in order, and checks that a word makes one peripheral
// access). Guarantees: one instruction that computes (and reads, writes, signals) what both
// did, or undefined when they cannot share one.

import type { AluInstr, Instr } from '../vc4/instr.ts';
import { ADD_MOV, ADD_NOP, COND_NEVER, MUL_MOV, MUL_NOP, MUX_A, MUX_B, NO_PACK, NO_UNPACK, SIG_NONE, SIG_SMALL_IMM, SIGNAL_INFO } from '../vc4/tables.ts';
import { R_NOP, R_UNIF, W_NOP, writeInfo } from '../vc4/registers.ts';
import { hasRotation } from '../vc4/canonical.ts';

/** One ALU's half of an instruction, in a form either ALU can take. */
interface Half {
  op: number;
  /** The opcode is not nop. */
  active: boolean;
  a: number;
  b: number;
  cond: number;
  waddr: number;
  /** The regfile this half's destination must be in, or undefined for either (accumulators, nothing). */
  file: 'a' | 'b' | undefined;
}

/** A TMU load signal (ldtmu0, ldtmu1). */
const isTmuLoad = (sig: number) => SIGNAL_INFO[sig]!.tmuLoad !== undefined;

/** Signals a paired word can carry: a small immediate, or a TMU load. */
const PAIRABLE_SIGNALS: ReadonlySet<number> = new Set([SIG_NONE, SIG_SMALL_IMM, ...SIGNAL_INFO.filter((s) => isTmuLoad(s.code)).map((s) => s.code)]);

/** A plain ALU instruction: no pack or unpack, no signal but a small immediate or a TMU load. */
function plain(i: Instr): i is AluInstr {
  return i.kind === 'alu' && i.pack === NO_PACK && i.unpack === NO_UNPACK && i.pm === 0 && PAIRABLE_SIGNALS.has(i.sig);
}

/**
 * The file whose write addresses a destination is in: regfile A or B (registers and I/O, whose
 * meaning can differ between the files), none for r0-r3 and nothing.
 */
function destFile(addr: number, ws: number, isMul: boolean): 'a' | 'b' | undefined {
  const unit = writeInfo('a', addr).unit;
  if (unit === 'nop' || unit === 'acc') return undefined;
  return (ws === 1) !== isMul ? 'b' : 'a';
}

/** A word with no operation and no write: it only reads a register (`read vw_wait`) or signals (`ldtmu0`). */
function onlyReads(i: AluInstr): boolean {
  return i.opAdd === ADD_NOP && i.opMul === MUL_NOP && i.waddrAdd === W_NOP && i.waddrMul === W_NOP && i.sf === 0 && i.sig !== SIG_SMALL_IMM;
}

/** `w` with `r`'s register read added on the port it uses and its signal, when both are free. */
function lendRead(r: AluInstr, w: AluInstr): AluInstr | undefined {
  if (r.sig !== SIG_NONE) {
    if (w.sig !== SIG_NONE) return undefined;
    w = { ...w, sig: r.sig };
  }
  const halves = [addHalf(w), mulHalf(w)].filter((h): h is Half => !!h && h.active);
  const used = halves.map((h) => ports(w, h));
  const busyA = used.some((u) => u.a !== undefined);
  const busyB = used.some((u) => u.b !== undefined) || w.sig === SIG_SMALL_IMM;
  if (r.raddrA !== R_NOP && (busyA || r.raddrB !== R_NOP)) return undefined;
  if (r.raddrB !== R_NOP && busyB) return undefined;
  if (r.raddrA !== R_NOP) return { ...w, raddrA: r.raddrA };
  return r.raddrB !== R_NOP ? { ...w, raddrB: r.raddrB } : w;
}

function addHalf(i: AluInstr): Half | null {
  if (i.opMul !== MUL_NOP || i.waddrMul !== W_NOP) return null;
  const file = destFile(i.waddrAdd, i.ws, false);
  return file === null ? null : { op: i.opAdd, active: i.opAdd !== ADD_NOP, a: i.addA, b: i.addB, cond: i.condAdd, waddr: i.waddrAdd, file };
}

function mulHalf(i: AluInstr): Half | null {
  if (i.opAdd !== ADD_NOP || i.waddrAdd !== W_NOP) return null;
  const file = destFile(i.waddrMul, i.ws, true);
  return file === null ? null : { op: i.opMul, active: i.opMul !== MUL_NOP, a: i.mulA, b: i.mulB, cond: i.condMul, waddr: i.waddrMul, file };
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
  if (onlyReads(x) !== onlyReads(y)) return onlyReads(x) ? lendRead(x, y) : lendRead(y, x);
  // One signal at most: a TMU load's word cannot also take a small immediate.
  if (x.sig !== SIG_NONE && y.sig !== SIG_NONE && x.sig !== y.sig) return undefined;
  if (x.sig !== SIG_NONE && x.sig === y.sig && x.sig !== SIG_SMALL_IMM) return undefined;
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
      if (h && h.op === ADD_MOV.code && h.a === h.b) mul = { ...h, op: MUL_MOV.code };
    }
    if (!add || !mul || !add.active || !mul.active || (q.sf === 1 && mulHalf(q))) continue;
    // Flags come from the add ALU's result unless it writes never (Guide p. 28).
    if (p.sf === 1 && add.cond === COND_NEVER) continue;
    if (hasRotation(p)) continue; // it would rotate q's result
    const merged = merge(p, add, q, mul);
    if (merged) return merged;
  }
  return undefined;
}

/**
 * `p`'s add half and `q`'s mul half in one word, each as it is or with its uniform read through
 * the other file's port: a uniform is read address 32 of either file (Guide p. 37, Table 14),
 * so `fmul r3, r1, unif` can share a word with `fadd ra5, ra5, r3` by reading it through B.
 */
function merge(p: AluInstr, add: Half, q: AluInstr, mul: Half): AluInstr | undefined {
  for (const [pi, ph] of withUniformMoved(p, add)) for (const [qi, qh] of withUniformMoved(q, mul)) {
    const m = mergeAs(pi, ph, qi, qh);
    if (m) return m;
  }
  return undefined;
}

/** A one-half instruction as it is, then (when it reads a uniform through one port and the other is free) reading it through the other. */
function* withUniformMoved(i: AluInstr, h: Half): Generator<[AluInstr, Half]> {
  yield [i, h];
  if (i.sig === SIG_SMALL_IMM || hasRotation(i)) return;
  const flip = (m: number, from: number, to: number) => (m === from ? to : m);
  if (i.raddrA === R_UNIF && i.raddrB === R_NOP) yield [{ ...i, raddrA: R_NOP, raddrB: R_UNIF }, { ...h, a: flip(h.a, MUX_A, MUX_B), b: flip(h.b, MUX_A, MUX_B) }];
  else if (i.raddrB === R_UNIF && i.raddrA === R_NOP) yield [{ ...i, raddrA: R_UNIF, raddrB: R_NOP }, { ...h, a: flip(h.a, MUX_B, MUX_A), b: flip(h.b, MUX_B, MUX_A) }];
}

function mergeAs(p: AluInstr, add: Half, q: AluInstr, mul: Half): AluInstr | undefined {
  const pp = ports(p, add);
  const qp = ports(q, mul);
  if (pp.a !== undefined && qp.a !== undefined && pp.a !== qp.a) return undefined;
  if (pp.b !== undefined && qp.b !== undefined && (pp.b !== qp.b || p.sig !== q.sig)) return undefined;
  // Write swap: the add ALU writes file A (ws 0) or B (ws 1), the mul ALU the other.
  const ws = [0, 1].find((w) => (add.file === undefined || add.file === (w ? 'b' : 'a')) && (mul.file === undefined || mul.file === (w ? 'a' : 'b')));
  if (ws === undefined) return undefined;
  const usesB = pp.b !== undefined ? p : qp.b !== undefined ? q : undefined;
  const load = isTmuLoad(p.sig) ? p.sig : isTmuLoad(q.sig) ? q.sig : undefined;
  if (load !== undefined && usesB?.sig === SIG_SMALL_IMM) return undefined;
  return {
    kind: 'alu',
    sig: load ?? usesB?.sig ?? SIG_NONE,
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
    raddrA: pp.a ?? qp.a ?? R_NOP,
    raddrB: pp.b ?? qp.b ?? R_NOP,
    addA: add.a,
    addB: add.b,
    mulA: mul.a,
    mulB: mul.b,
  };
}
