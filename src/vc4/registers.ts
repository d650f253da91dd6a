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

/** What an address does beyond its unit, where a rule, the compiler or the emulator asks. */
export interface RegProps {
  /** The accumulator a write reaches: 0-3 for r0-r3, 5 for r5 (replicated per quad or to all lanes). */
  readonly acc?: number;
  /** The TMU a write reaches (Table 14: tmu0_* and tmu1_*). */
  readonly tmu?: 0 | 1;
  /**
   * A write queues an entry in a FIFO, on every lane whatever its condition: a VPM write, and a
   * TMU request, which the s coordinate's write retires (pp. 39-40).
   */
  readonly fifo?: true;
  /** A write also reads a uniform: a TMU t, r or b coordinate takes a texture-setup uniform (p. 22). */
  readonly readsUniform?: true;
  /** The SFU function a write starts, in Table 14's order: 0 recip, 1 recipsqrt, 2 exp2, 3 log2 (arith.sfu). */
  readonly sfu?: number;
  /**
   * A write takes element 0 of its value (and that lane's condition): the setups, the DMA and
   * uniform addresses, tmu_noswap, host_int and the mutex (Table 14; p. 22 for unif_addr).
   */
  readonly scalar?: true;
}

export interface RegInfo extends RegProps {
  /** The readable name the disassembler prints (unique within one direction and file). */
  readonly name: string;
  readonly unit: Unit;
  /** True when the same address of the other file does the same thing (e.g. `unif`, `r0`). */
  readonly both: boolean;
}

/** One file's meaning of an address: its name, its unit and what else it does. */
type Row = readonly [name: string, unit: Unit, props?: RegProps];
/** An address's meaning: one row for both files, or regfile A's and regfile B's. */
type Entry = Row | { readonly a: Row; readonly b: Row };
/** The names a table of entries gives its registers. */
type NamesOf<T> = {
  [K in keyof T]: T[K] extends { readonly a: readonly [infer A, ...unknown[]]; readonly b: readonly [infer B, ...unknown[]] }
    ? A | B
    : T[K] extends readonly [infer A, ...unknown[]]
      ? A
      : never;
}[keyof T];

/** Addresses 0-31 are the regfile's own locations; 32-63 are accumulators, I/O and special values. */
export const REGFILE_LOCATIONS = 32;
/** Addresses of each file, 0-63 (6-bit address fields). */
export const REGISTER_ADDRESSES = 64;

function build(file: RegFile, entries: Readonly<Record<number, Entry>>): RegInfo[] {
  const t: RegInfo[] = [];
  for (let addr = 0; addr < REGISTER_ADDRESSES; addr++) {
    if (addr < REGFILE_LOCATIONS) {
      t.push({ name: `r${file}${addr}`, unit: 'regfile', both: false });
      continue;
    }
    const e = entries[addr];
    if (!e) {
      t.push({ name: `r${file}${addr}`, unit: 'unmapped', both: false });
      continue;
    }
    const both = !('a' in e);
    const [name, unit, props] = both ? e : e[file];
    t.push({ name, unit, both, ...props });
  }
  return t;
}

const READS = {
  32: ['unif', 'uniform'],
  35: ['vary', 'varying'],
  38: { a: ['elem_num', 'elem_num'], b: ['qpu_num', 'qpu_num'] },
  39: ['nop', 'nop'],
  41: { a: ['x_coord', 'fragment'], b: ['y_coord', 'fragment'] },
  42: { a: ['ms_flags', 'fragment'], b: ['rev_flag', 'fragment'] },
  48: ['vpm', 'vpm'],
  49: { a: ['vr_busy', 'dma_busy'], b: ['vw_busy', 'dma_busy'] },
  50: { a: ['vr_wait', 'dma_wait'], b: ['vw_wait', 'dma_wait'] },
  51: ['mutex', 'mutex'],
} as const satisfies Record<number, Entry>;
/** A register's name when read (an I/O register or special value; ra0-rb31 aside). */
export type ReadName = NamesOf<typeof READS>;

