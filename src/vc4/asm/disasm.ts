// The disassembler: instructions to assembly text (docs/asm.md), one instruction a line.
// Needs: decoded instructions. Guarantees: every line assembles back to the same word. It tries
// the most readable spellings first and checks each one with the assembler; an instruction no
// spelling reproduces (a non-canonical word) is printed as `.dword` with the reason.

import { type AluInstr, type BranchInstr, type Instr, type LoadImmInstr, type SemaInstr } from '../instr.ts';
import { decodeProgram, encodeHiLo, formatWord } from '../codec.ts';
import { addIsDefault, hasRotation, mulIsDefault, nonCanonicalReasons, packOnAdd, packOnMul, splitIgnored } from '../canonical.ts';
import { branchTarget, isWholeInstructions } from '../flow.ts';
import { BRANCH_SETS_FLAGS } from '../fields.ts';
import { addWriteFile, mulWriteFile, R_NOP, W_NOP } from '../registers.ts';
import {
  ADD_MOV,
  ADD_OPS,
  bitsToFloat,
  BRANCH_ALWAYS,
  BRANCH_CONDITIONS,
  COND_ALWAYS,
  COND_NEVER,
  CONDITIONS,
  isFloatSmallImm,
  LDI_MODE_32,
  LDI_MODE_NAMES,
  LDI_MODE_SIGNED,
  MUL_MOV,
  MUL_OPS,
  MUX_A,
  MUX_B,
  MUX_R0,
  MUX_R4,
  NO_UNPACK,
  PACK_A_MODES,
  PACK_MUL_MODES,
  perElementValues,
  SIG_NONE,
  SIG_SMALL_IMM,
  SIGNALS,
  smallImmRotation,
  smallImmValue,
  UNPACK_MODES,
} from '../tables.ts';
import { assembleStatement } from './assembler.ts';
import { destName, sourceName } from './names.ts';

export interface DisasmOptions {
  /** Print registers by number (ra32, rb48, ...) as the SHA-256 series does. */
  readonly numeric?: boolean;
  /** Prefix each line with the instruction's index and word. */
  readonly addresses?: boolean;
  /**
   * Print a relative branch aimed at this label (which `labels` must place), after its links or
   * `-` for none: the compiler's spelling, `brr.anynz -, loop`.
   */
  readonly branchLabel?: string;
}

/** How explicitly to spell an instruction; tried from the most readable to the most explicit. */
interface Variant {
  numeric: boolean;
  ws: boolean;
  /** Write `nop;` for a plain add ALU, and both destinations of ldi and branches. */
  explicit: boolean;
  /** For ldi and branch destinations: mul destination first. */
  swap: boolean;
}

function variants(numeric: boolean): Variant[] {
  const out: Variant[] = [];
  for (const num of numeric ? [true] : [false, true])
    for (const explicit of [false, true])
      for (const swap of [false, true])
        for (const ws of [false, true]) if (!(swap && !explicit)) out.push({ numeric: num, ws, explicit, swap });
  return out;
}

const same = (a: Instr, b: Instr) => {
  const [ah, al] = encodeHiLo(a);
  const [bh, bl] = encodeHiLo(b);
  return ah === bh && al === bl;
};

/**
 * One instruction as one line of assembly. `pc` and `labels` let relative branches name their
 * targets; without them a branch prints its byte offset.
 */
export function disassembleInstr(
  ins: Instr,
  opts: DisasmOptions = {},
  pc = 0,
  labels: ReadonlyMap<string, number> = new Map(),
): string {
  const reasons = nonCanonicalReasons(ins);
  if (reasons.length === 0) {
    // Bits the hardware ignores are spelled after the instruction they belong to.
    const { bits, rest } = splitIgnored(ins);
    const ignored = bits[0] || bits[1] ? `; ignored ${formatWord(bits[0], bits[1])}` : '';
    for (const v of variants(opts.numeric ?? false)) {
      const spelled = format(rest, v, pc, labels, opts.branchLabel);
      if (spelled === undefined) continue;
      const text = spelled + ignored;
      try {
        if (same(assembleStatement(text, pc, labels), ins)) return text;
      } catch {
        // this spelling does not assemble; try a more explicit one
      }
    }
    reasons.push('no spelling reproduces it (a disassembler bug: please report it)');
  }
  const [hi, lo] = encodeHiLo(ins);
  return `.dword ${formatWord(hi, lo)}  # ${reasons.join('; ')}`;
}

