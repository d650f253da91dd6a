// The language's operators, one row each: what an operator means, lane by lane on 32-bit
// patterns (the chip's own arithmetic, src/vc4/arith.ts), how it becomes QPU instructions, how it
// prints and whether the random program generator uses it, side by side so that meaning and
// code generation cannot drift apart (as TypeGPU's createDualImpl keeps them). ast.ts takes the
// value types from here and the operator types from the rows' names; the reference interpreter (interpreter.ts), lowering
// (compiler/lower.ts), the printer (print.ts) and the generator (generate.ts) read the rows.
// docs/contributing.md, "Adding an operator", says what else a new operator needs (the method
// users call, a test).
//
// Three kinds: binary operators on two values of one type (ints or floats, or both), unary
// operators from one type to one type, and comparisons, which give a vector condition. A
// pointer-typed operand computes as an int (arithType).

import * as arith from '../vc4/arith.ts';
import { colourRow, insertRow, multiply, unpackRow } from './ops-int.ts';
import { divide, division } from './ops-div.ts';
import { sqrt, sqrtLowering } from './ops-float.ts';
import { divide as floatDivide } from './math-common.ts';
import { dualBinary, dualUnary } from './dual.ts';
import { cosh, exp, exp2, log, log2, pow, sinh, tanh } from './math-exp.ts';
import { acos, asin, atan, atan2, sinOrCos, tan } from './math-trig.ts';
import { roundingRow } from './ops-round.ts';
import type { OpEmitter, OpLowering, Sfu } from './op-emitter.ts';
import { W_SFU_RECIP, WRITE_A, type WriteName } from '../vc4/registers.ts';
import type { TrueCode, VReg, AluCode, Src } from '../compiler/operands.ts';

export type { OpEmitter, OpLowering, Sfu } from './op-emitter.ts';

/**
 * What memory a pointer points to holds: 32-bit ints or floats, or ints stored in 8 or 16 bits,
 * which a load widens to an Int (u: zero-extended, i: sign-extended) and a store narrows (their
 * low bits).
 */
export type Storage = 'int' | 'float' | 'u8' | 'i8' | 'u16' | 'i16';
/** The storages narrower than a word. */
export type Narrow = Exclude<Storage, 'int' | 'float'>;
/** A pointer type: a vector of addresses of one storage. */
export type PtrTy = `${Storage}*`;
/** A value's type: a 16-lane vector of int32 or float32, or of addresses. */
export type Ty = 'int' | 'float' | PtrTy;

/** Each storage's element size in bytes, and whether a load sign-extends it. */
export const STORAGES: Readonly<Record<Storage, { readonly bytes: 1 | 2 | 4; readonly signed: boolean }>> = {
  int: { bytes: 4, signed: true },
  float: { bytes: 4, signed: false },
  u8: { bytes: 1, signed: false },
  i8: { bytes: 1, signed: true },
  u16: { bytes: 2, signed: false },
  i16: { bytes: 2, signed: true },
};

export const isPtr = (t: Ty): t is PtrTy => t.endsWith('*');
/** What a pointer type points to. */
export const storageOf = (t: PtrTy): Storage => t.slice(0, -1) as Storage;
/** The type of the values a pointer type's loads give and its stores take: Float for float*, else Int. */
export const elemOf = (t: Ty): 'int' | 'float' => (t === 'float*' ? 'float' : 'int');
/** The bytes between a pointer type's elements. */
export const elemBytes = (t: PtrTy): 1 | 2 | 4 => STORAGES[storageOf(t)].bytes;

/** The two types operators compute on: 16 lanes of int32 or of float32 patterns. */
export type ArithType = 'int' | 'float';
/** The type whose arithmetic an operand of type `ty` uses: a pointer computes as an int. */
export const arithType = (ty: Ty): ArithType => (ty === 'float' ? 'float' : 'int');

/** A binary operator on one type: its meaning per lane and its lowering. */
export interface BinaryImpl {
  /** Its meaning; one built on the SFU computes with `sfu` (arith.sfu, or the chip model of a run's `sfu: 'chip'`). */
  readonly fn: (a: number, b: number, sfu?: Sfu) => number;
  readonly lower: OpLowering;
  /**
   * Its lowering sets flags (and is never given a condition): lowering computes it before any
   * flags an assignment of it is written under (compiler/lower.ts, setsFlags).
   */
  readonly setsFlags?: true;
}

export interface BinaryRow {
  /** Printed between its operands (`(a + b)`); without one, as a call (`min(a, b)`). */
  readonly infix?: string;
  /** Its meaning and lowering on ints and on floats, for the types it has. */
  readonly int?: BinaryImpl;
  readonly float?: BinaryImpl;
  /** Whether the generator uses it, on random operands of each type it has (generate.ts). */
  readonly generate: boolean;
}

