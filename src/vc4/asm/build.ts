// Gives a parsed statement its meaning: resolves registers, immediates, suffixes and ALU
// slots, and fills in every field of one instruction. Needs: a statement from parse.ts and the
// labels of the program. Guarantees: an instruction whose fields say exactly what the line
// says, or a BuildError naming the column and what would be right. Hardware hazards between
// instructions are not errors here; the validator (validate.ts) reports them.

import type { AluInstr, Instr } from '../instr.ts';
import { decodeHiLo } from '../codec.ts';
import { nopInstr } from '../instr.ts';
import { R_NOP, W_NOP } from '../registers.ts';
import {
  ADD_MOV,
  ADD_OP_BY_NAME,
  COND_ALWAYS,
  COND_NEVER,
  CONDITIONS,
  MUL_MOV,
  MUL_OP_BY_NAME,
  MUX_A,
  MUX_R0,
  MUX_R4,
  type OpInfo,
  SIG_NONE,
  SIG_SMALL_IMM,
  SIGNAL_ALIASES,
  SIGNAL_INFO,
  SIGNALS,
  smallImmForRotation,
  smallImmValue,
} from '../tables.ts';
import type { Operand, OpPart, Part, Statement, Suffix } from './parse.ts';
import { buildBranch, buildLdi, buildSema, withIgnored } from './build-imm.ts';
import { shown } from './text.ts';
import { suggest } from './names.ts';
import { BuildError, chooseWs, conditionCode, noDestCond, type Dest, placeEither, ReadPorts, resolveDest, resolveSource, type Source } from './operands.ts';

export { BuildError } from './operands.ts';

export interface BuildContext {
  /** Instruction index of each label. */
  readonly labels: ReadonlyMap<string, number>;
  /** Index of the instruction being built. */
  readonly pc: number;
}

/** The signal number of a signal name or alias (not the format-selecting 13-15). */
export function signalNumber(name: string): number | undefined {
  const i = (SIGNALS as readonly string[]).indexOf(name);
  if (i >= 0 && !SIGNAL_INFO[i]!.format && i !== SIG_NONE) return i;
  return SIGNAL_ALIASES.get(name);
}

export function buildStatement(st: Statement, ctx: BuildContext): Instr {
  switch (st.kind) {
    case 'alu':
      return buildAlu(st.parts, st.col);
    case 'ldi':
      return withIgnored(buildLdi(st.suffixes, st.operands, st.col), st.ignored);
    case 'branch':
      return withIgnored(buildBranch(st.relative, st.suffixes, st.operands, st.col, ctx), st.ignored);
    case 'sema':
      return withIgnored(buildSema(st.mnemonic, st.suffixes, st.operands, st.col), st.ignored);
    case 'dword':
      return decodeHiLo(st.hi, st.lo);
  }
}

// ---------------------------------------------------------------- ALU instructions

interface Slot {
  part: OpPart;
  info: OpInfo;
  cond: number;
  dst?: Dest;
  srcs: Source[];
}

/** What the parts of an ALU line say, before any field is chosen. */
interface AluParts {
  readonly slots: { add?: Slot; mul?: Slot };
  readonly sig: { current?: Signal };
  readonly reads: Operand[];
  setf: boolean;
  forceWs?: Suffix;
  /** `.pm`: the pm bit with no r4 unpack or colour pack to select (it then does nothing). */
  pmFlag?: Suffix;
}

/** The sources of an instruction, resolved: the ALUs' operands (`all`) and the `read` parts' (`reads`). */
interface Sources {
  readonly all: Source[];
  readonly reads: Source[];
}

function buildAlu(parts: readonly Part[], col: number): AluInstr {
  const ins = nopInstr();
  const p = readParts(parts);
  const { slots } = p;
  // Destinations and the write swap.
  const ws = chooseWs(slots.add?.dst, slots.mul?.dst, p.forceWs, col);
  const ports = new ReadPorts();
  const sources = resolveSources(p, ports);
  rotationField(slots, ports);
  signalField(ins, p.sig.current, ports);
  ins.sf = p.setf ? 1 : 0;
  ins.ws = ws;
  packFields(ins, p, sources);
  slotFields(ins, slots);
  return ins;
}

