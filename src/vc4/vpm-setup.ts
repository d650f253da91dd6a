// The setup words of the VPM and its DMA engines: what a value written to vr_setup or vw_setup
// says, as field layouts with encode and decode. The compiler builds its setups with the encoders
// (compiler/lower-words.ts), the emulator reads what programs write with the decoders
// (emulator/vpm.ts), so the two cannot disagree about a bit. Source: Broadcom, "VideoCore IV 3D
// Architecture Reference Guide" (2013), section 7, Tables 32-37 (pp. 57-59); vc4asm's addendum
// for the 16-bit width of the VDW stride; Idein's qmkl on Pis for the 14-bit load pitch.
//
// Which format a word is in is told by its top bits (the ID): vr_setup takes a VPM read setup
// (ID 0), a DMA load setup (bit 31 set) or the load's extended pitch (bits 31:28 = 9); vw_setup
// a VPM write setup (ID 0), a DMA store setup (ID 2) or the store's stride (ID 3).

/** Bits `lo` to `lo + width - 1` of a 32-bit setup word. */
interface SetupField {
  readonly lo: number;
  readonly width: number;
}
const f = (lo: number, width: number): SetupField => ({ lo, width });

/**
 * A field's shift and mask as plain numbers, for the decoders: the emulator decodes a setup at
 * every write of one, and numbers it can fold into the code beat lookups in field objects.
 */
const shiftOf = (fd: SetupField) => fd.lo;
const maskOf = (fd: SetupField) => (1 << fd.width) - 1;

/** `x` in field `fd`, as an unsigned word to be ored with the others; throws when it does not fit. */
function put(fd: SetupField, x: number, what: string): number {
  if (!Number.isInteger(x) || x < 0 || x >= 2 ** fd.width) throw new RangeError(`${what} ${x} does not fit the setup's ${fd.width}-bit field`);
  return (x << fd.lo) >>> 0;
}

/** A count from 1 to 2^width, where the largest is written as 0. */
const countField = (n: number, fd: SetupField) => n % 2 ** fd.width;

/** A setup word (an unsigned 32-bit value) that the guide does not define, or the emulator does not run. */
export class VpmFormatError extends Error {}

const hex = (v: number) => `0x${(v >>> 0).toString(16)}`;

// ---- VPM generic block read and write setups (Tables 32 and 33, ID 0)

const VPM = {
  id: f(30, 2),
  /** Reads only: vectors to read. */
  num: f(20, 4),
  stride: f(12, 6),
  horizontal: f(11, 1),
  laned: f(10, 1),
  size: f(8, 2),
  addr: f(0, 8),
} as const;
const VPM_ID = 0;

/** Element sizes by SIZE code; code 3 is reserved (0 here). */
const SIZES = [8, 16, 32, 0] as const;
export type ElementSize = Exclude<(typeof SIZES)[number], 0>;

/** A VPM generic block read or write setup. */
export interface VpmSetup {
  /** 8, 16 or 32-bit elements. */
  readonly size: ElementSize;
  readonly horizontal: boolean;
  readonly laned: boolean;
  /** Added to the address after each vector: 1-64. */
  readonly stride: number;
  /** For reads: how many vectors, 1-16 (0 for a write setup). */
  readonly count: number;
  /** The address of the first vector: for 32-bit horizontal vectors, the VPM row. */
  readonly addr: number;
}

function encodeVpm(s: VpmSetup, read: boolean): number {
  return (
    (put(VPM.id, VPM_ID, 'ID') |
      (read ? put(VPM.num, countField(s.count, VPM.num), 'vector count') : 0) |
      put(VPM.stride, countField(s.stride, VPM.stride), 'stride') |
      put(VPM.horizontal, s.horizontal ? 1 : 0, 'horizontal') |
      put(VPM.laned, s.laned ? 1 : 0, 'laned') |
      put(VPM.size, (SIZES as readonly number[]).indexOf(s.size), 'size') |
      put(VPM.addr, s.addr, 'address')) >>>
    0
  );
}

