// The instructions whose low word is an immediate (Figures 5-7, p. 33): load immediates,
// semaphores and branches, built from parsed statements. The first two program the same write
// fields as an ALU instruction; a branch writes its links. Needs: parsed operands (parse.ts).
// Guarantees: the instruction the text says, or a BuildError naming the column.

import type { BranchInstr, Instr, LoadImmInstr, SemaInstr, WriteFields } from '../instr.ts';
import { decodeHiLo, encodeHiLo, formatWord } from '../codec.ts';
import { ignoredMask } from '../canonical.ts';
import { semaInstr } from '../instr.ts';
import { SEMAPHORES } from '../chip.ts';
import { BRANCH_SETS_FLAGS, INSTRUCTION_BYTES } from '../fields.ts';
import { branchOffset } from '../flow.ts';
import { readInfo, W_NOP } from '../registers.ts';
import {
  BRANCH_ALWAYS,
  BRANCH_CONDITION_ALIASES,
  BRANCH_CONDITIONS,
  COND_ALWAYS,
  COND_NEVER,
  LANES,
  LDI_MODE_SIGNED,
  LDI_MODE_UNSIGNED,
  NO_PACK,
  perElementImmediate,
} from '../tables.ts';
import { isRegisterName, lookupSource, suggest } from './names.ts';
import { BuildError, conditionCode, type Dest, destReq, fits, noDestCond, resolveDest } from './operands.ts';
import type { IgnoredBits, Operand, Suffix } from './parse.ts';
import { shown } from './text.ts';

// ---------------------------------------------------------------- load immediate

export function buildLdi(suffixes: Suffix[], operands: Operand[], col: number): LoadImmInstr {
  let mode: number | undefined;
  const w = writeSuffixes(suffixes, 'ldi', '.i2 and .u2', (s) => {
    if (s.text === 'i2') mode = LDI_MODE_SIGNED;
    else if (s.text === 'u2') mode = LDI_MODE_UNSIGNED;
    else return false;
    return true;
  });
  if (operands.length < 2 || operands.length > 3)
    throw new BuildError('ldi takes one or two destinations and a value: ldi dst, value', col);
  const value = operands[operands.length - 1]!;
  let imm: number;
  if (value.kind === 'number') {
    if (mode !== undefined) throw new BuildError('.i2/.u2 load one 2-bit value per element: write them as [v0, ..., v15]', value.col);
    if (value.rot) throw new BuildError('ldi cannot rotate', value.rot.col);
    imm = value.value.bits;
    mode = 0;
  } else if (value.kind === 'vector') {
    if (value.values.length !== LANES)
      throw new BuildError(`a per-element value lists ${LANES} elements, not ${value.values.length}`, value.col);
    const ints = value.values.map((v) => (v.isFloat ? NaN : v.value));
    const inRange = (lo: number, hi: number) => ints.every((v) => Number.isInteger(v) && v >= lo && v <= hi);
    if (mode === undefined) mode = inRange(0, 3) ? LDI_MODE_UNSIGNED : LDI_MODE_SIGNED;
    if (mode === LDI_MODE_UNSIGNED && !inRange(0, 3))
      throw new BuildError('unsigned per-element values are 0 to 3', value.col);
    if (mode === LDI_MODE_SIGNED && !inRange(-2, 1))
      throw new BuildError('per-element values are 0 to 3 (unsigned) or -2 to 1 (signed)', value.col);
    imm = perElementImmediate(ints);
  } else throw new BuildError(`ldi loads a number or a [per-element] list, not a register`, value.col);

  const dests = operands.slice(0, -1).map(resolveDest);
  // Both ALUs write under the instruction's condition (always by default); with one
  // destination, a condition written on it is the instruction's.
  const cond = (dests.length === 1 ? dests[0]!.cond?.code : undefined) ?? w.cond ?? COND_ALWAYS;
  return { kind: 'ldi', mode, ...writeFields(dests, w, (d) => d?.cond?.code ?? cond), imm };
}

/** The suffixes of ldi and sema that program their write fields (Figures 5 and 6, p. 33). */
interface WriteSuffixes {
  /** A condition for both ALUs. */
  cond?: number;
  setf: boolean;
  forceWs?: Suffix;
  /** `.pm`: the pm bit, also with no colour pack for it to select. */
  pmFlag?: Suffix;
}

/** Reads the write suffixes; `other` takes the instruction's own (true when it knew one). */
function writeSuffixes(suffixes: Suffix[], what: string, others: string, other: (s: Suffix) => boolean = () => false): WriteSuffixes {
  const w: WriteSuffixes = { setf: false };
  for (const s of suffixes) {
    const c = conditionCode(s.text);
    if (c !== undefined) w.cond = c;
    else if (s.text === 'setf') w.setf = true;
    else if (s.text === 'ws') w.forceWs = s;
    else if (s.text === 'pm') w.pmFlag = s;
    else if (!other(s))
      throw new BuildError(`unknown suffix .${shown(s.text)} on ${what}: conditions, .setf, .ws, .pm${others ? ' and ' + others : ''} fit here`, s.col);
  }
  return w;
}

