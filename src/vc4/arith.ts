// The QPU's arithmetic, lane by lane, on 32-bit patterns: what each ALU operation computes and
// how it sets the flags. The emulator executes these (its translated code is checked against
// them), and the language's reference interpreter calls them, so the two agree bit for bit.
//
// The float rules were measured on real chips: doe300/VC4C's test tables "auto generated from
// code run on the actual hardware" (test/opcode_test.h, opcode_pack_test.h, unpack_test.h;
// every rule below reproduces every row), vc4asm's addendum and V3DLib's FAQ. In short:
// - fadd, fsub, fmul and itof round toward zero (V3DLib FAQ, VC4CL: "values are always rounded
//   to zero"; fmul's rounding is the one the tables cannot show).
// - Zero and denormal inputs read as +0; results that are zero or below the smallest normal
//   are +0: the sign of zero is dropped.
// - There is no NaN result: a NaN input gives an infinity (the addendum: "0.0 + NaN = +Inf").
// - fmin/fmax compare the patterns as sign-magnitude integers and pass them through unchanged.
// docs/emulator.md lists these rules, their sources and the few cases no measurement covers.
//
// Values are int32 patterns (JavaScript numbers in int32 range).

import { WRITE_A, type WriteName } from './registers.ts';
import { ADD_OPS, type AddOpName, type CarryRule, MUL_OPS, type MulOpName } from './tables.ts';

const f32 = new Float32Array(2);
const i32 = new Int32Array(f32.buffer);

/** True when a pattern is a NaN (exponent all ones, mantissa not zero). */
export const isNaNBits = (bits: number) => (bits & 0x7fffffff) > 0x7f800000;

/** The value an arithmetic float op reads: zero and denormal patterns read as +0. */
export function toF(bits: number): number {
  if ((bits & 0x7f800000) === 0) return 0;
  i32[0] = bits;
  return f32[0]!;
}

/** A float value with denormal magnitudes read as +0. */
export const flushF = (x: number) => (x < 1.1754943508222875e-38 && x > -1.1754943508222875e-38 ? 0 : x);

/** A float pattern with denormals flushed to +0 (what fadd and friends produce). */
export function ftz(bits: number): number {
  return (bits & 0x7f800000) === 0 ? 0 : bits;
}

/** The pattern of the float nearest `v` (IEEE rounding), for values known to be exact floats. */
export function fromF(v: number): number {
  f32[0] = v;
  return i32[0]!;
}

/**
 * `exact`, the value of `hi + lo` (two doubles, |lo| tiny beside |hi|), rounded toward zero to
 * single precision; below the smallest normal it is +0, from 2^128 on it is an infinity.
 */
export function roundToZero(hi: number, lo = 0): number {
  if (hi !== hi) return 0x7fc00000; // infinity minus infinity: not measured
  if (Math.abs(hi) >= 2 ** 128) return hi > 0 ? 0x7f800000 : 0xff800000 | 0;
  f32[0] = hi;
  let r = i32[0]!;
  const f = f32[0]!;
  // Step toward zero when rounding to nearest went away from it.
  const beyond = f - hi - lo;
  if (f > 0 ? beyond > 0 : f < 0 && beyond < 0) r -= 1;
  return (r & 0x7f800000) === 0 ? 0 : r;
}

/** The exact sum a + b as hi + lo (Knuth's TwoSum). */
function twoSum(a: number, b: number): [number, number] {
  const s = a + b;
  const bv = s - a;
  const av = s - bv;
  return [s, a - av + (b - bv)];
}

const INF = 0x7f800000;
const NEG_INF = 0xff800000 | 0;
const infWithSign = (neg: boolean) => (neg ? NEG_INF : INF);

// ---- add ALU

/** Float add: a NaN input gives an infinity with its sign (b's NaN first); else a + b toward zero. */
export function fadd(a: number, b: number): number {
  if (isNaNBits(b)) return infWithSign(b < 0);
  if (isNaNBits(a)) return infWithSign(a < 0);
  const [hi, lo] = twoSum(toF(a), toF(b));
  return roundToZero(hi, lo);
}