const WRITES = {
  32: ['r0', 'acc', { acc: 0 }],
  33: ['r1', 'acc', { acc: 1 }],
  34: ['r2', 'acc', { acc: 2 }],
  35: ['r3', 'acc', { acc: 3 }],
  36: ['tmu_noswap', 'tmu_noswap', { scalar: true }],
  37: { a: ['r5quad', 'r5', { acc: 5 }], b: ['r5rep', 'r5', { acc: 5 }] },
  38: ['host_int', 'host_int', { scalar: true }],
  39: ['nop', 'nop'],
  40: ['unif_addr', 'unif_addr', { scalar: true }],
  41: { a: ['quad_x', 'fragment'], b: ['quad_y', 'fragment'] },
  42: { a: ['ms_flags', 'fragment'], b: ['rev_flag', 'fragment'] },
  43: ['tlb_stencil', 'tlb'],
  44: ['tlb_z', 'tlb'],
  45: ['tlb_color_ms', 'tlb'],
  46: ['tlb_color_all', 'tlb'],
  47: ['tlb_alpha_mask', 'tlb'],
  48: ['vpm', 'vpm', { fifo: true }],
  49: { a: ['vr_setup', 'vpm_setup', { scalar: true }], b: ['vw_setup', 'vpm_setup', { scalar: true }] },
  50: { a: ['vr_addr', 'dma_addr', { scalar: true }], b: ['vw_addr', 'dma_addr', { scalar: true }] },
  51: ['mutex', 'mutex', { scalar: true }],
  52: ['sfu_recip', 'sfu', { sfu: 0 }],
  53: ['sfu_recipsqrt', 'sfu', { sfu: 1 }],
  54: ['sfu_exp2', 'sfu', { sfu: 2 }],
  55: ['sfu_log2', 'sfu', { sfu: 3 }],
  56: ['tmu0_s', 'tmu', { tmu: 0, fifo: true }],
  57: ['tmu0_t', 'tmu', { tmu: 0, readsUniform: true }],
  58: ['tmu0_r', 'tmu', { tmu: 0, readsUniform: true }],
  59: ['tmu0_b', 'tmu', { tmu: 0, readsUniform: true }],
  60: ['tmu1_s', 'tmu', { tmu: 1, fifo: true }],
  61: ['tmu1_t', 'tmu', { tmu: 1, readsUniform: true }],
  62: ['tmu1_r', 'tmu', { tmu: 1, readsUniform: true }],
  63: ['tmu1_b', 'tmu', { tmu: 1, readsUniform: true }],
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

/** An address of a file with its row: a read or write an instruction makes (effects.ts). */
export interface RegAccess {
  readonly file: RegFile;
  readonly addr: number;
  readonly info: RegInfo;
}
/** One access object per file and address, made once: instructions' effects share them. */
const accesses = (file: RegFile, table: readonly RegInfo[]): readonly RegAccess[] => table.map((info, addr) => ({ file, addr, info }));
const READS_OF = { a: accesses('a', READ_A), b: accesses('b', READ_B) } as const;
const WRITES_OF = { a: accesses('a', WRITE_A), b: accesses('b', WRITE_B) } as const;
export function readAccess(file: RegFile, addr: number): RegAccess {
  return READS_OF[file][addr]!;
}
export function writeAccess(file: RegFile, addr: number): RegAccess {
  return WRITES_OF[file][addr]!;
}

/** The address a register name has when read (in regfile A, or in B for B's own names). */
function readAddress(name: ReadName): number {
  return [...READ_A, ...READ_B].findIndex((r) => r.name === name) % REGISTER_ADDRESSES;
}
/** The address a register name has when written. */
function writeAddress(name: WriteName): number {
  return [...WRITE_A, ...WRITE_B].findIndex((r) => r.name === name) % REGISTER_ADDRESSES;
}

// Addresses named in rules, the compiler and the emulator, from the tables above.
export const R_UNIF = readAddress('unif');
export const R_VARY = readAddress('vary');
export const R_ELEM_NUM = readAddress('elem_num'); // regfile A
export const R_QPU_NUM = readAddress('qpu_num'); // regfile B
export const R_NOP = readAddress('nop');
export const R_MS_FLAGS = readAddress('ms_flags'); // regfile A
export const R_VPM = readAddress('vpm');
export const R_VPM_BUSY = readAddress('vr_busy');
export const R_VPM_WAIT = readAddress('vr_wait');
export const R_MUTEX = readAddress('mutex');

export const W_ACC0 = writeAddress('r0');
export const W_ACC5 = writeAddress('r5quad');
export const W_TMU_NOSWAP = writeAddress('tmu_noswap');
export const W_HOST_INT = writeAddress('host_int');
export const W_NOP = writeAddress('nop');
export const W_UNIF_ADDR = writeAddress('unif_addr');
export const W_TLB_Z = writeAddress('tlb_z');
export const W_VPM = writeAddress('vpm');
export const W_VPM_SETUP = writeAddress('vr_setup');
export const W_DMA_ADDR = writeAddress('vr_addr');
export const W_MUTEX = writeAddress('mutex');
export const W_SFU_RECIP = writeAddress('sfu_recip');
export const W_SFU_LOG = writeAddress('sfu_log2');
export const W_TMU0_S = writeAddress('tmu0_s');
export const W_TMU1_S = writeAddress('tmu1_s');

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
  return WRITE_A[addr]!.tmu ?? -1;
}

/** True when a write address is a TMU "s" coordinate, which retires (queues) a request. */
export function isTmuRetiring(addr: number): boolean {
  const r = WRITE_A[addr]!;
  return r.unit === 'tmu' && r.fifo === true;
}