/** Sorts the parts of an ALU line: operations into their slots, signals, reads and suffixes. */
function readParts(parts: readonly Part[]): AluParts {
  const p: AluParts = { slots: {}, sig: {}, reads: [], setf: false };
  for (const part of parts) {
    if (part.kind === 'signal') setSignal(p.sig, part.name, part.col);
    else if (part.kind === 'read') {
      if (part.operand.kind !== 'vector' && part.operand.rot) throw new BuildError('read cannot rotate', part.operand.rot.col);
      p.reads.push(part.operand);
    } else {
      let cond: number | undefined;
      for (const s of part.suffixes) {
        const c = conditionCode(s.text);
        if (c !== undefined) {
          if (cond !== undefined) throw new BuildError(`two conditions on ${part.name}`, s.col);
          cond = c;
        } else if (s.text === 'setf') p.setf = true;
        else if (s.text === 'ws') p.forceWs = s;
        else if (s.text === 'pm') p.pmFlag = s;
        else if (signalNumber(s.text) !== undefined) setSignal(p.sig, s.text, s.col);
        else
          throw new BuildError(
            `unknown suffix .${shown(s.text)} on ${part.name}: conditions are ${CONDITIONS.map((x) => '.' + x).join(' ')}; ` +
              `also .setf, .ws and the signals (.tend, .ldtmu0, .thrsw, ...)`,
            s.col,
          );
      }
      placeSlot(p.slots, part, cond);
    }
  }
  return p;
}

/** Sources: fixed-file reads and immediates first, then reads either file can serve. */
function resolveSources(p: AluParts, ports: ReadPorts): Sources {
  const all: Source[] = [];
  for (const slot of [p.slots.add, p.slots.mul]) {
    if (!slot) continue;
    for (const op of (slot.part.operands as Operand[]).slice(slot.dst ? 1 : 0)) {
      const s = resolveSource(op, ports);
      slot.srcs.push(s);
      all.push(s);
    }
  }
  const reads = p.reads.map((op) => resolveSource(op, ports));
  for (const s of [...all, ...reads]) if (s.either !== undefined) placeEither(s, ports);
  // `read r4.16a` / `read ra3.16a`: an unpack mode that no ALU input uses (the word can hold it).
  for (const s of reads)
    if (s.mux < MUX_A && !s.unpack)
      throw new BuildError(`read ${shown((s.op as { name: string }).name)} does nothing: accumulators are not read ports`, s.op.col);
  return { all, reads };
}

/** Marks a source that rotates by 0 elements: no rotation, but it must agree with the others. */
const NO_ROTATION = -1;

/** Rotation of the mul result: only written on mul sources, all the same; it takes the small-immediate field. */
function rotationField(slots: AluParts['slots'], ports: ReadPorts): void {
  let rotCode: number | undefined;
  for (const slot of [slots.add, slots.mul]) {
    for (const s of slot?.srcs ?? []) {
      const rot = s.op.kind !== 'vector' ? s.op.rot : undefined;
      if (!rot) continue;
      if (slot === slots.add) throw new BuildError('only the mul ALU can rotate its result', rot.col);
      const code = rot.by === 0 ? NO_ROTATION : smallImmForRotation(rot.by);
      if (rotCode !== undefined && rotCode !== code)
        throw new BuildError('two different rotations in one instruction; the rotation applies to the whole mul result', rot.col);
      rotCode = code;
    }
  }
  if (rotCode === undefined || rotCode === NO_ROTATION) return;
  if (ports.b)
    throw new BuildError(
      `a rotation uses the small-immediate field, which clashes with the regfile-B read ${ports.b.name}`,
      ports.b.col,
    );
  if (ports.imm && smallImmValue(ports.imm.code) !== smallImmValue(rotCode))
    throw new BuildError(
      `with a rotation the small-immediate field holds the rotation, so the only immediate available is ` +
        `${smallImmValue(rotCode) | 0}, not ${shown(ports.imm.text)}`,
      ports.imm.col,
    );
  ports.imm = { code: rotCode, col: 0, text: '' };
}

