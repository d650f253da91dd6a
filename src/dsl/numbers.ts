// The language's numbers: 16-lane vectors of ints (IntExpr) and floats (FloatExpr), with their
// operators and the float math library. Operators are methods, since TypeScript has no operator
// overloading: `a.add(b)`, `a.lt(b)`, each making the node of its row of source/ops.ts. A plain
// number stands for a literal wherever a value is expected: `a.sub(1)`, `x.mul(0.5)`.
//
// The two classes are in one file because each makes the other (Int.toFloat, Float.asInt, the
// unary operators whose row gives the other type): apart, their files would import each other.

import type { BinOp, CmpOp, Expr, ReduceOp, UnOp } from '../source/ast.ts';
import { REDUCE_METHODS } from '../source/print.ts';
import { type Storage, UNARY } from '../source/ops.ts';
import { LANES } from '../vc4/chip.ts';
import { builder, checkOwner, describeHost, type KernelBuilder } from './builder.ts';
import { BoolValue } from './conditions.ts';
import { exprOf, Vec } from './vec.ts';

export type IntLike = IntExpr | number;
export type FloatLike = FloatExpr | number;
/** What a pointer points to (source/ops.ts, Storage): Int and Float, or Ints kept in 8 or 16 bits. */
export type Elem = Storage;
/** The value a load through a pointer to E gives: a Float for floats, else an Int. */
export type ElemExpr<E extends Elem> = E extends 'float' ? FloatExpr : IntExpr;
export type ElemLike<E extends Elem> = E extends 'float' ? FloatLike : IntLike;

/** +Infinity's pattern: a float's magnitude above it is a NaN, below it finite. */
const INFINITY_BITS = 0x7f800000;

function int(node: Expr, b: KernelBuilder): IntExpr {
  return new IntExpr(node, b);
}
function flt(node: Expr, b: KernelBuilder): FloatExpr {
  return new FloatExpr(node, b);
}

/** Unary operator `op` on x, for the method `${cls}.${op}`; its result has its row's type (source/ops.ts). */
function unary<O extends UnOp>(x: Vec, cls: 'Int' | 'Float', op: O): ElemExpr<(typeof UNARY)[O]['to']> {
  const what = `${cls}.${op}`;
  const b = builder(what);
  checkOwner(x.owner, what);
  const ty = UNARY[op].to;
  const node: Expr = { k: 'un', op, ty, a: x.node };
  return (ty === 'int' ? int(node, b) : flt(node, b)) as ElemExpr<(typeof UNARY)[O]['to']>;
}

/** Lane n of x in every lane, for the method `${cls}.lane`: n is 0-15, or an Int whose lane 0 counts (modulo 16). */
function lane(x: Vec, cls: 'Int' | 'Float', n: IntLike): Expr {
  const what = `${cls}.lane`;
  const b = builder(what);
  checkOwner(x.owner, what);
  if (typeof n === 'number' && (!Number.isInteger(n) || n < 0 || n >= LANES))
    throw b.error(`${what}(${n}): lanes are numbered 0 to ${LANES - 1}; an Int picks by its lane 0`);
  return { k: 'lane', ty: x.ty, a: x.node, n: exprOf(n, 'int', what) };
}

/** A reduction across x's lanes by `op`, for the method `${cls}.${method}`: the same value in every lane (source/lanes.ts). */
function reduce(x: Vec, cls: 'Int' | 'Float', op: ReduceOp): Expr {
  const what = `${cls}.${REDUCE_METHODS[op]}`;
  builder(what);
  checkOwner(x.owner, what);
  return { k: 'reduce', op, ty: x.ty as 'int' | 'float', a: x.node };
}

/** Prefix sums across x's lanes, for the method `${cls}.scanLanes` (source/lanes.ts). */
function scan(x: Vec, cls: 'Int' | 'Float', kind: 'inclusive' | 'exclusive'): Expr {
  const what = `${cls}.scanLanes`;
  const b = builder(what);
  checkOwner(x.owner, what);
  if (kind !== 'inclusive' && kind !== 'exclusive') throw b.error(`${what}(${describeHost(kind)}): a prefix sum is 'inclusive' (lanes 0 to l, the default) or 'exclusive' (lanes 0 to l - 1)`);
  return { k: 'scan', ty: x.ty as 'int' | 'float', a: x.node, exclusive: kind === 'exclusive' };
}

export class IntExpr extends Vec {
  declare private readonly brandInt: void;

