// Pack and unpack: the conversions between 32-bit ALU values and 16-bit or 8-bit fields on the
// regfile-A read and write paths, r4's unpack, and the mul ALU's float-to-colour pack.
// Source: Broadcom, "VideoCore IV 3D Architecture Reference Guide" (2013), Tables 6-9 (pp. 31-32).
// A pack into a 16-bit or 8-bit field leaves the rest of the destination register as it was.

import { fromF, toF } from '../vc4/arith.ts';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE half-precision bits to a float32 pattern (exact). */
export function halfToFloatBits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const exp = (h >>> 10) & 31;
  const frac = h & 0x3ff;
  if (exp === 31) return sign | 0x7f800000 | (frac << 13);
  if (exp === 0) return fromF((sign ? -1 : 1) * frac * 2 ** -24);
  return sign | ((exp - 15 + 127) << 23) | (frac << 13);
}

/** A float32 pattern to half-precision bits, rounded to nearest even, overflowing to infinity. */
export function floatBitsToHalf(bits: number): number {
  u32[0] = bits;
  const f = f32[0]!;
  const sign = (bits >>> 16) & 0x8000;
  if (Number.isNaN(f)) return sign | 0x7e00;
  const a = Math.abs(f);
  if (a >= 65520) return sign | 0x7c00;
  if (a < 2 ** -25) return sign;
  if (a < 2 ** -14) return sign | roundEven(a / 2 ** -24); // half denormal
  const e = Math.floor(Math.log2(a));
  let m = roundEven((a / 2 ** e - 1) * 1024);
  let exp = e + 15;
  if (m === 1024) {
    m = 0;
    exp++;
  }
  return sign | (exp << 10) | m;
}

function roundEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

const clamp = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

/** Regfile-A unpack (pm = 0, Table 6). `float`: some ALU reading it does a float operation. */
export function unpackA(mode: number, v: number, float: boolean): number {
  switch (mode) {
    case 1:
      return float ? halfToFloatBits(v & 0xffff) : (v << 16) >> 16;
    case 2:
      return float ? halfToFloatBits((v >>> 16) & 0xffff) : v >> 16;
    case 3:
      return Math.imul((v >>> 24) & 255, 0x01010101);
    case 4:
    case 5:
    case 6:
    case 7: {
      const b = (v >>> (8 * (mode - 4))) & 255;
      return float ? fromF(b / 255) : b;
    }
    default:
      return v;
  }
}

/** r4 unpack (pm = 1, Table 8): the same fields, always as floats. */
export function unpackR4(mode: number, v: number): number {
  return mode === 3 ? unpackA(3, v, true) : unpackA(mode, v, true);
}

/**
 * Regfile-A pack (pm = 0, Table 7). `isFloat`: the value is a float result; `exact`: for add
 * and sub, the unwrapped sum, which the saturating 32-bit pack clamps.
 */
export function packA(mode: number, old: number, v: number, isFloat: boolean, exact?: number): number {
  const half = (x: number, high: boolean) => (high ? (old & 0xffff) | (x << 16) : (old & ~0xffff) | (x & 0xffff));
  const byte = (x: number, k: number) => (old & ~(255 << (8 * k))) | ((x & 255) << (8 * k));
  switch (mode) {
    case 1:
    case 2:
      return half(isFloat ? floatBitsToHalf(v) : v, mode === 2);
    case 3:
      return Math.imul(v & 255, 0x01010101);
    case 4:
    case 5:
    case 6:
    case 7:
      return byte(v, mode - 4);
    case 8:
      return exact === undefined ? v : clamp(exact, -2147483648, 2147483647) | 0;
    case 9:
    case 10:
      return half(isFloat ? floatBitsToHalf(v) : clamp(v, -32768, 32767), mode === 10);
    case 11:
      return Math.imul(clamp(v, 0, 255), 0x01010101);
    default:
      return byte(clamp(v, 0, 255), mode - 12);
  }
}

/** Mul ALU colour pack (pm = 1, Table 9): c = saturate(round(f * 255)) into a byte or all four. */
export function packMul(mode: number, old: number, v: number): number {
  const c = clamp(Math.round(toF(v) * 255), 0, 255) || 0;
  if (mode === 3) return Math.imul(c, 0x01010101);
  const k = mode - 4;
  return (old & ~(255 << (8 * k))) | (c << (8 * k));
}
