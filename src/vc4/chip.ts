// The chip's own numbers: how many of each unit a VideoCore IV has and how large its memories
// are, each with where the reference guide says so. Every file that needs one of these imports it
// from here; none writes the number itself. (Encodings, registers and signals are in tables.ts
// and fields.ts; hardware rules in rules.ts.)

/** Lanes (SIMD elements) of a QPU: "a 16-way 32-bit SIMD processor" (Guide p. 16). */
export { LANES } from './tables.ts';

/** QPUs of a VideoCore IV: 3 slices of 4 (Guide p. 13, Figure 1; QPU_NUM is 0-11). */
export const MAX_QPUS = 12;

/** QPUs sharing a slice's TMUs and SFU (Guide p. 13). */
export const QPUS_PER_SLICE = 4;

/** TMUs of a slice: two, the QPUs' tmu0 and tmu1, the second half of a slice's QPUs swapped (Guide pp. 13, 39-40). */
export const TMUS_PER_SLICE = 2;

/** Counting semaphores shared by the QPUs, 0-15, each counting 0-15 (Guide p. 33). */
export const SEMAPHORES = 16;
export const SEMAPHORE_MAX = 15;

/** Rows of the VPM for general-purpose use, of 16 words each: 4 KiB (Guide p. 53). */
export const VPM_ROWS = 64;
export const VPM_WORDS = VPM_ROWS * 16;

/** Outstanding TMU requests a QPU may have: its FIFO's depth (rules.ts explains why 4). */
export { TMU_FIFO_DEPTH } from './rules.ts';