/** The write fields of ldi and sema: the destinations placed on the two ALUs, each written under `condOf` it. */
function writeFields(dests: Dest[], w: WriteSuffixes, condOf: (d: Dest | undefined) => number): WriteFields {
  const [add, mul, ws] = dests.length ? placeTwoDests(dests, w.forceWs) : [undefined, undefined, w.forceWs ? 1 : 0];
  if (add?.pack && mul?.pack) throw new BuildError('only one pack mode fits in an instruction', mul.pack.col);
  const pack = add?.pack ?? mul?.pack;
  if (pack?.pm === 1 && !mul?.pack) throw new BuildError(`the colour pack .${pack.text} needs the mul ALU's destination`, pack.col);
  if (w.pmFlag && pack?.pm === 0)
    throw new BuildError('.pm selects the mul colour pack, but this instruction packs into regfile A', w.pmFlag.col);
  return {
    pm: w.pmFlag ? 1 : (pack?.pm ?? 0),
    pack: pack?.mode ?? NO_PACK,
    condAdd: condOf(add),
    condMul: condOf(mul),
    sf: w.setf ? 1 : 0,
    ws,
    waddrAdd: add?.reg.addr ?? W_NOP,
    waddrMul: mul?.reg.addr ?? W_NOP,
  };
}

/** Places one or two destinations written by the add and mul ALUs (ldi, branch links). */
function placeTwoDests(
  dests: Dest[],
  forceWs: Suffix | undefined,
): [Dest | undefined, Dest | undefined, number] {
  const tries: [Dest | undefined, Dest | undefined][] =
    dests.length === 1
      ? [
          [dests[0], undefined],
          [undefined, dests[0]],
        ]
      : [
          [dests[0], dests[1]],
          [dests[1], dests[0]],
        ];
  for (const ws of forceWs ? [1] : [0, 1])
    for (const [add, mul] of tries) {
      const ok = fits(destReq(add), ws ? 'b' : 'a') && fits(destReq(mul), ws ? 'a' : 'b');
      if (ok) return [add, mul, ws];
    }
  throw new BuildError(
    dests.length === 1
      ? 'this destination does not fit'
      : 'these two destinations are in the same register file; the two ALU outputs go to one register of each file',
    dests[dests.length - 1]!.col,
  );
}

// ---------------------------------------------------------------- branches

/** Where an instruction is built: what a branch's target needs (build.ts's buildStatement takes it too). */
export interface BuildContext {
  /** Instruction index of each label. */
  readonly labels: ReadonlyMap<string, number>;
  /** Index of the instruction being built. */
  readonly pc: number;
}

export function buildBranch(relative: boolean, suffixes: Suffix[], ops: Operand[], col: number, ctx: BuildContext): BranchInstr {
  let cond = BRANCH_ALWAYS;
  let setf = false;
  let forceWs: Suffix | undefined;
  for (const s of suffixes) {
    const i = (BRANCH_CONDITIONS as readonly (string | undefined)[]).indexOf(s.text);
    const c = i >= 0 ? i : BRANCH_CONDITION_ALIASES.get(s.text);
    if (c !== undefined) cond = c;
    else if (s.text === 'setf') setf = true;
    else if (s.text === 'ws') forceWs = s;
    else
      throw new BuildError(
        `unknown branch condition .${shown(s.text)}: they are ${BRANCH_CONDITIONS.filter(Boolean).map((x) => '.' + x).join(' ')}`,
        s.col,
      );
  }
  const isTarget = (o: Operand) => o.kind === 'number' || (o.kind === 'name' && !isRegisterName(o.name));
  let t = ops.findIndex(isTarget);
  let regOp: Operand | undefined;
  let imm = 0;
  if (t < 0) {
    if (ops.length < 2) throw new BuildError('expected a branch target: a label, a number, ZERO, or a regfile-A register', col);
    regOp = ops[ops.length - 1];
    t = ops.length - 1;
  } else {
    const target = ops[t]!;
    if (ops.length > t + 2) throw new BuildError('too many operands after the branch target', ops[t + 2]!.col);
    regOp = ops[t + 1];
    if (target.kind === 'number') {
      if (target.value.isFloat)
        throw new BuildError(
          `${relative ? "brr's target is a byte offset from PC + 4 instructions" : "bra's target is a byte address"}: ` +
            `a whole number of bytes (${INSTRUCTION_BYTES} per instruction), not ${shown(target.text)}`,
          target.col,
        );
      imm = target.value.bits | 0;
    } else if (target.kind === 'name' && target.name === 'ZERO') {
      imm = 0;
    } else if (target.kind === 'name') {
      const idx = ctx.labels.get(target.name);
      if (idx === undefined) {
        const s = suggest(target.name, ctx.labels.keys());
        throw new BuildError(`unknown label '${shown(target.name)}'${s ? ` (did you mean ${s}?)` : ''}`, target.col);
      }
      if (!relative)
        throw new BuildError(
          `bra is an absolute branch, but a label's address is only known once the program is loaded; use brr ${shown(target.name)}`,
          target.col,
        );
      imm = branchOffset(ctx.pc, idx);
    }
  }
  let raddrA = 0;
  let reg = 0;
  if (regOp) {
    const r = regOp.kind === 'name' ? lookupSource(regOp.name) : undefined;
    if (!r || r.kind !== 'reg' || r.file !== 'a' || readInfo('a', r.addr).unit !== 'regfile')
      throw new BuildError('a branch adds a regfile-A register ra0-ra31 to its target, nothing else', regOp.col);
    raddrA = r.addr;
    reg = 1;
  }
  if (setf) {
    if (reg && (raddrA & BRANCH_SETS_FLAGS) === 0)
      throw new BuildError(
        `.setf on a branch is bit 0 of raddr_a (vc4asm's addendum); with ${(regOp as { name: string }).name} it would be 0`,
        col,
      );
    raddrA |= BRANCH_SETS_FLAGS;
  }
  const links = ops.slice(0, t).map(resolveDest);
  if (links.length > 2) throw new BuildError('a branch writes its link address to two registers at most', links[2]!.col);
  const [add, mul, ws] = links.length ? placeTwoDests(links, forceWs) : [undefined, undefined, forceWs ? 1 : 0];
  for (const l of links) {
    if (l.pack) throw new BuildError('a branch link cannot be packed', l.pack.col);
    noDestCond(l, 'a taken branch writes its links on every lane');
  }
  return {
    kind: 'branch',
    unused: 0,
    cond,
    rel: relative ? 1 : 0,
    reg,
    raddrA,
    ws,
    waddrAdd: add?.reg.addr ?? W_NOP,
    waddrMul: mul?.reg.addr ?? W_NOP,
    imm,
  };
}