/** A whole program, with labels `L<n>` at the targets of relative branches. */
export function disassemble(program: Uint32Array | readonly Instr[], opts: DisasmOptions = {}): string {
  const instrs = program instanceof Uint32Array ? decodeProgram(program) : program;
  const labels = new Map<string, number>();
  instrs.forEach((ins, pc) => {
    if (ins.kind !== 'branch' || !ins.rel || !isWholeInstructions(ins.imm)) return;
    const target = branchTarget(pc, ins.imm);
    if (target >= 0 && target <= instrs.length) labels.set(`L${target}`, target);
  });
  const lines: string[] = [];
  const labelAt = (pc: number) => (labels.has(`L${pc}`) ? `L${pc}:` : undefined);
  instrs.forEach((ins, pc) => {
    const label = labelAt(pc);
    if (label) lines.push(label);
    let text = disassembleInstr(ins, opts, pc, labels);
    if (opts.addresses) {
      const [hi, lo] = encodeHiLo(ins);
      text = `${text.padEnd(48)} # ${String(pc).padStart(4)}: ${formatWord(hi, lo)}`;
    }
    lines.push(`    ${text}`);
  });
  const end = labelAt(instrs.length);
  if (end) lines.push(end);
  return lines.join('\n') + '\n';
}

function format(ins: Instr, v: Variant, pc: number, labels: ReadonlyMap<string, number>, branchLabel?: string): string | undefined {
  switch (ins.kind) {
    case 'alu':
      return formatAlu(ins, v);
    case 'ldi':
      return formatLdi(ins, v);
    case 'sema':
      return formatSema(ins, v);
    case 'branch':
      return formatBranch(ins, v, pc, labels, branchLabel);
  }
}

// ---- shared pieces

function condSuffix(cond: number, dflt: number): string {
  return cond === dflt ? '' : `.${CONDITIONS[cond]}`;
}

function floatText(bits: number): string {
  const f = bitsToFloat(bits);
  return Number.isInteger(f) ? f.toFixed(1) : String(f);
}

/** A small immediate as the assembly spells it: `3`, `-16`, `1.0`, `0.5`. */
export function smallImmText(code: number): string {
  if (isFloatSmallImm(code)) return floatText(smallImmValue(code));
  return String(smallImmValue(code) | 0);
}

/** A destination: the register the ALU writes (file chosen by ws) with its pack mode. */
function dest(i: { ws: number; pm: number; pack: number }, addr: number, isMul: boolean, numeric: boolean): string {
  const file = isMul ? mulWriteFile(i.ws) : addWriteFile(i.ws);
  let t = destName(file, addr, numeric);
  if (isMul ? packOnMul(i) : packOnAdd(i)) t += '.' + (i.pm ? `${PACK_MUL_MODES[i.pack]}c` : PACK_A_MODES[i.pack]);
  return t;
}

// ---- ALU

function source(i: AluInstr, mux: number, isMul: boolean, numeric: boolean): string {
  let t: string;
  if (mux < MUX_A) t = `r${mux}` + (mux === MUX_R4 && i.pm && i.unpack ? `.${UNPACK_MODES[i.unpack]}` : '');
  else if (mux === MUX_A) t = sourceName('a', i.raddrA, numeric) + (!i.pm && i.unpack ? `.${UNPACK_MODES[i.unpack]}` : '');
  else t = i.sig === SIG_SMALL_IMM ? smallImmText(i.raddrB) : sourceName('b', i.raddrB, numeric);
  if (isMul && hasRotation(i)) t += ` >> ${smallImmRotation(i.raddrB)}`;
  return t;
}

