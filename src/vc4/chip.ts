// The chip's own numbers: how many of each unit a VideoCore IV has, how large its memories are
// and how many instructions its latencies last, each with where the reference guide says so.
// Every file that needs one of these imports it from here; none writes the number itself.
// (Encodings are in fields.ts and vpm-setup.ts, opcodes, conditions and signals in tables.ts,
// registers in registers.ts, branch delay slots in flow.ts; hardware rules in rules.ts.)

/** Lanes (SIMD elements) of a QPU: "a 16-way 32-bit SIMD processor" (Guide p. 16). */
export { LANES } from './tables.ts';
import { LANES } from './tables.ts';

/** Bytes of a word: a lane's 32 bits, what an address counts in. */
export const WORD_BYTES = 4;

/** Bytes of a 16-lane vector of 32-bit words: a VPM row, a DMA row of the compiler's, a lane-wise load. */
export const VECTOR_BYTES = LANES * WORD_BYTES;

/** QPUs of a VideoCore IV: 3 slices of 4 (Guide p. 13, Figure 1; QPU_NUM is 0-11). */
export const MAX_QPUS = 12;

/** QPUs sharing a slice's TMUs and SFU (Guide p. 13). */
export const QPUS_PER_SLICE = 4;

/** TMUs of a slice: two, the QPUs' tmu0 and tmu1, the second half of a slice's QPUs swapped (Guide pp. 13, 39-40). */
export const TMUS_PER_SLICE = 2;

/** Counting semaphores shared by the QPUs, numbered 0-15 (Guide p. 33). */
export const SEMAPHORES = 16;
/** The highest count a semaphore holds: each counts 0-15, and an increment at 15 waits (Guide p. 33). */
export const SEMAPHORE_COUNT_MAX = 15;

/** Rows of the VPM for general-purpose use, of 16 words each: 4 KiB (Guide p. 53). */
export const VPM_ROWS = 64;
export const VPM_WORDS = VPM_ROWS * 16;

/** Outstanding TMU requests a QPU may have: its FIFO's depth (rules.ts explains why 4). */
export { TMU_FIFO_DEPTH } from './rules.ts';

/** Accumulators r0-r5 (Guide p. 17; r4 and r5 are special: p. 18). */
export const ACCUMULATORS = 6;

// Latencies, in instructions from a write to the first instruction that sees it. The rules
// (rules.ts) forbid reading sooner; the compiler's scheduler plans with them, the emulator times by them.

/** A regfile A or B location reads back the second instruction after its write (Guide p. 17). */
export const REGFILE_LATENCY = 2;

/** r4 holds an SFU result from the third instruction after the SFU write (Guide p. 23). */
export const SFU_LATENCY = 3;

/**
 * A VPM read's data arrives three instructions after its read setup: "the first read must be at
 * least three instructions after the read setup" (Guide p. 56). vc4asm's addendum found that an
 * earlier read waits rather than returning garbage, so the emulator stalls it until then.
 */
export const VPM_READ_LATENCY = 3;