  private bin(op: BinOp, x: IntLike): IntExpr {
    const b = builder(`Int.${op}`);
    checkOwner(this.owner, `Int.${op}`);
    return int({ k: 'bin', op, ty: 'int', a: this.node, b: exprOf(x, 'int', `Int.${op}`) }, b);
  }
  private cmp(op: CmpOp, x: IntLike): BoolValue {
    const b = builder(`Int.${op}`);
    checkOwner(this.owner, `Int.${op}`);
    return new BoolValue({ k: 'cmp', op, ty: 'int', a: this.node, b: exprOf(x, 'int', `Int.${op}`) }, b);
  }

  add(x: IntLike): IntExpr {
    return this.bin('add', x);
  }
  sub(x: IntLike): IntExpr {
    return this.bin('sub', x);
  }
  /**
   * The product's low 32 bits, as JavaScript's Math.imul (`Int(-8).mul(100)` is -800). One
   * instruction where the compiler can show both operands fit in 24 bits unsigned, up to five otherwise.
   */
  mul(x: IntLike): IntExpr {
    return this.bin('mul', x);
  }
  /**
   * The hardware's 24-bit multiply, one instruction: the low 24 bits of each operand read as
   * unsigned, multiplied, the low 32 bits kept (`Int(-1).mul24(16)` is 268435440).
   */
  mul24(x: IntLike): IntExpr {
    return this.bin('mul24', x);
  }
  /**
   * The quotient truncated toward zero, as JavaScript's `(a / b) | 0` (by 0: 0; -2^31 by -1:
   * -2^31). About 40 instructions by an Int, a shift or two by a power of two (docs/language.md).
   */
  div(x: IntLike): IntExpr {
    return this.bin('div', x);
  }
  /** The remainder with the dividend's sign, as JavaScript's `(a % b) | 0` (by 0: 0). */
  rem(x: IntLike): IntExpr {
    return this.bin('rem', x);
  }
  /** The quotient of both read as unsigned (0 to 2^32 - 1), as `((a >>> 0) / (b >>> 0)) | 0` (by 0: 0). */
  udiv(x: IntLike): IntExpr {
    return this.bin('udiv', x);
  }
  /** The remainder of both read as unsigned, as `((a >>> 0) % (b >>> 0)) | 0` (by 0: 0). */
  urem(x: IntLike): IntExpr {
    return this.bin('urem', x);
  }
  min(x: IntLike): IntExpr {
    return this.bin('min', x);
  }
  max(x: IntLike): IntExpr {
    return this.bin('max', x);
  }
  /** Shift left by the low 5 bits of x. */
  shl(x: IntLike): IntExpr {
    return this.bin('shl', x);
  }
  /** Arithmetic shift right (keeps the sign) by the low 5 bits of x. */
  shr(x: IntLike): IntExpr {
    return this.bin('shr', x);
  }
  /** Logical shift right (zeros in) by the low 5 bits of x. */
  ushr(x: IntLike): IntExpr {
    return this.bin('ushr', x);
  }
  /** Rotate the bits right by the low 5 bits of x. */
  ror(x: IntLike): IntExpr {
    return this.bin('ror', x);
  }
  and(x: IntLike): IntExpr {
    return this.bin('and', x);
  }
  or(x: IntLike): IntExpr {
    return this.bin('or', x);
  }
  xor(x: IntLike): IntExpr {
    return this.bin('xor', x);
  }
  not(): IntExpr {
    return unary(this, 'Int', 'not');
  }
  toFloat(): FloatExpr {
    return unary(this, 'Int', 'toFloat');
  }
  /** The negation, wrapping around: Int(-2147483648).neg() is -2147483648. */
  neg(): IntExpr {
    return unary(this, 'Int', 'neg');
  }
  /** The magnitude, as Math.abs(x) | 0: Int(-2147483648).abs() is -2147483648. */
  abs(): IntExpr {
    return unary(this, 'Int', 'abs');
  }
  /** Leading zero bits, 0-32. */
  clz(): IntExpr {
    return unary(this, 'Int', 'clz');
  }
  /**
   * Byte k (0-3, a host number) of each lane, 0 to 255: `(x >>> 8k) & 255`. For an RGBA8 pixel
   * read as an Int, byte 0 is R (memory order: the chip is little-endian), 3 is A. One `mov`
   * through regfile A's unpack (8a-8d) where the value is there, else two shifts.
   */
  byte(k: number): IntExpr {
    const b = builder('Int.byte');
    checkOwner(this.owner, 'Int.byte');
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k > 3) throw b.error(`Int.byte(${describeHost(k)}): a word has bytes 0 to 3 (a host number)`);
    return unary(this, 'Int', (['byte0', 'byte1', 'byte2', 'byte3'] as const)[k]!);
  }
  /** Half-word k (0 or 1, a host number) of each lane, sign-extended (an int16); with `unsigned`, 0 to 65535. */
  half(k: number, unsigned = false): IntExpr {
    const b = builder('Int.half');
    checkOwner(this.owner, 'Int.half');
    if (typeof k !== 'number' || (k !== 0 && k !== 1)) throw b.error(`Int.half(${describeHost(k)}): a word has half-words 0 and 1 (a host number)`);
    if (unsigned) return k === 1 ? this.ushr(16) : this.and(0xffff);
    return unary(this, 'Int', k === 1 ? 'half1' : 'half0');
  }
  /**
   * This word with byte k (0-3, a host number) replaced by the low 8 bits of `v`:
   * `(x & ~(255 << 8k)) | ((v & 255) << 8k)`. One `mov` through regfile A's pack (8a-8d).
   */
  setByte(k: number, v: IntLike): IntExpr {
    const b = builder('Int.setByte');
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k > 3) throw b.error(`Int.setByte(${describeHost(k)}, ...): a word has bytes 0 to 3 (a host number)`);
    return this.bin((['setByte0', 'setByte1', 'setByte2', 'setByte3'] as const)[k]!, v);
  }
  /** This word with half-word k (0 or 1, a host number) replaced by the low 16 bits of `v`: one `mov` through regfile A's pack (16a, 16b). */
  setHalf(k: number, v: IntLike): IntExpr {
    const b = builder('Int.setHalf');
    if (typeof k !== 'number' || (k !== 0 && k !== 1)) throw b.error(`Int.setHalf(${describeHost(k)}, ...): a word has half-words 0 and 1 (a host number)`);
    return this.bin(k === 1 ? 'setHalf1' : 'setHalf0', v);
  }
  /**
   * Byte k (0-3, a host number) of each lane as a colour channel, a Float in [0, 1]: the byte / 255
   * rounded toward zero, as the chip's colour unpack gives it (one instruction).
   */
  colour(k: number): FloatExpr {
    const b = builder('Int.colour');
    checkOwner(this.owner, 'Int.colour');
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k > 3) throw b.error(`Int.colour(${describeHost(k)}): a word has bytes 0 to 3 (a host number)`);
    return unary(this, 'Int', (['colour0', 'colour1', 'colour2', 'colour3'] as const)[k]!);
  }
  /** The same 32 bits read as a Float (a bit cast, not a conversion). */
  asFloat(): FloatExpr {
    return unary(this, 'Int', 'asFloat');
  }
  /** Unsigned min and max: both operands read as 0 to 2^32 - 1. */
  umin(x: IntLike): IntExpr {
    return this.bin('umin', x);
  }
  umax(x: IntLike): IntExpr {
    return this.bin('umax', x);
  }
  /** Unsigned comparisons: both operands read as 0 to 2^32 - 1. */
  ult(x: IntLike): BoolValue {
    return this.cmp('ult', x);
  }
  ule(x: IntLike): BoolValue {
    return this.cmp('ule', x);
  }
  ugt(x: IntLike): BoolValue {
    return this.cmp('ugt', x);
  }
  uge(x: IntLike): BoolValue {
    return this.cmp('uge', x);
  }
  /** Lane n's value in every lane (a broadcast): n is 0-15, or an Int whose lane 0 counts, modulo 16. */
  lane(n: IntLike): IntExpr {
    return int(lane(this, 'Int', n), builder('Int.lane'));
  }
  /**
   * The sum (wrapping around), the least, the greatest, the bitwise and, the bitwise or of the
   * 16 lanes, in every lane: all 16, whatever Where is in force (`select` leaves lanes out).
   * Four rotations and four operations.
   */
  sumLanes(): IntExpr {
    return int(reduce(this, 'Int', 'add'), builder('Int.sumLanes'));
  }
  minLanes(): IntExpr {
    return int(reduce(this, 'Int', 'min'), builder('Int.minLanes'));
  }
  maxLanes(): IntExpr {
    return int(reduce(this, 'Int', 'max'), builder('Int.maxLanes'));
  }
  andLanes(): IntExpr {
    return int(reduce(this, 'Int', 'and'), builder('Int.andLanes'));
  }
  orLanes(): IntExpr {
    return int(reduce(this, 'Int', 'or'), builder('Int.orLanes'));
  }
  /** Prefix sums across the lanes: lane l the sum of lanes 0 to l (`'inclusive'`), or of 0 to l - 1 (`'exclusive'`: lane 0 is 0). */
  scanLanes(kind: 'inclusive' | 'exclusive' = 'inclusive'): IntExpr {
    return int(scan(this, 'Int', kind), builder('Int.scanLanes'));
  }
  eq(x: IntLike): BoolValue {
    return this.cmp('eq', x);
  }
  ne(x: IntLike): BoolValue {
    return this.cmp('ne', x);
  }
  lt(x: IntLike): BoolValue {
    return this.cmp('lt', x);
  }
  le(x: IntLike): BoolValue {
    return this.cmp('le', x);
  }
  gt(x: IntLike): BoolValue {
    return this.cmp('gt', x);
  }
  ge(x: IntLike): BoolValue {
    return this.cmp('ge', x);
  }
}

