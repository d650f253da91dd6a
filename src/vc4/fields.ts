// The bit layout of the four VideoCore IV instruction formats: the one table that encode and
// decode read. Source: Broadcom, "VideoCore IV 3D Architecture Reference Guide" (2013),
// section "QPU Instruction Encoding", Figure 3 and Tables 1 and 10 (pp. 26-34).
//
// An instruction is 64 bits. No field straddles bit 32, so every field lives in the high or the
// low 32-bit word; `lo` below is the field's lowest bit in the 64-bit word.

import { LDI_MODE_SEMAPHORE, SIG_BRANCH, SIG_LOAD_IMM } from './tables.ts';

export interface Field {
  /** The model's property name (see instr.ts). */
  readonly name: string;
  /** Lowest bit in the 64-bit word. */
  readonly lo: number;
  readonly width: number;
  /** A constant that identifies the format; not a property of the model. */
  readonly fixed?: number;
  /** Read back as a signed two's-complement number (the branch offset). */
  readonly signed?: boolean;
  /** Bits the hardware ignores. They decode losslessly; the assembly spells them as `; ignored 0x...` (canonical.ts). */
  readonly dontCare?: boolean;
}

const f = (name: string, lo: number, width: number, extra: Partial<Field> = {}): Field => ({
  name,
  lo,
  width,
  ...extra,
});

/** The upper 32 bits shared by ALU, load-immediate and semaphore instructions (after sig/unpack). */
const WRITE_FIELDS: Field[] = [
  f('pm', 56, 1),
  f('pack', 52, 4),
  f('condAdd', 49, 3),
  f('condMul', 46, 3),
  f('sf', 45, 1),
  f('ws', 44, 1),
  f('waddrAdd', 38, 6),
  f('waddrMul', 32, 6),
];

/** ALU instruction, signals 0-13 (13: raddrB holds a small immediate). Figure 4, Table 1. */
export const ALU_LAYOUT: readonly Field[] = [
  f('sig', 60, 4),
  f('unpack', 57, 3),
  ...WRITE_FIELDS,
  f('opMul', 29, 3),
  f('opAdd', 24, 5),
  f('raddrA', 18, 6),
  f('raddrB', 12, 6),
  f('addA', 9, 3),
  f('addB', 6, 3),
  f('mulA', 3, 3),
  f('mulB', 0, 3),
];

/** Load immediate, signal 14 with bits 59:57 = mode (0: 32-bit, 1: per-element signed,
 *  3: per-element unsigned; 2, 5, 6, 7 are not defined by the guide). Figure 5. */
export const LDI_LAYOUT: readonly Field[] = [
  f('sig', 60, 4, { fixed: SIG_LOAD_IMM }),
  f('mode', 57, 3),
  ...WRITE_FIELDS,
  f('imm', 0, 32),
];

/** Semaphore, signal 14 with bits 59:57 = 4. Figure 6. Bits 31:5 are "don't care" for the
 *  semaphore, but like a load immediate the whole low word reaches the ALU outputs. */
export const SEMA_LAYOUT: readonly Field[] = [
  f('sig', 60, 4, { fixed: SIG_LOAD_IMM }),
  f('mode', 57, 3, { fixed: LDI_MODE_SEMAPHORE }),
  ...WRITE_FIELDS,
  f('rest', 5, 27, { dontCare: true }),
  f('down', 4, 1),
  f('sema', 0, 4),
];

/** Branch, signal 15. Figure 7, Table 10. raddrA is 5 bits: only registers 0-31 can be added. */
export const BRANCH_LAYOUT: readonly Field[] = [
  f('sig', 60, 4, { fixed: SIG_BRANCH }),
  f('unused', 56, 4, { dontCare: true }),
  f('cond', 52, 4),
  f('rel', 51, 1),
  f('reg', 50, 1),
  f('raddrA', 45, 5),
  f('ws', 44, 1),
  f('waddrAdd', 38, 6),
  f('waddrMul', 32, 6),
  f('imm', 0, 32, { signed: true }),
];

/** A branch's raddr_a bit 0 is bit 45, the ALU's set-flags bit: an odd raddr_a also sets the
 *  flags (vc4asm's addendum, "Branch Instruction - implicit set flags"). */
export const BRANCH_SETS_FLAGS = 1;

/** Bytes per instruction: branch offsets and addresses count bytes. */
export const INSTRUCTION_BYTES = 8;
/** A relative branch's offset counts from PC + 4 instructions: past the branch and its three
 *  delay slots. */
export const BRANCH_PC_OFFSET = 4;

/** Signal values that select a format rather than a signal, and the semaphore's mode: tables.ts has them. */
export { LDI_MODE_SEMAPHORE, SIG_BRANCH, SIG_LOAD_IMM, SIG_SMALL_IMM } from './tables.ts';