/** Float subtract: as fadd with b negated (a NaN b gives the infinity of the other sign). */
export function fsub(a: number, b: number): number {
  if (isNaNBits(b)) return infWithSign(b >= 0);
  if (isNaNBits(a)) return infWithSign(a < 0);
  const [hi, lo] = twoSum(toF(a), -toF(b));
  return roundToZero(hi, lo);
}

/** The order fmin and fmax use: the pattern as a sign-magnitude integer (+0 equals -0). */
export const fkey = (bits: number) => (bits < 0 ? -(bits & 0x7fffffff) : bits);

/** fmin, fmax: one of the operands, unchanged; on a tie, a for fmin and b for fmax. */
export const fmin = (a: number, b: number) => (fkey(a) > fkey(b) ? b : a);
export const fmax = (a: number, b: number) => (fkey(a) > fkey(b) ? a : b);
/** fminabs, fmaxabs: the same on the operands with their sign bits cleared. */
export const fminabs = (a: number, b: number) => fmin(a & 0x7fffffff, b & 0x7fffffff);
export const fmaxabs = (a: number, b: number) => fmax(a & 0x7fffffff, b & 0x7fffffff);

/**
 * Float to signed integer, truncating toward zero. NaN, infinities and values outside the
 * int32 range give 0 (measured for NaN and +-1.58e29; infinities are not measured).
 */
export function ftoi(a: number): number {
  const f = toF(a);
  if (!(f > -2147483649 && f < 2147483648)) return 0;
  return f | 0;
}

/** Signed integer to float, rounded toward zero: itof(0x7fffffff) = 0x4effffff (measured). */
export const itof = (a: number) => roundToZero(a | 0);

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

/**
 * Float multiply: a zero or denormal input gives +0 (even beside a NaN); else a NaN input gives
 * an infinity with the product's sign; else the product toward zero. A product of two singles
 * is exact in double precision, so rounding it once is exact rounding.
 */
export function fmul(a: number, b: number): number {
  if ((a & 0x7f800000) === 0 || (b & 0x7f800000) === 0) return 0;
  if (isNaNBits(a) || isNaNBits(b)) return infWithSign((a ^ b) < 0);
  return roundToZero(toF(a) * toF(b));
}

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

type Fn = (a: number, b: number) => number;

/** Each operation's function, by its name in the opcode tables (tables.ts). */
const ADD_BY_NAME: Record<Exclude<AddOpName, 'nop'>, Fn> = {
  fadd,
  fsub,
  fmin,
  fmax,
  fminabs,
  fmaxabs,
  ftoi,
  itof,
  add,
  sub,
  shr,
  asr,
  ror,
  shl,
  min,
  max,
  and,
  or,
  xor,
  not,
  clz,
  v8adds,
  v8subs,
};
const MUL_BY_NAME: Record<Exclude<MulOpName, 'nop'>, Fn> = { fmul, mul24, v8muld, v8min, v8max, v8adds, v8subs };

/** Add ALU operations by opcode (undefined: nop or reserved). */
export const ADD_FNS: readonly (Fn | undefined)[] = ADD_OPS.map((o) => (o && o.name !== 'nop' ? ADD_BY_NAME[o.name as Exclude<AddOpName, 'nop'>] : undefined));
/** Mul ALU operations by opcode (undefined: nop). */
export const MUL_FNS: readonly (Fn | undefined)[] = MUL_OPS.map((o) => (o.name !== 'nop' ? MUL_BY_NAME[o.name as Exclude<MulOpName, 'nop'>] : undefined));

// ---- flags (measured on chips: VC4C's hardware tables; see docs/emulator.md)

/** Z: all 32 bits are zero (so -0.0 does not set Z). */
export const zeroFlag = (r: number) => (r === 0 ? 1 : 0);

/** N: bit 31 of the result. */
export const negFlag = (r: number) => r >>> 31;