/** The signal and the read addresses: signals and small immediates share the signal field. */
function signalField(ins: AluInstr, signal: Signal | undefined, ports: ReadPorts): void {
  if (ports.imm) {
    if (signal)
      throw new BuildError(
        `the signal .${signal.name} clashes with the small immediate${ports.imm.text ? ' ' + shown(ports.imm.text) : ' of the rotation'}: ` +
          `both use the signal field; load the constant into a register in an earlier instruction`,
        signal.col,
      );
    ins.sig = SIG_SMALL_IMM;
    ins.raddrB = ports.imm.code;
  } else {
    ins.sig = signal?.n ?? SIG_NONE;
    ins.raddrB = ports.b?.addr ?? R_NOP;
  }
  ins.raddrA = ports.a?.addr ?? R_NOP;
}

/** Pack and unpack: pm = 0 programs regfile A, pm = 1 programs r4 and the mul colour pack. */
function packFields(ins: AluInstr, p: AluParts, sources: Sources): void {
  const { slots, pmFlag } = p;
  const pmUses: { pm: number; col: number }[] = [];
  const srcs = [...sources.all, ...sources.reads];
  const aUnpack = unpackOf(srcs, MUX_A, pmUses);
  const r4Unpack = unpackOf(srcs, MUX_R4, pmUses);
  ins.unpack = aUnpack || r4Unpack;
  for (const [slot, isMul] of [
    [slots.add, false],
    [slots.mul, true],
  ] as const) {
    const pack = slot?.dst?.pack;
    if (!pack) continue;
    if (pack.pm === 1 && !isMul) throw new BuildError(`the colour pack .${pack.text} converts the mul ALU's result only`, pack.col);
    if (ins.pack) throw new BuildError('only one pack mode fits in an instruction', pack.col);
    ins.pack = pack.mode;
    pmUses.push({ pm: pack.pm, col: pack.col });
  }
  if (aUnpack && r4Unpack) throw new BuildError('one instruction can unpack regfile A or r4, not both', pmUses[1]!.col);
  const pm = pmUses[0]?.pm ?? 0;
  const clash = pmUses.find((u) => u.pm !== pm);
  if (clash)
    throw new BuildError(
      'regfile-A pack/unpack (pm = 0) and r4 unpack/mul colour pack (pm = 1) cannot be mixed in one instruction',
      clash.col,
    );
  if (pmFlag && pm === 0 && pmUses.length)
    throw new BuildError('.pm selects the r4 unpack and mul colour pack, but this instruction uses the regfile-A pack or unpack', pmFlag.col);
  ins.pm = pmFlag ? 1 : pm;
}

/** Ops, conditions, destinations and input muxes of the two ALUs. */
function slotFields(ins: AluInstr, slots: AluParts['slots']): void {
  for (const [slot, isMul] of [
    [slots.add, false],
    [slots.mul, true],
  ] as const) {
    if (!slot) continue;
    // One source: both inputs read it (a one-input operation, or mov's `or x, x`).
    const muxA = slot.srcs[0]?.mux ?? MUX_R0;
    const muxB = slot.srcs[1]?.mux ?? (slot.info.arity === 1 || slot.part.name === 'mov' ? muxA : MUX_R0);
    const waddr = slot.dst?.reg.addr ?? W_NOP;
    if (isMul) {
      ins.opMul = slot.info.code;
      ins.condMul = slot.cond;
      ins.waddrMul = waddr;
      ins.mulA = muxA;
      ins.mulB = muxB;
    } else {
      ins.opAdd = slot.info.code;
      ins.condAdd = slot.cond;
      ins.waddrAdd = waddr;
      ins.addA = muxA;
      ins.addB = muxB;
    }
  }
}

