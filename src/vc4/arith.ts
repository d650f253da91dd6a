// The QPU's arithmetic, lane by lane, on 32-bit patterns: what each ALU operation computes and
// how it sets the flags. The emulator executes these, and the language's reference interpreter
// uses the same functions, so the two agree bit for bit by construction. Choices where the
// hardware is not documented are explained in docs/emulator.md.
//
// Values are int32 patterns (JavaScript numbers in int32 range). Floats are IEEE single
// precision without denormals: a denormal input reads as zero of the same sign and a denormal
// result is flushed to zero of the same sign (vc4asm's addendum, "no inf, nan, denormal
// support"; V3DLib's notes).

const f32 = new Float32Array(2);
const i32 = new Int32Array(f32.buffer);

/** A float pattern with denormals flushed to a signed zero. */
export function ftz(bits: number): number {
  return (bits & 0x7f800000) === 0 ? bits & 0x80000000 : bits;
}

/** The float value of a pattern (denormals read as zero). */
export function toF(bits: number): number {
  i32[0] = ftz(bits);
  return f32[0]!;
}

/** The pattern of a number rounded to single precision, flushed; NaN is always 0x7FC00000. */
export function fromF(v: number): number {
  if (v !== v) return 0x7fc00000;
  f32[0] = v;
  return ftz(i32[0]!);
}

// ---- add ALU

export const fadd = (a: number, b: number) => fromF(toF(a) + toF(b));
export const fsub = (a: number, b: number) => fromF(toF(a) - toF(b));

/** fmin/fmax compare as floats; on a tie (including +0 and -0) they return a. */
export function fmin(a: number, b: number): number {
  const fa = toF(a);
  const fb = toF(b);
  return fromF(fb < fa ? fb : fa);
}
export function fmax(a: number, b: number): number {
  const fa = toF(a);
  const fb = toF(b);
  return fromF(fb > fa ? fb : fa);
}
/** The smaller (larger) absolute value, as a positive number. */
export const fminabs = (a: number, b: number) => fmin(a & 0x7fffffff, b & 0x7fffffff);
export const fmaxabs = (a: number, b: number) => fmax(a & 0x7fffffff, b & 0x7fffffff);

/**
 * Float to signed integer, truncating toward zero. Values outside the int32 range, infinities
 * and NaN give 0 (docs/emulator.md: the choice and its source).
 */
export function ftoi(a: number): number {
  const f = toF(a);
  if (!(f > -2147483649 && f < 2147483648)) return 0;
  return Math.trunc(f) | 0;
}

/** Signed integer to float, rounded to nearest even. */
export const itof = (a: number) => fromF(a | 0);

export const add = (a: number, b: number) => (a + b) | 0;
export const sub = (a: number, b: number) => (a - b) | 0;
/** Shifts and rotates use the low 5 bits of the amount. */
export const shr = (a: number, b: number) => (a >>> (b & 31)) | 0;
export const asr = (a: number, b: number) => a >> (b & 31);
export const ror = (a: number, b: number) => ((a >>> (b & 31)) | (a << (32 - (b & 31)))) | 0;
export const shl = (a: number, b: number) => a << (b & 31);
export const min = (a: number, b: number) => ((a | 0) < (b | 0) ? a | 0 : b | 0);
export const max = (a: number, b: number) => ((a | 0) > (b | 0) ? a | 0 : b | 0);
export const and = (a: number, b: number) => a & b;
export const or = (a: number, b: number) => a | b;
export const xor = (a: number, b: number) => a ^ b;
export const not = (a: number) => ~a;
export const clz = (a: number) => Math.clz32(a);

/** Per-byte unsigned saturating add and subtract. */
export function v8adds(a: number, b: number): number {
  let r = 0;
  for (let s = 0; s < 32; s += 8) r |= Math.min(255, ((a >>> s) & 255) + ((b >>> s) & 255)) << s;
  return r;
}
export function v8subs(a: number, b: number): number {
  let r = 0;
  for (let s = 0; s < 32; s += 8) r |= Math.max(0, ((a >>> s) & 255) - ((b >>> s) & 255)) << s;
  return r;
}

// ---- mul ALU

export const fmul = (a: number, b: number) => fromF(toF(a) * toF(b));