export interface UnaryRow {
  /** Its lowering sets flags (and is never given a condition), as BinaryImpl.setsFlags. */
  readonly setsFlags?: true;
  /** The operand's type and the result's. */
  readonly from: ArithType;
  readonly to: ArithType;
  /** Printed before its operand (`~a`); without one, as a call (`toInt(a)`). */
  readonly prefix?: string;
  /** Its meaning; one built on the SFU computes with `sfu` (as BinaryImpl's). */
  readonly fn: (a: number, sfu?: Sfu) => number;
  readonly lower: OpLowering;
  /** Whether the generator uses it, among the unary operators of the same two types (generate.ts). */
  readonly generate: boolean;
}

/**
 * How a comparison sets the flags: `code.setf nop, a, b` (with `swap`, b, a), after which the
 * comparison holds where condition code `holds` does; or, for a comparison no flag shows, a
 * function that writes 1 into `m` where it holds and 0 elsewhere.
 */
export type CmpLowering =
  | { readonly setf: AluCode; readonly swap?: boolean; readonly holds: TrueCode }
  | { readonly mask: (l: OpEmitter, m: VReg, a: Src, b: Src) => void };

export interface ComparisonRow {
  /** Printed between its operands (`a < b`); without one, as a call (`ult(a, b)`). */
  readonly infix?: string;
  /** Whether it holds, given how a compares with b in its order (-1, 0 or 1: ORDER). */
  readonly holds: (order: number) => boolean;
  /** The order it compares in: its operands' type's (the default), or ints as unsigned. */
  readonly order?: 'unsigned';
  /** Its lowering on ints and on floats, for the types it has. */
  readonly int: CmpLowering;
  readonly float?: CmpLowering;
  /** Whether the generator uses it (on ints and on floats). */
  readonly generate: boolean;
}

// ---- binary operators (docs/language.md, "Types and values", "What each operation computes")

/**
 * umin (or, with `greater`, umax): `sub.setf` sets C where its first operand is below its second
 * as unsigned (its borrow), then b, and a where C says a wins, into a temporary the value's
 * destination copies (the destination may be one of the operands).
 */
function unsignedPick(greater: boolean): OpLowering {
  return (l, dst, a, b) => {
    l.alu('sub', l.p('nop'), greater ? b : a, greater ? a : b, { setf: true });
    const t = l.fresh();
    l.mov(t, b);
    l.mov(t, a, 'cs');
    l.mov(dst, t);
  };
}

export const BINARY = {
  add: { infix: '+', int: { fn: arith.add, lower: 'add' }, float: { fn: arith.fadd, lower: 'fadd' }, generate: true },
  sub: { infix: '-', int: { fn: arith.sub, lower: 'sub' }, float: { fn: arith.fsub, lower: 'fsub' }, generate: true },
  /** On ints, the low 32 bits of the product (Math.imul), from the chip's 24-bit multiply (ops-int.ts). */
  mul: { infix: '*', int: { fn: Math.imul, lower: multiply }, float: { fn: arith.fmul, lower: 'fmul' }, generate: true },
  /** The hardware's 24-bit multiply: the low 24 bits of each operand, unsigned, multiplied; one instruction. */
  mul24: { int: { fn: arith.mul24, lower: 'mul24' }, generate: true },
  /**
   * Integer division and remainder, as JavaScript's (a / b) | 0 and (a % b) | 0: truncated toward
   * zero, the remainder with the dividend's sign, both 0 by 0 (ops-div.ts); udiv and urem read both unsigned.
   */
  div: { int: { fn: divide.div, lower: division('q', true), setsFlags: true }, float: dualBinary(floatDivide), generate: true },
  rem: { int: { fn: divide.rem, lower: division('r', true), setsFlags: true }, generate: true },
  udiv: { int: { fn: divide.udiv, lower: division('q', false), setsFlags: true }, generate: true },
  urem: { int: { fn: divide.urem, lower: division('r', false), setsFlags: true }, generate: true },
  /** atan2(a, b) (the angle of the point (b, a)) and a to the power b, on Floats (math-trig.ts, math-exp.ts). */
  atan2: { float: { ...dualBinary(atan2), setsFlags: true }, generate: true },
  pow: { float: { ...dualBinary(pow), setsFlags: true }, generate: true },
  min: { int: { fn: arith.min, lower: 'min' }, float: { fn: arith.fmin, lower: 'fmin' }, generate: true },
  max: { int: { fn: arith.max, lower: 'max' }, float: { fn: arith.fmax, lower: 'fmax' }, generate: true },
  /** Shifts and the rotation by the amount's low 5 bits; shr keeps the sign (the chip's asr), ushr shifts zeros in (its shr). */
  shl: { infix: '<<', int: { fn: arith.shl, lower: 'shl' }, generate: true },
  shr: { infix: '>>', int: { fn: arith.asr, lower: 'asr' }, generate: true },
  ushr: { infix: '>>>', int: { fn: arith.shr, lower: 'shr' }, generate: true },
  ror: { int: { fn: arith.ror, lower: 'ror' }, generate: true },
  /** Unsigned min and max: both read as 0 to 2^32 - 1 (three moves after sub.setf; no ALU has them). */
  umin: { int: { fn: (a, b) => (a >>> 0 < b >>> 0 ? a : b), lower: unsignedPick(false), setsFlags: true }, generate: true },
  umax: { int: { fn: (a, b) => (a >>> 0 > b >>> 0 ? a : b), lower: unsignedPick(true), setsFlags: true }, generate: true },
  /** a with byte k (0-3) or half-word k (0-1) replaced by b's low 8 or 16 bits (Int.setByte, setHalf): regfile A's pack (ops-int.ts). */
  setByte0: insertRow('setByte0'),
  setByte1: insertRow('setByte1'),
  setByte2: insertRow('setByte2'),
  setByte3: insertRow('setByte3'),
  setHalf0: insertRow('setHalf0'),
  setHalf1: insertRow('setHalf1'),
  and: { infix: '&', int: { fn: arith.and, lower: 'and' }, generate: true },
  or: { infix: '|', int: { fn: arith.or, lower: 'or' }, generate: true },
  xor: { infix: '^', int: { fn: arith.xor, lower: 'xor' }, generate: true },
} as const satisfies Record<string, BinaryRow>;