/** The word of a VPM read setup (Table 33). */
export function encodeVpmReadSetup(s: VpmSetup): number {
  return encodeVpm(s, true);
}
/** The word of a VPM write setup (Table 32); `count` is not part of it. */
export function encodeVpmWriteSetup(s: Omit<VpmSetup, 'count'>): number {
  return encodeVpm({ ...s, count: 0 }, false);
}

const [VPM_NUM_SHIFT, VPM_NUM_MASK] = [shiftOf(VPM.num), maskOf(VPM.num)];
const [VPM_STRIDE_SHIFT, VPM_STRIDE_MASK] = [shiftOf(VPM.stride), maskOf(VPM.stride)];
const [VPM_HORIZONTAL_SHIFT, VPM_LANED_SHIFT] = [shiftOf(VPM.horizontal), shiftOf(VPM.laned)];
const [VPM_SIZE_SHIFT, VPM_SIZE_MASK] = [shiftOf(VPM.size), maskOf(VPM.size)];
const [VPM_ADDR_SHIFT, VPM_ADDR_MASK] = [shiftOf(VPM.addr), maskOf(VPM.addr)];

/** A VPM read (`read`) or write setup word; throws VpmFormatError for the reserved size. */
export function decodeVpmSetup(v: number, read: boolean): VpmSetup {
  const size = SIZES[(v >>> VPM_SIZE_SHIFT) & VPM_SIZE_MASK]!;
  if (size === 0) throw new VpmFormatError(`VPM setup ${hex(v)} has the reserved size 3`);
  return {
    size,
    horizontal: ((v >>> VPM_HORIZONTAL_SHIFT) & 1) === 1,
    laned: ((v >>> VPM_LANED_SHIFT) & 1) === 1,
    stride: ((v >>> VPM_STRIDE_SHIFT) & VPM_STRIDE_MASK) || VPM_STRIDE_MASK + 1,
    count: read ? ((v >>> VPM_NUM_SHIFT) & VPM_NUM_MASK) || VPM_NUM_MASK + 1 : 0,
    addr: (v >>> VPM_ADDR_SHIFT) & VPM_ADDR_MASK,
  };
}

// ---- DMA store (VDW) setup and stride (Tables 34 and 35, IDs 2 and 3)

const VDW = {
  id: f(30, 2),
  units: f(23, 7),
  depth: f(16, 7),
  horizontal: f(14, 1),
  /** The VPM address of the first word: row Y in its bits 10:4, column X in 3:0. */
  vpmBase: f(3, 11),
  modew: f(0, 3),
} as const;
const VDW_ID = 2;
const VDW_STRIDE = { id: f(30, 2), stride: f(0, 16) } as const;
const VDW_STRIDE_ID = 3;

/** MODEW (and the load's MODEW) 0: 32-bit words; 8- and 16-bit modes are other codes. */
export const DMA_MODE_32 = 0;
/**
 * The DMA engines' 16- and 8-bit modes (Table 34's and Table 36's MODEW): 2-3 are 16-bit
 * elements, MODEW[0] selecting the half-word sub-vector H; 4-7 are 8-bit, MODEW[1:0] the byte
 * sub-vector B. An element goes to or comes from that packed sub-vector of the VPM row.
 */
export const DMA_MODE_16 = 2;
export const DMA_MODE_8 = 4;
/** The bytes of a DMA mode's elements, which its memory address must be a multiple of (4 for MODEW 1, which transfers refuse later). */
export const dmaElementBytes = (modew: number): number => (dmaWidth(modew)?.bits ?? 32) / 8;

/** A DMA mode's element size in bits and its sub-vector (H or B); 32-bit for 0, undefined for 1 (no width). */
export function dmaWidth(modew: number): { bits: 8 | 16 | 32; sel: number } | undefined {
  if (modew === DMA_MODE_32) return { bits: 32, sel: 0 };
  if (modew >= DMA_MODE_8) return { bits: 8, sel: modew - DMA_MODE_8 };
  if (modew >= DMA_MODE_16) return { bits: 16, sel: modew - DMA_MODE_16 };
  return undefined;
}