export class FloatExpr extends Vec {
  declare private readonly brandFloat: void;

  /** Lane n's value in every lane (a broadcast): n is 0-15, or an Int whose lane 0 counts, modulo 16. */
  lane(n: IntLike): FloatExpr {
    return flt(lane(this, 'Float', n), builder('Float.lane'));
  }
  /**
   * The sum, the least, the greatest of the 16 lanes, in every lane, with the chip's rounding in
   * a fixed order (docs/language.md): all 16, whatever Where is in force.
   */
  sumLanes(): FloatExpr {
    return flt(reduce(this, 'Float', 'add'), builder('Float.sumLanes'));
  }
  minLanes(): FloatExpr {
    return flt(reduce(this, 'Float', 'min'), builder('Float.minLanes'));
  }
  maxLanes(): FloatExpr {
    return flt(reduce(this, 'Float', 'max'), builder('Float.maxLanes'));
  }
  /** Prefix sums across the lanes, as Int.scanLanes, with the chip's rounding in a fixed order. */
  scanLanes(kind: 'inclusive' | 'exclusive' = 'inclusive'): FloatExpr {
    return flt(scan(this, 'Float', kind), builder('Float.scanLanes'));
  }
  /** Toward zero, down, up: the integral float (as Math.trunc, floor, ceil; -0.5 gives -0, NaN and infinities stay). */
  trunc(): FloatExpr {
    return unary(this, 'Float', 'trunc');
  }
  floor(): FloatExpr {
    return unary(this, 'Float', 'floor');
  }
  ceil(): FloatExpr {
    return unary(this, 'Float', 'ceil');
  }
  /** The nearest integral float, halves up (as Math.round: -2.5 gives -2, -0.4 gives -0). */
  round(): FloatExpr {
    return unary(this, 'Float', 'round');
  }
  /** x minus its floor: in [0, 1) for finite x (GLSL's fract). */
  fract(): FloatExpr {
    return unary(this, 'Float', 'fract');
  }
  /** The magnitude: the sign bit cleared (NaNs too). */
  abs(): FloatExpr {
    return unary(this, 'Float', 'fabs');
  }
  /** The same 32 bits read as an Int (a bit cast, not a conversion). */
  asInt(): IntExpr {
    return unary(this, 'Float', 'asInt');
  }
  /**
   * Whether each lane is a NaN, or finite (neither NaN nor infinite): from the pattern, its
   * magnitude's bits above or below infinity's (0x7f800000), so a kernel's dump shows them as
   * such a comparison.
   */
  isNaN(): BoolValue {
    return this.abs().asInt().gt(INFINITY_BITS);
  }
  isFinite(): BoolValue {
    return this.abs().asInt().lt(INFINITY_BITS);
  }