// ---- unary operators

/** The special-function unit's registers (Table 14): a write starts the function, r4 has the result. */
type SfuRegister = Extract<WriteName, `sfu_${string}`>;

/**
 * A special function: write the operand to its SFU register, then read r4 (the SFU's result
 * reaches r4 two instructions later: space.ts spaces them). arith.sfu numbers the functions
 * in the order of their registers.
 */
function sfu(reg: SfuRegister): Pick<UnaryRow, 'fn' | 'lower'> {
  const n = WRITE_A.findIndex((r) => r.name === reg) - W_SFU_RECIP;
  return {
    fn: (a, f = arith.sfu) => f(n, a),
    lower: (l, dst, a, _b, cond) => {
      l.mov(l.p(reg), a);
      l.mov(dst, l.p('r4'), cond);
    },
  };
}

export const UNARY = {
  not: { from: 'int', to: 'int', prefix: '~', fn: arith.not, lower: 'not', generate: true },
  /** Truncates toward zero; out of the int range gives 0. */
  toInt: { from: 'float', to: 'int', fn: arith.ftoi, lower: 'ftoi', generate: true },
  toFloat: { from: 'int', to: 'float', fn: arith.itof, lower: 'itof', generate: true },
  /** The negation, wrapping around (-(-2^31) is -2^31). */
  neg: { from: 'int', to: 'int', fn: (a) => arith.sub(0, a), lower: (l, dst, a, _b, cond) => l.alu('sub', dst, l.int(0), a, { cond }), generate: true },
  /** The magnitude, wrapping around as JavaScript's (Math.abs(x) | 0): abs(-2^31) is -2^31. */
  abs: {
    from: 'int',
    to: 'int',
    fn: (a) => arith.max(a, arith.sub(0, a)),
    lower: (l, dst, a, _b, cond) => {
      const t = l.fresh();
      l.alu('sub', t, l.int(0), a);
      l.alu('max', dst, a, t, { cond });
    },
    generate: true,
  },
  /** Leading zero bits, 0-32 (the add ALU's clz). */
  clz: { from: 'int', to: 'int', fn: arith.clz, lower: 'clz', generate: true },
  /** Byte 0-3 of each lane, 0 to 255 (Int.byte); half-word 0-1, sign-extended (Int.half): regfile A's unpack where it can (ops-int.ts). */
  byte0: unpackRow('byte0'),
  byte1: unpackRow('byte1'),
  byte2: unpackRow('byte2'),
  byte3: unpackRow('byte3'),
  half0: unpackRow('half0'),
  half1: unpackRow('half1'),
  /** Byte 0-3 of each lane as a colour in [0, 1], byte / 255 rounded toward zero (Int.colour): regfile A's unpack to float (ops-int.ts). */
  colour0: colourRow('colour0'),
  colour1: colourRow('colour1'),
  colour2: colourRow('colour2'),
  colour3: colourRow('colour3'),
  /** The same 32 bits as a Float (a bit cast: no conversion). */
  asFloat: { from: 'int', to: 'float', fn: (a) => a, lower: (l, dst, a, _b, cond) => l.mov(dst, a, cond), generate: true },
  /** The same 32 bits as an Int. */
  asInt: { from: 'float', to: 'int', fn: (a) => a, lower: (l, dst, a, _b, cond) => l.mov(dst, a, cond), generate: true },
  /** Toward zero, down and up to an integral float (Math.trunc, floor and ceil on float32; -0 stays -0). */
  trunc: roundingRow('trunc'),
  floor: roundingRow('floor'),
  ceil: roundingRow('ceil'),
  /** To the nearest integral float, halves up (Math.round on float32: -2.5 gives -2, -0.4 gives -0). */
  round: roundingRow('round'),
  /** x minus its floor, in [0, 1) for finite x (GLSL's fract); NaN for infinities. */
  fract: roundingRow('fract'),
  /** The magnitude: the sign bit cleared (the add ALU's fmaxabs of a with itself). */
  fabs: { from: 'float', to: 'float', fn: (a) => arith.fmaxabs(a, a), lower: 'fmaxabs', generate: true },
  /** The root, from recipsqrt and a Newton step (ops-float.ts): NaN below 0 (-0 too), +infinity for +infinity. */
  sqrt: { from: 'float', to: 'float', fn: sqrt, lower: sqrtLowering, setsFlags: true, generate: true },
  /** The math library (math.ts): each meaning and lowering from one definition. */
  sin: { from: 'float', to: 'float', ...dualUnary((o, x) => sinOrCos(o, x, false)), generate: true },
  cos: { from: 'float', to: 'float', ...dualUnary((o, x) => sinOrCos(o, x, true)), generate: true },
  tan: { from: 'float', to: 'float', ...dualUnary(tan), generate: true },
  asin: { from: 'float', to: 'float', ...dualUnary(asin), setsFlags: true, generate: true },
  acos: { from: 'float', to: 'float', ...dualUnary(acos), setsFlags: true, generate: true },
  atan: { from: 'float', to: 'float', ...dualUnary(atan), setsFlags: true, generate: true },
  exp: { from: 'float', to: 'float', ...dualUnary(exp), setsFlags: true, generate: true },
  exp2: { from: 'float', to: 'float', ...dualUnary(exp2), setsFlags: true, generate: true },
  log: { from: 'float', to: 'float', ...dualUnary(log), setsFlags: true, generate: true },
  log2: { from: 'float', to: 'float', ...dualUnary(log2), setsFlags: true, generate: true },
  sinh: { from: 'float', to: 'float', ...dualUnary(sinh), setsFlags: true, generate: true },
  cosh: { from: 'float', to: 'float', ...dualUnary(cosh), setsFlags: true, generate: true },
  tanh: { from: 'float', to: 'float', ...dualUnary(tanh), setsFlags: true, generate: true },
  /** The special-function unit's own results (as accurate as the chip's: about 11 bits). */
  recip: { from: 'float', to: 'float', ...sfu('sfu_recip'), generate: true },
  recipsqrt: { from: 'float', to: 'float', ...sfu('sfu_recipsqrt'), generate: true },
  nativeExp2: { from: 'float', to: 'float', ...sfu('sfu_exp2'), generate: true },
  nativeLog2: { from: 'float', to: 'float', ...sfu('sfu_log2'), generate: true },
} as const satisfies Record<string, UnaryRow>;

