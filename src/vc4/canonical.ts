// Which instructions are canonical: the ones the assembly language can spell, so that the
// disassembler prints them as text that assembles back to the same word: all but those that
// use an encoding the guide reserves. Those still decode (the model is lossless); these
// functions say why, and the disassembler prints them as `.dword` with that reason. Bits the
// hardware ignores are found here too, for the `; ignored 0x...` spelling.

import { decodeHiLo, dontCareMask, encodeHiLo, fieldMask, fieldOf } from './codec.ts';
import type { AluInstr, Instr } from './instr.ts';
import { W_NOP } from './registers.ts';
import {
  ADD_NOP,
  ADD_OPS,
  BRANCH_CONDITIONS,
  COND_NEVER,
  LDI_MODE_NAMES,
  MUL_NOP,
  MUX_R0,
  NO_PACK,
  PACK_MUL_MODES,
  SIG_SMALL_IMM,
  smallImmRotation,
} from './tables.ts';

/** True when the mul ALU's output is rotated (small immediate 48-63). */
export function hasRotation(i: AluInstr): boolean {
  return i.sig === SIG_SMALL_IMM && smallImmRotation(i.raddrB) !== 0;
}

/** An ALU slot that is a plain `nop`: no op, never, no destination, inputs r0. */
export function addIsDefault(i: AluInstr): boolean {
  return i.opAdd === ADD_NOP && i.condAdd === COND_NEVER && i.waddrAdd === W_NOP && i.addA === MUX_R0 && i.addB === MUX_R0 && !packOnAdd(i);
}
export function mulIsDefault(i: AluInstr): boolean {
  return (
    i.opMul === MUL_NOP &&
    i.condMul === COND_NEVER &&
    i.waddrMul === W_NOP &&
    i.mulA === MUX_R0 &&
    i.mulB === MUX_R0 &&
    !packOnMul(i) &&
    !hasRotation(i)
  );
}

/** The pack mode is written on the add destination (regfile-A pack with the add ALU on A). */
export function packOnAdd(i: { pm: number; pack: number; ws: number }): boolean {
  return i.pm === 0 && i.pack !== NO_PACK && i.ws === 0;
}
export function packOnMul(i: { pm: number; pack: number; ws: number }): boolean {
  return i.pack !== NO_PACK && (i.pm === 1 || i.ws === 1);
}

/** The input muxes that the assembly text shows (those of slots that are not a plain nop). */
export function shownMuxes(i: AluInstr): number[] {
  const out: number[] = [];
  if (!addIsDefault(i)) out.push(i.addA, i.addB);
  if (!mulIsDefault(i)) out.push(i.mulA, i.mulB);
  return out;
}

/**
 * The bits of an instruction's word that the hardware ignores, as [hi, lo] masks: a branch's
 * bits 59:56 (Figure 7 leaves them unused) and, without `reg`, its raddr_a bits 4:1 (bits
 * 49:46; bit 0 sets the flags, vc4asm's addendum); a semaphore's bits 31:5 ("don't care",
 * Figure 6, though a semaphore that writes registers writes them as part of its value). The
 * assembly spells them as a part `; ignored 0xHHHHHHHH_LLLLLLLL`.
 */
export function ignoredMask(i: Instr): [number, number] {
  const [hi, lo] = dontCareMask(i.kind);
  if (i.kind !== 'branch' || i.reg) return [hi, lo];
  const raddrA = fieldOf('branch', 'raddrA');
  const [h, l] = fieldMask(raddrA.lo + 1, raddrA.width - 1);
  return [(hi | h) >>> 0, (lo | l) >>> 0];
}

/** The ignored bits an instruction has set ([hi, lo]), and the instruction without them. */
export function splitIgnored(i: Instr): { bits: [number, number]; rest: Instr } {
  const [mh, ml] = ignoredMask(i);
  const [hi, lo] = encodeHiLo(i);
  const bits: [number, number] = [(hi & mh) >>> 0, (lo & ml) >>> 0];
  return { bits, rest: bits[0] || bits[1] ? decodeHiLo((hi & ~mh) >>> 0, (lo & ~ml) >>> 0) : i };
}

/** Reasons why an instruction is not canonical (it uses a reserved encoding); empty when it is. */
export function nonCanonicalReasons(i: Instr): string[] {
  const out: string[] = [];
  switch (i.kind) {
    case 'alu': {
      if (!ADD_OPS[i.opAdd]) out.push(`add opcode ${i.opAdd} is reserved`);
      if (i.pm === 1 && PACK_MUL_MODES[i.pack] === undefined) out.push(`mul pack mode ${i.pack} is reserved`);
      break;
    }
    case 'ldi':
      if (!(i.mode in LDI_MODE_NAMES)) out.push(`load-immediate mode ${i.mode} is not defined`);
      if (i.pm === 1 && PACK_MUL_MODES[i.pack] === undefined) out.push(`mul pack mode ${i.pack} is reserved`);
      break;
    case 'sema':
      if (i.pm === 1 && PACK_MUL_MODES[i.pack] === undefined) out.push(`mul pack mode ${i.pack} is reserved`);
      break;
    case 'branch':
      if (BRANCH_CONDITIONS[i.cond] === undefined) out.push(`branch condition ${i.cond} is reserved`);
      break;
  }
  return out;
}

export function isCanonical(i: Instr): boolean {
  return nonCanonicalReasons(i).length === 0;
}