function formatAlu(i: AluInstr, v: Variant): string {
  const parts: string[] = [];
  const shown: number[] = [];
  const slot = (isMul: boolean) => {
    const [op, cond, waddr, a, b] = isMul
      ? [MUL_OPS[i.opMul]!, i.condMul, i.waddrMul, i.mulA, i.mulB]
      : [ADD_OPS[i.opAdd]!, i.condAdd, i.waddrAdd, i.addA, i.addB];
    const d = dest(i, waddr, isMul, v.numeric);
    const sa = source(i, a, isMul, v.numeric);
    const sb = source(i, b, isMul, v.numeric);
    if (op.arity === 0) {
      const bare = waddr === W_NOP && a === MUX_R0 && b === MUX_R0 && !(isMul && hasRotation(i)) && !(isMul ? packOnMul(i) : packOnAdd(i));
      if (!bare) shown.push(a, b);
      return `nop${condSuffix(cond, COND_NEVER)}${bare ? '' : ` ${d}, ${sa}, ${sb}`}`;
    }
    shown.push(a, b);
    const movable = a === b && op === (isMul ? MUL_MOV : ADD_MOV);
    if (movable) return `mov${condSuffix(cond, COND_ALWAYS)} ${d}, ${sa}`;
    const two = op.arity === 1 && a === b;
    return `${op.name}${condSuffix(cond, COND_ALWAYS)} ${d}, ${sa}${two ? '' : `, ${sb}`}`;
  };
  const addPlain = addIsDefault(i);
  const mulPlain = mulIsDefault(i);
  if (!addPlain || mulPlain || v.explicit) parts.push(slot(false));
  if (!mulPlain) parts.push(slot(true));

  // Instruction-wide suffixes go on the first part.
  let flags = '';
  if (i.sig !== SIG_NONE && i.sig !== SIG_SMALL_IMM) flags += `.${SIGNALS[i.sig]}`;
  if (i.sf) flags += '.setf';
  if (v.ws) flags += '.ws';
  if (i.pm && !i.pack && !i.unpack) flags += '.pm';
  parts[0] = parts[0]!.replace(/^(\w+(?:\.\w+)*)/, `$1${flags}`);

  // Reads that no shown input uses still happen (they pop uniforms, VPM data, ...); an unpack
  // mode that no input uses is written on such a read.
  const unpack = i.unpack ? `.${UNPACK_MODES[i.unpack]}` : '';
  const orphanA = !i.pm && i.unpack !== NO_UNPACK && !shown.includes(MUX_A);
  if ((i.raddrA !== R_NOP || orphanA) && !shown.includes(MUX_A)) parts.push(`read ${sourceName('a', i.raddrA, v.numeric)}${orphanA ? unpack : ''}`);
  if (i.pm && i.unpack !== NO_UNPACK && !shown.includes(MUX_R4)) parts.push(`read r4${unpack}`);
  const smallImm = i.sig === SIG_SMALL_IMM;
  if (!smallImm && i.raddrB !== R_NOP && !shown.includes(MUX_B)) parts.push(`read ${sourceName('b', i.raddrB, v.numeric)}`);
  if (smallImm && !hasRotation(i) && !shown.includes(MUX_B)) parts.push(`read ${smallImmText(i.raddrB)}`);
  return parts.join('; ');
}

// ---- load immediate

/** Both destinations of a load immediate or semaphore, each with its condition unless `dflt`. */
function bothDests(i: LoadImmInstr | SemaInstr, v: Variant, dflt: number): string {
  const add = dest(i, i.waddrAdd, false, v.numeric) + condSuffix(i.condAdd, dflt);
  const mul = dest(i, i.waddrMul, true, v.numeric) + condSuffix(i.condMul, dflt);
  return v.swap ? `${mul}, ${add}` : `${add}, ${mul}`;
}