// ---- comparisons

/** How two values compare, -1, 0 or 1: ints signed; floats as the chip's fmin and fmax order them, patterns as sign-magnitude integers. */
export const ORDER: Readonly<Record<ArithType | 'unsigned', (a: number, b: number) => number>> = {
  int: (a, b) => ((a | 0) < (b | 0) ? -1 : (a | 0) > (b | 0) ? 1 : 0),
  unsigned: (a, b) => (a >>> 0 < b >>> 0 ? -1 : a >>> 0 > b >>> 0 ? 1 : 0),
  float: (a, b) => {
    const ka = arith.fkey(a);
    const kb = arith.fkey(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  },
};

/** Equality: flags from `sub.setf`, Z set where the two are equal. */
const equality = (holds: TrueCode): CmpLowering => ({ setf: 'sub', holds });
/** An order: flags from `max.setf a, b` (`fmax` for floats), C set where a > b in the type's order (docs/compiler.md). */
const order = (code: 'max' | 'fmax', swap: boolean, holds: TrueCode): CmpLowering => ({ setf: code, swap, holds });

/**
 * Float equality in the float order, where -0.0 equals 0.0 though their patterns differ: neither
 * is greater. Two `fmax.setf`, one each way, each setting the mask's lane to "unequal" where
 * one is greater (docs/compiler.md).
 */
function floatEquality(eq: boolean): CmpLowering {
  return {
    mask: (l, m, x, y) => {
      l.mov(m, l.int(eq ? 1 : 0));
      const on = l.int(eq ? 0 : 1);
      l.alu('fmax', l.p('nop'), x, y, { setf: true });
      l.mov(m, on, 'cs');
      l.alu('fmax', l.p('nop'), y, x, { setf: true });
      l.mov(m, on, 'cs');
    },
  };
}

export const COMPARISONS = {
  eq: { infix: '==', holds: (c) => c === 0, int: equality('zs'), float: floatEquality(true), generate: true },
  ne: { infix: '!=', holds: (c) => c !== 0, int: equality('zc'), float: floatEquality(false), generate: true },
  lt: { infix: '<', holds: (c) => c < 0, int: order('max', true, 'cs'), float: order('fmax', true, 'cs'), generate: true },
  le: { infix: '<=', holds: (c) => c <= 0, int: order('max', false, 'cc'), float: order('fmax', false, 'cc'), generate: true },
  gt: { infix: '>', holds: (c) => c > 0, int: order('max', false, 'cs'), float: order('fmax', false, 'cs'), generate: true },
  ge: { infix: '>=', holds: (c) => c >= 0, int: order('max', true, 'cc'), float: order('fmax', true, 'cc'), generate: true },
  // Unsigned, on ints only: flags from `sub.setf a, b`, C set where a < b as unsigned (its borrow).
  ult: { holds: (c) => c < 0, order: 'unsigned', int: { setf: 'sub', holds: 'cs' }, generate: true },
  ule: { holds: (c) => c <= 0, order: 'unsigned', int: { setf: 'sub', swap: true, holds: 'cc' }, generate: true },
  ugt: { holds: (c) => c > 0, order: 'unsigned', int: { setf: 'sub', swap: true, holds: 'cs' }, generate: true },
  uge: { holds: (c) => c >= 0, order: 'unsigned', int: { setf: 'sub', holds: 'cc' }, generate: true },
} as const satisfies Record<string, ComparisonRow>;

// ---- lookups (a kernel AST made by hand may name an operator no row has)

export type BinOp = keyof typeof BINARY;
export type UnOp = keyof typeof UNARY;
export type CmpOp = keyof typeof COMPARISONS;

// The lookups read copies of the tables without a prototype: a hand-made AST may name an
// operator `constructor`, which every object inherits.
const byName = <T>(entries: [string, T][]): Readonly<Record<string, T | undefined>> =>
  Object.assign(Object.create(null), Object.fromEntries(entries));
const BINARY_ROWS = byName<BinaryRow>(Object.entries(BINARY));
const INT_IMPLS = byName(Object.entries(BINARY_ROWS).flatMap(([op, row]) => (row?.int ? [[op, row.int]] : [])));
const FLOAT_IMPLS = byName(Object.entries(BINARY_ROWS).flatMap(([op, row]) => (row?.float ? [[op, row.float]] : [])));
const UNARY_ROWS = byName<UnaryRow>(Object.entries(UNARY));
const COMPARISON_ROWS = byName<ComparisonRow>(Object.entries(COMPARISONS));

export function binaryRow(op: BinOp): BinaryRow | undefined {
  return BINARY_ROWS[op];
}
/** Binary operator `op` on operands of type `ty`, or undefined when that type has no such operator. */
export function binaryImpl(op: BinOp, ty: Ty): BinaryImpl | undefined {
  return (ty === 'float' ? FLOAT_IMPLS : INT_IMPLS)[op]; // a pointer computes as an int
}
export function unaryRow(op: UnOp): UnaryRow | undefined {
  return UNARY_ROWS[op];
}
export function comparisonRow(op: CmpOp): ComparisonRow | undefined {
  return COMPARISON_ROWS[op];
}
/** The order comparison `row` compares operands of type `ty` in (ORDER's key). */
export const comparisonOrder = (row: ComparisonRow, ty: Ty): ArithType | 'unsigned' => row.order ?? arithType(ty);

/** The rows' names, in the table's order. */
export const names = <T extends object>(table: T): (keyof T & string)[] => Object.keys(table) as (keyof T & string)[];
