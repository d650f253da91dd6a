// The QPU register address map: what reading or writing address 0-63 of regfile A or B does.
// Source: Broadcom, "VideoCore IV 3D Architecture Reference Guide" (2013), Table 14 (pp. 37-38)
// and Table 31 (p. 57); r5quad/r5rep from vc4asm's addendum ("Writing to r5").
// The assembler, disassembler, validator and emulator all read this table.

export type RegFile = 'a' | 'b';

/** Which closely coupled unit an address belongs to, for the validator's and emulator's rules. */
export type Unit =
  | 'regfile'
  | 'acc'
  | 'nop'
  | 'uniform'
  | 'varying'
  | 'elem_num'
  | 'qpu_num'
  | 'tmu_noswap'
  | 'r5'
  | 'host_int'
  | 'unif_addr'
  | 'tlb'
  | 'vpm'
  | 'vpm_setup'
  | 'dma_addr'
  | 'dma_busy'
  | 'dma_wait'
  | 'mutex'
  | 'sfu'
  | 'tmu'
  | 'fragment'
  | 'unmapped';

export interface RegInfo {
  /** The readable name the disassembler prints (unique within one direction and file). */
  readonly name: string;
  readonly unit: Unit;
  /** True when the same address of the other file does the same thing (e.g. `unif`, `r0`). */
  readonly both: boolean;
}

/** An address's meaning: the same in both files, or regfile A's then regfile B's. */
type Entry = readonly [string, Unit] | readonly [string, Unit, string, Unit];
/** The names a table of entries gives its registers. */
type NamesOf<T> = { [K in keyof T]: T[K] extends readonly [infer A, Unit, infer B, Unit] ? A | B : T[K] extends readonly [infer A, Unit] ? A : never }[keyof T];

function build(file: RegFile, entries: Readonly<Record<number, Entry>>): RegInfo[] {
  const t: RegInfo[] = [];
  for (let addr = 0; addr < 64; addr++) {
    if (addr < 32) {
      t.push({ name: `r${file}${addr}`, unit: 'regfile', both: false });
      continue;
    }
    const e = entries[addr];
    if (!e) {
      t.push({ name: `r${file}${addr}`, unit: 'unmapped', both: false });
      continue;
    }
    if (e.length === 2) t.push({ name: e[0], unit: e[1], both: true });
    else t.push(file === 'a' ? { name: e[0], unit: e[1], both: false } : { name: e[2], unit: e[3], both: false });
  }
  return t;
}

const READS = {
  32: ['unif', 'uniform'],
  35: ['vary', 'varying'],
  38: ['elem_num', 'elem_num', 'qpu_num', 'qpu_num'],
  39: ['nop', 'nop'],
  41: ['x_coord', 'fragment', 'y_coord', 'fragment'],
  42: ['ms_flags', 'fragment', 'rev_flag', 'fragment'],
  48: ['vpm', 'vpm'],
  49: ['vr_busy', 'dma_busy', 'vw_busy', 'dma_busy'],
  50: ['vr_wait', 'dma_wait', 'vw_wait', 'dma_wait'],
  51: ['mutex', 'mutex'],
} as const satisfies Record<number, Entry>;
/** A register's name when read (an I/O register or special value; ra0-rb31 aside). */
export type ReadName = NamesOf<typeof READS>;

const WRITES = {
  32: ['r0', 'acc'],
  33: ['r1', 'acc'],
  34: ['r2', 'acc'],
  35: ['r3', 'acc'],
  36: ['tmu_noswap', 'tmu_noswap'],
  37: ['r5quad', 'r5', 'r5rep', 'r5'],
  38: ['host_int', 'host_int'],
  39: ['nop', 'nop'],
  40: ['unif_addr', 'unif_addr'],
  41: ['quad_x', 'fragment', 'quad_y', 'fragment'],
  42: ['ms_flags', 'fragment', 'rev_flag', 'fragment'],
  43: ['tlb_stencil', 'tlb'],
  44: ['tlb_z', 'tlb'],
  45: ['tlb_color_ms', 'tlb'],
  46: ['tlb_color_all', 'tlb'],
  47: ['tlb_alpha_mask', 'tlb'],
  48: ['vpm', 'vpm'],
  49: ['vr_setup', 'vpm_setup', 'vw_setup', 'vpm_setup'],
  50: ['vr_addr', 'dma_addr', 'vw_addr', 'dma_addr'],
  51: ['mutex', 'mutex'],
  52: ['sfu_recip', 'sfu'],
  53: ['sfu_recipsqrt', 'sfu'],
  54: ['sfu_exp2', 'sfu'],
  55: ['sfu_log2', 'sfu'],
  56: ['tmu0_s', 'tmu'],
  57: ['tmu0_t', 'tmu'],
  58: ['tmu0_r', 'tmu'],
  59: ['tmu0_b', 'tmu'],
  60: ['tmu1_s', 'tmu'],
  61: ['tmu1_t', 'tmu'],
  62: ['tmu1_r', 'tmu'],
  63: ['tmu1_b', 'tmu'],
} as const satisfies Record<number, Entry>;
/** A register's name when written (an accumulator r0-r3 or an I/O register; ra0-rb31 aside). */
export type WriteName = NamesOf<typeof WRITES>;

export const READ_A: readonly RegInfo[] = build('a', READS);
export const READ_B: readonly RegInfo[] = build('b', READS);
export const WRITE_A: readonly RegInfo[] = build('a', WRITES);
export const WRITE_B: readonly RegInfo[] = build('b', WRITES);

export function readInfo(file: RegFile, addr: number): RegInfo {
  return (file === 'a' ? READ_A : READ_B)[addr]!;
}
export function writeInfo(file: RegFile, addr: number): RegInfo {
  return (file === 'a' ? WRITE_A : WRITE_B)[addr]!;
}

// Addresses named in rules and in the emulator.
export const R_UNIF = 32;
export const R_VARY = 35;
export const R_ELEM_NUM = 38; // regfile A
export const R_QPU_NUM = 38; // regfile B
export const R_NOP = 39;
export const R_VPM = 48;
export const R_VPM_BUSY = 49;
export const R_VPM_WAIT = 50;
export const R_MUTEX = 51;

export const W_ACC0 = 32;
export const W_ACC5 = 37;
export const W_TMU_NOSWAP = 36;
export const W_HOST_INT = 38;
export const W_NOP = 39;
export const W_UNIF_ADDR = 40;
export const W_TLB_Z = 44;
export const W_VPM = 48;
export const W_VPM_SETUP = 49;
export const W_DMA_ADDR = 50;
export const W_MUTEX = 51;
export const W_SFU_RECIP = 52;
export const W_SFU_LOG = 55;
export const W_TMU0_S = 56;
export const W_TMU1_S = 60;

/** The register file written by the add ALU (ws = 0: A) and by the mul ALU (ws = 0: B). */
export function addWriteFile(ws: number): RegFile {
  return ws ? 'b' : 'a';
}
export function mulWriteFile(ws: number): RegFile {
  return ws ? 'a' : 'b';
}

/** Address 14 of either regfile holds the next thread's W and Z at program end (Guide p. 21). */
export const THREAD_END_RESERVED_ADDR = 14;

/** Which TMU a write address feeds (0 or 1), or -1. */
export function tmuOfWrite(addr: number): number {
  return addr >= 56 ? (addr >= 60 ? 1 : 0) : -1;
}

/** True when a write address is a TMU "s" coordinate, which retires (queues) a request. */
export function isTmuRetiring(addr: number): boolean {
  return addr === W_TMU0_S || addr === W_TMU1_S;
}