/** Bits a VPM row number is shifted by within a VDW setup's VPMBASE (its low 4 bits are the column). */
const ROW_IN_BASE = 4;

/** A DMA store from the VPM to memory: `units` rows of `depth` words. */
export interface VdwSetup {
  /** Rows, 1-128. */
  readonly units: number;
  /** Words a row, 1-128. */
  readonly depth: number;
  readonly horizontal: boolean;
  /** The VPM address of the first word: row << 4 | column. */
  readonly vpmBase: number;
  readonly modew: number;
}

export function encodeVdwSetup(s: VdwSetup): number {
  return (
    (put(VDW.id, VDW_ID, 'ID') |
      put(VDW.units, countField(s.units, VDW.units), 'units') |
      put(VDW.depth, countField(s.depth, VDW.depth), 'depth') |
      put(VDW.horizontal, s.horizontal ? 1 : 0, 'horizontal') |
      put(VDW.vpmBase, s.vpmBase, 'VPM base') |
      put(VDW.modew, s.modew, 'mode')) >>>
    0
  );
}

const [VDW_UNITS_SHIFT, VDW_UNITS_MASK] = [shiftOf(VDW.units), maskOf(VDW.units)];
const [VDW_DEPTH_SHIFT, VDW_DEPTH_MASK] = [shiftOf(VDW.depth), maskOf(VDW.depth)];
const VDW_HORIZONTAL_SHIFT = shiftOf(VDW.horizontal);
const [VDW_BASE_SHIFT, VDW_BASE_MASK] = [shiftOf(VDW.vpmBase), maskOf(VDW.vpmBase)];
const [VDW_MODE_SHIFT, VDW_MODE_MASK] = [shiftOf(VDW.modew), maskOf(VDW.modew)];

export function decodeVdwSetup(v: number): VdwSetup {
  return {
    units: ((v >>> VDW_UNITS_SHIFT) & VDW_UNITS_MASK) || VDW_UNITS_MASK + 1,
    depth: ((v >>> VDW_DEPTH_SHIFT) & VDW_DEPTH_MASK) || VDW_DEPTH_MASK + 1,
    horizontal: ((v >>> VDW_HORIZONTAL_SHIFT) & 1) === 1,
    vpmBase: (v >>> VDW_BASE_SHIFT) & VDW_BASE_MASK,
    modew: (v >>> VDW_MODE_SHIFT) & VDW_MODE_MASK,
  };
}

/** A DMA store's stride: the bytes between the end of one memory row and the start of the next. */
export function encodeVdwStride(bytes: number): number {
  return (put(VDW_STRIDE.id, VDW_STRIDE_ID, 'ID') | put(VDW_STRIDE.stride, bytes, 'stride')) >>> 0;
}
const [STRIDE_SHIFT, STRIDE_MASK] = [shiftOf(VDW_STRIDE.stride), maskOf(VDW_STRIDE.stride)];
/** The largest stride a DMA store takes (its field's width, Table 35): bytes between one memory row's end and the next's start. */
export const VDW_MAX_STRIDE = STRIDE_MASK;
export function decodeVdwStride(v: number): number {
  return (v >>> STRIDE_SHIFT) & STRIDE_MASK;
}

// ---- DMA load (VDR) setup and extended pitch (Tables 36 and 37)