// ---------------------------------------------------------------- semaphores

export function buildSema(mnemonic: string, suffixes: Suffix[], ops: Operand[], col: number): SemaInstr {
  // The instruction also works as a load immediate of its low 32 bits (Figure 6, p. 33), so it
  // takes ldi's write suffixes and up to two destinations after the semaphore number.
  const w = writeSuffixes(suffixes, mnemonic, '');
  let down: boolean;
  let rest: Operand[];
  if (mnemonic === 'sema') {
    const dir = ops[0];
    const word = dir?.kind === 'name' ? dir.name.toLowerCase() : '';
    if (word === 'up' || word === 'release') down = false;
    else if (word === 'down' || word === 'acquire') down = true;
    else throw new BuildError('sema takes up or down, then the semaphore number: sema down, 3', dir?.col ?? col);
    if (ops.length < 2) throw new BuildError('sema takes two operands: sema up|down, n', col);
    rest = ops.slice(1);
  } else {
    down = mnemonic === 'sacq';
    if (ops.length < 1) throw new BuildError(`${mnemonic} takes one operand, the semaphore number`, col);
    rest = ops;
  }
  const numOp = rest[0];
  if (numOp?.kind !== 'number' || numOp.value.isFloat || numOp.value.value < 0 || numOp.value.value >= SEMAPHORES)
    throw new BuildError(`there are ${SEMAPHORES} semaphores, numbered 0 to ${SEMAPHORES - 1}`, numOp?.col ?? col);
  const dests = rest.slice(1).map(resolveDest);
  if (dests.length > 2) throw new BuildError(`${mnemonic} writes two destinations at most, one per ALU`, dests[2]!.col);
  const base = semaInstr(down, numOp.value.value);
  if (dests.length === 0 && w.cond !== undefined && w.cond !== COND_NEVER)
    throw new BuildError(`a condition on ${mnemonic} applies to its writes: name the destinations after the number`, col);
  // A named destination is written (condition always unless it says otherwise); one not named
  // writes nowhere, under the instruction's condition (never unless a suffix says otherwise).
  const cond = w.cond ?? COND_NEVER;
  const written = cond === COND_NEVER ? COND_ALWAYS : cond;
  return { ...base, ...writeFields(dests, w, (d) => (d ? (d.cond?.code ?? written) : cond)) };
}

/** Sets the bits `; ignored 0x...` gives, which must be bits the hardware ignores in this instruction. */
export function withIgnored(ins: Instr, ignored: IgnoredBits | undefined): Instr {
  if (!ignored) return ins;
  const [mh, ml] = ignoredMask(ins);
  if ((ignored.hi & ~mh) !== 0 || (ignored.lo & ~ml) !== 0)
    throw new BuildError(
      mh || ml
        ? `these bits are not ignored in this instruction: its ignored bits are ${formatWord(mh, ml)}`
        : `a ${ins.kind === 'ldi' ? 'load immediate' : 'instruction of this kind'} has no ignored bits`,
      ignored.col,
    );
  const [hi, lo] = encodeHiLo(ins);
  return decodeHiLo((hi | ignored.hi) >>> 0, (lo | ignored.lo) >>> 0);
}
