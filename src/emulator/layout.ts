// The words of a QPU's state that translated code touches: one array of SLOT_WORDS 32-bit
// words a QPU (its slot in the register memory the WebAssembly code shares, wasm/slots.ts).
// The register files, the accumulators, scratch vectors the translated code passes I/O values
// through, the flags as 0/1 words, and scratch words for the SIMD code's calls back into
// arith.ts. A vector is 16 consecutive words, lane l at its first word + l.
// Needs: nothing. Guarantees: the areas do not overlap, and each word has one name (wordName).
// The JavaScript translation (translate.ts, inline.ts), the WebAssembly one (wasm/lanes.ts),
// the register memory (wasm/slots.ts) and the QPU (qpu.ts) all read the layout from here.

import { LANES } from '../vc4/chip.ts';

/** Regfile A: ra0-ra31 at REG_A + 16 * n. */
export const REG_A = 0;
/** Regfile B: rb0-rb31 at REG_B + 16 * n. */
export const REG_B = REG_A + 32 * LANES;
/** The accumulators r0-r5 at ACC + 16 * n. */
export const ACC = REG_B + 32 * LANES;
/** r4, where the SFU and the TMU deliver results, and r5. */
export const R4 = ACC + 4 * LANES;
export const R5 = ACC + 5 * LANES;
/** The vector read from regfile A and from regfile B when the read has an effect (the VPM). */
export const SA = ACC + 6 * LANES;
export const SB = SA + LANES;
/** The add and the mul ALU's results on their way to an I/O register. */
export const SADD = SB + LANES;
export const SMUL = SADD + LANES;
/** Two vectors: the mul inputs, for the flags of a rotated result. */
export const STMP = SMUL + LANES;
/** A rotated mul result on its way to an I/O register. */
export const SROT = STMP + 2 * LANES;
/** One word where generated code stores a float to read its rounded pattern back. */
export const FSCR = SROT + LANES;
/** The uniform an instruction read, for its SIMD function to spread over the lanes (access.ts, wasm/lanes.ts). */
export const UNIF = FSCR + 1;
/** The words above: the registers as the R and F views see them. */
export const R_WORDS = FSCR + 4;
/** The flags, 0 or 1 a lane. */
export const FLAG_Z = R_WORDS;
export const FLAG_N = FLAG_Z + LANES;
export const FLAG_C = FLAG_N + LANES;
/** Scratch words of the SIMD code's calls back into arith.ts (wasm/lanes.ts fixRareLanes). */
export const WSCR = FLAG_C + LANES;
export const SLOT_WORDS = WSCR + LANES;

/** The vectors that are not registers, by their first word, with their names. */
const SCRATCH: readonly [number, string][] = [
  [SA, 'in_a'],
  [SB, 'in_b'],
  [SADD, 'add_io'],
  [SMUL, 'mul_io'],
  [STMP, 'mul_in_a'],
  [STMP + LANES, 'mul_in_b'],
  [SROT, 'rot_io'],
  [FSCR, 'fscr'],
  [FLAG_Z, 'Z'],
  [FLAG_N, 'N'],
  [FLAG_C, 'C'],
  [WSCR, 'wscr'],
  [UNIF, 'unif'],
];

/** Each word's name (wordName), worked out once: translation asks for one at every reference. */
const NAMES: readonly string[] = Array.from({ length: SLOT_WORDS }, (_, w) => {
  if (w < REG_B) return w % LANES === 0 ? `ra${(w - REG_A) / LANES}` : String(w);
  if (w < ACC) return w % LANES === 0 ? `rb${(w - REG_B) / LANES}` : String(w);
  if (w < SA) return w % LANES === 0 ? `r${(w - ACC) / LANES}` : String(w);
  return SCRATCH.find(([at]) => at === w)?.[1] ?? String(w);
});

/**
 * The name of the vector whose first word is `w`: ra0-ra31, rb0-rb31, r0-r5, or the scratch
 * vector's (in_a, add_io, Z, ...); the word's number for any other word.
 */
export function wordName(w: number): string {
  return NAMES[w] ?? String(w);
}