function formatLdi(i: LoadImmInstr, v: Variant): string | undefined {
  const add = dest(i, i.waddrAdd, false, v.numeric);
  const mul = dest(i, i.waddrMul, true, v.numeric);
  let dests: string;
  // Two conditions: the instruction's is the add ALU's; the mul destination names its own.
  if (v.explicit) dests = bothDests(i, v, i.condAdd);
  else if (i.condAdd !== i.condMul) return undefined;
  else if (i.waddrMul === W_NOP && !packOnMul(i)) dests = add;
  else if (i.waddrAdd === W_NOP && !packOnAdd(i)) dests = mul;
  else dests = `${add}, ${mul}`;
  const mode = LDI_MODE_NAMES[i.mode] ? `.${LDI_MODE_NAMES[i.mode]}` : '';
  const flags = `${condSuffix(i.condAdd, COND_ALWAYS)}${i.sf ? '.setf' : ''}${v.ws ? '.ws' : ''}${i.pm && !i.pack ? '.pm' : ''}${mode}`;
  const value =
    i.mode === LDI_MODE_32 ? immediate32(i.imm) : `[${perElementValues(i.imm, i.mode === LDI_MODE_SIGNED).join(', ')}]`;
  return `ldi${flags} ${dests}, ${value}`;
}

/** Small values in decimal, others in hex; a float's value in a comment when it reads as one. */
function immediate32(imm: number): string {
  const s = imm | 0;
  const text = s > -256 && s < 256 ? String(s) : `0x${(imm >>> 0).toString(16)}`;
  const f = bitsToFloat(imm);
  const plausible = Math.abs(s) >= 0x10000 && Number.isFinite(f) && f !== 0 && Math.abs(f) >= 1e-6 && Math.abs(f) < 1e9;
  return plausible && String(Math.fround(f)).length <= 12 ? `${text}  # ${floatText(imm)}` : text;
}

// ---- semaphores

function formatSema(i: SemaInstr, v: Variant): string | undefined {
  const op = `sema${i.sf ? '.setf' : ''}${v.ws ? '.ws' : ''}${i.pm && !i.pack ? '.pm' : ''} ${i.down ? 'down' : 'up'}, ${i.sema}`;
  // The plain form writes nothing; otherwise both destinations, each with its condition.
  return v.explicit ? `${op}, ${bothDests(i, v, COND_ALWAYS)}` : op;
}

// ---- branches

function formatBranch(i: BranchInstr, v: Variant, pc: number, labels: ReadonlyMap<string, number>, label?: string): string {
  const cond = i.cond === BRANCH_ALWAYS ? '' : `.${BRANCH_CONDITIONS[i.cond]}`;
  const setf = !i.reg && i.raddrA === BRANCH_SETS_FLAGS ? '.setf' : '';
  const w = { ws: i.ws, pm: 0, pack: 0 };
  const add = dest(w, i.waddrAdd, false, v.numeric);
  const mul = dest(w, i.waddrMul, true, v.numeric);
  const links: string[] = [];
  if (v.explicit) links.push(...(v.swap ? [mul, add] : [add, mul]));
  else if (i.waddrAdd !== W_NOP || i.waddrMul !== W_NOP) {
    if (i.waddrAdd !== W_NOP) links.push(add);
    if (i.waddrMul !== W_NOP) links.push(mul);
  }
  let target: string;
  const t = branchTarget(pc, i.imm);
  if (i.rel && label !== undefined) {
    target = label;
    if (!links.length) links.push('-');
  } else if (i.rel && labels.get(`L${t}`) === t) target = `L${t}`;
  else target = i.imm >= -65536 && i.imm < 65536 ? String(i.imm) : `0x${(i.imm >>> 0).toString(16)}`;
  const reg = i.reg ? `, ra${i.raddrA}` : '';
  return `${i.rel ? 'brr' : 'bra'}${cond}${setf}${v.ws ? '.ws' : ''} ${[...links, target].join(', ')}${reg}`;
}