  private bin(op: BinOp, x: FloatLike): FloatExpr {
    const b = builder(`Float.${op}`);
    checkOwner(this.owner, `Float.${op}`);
    return flt({ k: 'bin', op, ty: 'float', a: this.node, b: exprOf(x, 'float', `Float.${op}`) }, b);
  }
  private cmp(op: CmpOp, x: FloatLike): BoolValue {
    const b = builder(`Float.${op}`);
    checkOwner(this.owner, `Float.${op}`);
    return new BoolValue({ k: 'cmp', op, ty: 'float', a: this.node, b: exprOf(x, 'float', `Float.${op}`) }, b);
  }

  add(x: FloatLike): FloatExpr {
    return this.bin('add', x);
  }
  sub(x: FloatLike): FloatExpr {
    return this.bin('sub', x);
  }
  mul(x: FloatLike): FloatExpr {
    return this.bin('mul', x);
  }
  min(x: FloatLike): FloatExpr {
    return this.bin('min', x);
  }
  max(x: FloatLike): FloatExpr {
    return this.bin('max', x);
  }
  /** Truncate toward zero; out of the int range gives 0. */
  toInt(): IntExpr {
    return unary(this, 'Float', 'toInt');
  }
  /**
   * x / y: the SFU's reciprocal of y sharpened by a Newton step, 7 instructions; within a few
   * ulps of the correctly rounded quotient, with a chip's SFU too (docs/language.md has the figure).
   */
  div(x: FloatLike): FloatExpr {
    return this.bin('div', x);
  }
  /** The square root: NaN for negatives (-0 too), +infinity for +infinity; within a few ulps (docs/language.md). */
  sqrt(): FloatExpr {
    return unary(this, 'Float', 'sqrt');
  }
  /** sin(x): within a few ulps for |x| up to 25,000 (docs/language.md has the figures). */
  sin(): FloatExpr {
    return unary(this, 'Float', 'sin');
  }
  /** cos(x): within a few ulps for |x| up to 25,000. */
  cos(): FloatExpr {
    return unary(this, 'Float', 'cos');
  }
  /** e^x: within 1 ulp where the result is a normal float; +infinity above, 0 below. */
  exp(): FloatExpr {
    return unary(this, 'Float', 'exp');
  }
  /** The natural logarithm: within 2 ulps for positive x; -infinity for 0, NaN for negatives. */
  log(): FloatExpr {
    return unary(this, 'Float', 'log');
  }
  /** 1/x, from the special-function unit: as accurate as a chip's SFU, 11 bits or so (div is accurate). */
  recip(): FloatExpr {
    return unary(this, 'Float', 'recip');
  }
  /** 1/sqrt(|x|), from the special-function unit (about 11 bits; sqrt is accurate). */
  recipsqrt(): FloatExpr {
    return unary(this, 'Float', 'recipsqrt');
  }
  /** 2^x from the special-function unit alone: one instruction and two of latency, about 11 bits (exp2 is accurate). */
  nativeExp2(): FloatExpr {
    return unary(this, 'Float', 'nativeExp2');
  }
  /** log2(|x|) from the special-function unit alone: about 13 bits, absolute (log2 is accurate). */
  nativeLog2(): FloatExpr {
    return unary(this, 'Float', 'nativeLog2');
  }
  /** 2^x, within a few ulps (docs/language.md); +infinity from 128 up, 0 below -126. */
  exp2(): FloatExpr {
    return unary(this, 'Float', 'exp2');
  }
  /** log2(x), within a few ulps for positive x; -infinity for 0, NaN for negatives. */
  log2(): FloatExpr {
    return unary(this, 'Float', 'log2');
  }
  /** tan(x), within a few ulps for |x| up to 25,000. */
  tan(): FloatExpr {
    return unary(this, 'Float', 'tan');
  }
  /** asin(x) in [-pi/2, pi/2]; NaN where |x| > 1. */
  asin(): FloatExpr {
    return unary(this, 'Float', 'asin');
  }
  /** acos(x) in [0, pi]; NaN where |x| > 1. */
  acos(): FloatExpr {
    return unary(this, 'Float', 'acos');
  }
  /** atan(x) in [-pi/2, pi/2]. */
  atan(): FloatExpr {
    return unary(this, 'Float', 'atan');
  }
  /** y.atan2(x): the angle of the point (x, y), in [-pi, pi], as Math.atan2(y, x). */
  atan2(x: FloatLike): FloatExpr {
    return this.bin('atan2', x);
  }
  /** x to the power y (Math.pow); a negative x only to an integer y. */
  pow(y: FloatLike): FloatExpr {
    return this.bin('pow', y);
  }
  sinh(): FloatExpr {
    return unary(this, 'Float', 'sinh');
  }
  cosh(): FloatExpr {
    return unary(this, 'Float', 'cosh');
  }
  tanh(): FloatExpr {
    return unary(this, 'Float', 'tanh');
  }
  eq(x: FloatLike): BoolValue {
    return this.cmp('eq', x);
  }
  ne(x: FloatLike): BoolValue {
    return this.cmp('ne', x);
  }
  lt(x: FloatLike): BoolValue {
    return this.cmp('lt', x);
  }
  le(x: FloatLike): BoolValue {
    return this.cmp('le', x);
  }
  gt(x: FloatLike): BoolValue {
    return this.cmp('gt', x);
  }
  ge(x: FloatLike): BoolValue {
    return this.cmp('ge', x);
  }
}

/** An Int or a Float of the node, for the files that make values of these classes (pointers.ts's loads, control.ts). */
export function intExpr(node: Expr, b: KernelBuilder): IntExpr {
  return int(node, b);
}
export function floatExpr(node: Expr, b: KernelBuilder): FloatExpr {
  return flt(node, b);
}