const VDR = {
  /** Bit 31 set: a DMA load setup. */
  id: f(31, 1),
  modew: f(28, 3),
  mpitch: f(24, 4),
  rowLength: f(20, 4),
  rows: f(16, 4),
  vpitch: f(12, 4),
  vertical: f(11, 1),
  /** The VPM row; the 64 rows of general-purpose VPM take 6 bits. */
  y: f(4, 6),
  x: f(0, 4),
} as const;
const VDR_ID = 1;
/**
 * The extended pitch is taken as 14 bits, not the Guide's 13 (Table 37): inferred from programs
 * run on Pis, not measured. Idein's qmkl SGEMM and py-videocore's load C's rows with it, the
 * pitch a row of C: their example's R = 3072 (12,288 bytes, bit 13; beta = 1, so the rows
 * loaded count) gives right results on Pis, while qmkl at R = 4608 (18,432 bytes, bit 14) and
 * R = 15,360 (61,440 bytes) went wrong on a Pi 3B (Idein/qmkl issue 42, where its author calls
 * the chip's limit larger than documented and unknown, and its later code loads row by row past
 * 8,191 bytes). 14 bits is the one width both agree with; the bits above are ignored, as the
 * Guide's unused bits are. Nothing is known of the Pi 1's chip. docs/emulator.md.
 */
const VDR_PITCH = { id: f(28, 4), pitch: f(0, 14) } as const;
const VDR_PITCH_ID = 9;

/** A DMA load from memory to the VPM: `rows` rows of `rowLength` words. */
export interface VdrSetup {
  readonly modew: number;
  /** The memory pitch is 8 << mpitch bytes; 0: the extended pitch (Table 37). */
  readonly mpitch: number;
  /** Words a row, 1-16. */
  readonly rowLength: number;
  /** Rows, 1-16. */
  readonly rows: number;
  /** VPM rows between the rows loaded, 1-16. */
  readonly vpitch: number;
  readonly vertical: boolean;
  readonly x: number;
  readonly y: number;
}

export function encodeVdrSetup(s: VdrSetup): number {
  return (
    (put(VDR.id, VDR_ID, 'ID') |
      put(VDR.modew, s.modew, 'mode') |
      put(VDR.mpitch, s.mpitch, 'memory pitch') |
      put(VDR.rowLength, countField(s.rowLength, VDR.rowLength), 'row length') |
      put(VDR.rows, countField(s.rows, VDR.rows), 'rows') |
      put(VDR.vpitch, countField(s.vpitch, VDR.vpitch), 'VPM pitch') |
      put(VDR.vertical, s.vertical ? 1 : 0, 'vertical') |
      put(VDR.y, s.y, 'row') |
      put(VDR.x, s.x, 'column')) >>>
    0
  );
}

const [VDR_MODE_SHIFT, VDR_MODE_MASK] = [shiftOf(VDR.modew), maskOf(VDR.modew)];
const [VDR_MPITCH_SHIFT, VDR_MPITCH_MASK] = [shiftOf(VDR.mpitch), maskOf(VDR.mpitch)];
const [VDR_LENGTH_SHIFT, VDR_LENGTH_MASK] = [shiftOf(VDR.rowLength), maskOf(VDR.rowLength)];
const [VDR_ROWS_SHIFT, VDR_ROWS_MASK] = [shiftOf(VDR.rows), maskOf(VDR.rows)];
const [VDR_VPITCH_SHIFT, VDR_VPITCH_MASK] = [shiftOf(VDR.vpitch), maskOf(VDR.vpitch)];
const VDR_VERTICAL_SHIFT = shiftOf(VDR.vertical);
const [VDR_Y_SHIFT, VDR_Y_MASK] = [shiftOf(VDR.y), maskOf(VDR.y)];
const [VDR_X_SHIFT, VDR_X_MASK] = [shiftOf(VDR.x), maskOf(VDR.x)];