/** C by an operation's carry rule (tables.ts), given the inputs (after unpack) and the result. */
function carry(rule: CarryRule | undefined, a: number, b: number, r: number): number {
  switch (rule) {
    case 'positive':
      return (r | 0) > 0 ? 1 : 0;
    case 'float-greater':
      return fkey(a) > fkey(b) ? 1 : 0;
    case 'abs-greater':
      return (a & 0x7fffffff) > (b & 0x7fffffff) ? 1 : 0;
    case 'carry-out':
      return (a >>> 0) + (b >>> 0) > 0xffffffff ? 1 : 0;
    case 'borrow':
      return a >>> 0 < b >>> 0 ? 1 : 0;
    case 'shifted-out-right': {
      const n = b & 31;
      return n === 0 ? 0 : (a >>> (n - 1)) & 1;
    }
    case 'shifted-out-left': {
      const n = b & 31;
      return n === 0 ? 0 : (a >>> (32 - n)) & 1;
    }
    case 'signed-greater':
      return (a | 0) > (b | 0) ? 1 : 0;
    case 'wide-product':
      return (a & 0xffffff) * (b & 0xffffff) > 0xffffff ? 1 : 0;
    default:
      return 0;
  }
}

/** C for an add ALU opcode, given the inputs (after unpack) and the result. */
export function addCarry(op: number, a: number, b: number, r: number): number {
  return carry(ADD_OPS[op]?.carry, a, b, r);
}

/** Signed overflow of add and sub (the saturating packs use it with C). */
export function addOverflow(op: number, a: number, b: number): boolean {
  switch (ADD_OPS[op]?.carry) {
    case 'carry-out':
      return (a | 0) + (b | 0) !== (((a | 0) + (b | 0)) | 0);
    case 'borrow':
      return (a | 0) - (b | 0) !== (((a | 0) - (b | 0)) | 0);
    default:
      return false;
  }
}

/**
 * C for a mul ALU opcode. Not measured (VC4C's tables note their mul-ALU flags are wrong):
 * vc4asm's table gives mul24 a carry when the product needs more than 24 bits, 0 otherwise.
 */
export function mulCarry(op: number, a: number, b: number): number {
  return carry(MUL_OPS[op]?.carry, a, b, 0);
}

// ---- special functions (Guide p. 23)

/** An SFU function's number: its register's (Table 14, registers.ts). */
const sfuOf = (name: WriteName) => WRITE_A.find((r) => r.name === name)!.sfu!;
const SFU_RECIP = sfuOf('sfu_recip');
const SFU_RECIPSQRT = sfuOf('sfu_recipsqrt');
const SFU_EXP2 = sfuOf('sfu_exp2');

/**
 * The SFU's functions, numbered as their registers' rows say (registers.ts): 0 recip,
 * 1 recipsqrt, 2 exp2, 3 log2. Real chips are accurate to about 11-13 bits (VC4C's
 * doc/sfu_accuracy.txt, measured); no bit-exact description is published, so qpu-ts
 * returns the correctly rounded result, with the measured special cases: recipsqrt and
 * log2 ignore the sign (py-videocore's APPENDIX), recip(0) and recipsqrt(0) are +infinity,
 * log2(0) is -infinity. Denormal results are +0 and a NaN result is 0x7FC00000.
 */
export function sfu(fn: number, bits: number): number {
  const x = toF(bits);
  const r = fn === SFU_RECIP ? 1 / x : fn === SFU_RECIPSQRT ? 1 / Math.sqrt(Math.abs(x)) : fn === SFU_EXP2 ? 2 ** x : Math.log2(Math.abs(x));
  if (r !== r) return 0x7fc00000;
  return ftz(fromF(r));
}

/** Whether an opcode's result is a float (for packing). */
export const ADD_FLOAT_RESULT: ReadonlySet<number> = new Set(ADD_OPS.filter((o) => o?.output === 'float').map((o) => o!.code));
export const MUL_FLOAT_RESULT: ReadonlySet<number> = new Set(MUL_OPS.filter((o) => o.output === 'float').map((o) => o.code));

/**
 * An 8-bit colour as a float, as regfile A's unpack 8a-8d gives it to a float operation (Guide
 * p. 31, Table 6): byte / 255 rounded toward zero (measured: 1 gives 0x3b808080).
 */
export function colourToFloatBits(b: number): number {
  return roundToZero(b / 255);
}
