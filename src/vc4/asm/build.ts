// Gives a parsed statement its meaning: resolves registers, immediates, suffixes and ALU
// slots, and fills in every field of one instruction. Needs: a statement from parse.ts and the
// labels of the program. Guarantees: an instruction whose fields say exactly what the line
// says, or a BuildError naming the column and what would be right. Hardware hazards between
// instructions are not errors here; the validator (validate.ts) reports them.

import type { AluInstr, Instr } from '../instr.ts';
import { decodeHiLo } from '../codec.ts';
import { nopInstr } from '../instr.ts';
import {
  ADD_OP_BY_NAME,
  CONDITIONS,
  MUL_OP_BY_NAME,
  MUX_A,
  MUX_R4,
  type OpInfo,
  SIG_NONE,
  SIGNAL_ALIASES,
  SIGNALS,
  smallImmValue,
} from '../tables.ts';
import type { Operand, OpPart, Statement, Suffix } from './parse.ts';
import { buildBranch, buildLdi, buildSema, withIgnored } from './build-imm.ts';
import { shown } from './text.ts';
import { SIG_SMALL_IMM } from '../fields.ts';
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
  if (i >= 0 && i < SIG_SMALL_IMM && i !== SIG_NONE) return i;
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

function buildAlu(parts: readonly import('./parse.ts').Part[], col: number): AluInstr {
  const ins = nopInstr();
  const sig: { current?: Signal } = {};
  let setf = false;
  let forceWs: Suffix | undefined;
  /** `.pm`: the pm bit with no r4 unpack or colour pack to select (it then does nothing). */
  let pmFlag: Suffix | undefined;
  const slots: { add?: Slot; mul?: Slot } = {};
  const reads: Operand[] = [];
  const ports = new ReadPorts();

  for (const part of parts) {
    if (part.kind === 'signal') setSignal(sig, part.name, part.col);
    else if (part.kind === 'read') {
      if (part.operand.kind !== 'vector' && part.operand.rot) throw new BuildError('read cannot rotate', part.operand.rot.col);
      reads.push(part.operand);
    } else {
      let cond: number | undefined;
      for (const s of part.suffixes) {
        const c = conditionCode(s.text);
        if (c !== undefined) {
          if (cond !== undefined) throw new BuildError(`two conditions on ${part.name}`, s.col);
          cond = c;
        } else if (s.text === 'setf') setf = true;
        else if (s.text === 'ws') forceWs = s;
        else if (s.text === 'pm') pmFlag = s;
        else if (signalNumber(s.text) !== undefined) setSignal(sig, s.text, s.col);
        else
          throw new BuildError(
            `unknown suffix .${shown(s.text)} on ${part.name}: conditions are ${CONDITIONS.map((x) => '.' + x).join(' ')}; ` +
              `also .setf, .ws and the signals (.tend, .ldtmu0, .thrsw, ...)`,
            s.col,
          );
      }
      placeSlot(slots, part, cond);
    }
  }

  // Destinations and the write swap.
  const ws = chooseWs(slots.add?.dst, slots.mul?.dst, forceWs, col);

  // Sources: fixed-file reads and immediates first, then reads either file can serve.
  const all: Source[] = [];
  for (const slot of [slots.add, slots.mul]) {
    if (!slot) continue;
    for (const op of (slot.part.operands as Operand[]).slice(slot.dst ? 1 : 0)) {
      const s = resolveSource(op, ports);
      slot.srcs.push(s);
      all.push(s);
    }
  }
  const readSrcs = reads.map((op) => resolveSource(op, ports));
  for (const s of [...all, ...readSrcs]) if (s.either !== undefined) placeEither(s, ports);
  // `read r4.16a` / `read ra3.16a`: an unpack mode that no ALU input uses (the word can hold it).
  for (const s of readSrcs)
    if (s.mux < MUX_A && !s.unpack)
      throw new BuildError(`read ${shown((s.op as { name: string }).name)} does nothing: accumulators are not read ports`, s.op.col);

  // Rotation of the mul result: only written on mul sources, all the same.
  let rotCode: number | undefined;
  for (const slot of [slots.add, slots.mul]) {
    for (const s of slot?.srcs ?? []) {
      const rot = s.op.kind !== 'vector' ? s.op.rot : undefined;
      if (!rot) continue;
      if (slot === slots.add) throw new BuildError('only the mul ALU can rotate its result', rot.col);
      const code = rot.by === 'r5' ? 48 : rot.by === 0 ? -1 : 48 + rot.by;
      if (rotCode !== undefined && rotCode !== code)
        throw new BuildError('two different rotations in one instruction; the rotation applies to the whole mul result', rot.col);
      rotCode = code;
    }
  }
  if (rotCode !== undefined && rotCode >= 48) {
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

  // Signals and small immediates share the signal field.
  const signal = sig.current;
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
    ins.raddrB = ports.b?.addr ?? 39;
  }
  ins.raddrA = ports.a?.addr ?? 39;
  ins.sf = setf ? 1 : 0;
  ins.ws = ws;

  // Pack and unpack: pm = 0 programs regfile A, pm = 1 programs r4 and the mul colour pack.
  const pmUses: { pm: number; col: number }[] = [];
  const aUnpack = unpackOf([...all, ...readSrcs], MUX_A, pmUses);
  const r4Unpack = unpackOf([...all, ...readSrcs], MUX_R4, pmUses);
  ins.unpack = aUnpack || r4Unpack;
  for (const [slot, isMul] of [
    [slots.add, false],
    [slots.mul, true],
  ] as const) {
    const p = slot?.dst?.pack;
    if (!p) continue;
    if (p.pm === 1 && !isMul) throw new BuildError(`the colour pack .${p.text} converts the mul ALU's result only`, p.col);
    if (ins.pack) throw new BuildError('only one pack mode fits in an instruction', p.col);
    ins.pack = p.mode;
    pmUses.push({ pm: p.pm, col: p.col });
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

  // Ops, conditions, destinations and input muxes.
  for (const [slot, isMul] of [
    [slots.add, false],
    [slots.mul, true],
  ] as const) {
    if (!slot) continue;
    const muxA = slot.srcs[0]?.mux ?? 0;
    const muxB = slot.srcs[1]?.mux ?? (slot.info.arity === 1 || slot.part.name === 'mov' ? muxA : 0);
    const waddr = slot.dst?.reg.addr ?? 39;
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
  return ins;
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
  const addInfo = isMov ? ADD_OP_BY_NAME.get('or') : ADD_OP_BY_NAME.get(name);
  const mulInfo = isMov ? MUL_OP_BY_NAME.get('v8min') : MUL_OP_BY_NAME.get(name);
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
    cond: cond ?? (info.arity === 0 ? 0 : 1),
    srcs: [],
  };
  if (n > 0) slot.dst = resolveDest(part.operands[0]!);
  noDestCond(slot.dst, `write it on the operation: ${name}.${slot.dst?.cond?.text ?? ''}`);
  slots[slotName] = slot;
}