export function decodeVdrSetup(v: number): VdrSetup {
  return {
    modew: (v >>> VDR_MODE_SHIFT) & VDR_MODE_MASK,
    mpitch: (v >>> VDR_MPITCH_SHIFT) & VDR_MPITCH_MASK,
    rowLength: ((v >>> VDR_LENGTH_SHIFT) & VDR_LENGTH_MASK) || VDR_LENGTH_MASK + 1,
    rows: ((v >>> VDR_ROWS_SHIFT) & VDR_ROWS_MASK) || VDR_ROWS_MASK + 1,
    vpitch: ((v >>> VDR_VPITCH_SHIFT) & VDR_VPITCH_MASK) || VDR_VPITCH_MASK + 1,
    vertical: ((v >>> VDR_VERTICAL_SHIFT) & 1) === 1,
    y: (v >>> VDR_Y_SHIFT) & VDR_Y_MASK,
    x: (v >>> VDR_X_SHIFT) & VDR_X_MASK,
  };
}

/** A DMA load's extended pitch: the bytes between memory rows when MPITCH is 0. */
export function encodeVdrPitch(bytes: number): number {
  return (put(VDR_PITCH.id, VDR_PITCH_ID, 'ID') | put(VDR_PITCH.pitch, bytes, 'pitch')) >>> 0;
}
const [PITCH_SHIFT, PITCH_MASK] = [shiftOf(VDR_PITCH.pitch), maskOf(VDR_PITCH.pitch)];
export function decodeVdrPitch(v: number): number {
  return (v >>> PITCH_SHIFT) & PITCH_MASK;
}
/** The bits of an extended pitch word between its pitch and its ID, which the chip ignores (and with them a program's loads go wrong): 0 when none is set. */
const PITCH_UNUSED = ((1 << VDR_PITCH.id.lo) - 1) & ~(PITCH_MASK << PITCH_SHIFT);
export function vdrPitchExcess(v: number): number {
  return v & PITCH_UNUSED;
}

// ---- Which format a setup word is in

// The IDs are the top bits: shifting them down leaves nothing above them.
const PITCH_ID_SHIFT = shiftOf(VDR_PITCH.id);
const VDR_ID_SHIFT = shiftOf(VDR.id);
const [ID_SHIFT, ID_MASK] = [shiftOf(VPM.id), maskOf(VPM.id)];

/** What a word written to vr_setup sets up: a VPM read, a DMA load, the load's pitch, or nothing defined. */
export function readSetupKind(v: number): 'vpm' | 'dma' | 'pitch' | undefined {
  if (v >>> PITCH_ID_SHIFT === VDR_PITCH_ID) return 'pitch';
  if (v >>> VDR_ID_SHIFT === VDR_ID) return 'dma';
  if (((v >>> ID_SHIFT) & ID_MASK) === VPM_ID) return 'vpm';
  return undefined;
}

/** What a word written to vw_setup sets up: a VPM write, a DMA store, the store's stride, or (ID 1) nothing the emulator runs. */
export function writeSetupKind(v: number): 'vpm' | 'dma' | 'stride' | undefined {
  const id = (v >>> ID_SHIFT) & ID_MASK;
  return id === VPM_ID ? 'vpm' : id === VDW_ID ? 'dma' : id === VDW_STRIDE_ID ? 'stride' : undefined;
}

// ---- Where a row goes, for setups made for one row and moved to another by adding

/** The bit where a VPM read or write setup's address starts: a 32-bit horizontal vector's row. */
export const VPM_SETUP_ROW_SHIFT = VPM.addr.lo;
/** The bit where a DMA store setup's VPM row starts (VPMBASE's row part). */
export const VDW_SETUP_ROW_SHIFT = VDW.vpmBase.lo + ROW_IN_BASE;
/** The bit where a DMA store setup's VPM column starts (VPMBASE's column part). */
export const VDW_SETUP_COLUMN_SHIFT = VDW.vpmBase.lo;
/** The bit where a DMA load setup's VPM row starts. */
export const VDR_SETUP_ROW_SHIFT = VDR.y.lo;

/** Where a DMA load setup's row length (0: 16 words) and a DMA store setup's depth sit: a counted load or store sets them at run time. */
export const VDR_ROW_LENGTH_SHIFT = VDR_LENGTH_SHIFT;
export const VDW_SETUP_DEPTH_SHIFT = VDW_DEPTH_SHIFT;