/** The low 24 bits of each operand, unsigned, multiplied; the low 32 bits of the product. */
export const mul24 = (a: number, b: number) => Math.imul(a & 0xffffff, b & 0xffffff);

/** Per-byte product of values read as fractions of 255: (a * b + 127) / 255 (vc4asm's table). */
export function v8muld(a: number, b: number): number {
  let r = 0;
  for (let s = 0; s < 32; s += 8) r |= Math.floor((((a >>> s) & 255) * ((b >>> s) & 255) + 127) / 255) << s;
  return r;
}
export function v8min(a: number, b: number): number {
  let r = 0;
  for (let s = 0; s < 32; s += 8) r |= Math.min((a >>> s) & 255, (b >>> s) & 255) << s;
  return r;
}
export function v8max(a: number, b: number): number {
  let r = 0;
  for (let s = 0; s < 32; s += 8) r |= Math.max((a >>> s) & 255, (b >>> s) & 255) << s;
  return r;
}

/** Add ALU operations by opcode (undefined: nop or reserved). */
export const ADD_FNS: readonly ((a: number, b: number) => number)[] = [];
/** Mul ALU operations by opcode. */
export const MUL_FNS: readonly ((a: number, b: number) => number)[] = [];
{
  const add_ = ADD_FNS as ((a: number, b: number) => number)[];
  Object.assign(add_, {
    1: fadd,
    2: fsub,
    3: fmin,
    4: fmax,
    5: fminabs,
    6: fmaxabs,
    7: ftoi,
    8: itof,
    12: add,
    13: sub,
    14: shr,
    15: asr,
    16: ror,
    17: shl,
    18: min,
    19: max,
    20: and,
    21: or,
    22: xor,
    23: not,
    24: clz,
    30: v8adds,
    31: v8subs,
  });
  Object.assign(MUL_FNS as ((a: number, b: number) => number)[], { 1: fmul, 2: mul24, 3: v8muld, 4: v8min, 5: v8max, 6: v8adds, 7: v8subs });
}

// ---- flags (vc4asm's doc/instructions.html, measured on chips; see docs/emulator.md)

/** Z: the result is zero; for float results +0 and -0 both count. */
export function zeroFlag(r: number, isFloat: boolean): number {
  return (isFloat ? r & 0x7fffffff : r) === 0 ? 1 : 0;
}

/** N: bit 31 of the result. */
export const negFlag = (r: number) => r >>> 31;

/** C for an add ALU opcode, given the inputs (after unpack) and the result. */
export function addCarry(op: number, a: number, b: number, r: number): number {
  switch (op) {
    case 1: // fadd
    case 2: // fsub: C = the result is positive and not zero (a positive NaN counts)
      return (r | 0) > 0 ? 1 : 0;
    case 3: // fmin, fmax: C = a > b
    case 4:
      return toF(a) > toF(b) ? 1 : 0;
    case 5:
    case 6:
      return Math.abs(toF(a)) > Math.abs(toF(b)) ? 1 : 0;
    case 12: // add: unsigned carry out
      return (a >>> 0) + (b >>> 0) > 0xffffffff ? 1 : 0;
    case 13: // sub: unsigned borrow
      return a >>> 0 < b >>> 0 ? 1 : 0;
    case 14: // shr, asr: the last bit shifted out
    case 15: {
      const n = b & 31;
      return n === 0 ? 0 : (a >>> (n - 1)) & 1;
    }
    case 17: {
      const n = b & 31;
      return n === 0 ? 0 : (a >>> (32 - n)) & 1;
    }
    case 18: // min, max: a > b, signed
    case 19:
      return (a | 0) > (b | 0) ? 1 : 0;
    default:
      return 0;
  }
}

/** C for a mul ALU opcode: mul24 sets it when the product needs more than 24 bits. */
export function mulCarry(op: number, a: number, b: number): number {
  if (op !== 2) return 0;
  return (a & 0xffffff) * (b & 0xffffff) > 0xffffff ? 1 : 0;
}

/** Whether an add opcode's result is a float (for Z and for packing). */
export const ADD_FLOAT_RESULT: ReadonlySet<number> = new Set([1, 2, 3, 4, 5, 6, 8]);
export const MUL_FLOAT_RESULT: ReadonlySet<number> = new Set([1]);
