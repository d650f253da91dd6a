// Pack and unpack: the conversions between 32-bit ALU values and 16-bit or 8-bit fields on the
// regfile-A read and write paths, r4's unpack, and the mul ALU's float-to-colour pack.
// Source: Broadcom, "VideoCore IV 3D Architecture Reference Guide" (2013), Tables 6-9 (pp. 31-32).
// A pack into a 16-bit or 8-bit field leaves the rest of the destination register as it was.

import { colourToFloatBits, toF } from '../vc4/arith.ts';
import { PACK_A_MODES, PACK_MUL_MODES, UNPACK_MODES } from '../vc4/tables.ts';

// The modes by their names in the tables (constants of this module, which V8 folds into the
// translated code that calls these functions with a constant mode).
const unpackMode = (name: (typeof UNPACK_MODES)[number]) => UNPACK_MODES.indexOf(name);
const packMode = (name: (typeof PACK_A_MODES)[number]) => PACK_A_MODES.indexOf(name);
const U16A = unpackMode('16a');
const U16B = unpackMode('16b');
const U8DR = unpackMode('8dr');
const U8A = unpackMode('8a');
const U8B = unpackMode('8b');
const U8C = unpackMode('8c');
const U8D = unpackMode('8d');
const P16A = packMode('16a');
const P16B = packMode('16b');
const P8888 = packMode('8888');
const P8A = packMode('8a');
const P8B = packMode('8b');
const P8C = packMode('8c');
const P8D = packMode('8d');
const P32S = packMode('32s');
const P16AS = packMode('16as');
const P16BS = packMode('16bs');
const P8888S = packMode('8888s');
/** The first of the saturating byte packs, 8as-8ds. */
const P8AS = packMode('8as');
const MUL_8888 = PACK_MUL_MODES.indexOf('8888');
/** The first of the mul ALU's byte packs, 8a-8d. */
const MUL_8A = PACK_MUL_MODES.indexOf('8a');

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * Half-precision bits as a float32 pattern, as the unpack unit makes it: normal values exactly;
 * a half denormal keeps its mantissa with a zero exponent, not normalised (VC4C's hardware
 * tables: 0x0001 unpacks to 0x00002000).
 */
export function halfToFloatBits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const exp = (h >>> 10) & 31;
  const frac = h & 0x3ff;
  if (exp === 31) return sign | 0x7f800000 | (frac << 13);
  if (exp === 0) return sign | (frac << 13);
  return sign | ((exp - 15 + 127) << 23) | (frac << 13);
}

/**
 * A float32 pattern to half precision, as the regfile-A pack makes it: zero, denormals and
 * values below the half range give +0; values beyond it and NaN give an infinity of their sign;
 * others round to nearest even (the hardware tables fit this and rounding away from zero).
 */
export function floatBitsToHalf(bits: number): number {
  const neg = bits < 0;
  if ((bits & 0x7fffffff) >= 0x7f800000) return neg ? 0xfc00 : 0x7c00;
  u32[0] = bits;
  const a = Math.abs(f32[0]!);
  if (a < 2 ** -24) return 0;
  let h: number;
  if (a < 2 ** -14) h = roundEven(a / 2 ** -24); // a half denormal
  else {
    const e = Math.floor(Math.log2(a));
    const m = roundEven((a / 2 ** e - 1) * 1024);
    h = m === 1024 ? (e + 16) << 10 : ((e + 15) << 10) | m;
  }
  if (h >= 0x7c00) return neg ? 0xfc00 : 0x7c00;
  return h === 0 ? 0 : (neg ? 0x8000 : 0) | h;
}

function roundEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

const clamp = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

/** Regfile-A unpack (pm = 0, Table 6). `float`: some ALU reading it does a float operation. */
export function unpackA(mode: number, v: number, float: boolean): number {
  switch (mode) {
    case U16A:
      return float ? halfToFloatBits(v & 0xffff) : (v << 16) >> 16;
    case U16B:
      return float ? halfToFloatBits((v >>> 16) & 0xffff) : v >> 16;
    case U8DR:
      return Math.imul((v >>> 24) & 255, 0x01010101);
    case U8A:
    case U8B:
    case U8C:
    case U8D: {
      const b = (v >>> (8 * (mode - U8A))) & 255;
      return float ? colourToFloatBits(b) : b;
    }
    default:
      return v;
  }
}

/** r4 unpack (pm = 1, Table 8): the same fields, always as floats. */
export function unpackR4(mode: number, v: number): number {
  return unpackA(mode, v, true);
}

// What packA builds with, functions of the module rather than closures made at each call (tsx,
// which runs the tests and benches, names each closure as it is made: packed code ran 200 times
// slower).

/** `x` into the low or high half of `old`. */
const half = (old: number, x: number, high: boolean) => (high ? (old & 0xffff) | (x << 16) : (old & ~0xffff) | (x & 0xffff));
/** `x` into byte k of `old`. */
const byte = (old: number, x: number, k: number) => (old & ~(255 << (8 * k))) | ((x & 255) << (8 * k));

/** v saturated to [lo, hi]; on overflow, the end the carry picks, or 0 when the value disagrees. */
function sat(v: number, lo: number, hi: number, overflow: number, carry: number): number {
  if (!overflow) return clamp(v, lo, hi);
  const sv = carry ? lo : hi;
  if (v >= lo && v <= hi) return sv;
  return sv === (v < 0 ? lo : hi) ? sv : 0;
}

/**
 * Regfile-A pack (pm = 0, Table 7). `isFloat`: the value is a float result. `overflow` and
 * `carry`: the signed overflow and the C flag of an add or sub (0 for other ops). The rules
 * reproduce VC4C's hardware pack tables: on overflow the saturating and truncating packs give
 * the value the carry points to, and sub's saturation comes out inverted.
 */
export function packA(mode: number, old: number, v: number, isFloat: boolean, overflow = 0, carry = 0): number {
  switch (mode) {
    case P16A:
    case P16B:
      return half(old, isFloat ? floatBitsToHalf(v) : overflow ? (carry ? 0x8000 : 0x7fff) : v, mode === P16B);
    case P8888:
      return Math.imul(overflow ? (carry ? 0 : 255) : v & 255, 0x01010101);
    case P8A:
    case P8B:
    case P8C:
    case P8D:
      return byte(old, overflow ? (carry ? 0 : 255) : v, mode - P8A);
    case P32S:
      return isFloat || !overflow ? v : carry ? 0x80000000 | 0 : 0x7fffffff;
    case P16AS:
    case P16BS:
      return half(old, isFloat ? floatBitsToHalf(v) : sat(v, -32768, 32767, overflow, carry), mode === P16BS);
    case P8888S:
      return Math.imul(sat(v, 0, 255, overflow, carry), 0x01010101);
    default: // 8as-8ds
      return byte(old, sat(v, 0, 255, overflow, carry), mode - P8AS);
  }
}

/** Mul ALU colour pack (pm = 1, Table 9): c = saturate(round(f * 255)) into a byte or all four. */
export function packMul(mode: number, old: number, v: number): number {
  const c = clamp(Math.round(toF(v) * 255), 0, 255) || 0;
  if (mode === MUL_8888) return Math.imul(c, 0x01010101);
  const k = mode - MUL_8A;
  return (old & ~(255 << (8 * k))) | (c << (8 * k));
}