interface Signal {
  n: number;
  col: number;
  name: string;
}

/** Records the instruction's signal; a second, different one is an error. */
function setSignal(sig: { current?: Signal }, name: string, col: number): void {
  const n = signalNumber(name)!;
  const had = sig.current;
  if (had && had.n !== n) throw new BuildError(`two signals in one instruction (.${had.name} and .${name})`, col);
  sig.current = { n, col, name };
}

/** The unpack mode of the inputs read through `mux` (regfile A or r4), the same on each. */
function unpackOf(all: readonly Source[], mux: number, pmUses: { pm: number; col: number }[]): number {
  const withMux = all.filter((s) => s.mux === mux);
  const marked = withMux.filter((s) => s.unpack);
  if (marked.length === 0) return 0;
  const first = marked[0]!.unpack!;
  for (const s of withMux)
    if (!s.unpack || s.unpack.mode !== first.mode)
      throw new BuildError(
        `unpacking applies to every ${mux === MUX_A ? 'regfile-A' : 'r4'} input of the instruction: write .${first.text} on each`,
        s.unpack?.col ?? s.op.col,
      );
  pmUses.push({ pm: mux === MUX_A ? 0 : 1, col: first.col });
  return first.mode;
}

/** Puts an operation on the add ALU if it can go there and it is free, else on the mul ALU. */
function placeSlot(slots: { add?: Slot; mul?: Slot }, part: OpPart, cond: number | undefined): void {
  const name = part.name;
  const rotates = part.operands.some((o) => o.kind !== 'vector' && o.rot);
  const isMov = name === 'mov';
  const addInfo = isMov ? ADD_MOV : ADD_OP_BY_NAME.get(name);
  const mulInfo = isMov ? MUL_MOV : MUL_OP_BY_NAME.get(name);
  if (!addInfo && !mulInfo) {
    const s = suggest(name, [...ADD_OP_BY_NAME.keys(), ...MUL_OP_BY_NAME.keys(), 'mov', 'ldi', 'bra', 'brr', 'sema', 'read']);
    throw new BuildError(`unknown operation '${shown(name)}'${s ? ` (did you mean ${s}?)` : ''}`, part.col);
  }
  let slotName: 'add' | 'mul';
  if (addInfo && !slots.add && !rotates) slotName = 'add';
  else if (mulInfo && !slots.mul) slotName = 'mul';
  else if (rotates && !mulInfo) throw new BuildError(`only the mul ALU can rotate its result, and ${name} is an add ALU operation`, part.col);
  else if (slots.add && slots.mul) throw new BuildError('an instruction has two ALU operations at most (add ALU; mul ALU)', part.col);
  else {
    const unit = mulInfo ? 'mul' : 'add';
    const taken = slots[unit]!.part.name;
    throw new BuildError(`${name} is ${unit === 'add' ? 'an' : 'a'} ${unit} ALU operation, and the ${unit} ALU already does ${taken} in this instruction`, part.col);
  }
  const info = (slotName === 'add' ? addInfo : mulInfo)!;
  const n = part.operands.length;
  if (info.arity === 0) {
    if (n > 3) throw new BuildError('nop takes at most three operands (destination, a, b)', part.operands[3]!.col);
  } else if (isMov) {
    if (n !== 2) throw new BuildError(`mov takes two operands (destination, source), not ${n}`, part.col);
  } else if (info.arity === 1) {
    if (n !== 2 && n !== 3) throw new BuildError(`${name} takes a destination and one source (or two)`, part.col);
  } else if (n !== 3) throw new BuildError(`${name} takes three operands (destination, a, b), not ${n}`, part.col);
  const slot: Slot = {
    part,
    info,
    cond: cond ?? (info.arity === 0 ? COND_NEVER : COND_ALWAYS),
    srcs: [],
  };
  if (n > 0) slot.dst = resolveDest(part.operands[0]!);
  noDestCond(slot.dst, `write it on the operation: ${name}.${slot.dst?.cond?.text ?? ''}`);
  slots[slotName] = slot;
}
