// The language's values: 16-lane vectors of ints (IntExpr), floats (FloatExpr) and addresses
// (PtrExpr), vector conditions (BoolValue) and conditions over lanes (CondValue), and the
// variables (IntVar, FloatVar, PtrVar) that statements assign. Operators are methods, since
// TypeScript has no operator overloading: `a.add(b)`, `a.lt(b)`, each making the node of its row
// of source/ops.ts. A plain number stands for a literal wherever a value is expected: `a.sub(1)`,
// `x.mul(0.5)`.
//
// JavaScript's own operators on these values (`index() + 1`, `x * 2`, `x < y`, `${x}`) are
// rejected by TypeScript, but plain JavaScript (or a cast) reaches their Symbol.toPrimitive,
// which throws a DslError naming the kernel, the user's line and the methods to write instead
// (noPrimitive). JavaScript says only whether it wanted a number, a string or either (the hint),
// not which operator, so the message names the operators of that kind. `if (x.lt(y))`, `!c` and
// `a && b` convert nothing and cannot be caught (docs/language.md).

import { type BinOp, type BoolExpr, type CmpOp, type Expr, readsMemory, type Ty, type UnOp, type VarRef } from '../source/ast.ts';
import { UNARY } from '../source/ops.ts';
import { LANES } from '../vc4/chip.ts';
import { floatBits } from '../vc4/tables.ts';
import { builder, callerPlace, checkOwner, current, describeHost, DslError as DslErrorClass, type DslError, type KernelBuilder } from './builder.ts';
import { declaredName, explicitName } from './names.ts';

export type IntLike = IntExpr | number;
export type FloatLike = FloatExpr | number;
export type Elem = 'int' | 'float';
export type ElemExpr<E extends Elem> = E extends 'int' ? IntExpr : FloatExpr;
export type ElemLike<E extends Elem> = E extends 'int' ? IntLike : FloatLike;
export type ElemVar<E extends Elem> = E extends 'int' ? IntVar : FloatVar;

/**
 * The error for an object that claims a language class without having been made by the language
 * (`Object.create(IntExpr.prototype)`, a spread copy): its parts are private, so only values the
 * language made have them.
 */
function forged(what: string): never {
  throw (current() ?? { error: (m: string) => new DslErrorClass(m) }).error(
    `${what} was not made by the language (an object made by hand, e.g. with Object.create, or a copy of a value); use the values the language's functions and methods give`,
  );
}

abstract class Vec {
  readonly #node: Expr;
  readonly #owner: KernelBuilder;
  constructor(node: Expr, owner: KernelBuilder) {
    this.#node = node;
    this.#owner = owner;
  }
  get node(): Expr {
    return #node in this ? this.#node : forged('a value');
  }
  get owner(): KernelBuilder {
    return #owner in this ? this.#owner : forged('a value');
  }
  get ty(): Ty {
    return this.node.ty;
  }
  /** JavaScript operators and template strings: an error saying what to write instead. */
  [Symbol.toPrimitive](hint: string): never {
    throw noPrimitive(this.owner, this.ty, hint);
  }
}

/** A language value as an expression of the kernel being built, checking it belongs there. */
export function exprOf(x: Vec | number, ty: 'int' | 'float', what: string): Expr {
  if (typeof x === 'number') return literal(x, ty, what);
  if (!(x instanceof Vec)) throw builder(what).error(`${what}: expected ${ty === 'int' ? 'an Int' : 'a Float'} or a number, got ${describeHost(x)}`);
  checkOwner(x.owner, what);
  if (x.ty !== ty)
    throw builder(what).error(`${what}: expected ${ty === 'int' ? 'an Int' : 'a Float'}, got ${describeTy(x.ty)}`);
  return x.node;
}

export function describeTy(t: Ty): string {
  return t === 'int' ? 'an Int' : t === 'float' ? 'a Float' : `a Ptr(${t === 'int*' ? 'Int' : 'Float'})`;
}

export function literal(v: number, ty: 'int' | 'float', what: string): Expr {
  if (typeof v !== 'number' || Number.isNaN(v))
    throw builder(what).error(`${what}: ${String(v)} is not a number`);
  if (ty === 'int') {
    if (!Number.isInteger(v) || v < -(2 ** 31) || v > 2 ** 32 - 1)
      throw builder(what).error(`${what}: ${v} is not a 32-bit integer (use a Float for fractions)`);
    return { k: 'lit', ty, bits: v | 0 };
  }
  const f = Math.fround(v);
  if (Number.isFinite(v) && !Number.isFinite(f))
    throw builder(what).error(`${what}: ${v} is beyond a float's range (its largest is ${FLOAT_MAX}); write Infinity if you mean it`);
  if (v !== 0 && Math.abs(f) < FLOAT_MIN_NORMAL)
    throw builder(what).error(`${what}: ${v} is too small for a float the QPU computes with (below ${FLOAT_MIN_NORMAL} it counts as 0); write 0 if you mean it`);
  return { k: 'lit', ty, bits: floatBits(v) | 0 };
}

/** +Infinity's pattern: a float's magnitude above it is a NaN, below it finite. */
const INFINITY_BITS = 0x7f800000;

/** The largest finite float32, and the smallest normal one (the QPU reads denormals as 0: docs/emulator.md, "Arithmetic"). */
const FLOAT_MAX = 3.4028234663852886e38;
const FLOAT_MIN_NORMAL = 1.1754943508222875e-38;

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

/** A vector of addresses of E values (4 bytes apart). */
export class PtrExpr<E extends Elem> extends Vec {
  constructor(
    node: Expr,
    owner: KernelBuilder,
    readonly elem: E,
  ) {
    super(node, owner);
  }

  /** The address n elements on, in every lane: p + 4n bytes. */
  add(n: IntLike): PtrExpr<E> {
    const b = builder('Ptr.add');
    checkOwner(this.owner, 'Ptr.add');
    return new PtrExpr({ k: 'ptradd', ty: this.ty as 'int*' | 'float*', p: this.node, n: exprOf(n, 'int', 'Ptr.add') }, b, this.elem);
  }

  /**
   * The 16 values starting at the address in lane 0 (a blocking load, QPULib's *p). With a count,
   * only the first `count` of them (lane 0 of it, from 0 to 16; outside, the nearer end): the
   * other lanes are 0 and their words are not read, so the last vector of an array whose length
   * is not a multiple of 16 needs no padding (`x.add(i).load(n.sub(i))`).
   */
  load(count?: IntLike): ElemExpr<E> {
    const b = builder('Ptr.load');
    checkOwner(this.owner, 'Ptr.load');
    if (b.whereDepth > 0) throw b.error('a load (*p) inside Where: load into a variable before the Where');
    const n = count === undefined ? undefined : exprOf(count, 'int', 'Ptr.load');
    const node: Expr = { k: 'load', ty: this.elem, ptr: this.node, ...(n ? { n } : {}) };
    return (this.elem === 'int' ? int(node, b) : flt(node, b)) as ElemExpr<E>;
  }

  /**
   * Writes 16 values starting at the address in lane 0, and waits for the write (QPULib's *p = x).
   * With a count, only the first `count` (lane 0 of it, from 0 to 16): the words after are not written.
   */
  store(x: ElemLike<E>, count?: IntLike): void {
    const b = builder('Ptr.store');
    checkOwner(this.owner, 'Ptr.store');
    const e = exprOf(x as Vec | number, this.elem, 'Ptr.store');
    const n = count === undefined ? undefined : exprOf(count, 'int', 'Ptr.store');
    b.emit({ k: 'store', ptr: this.node, e, ...(n ? { n } : {}) });
  }
}

/** A vector of 16 conditions (one per lane), from comparisons. */
export class BoolValue {
  readonly #node: BoolExpr;
  readonly #owner: KernelBuilder;
  constructor(node: BoolExpr, owner: KernelBuilder) {
    this.#node = node;
    this.#owner = owner;
  }
  get node(): BoolExpr {
    return #node in this ? this.#node : forged('a condition');
  }
  get owner(): KernelBuilder {
    return #owner in this ? this.#owner : forged('a condition');
  }
  and(x: BoolValue): BoolValue {
    checkOwner(this.owner, 'and');
    checkOwner(boolOf(x, 'and').owner, 'and');
    return new BoolValue({ k: 'and', a: this.node, b: x.node }, this.owner);
  }
  or(x: BoolValue): BoolValue {
    checkOwner(this.owner, 'or');
    checkOwner(boolOf(x, 'or').owner, 'or');
    return new BoolValue({ k: 'or', a: this.node, b: x.node }, this.owner);
  }
  not(): BoolValue {
    checkOwner(this.owner, 'not');
    return new BoolValue({ k: 'not', a: this.node }, this.owner);
  }
  [Symbol.toPrimitive](hint: string): never {
    throw noPrimitive(this.owner, 'condition', hint);
  }
}

/** `x` when it is a vector condition (a comparison), else an error naming `what`. */
export function boolOf(x: unknown, what: string): BoolValue {
  if (!(x instanceof BoolValue)) throw builder(what).error(`${what} needs a vector condition (a comparison such as x.lt(y)), not ${describeHost(x)}`);
  return x;
}

/** A condition on the whole vector: any or all of its lanes (for If, While, For). */
export class CondValue {
  readonly #k: 'any' | 'all';
  readonly #b: BoolValue;
  constructor(k: 'any' | 'all', b: BoolValue) {
    this.#k = k;
    this.#b = b;
  }
  get k(): 'any' | 'all' {
    return #k in this ? this.#k : forged('a condition');
  }
  get b(): BoolValue {
    return #b in this ? this.#b : forged('a condition');
  }
  [Symbol.toPrimitive](hint: string): never {
    throw noPrimitive(this.b.owner, this.k, hint);
  }
}

// ---- variables

function assign(v: VarRef, owner: KernelBuilder, x: Vec | number, ty: 'int' | 'float' | 'int*' | 'float*', what: string, loc?: string): void {
  const b = checkOwner(owner, what);
  let e: Expr;
  if (ty === 'int*' || ty === 'float*') {
    if (!(x instanceof Vec) || x.ty !== ty) throw b.error(`${what}: expected ${describeTy(ty)}, got ${x instanceof Vec ? describeTy(x.ty) : describeHost(x)}`);
    checkOwner(x.owner, what);
    e = x.node;
  } else e = exprOf(x, ty, what);
  if (b.whereDepth > 0 && readsMemory(e)) throw b.error('a load (*p) inside Where: load into a variable before the Where');
  b.emit({ k: 'assign', v, e }, loc);
}

export class IntVar extends IntExpr {
  /** Assigns in every lane (inside Where: in the lanes where its condition holds). */
  set(x: IntLike): void {
    assign(this.node as VarRef, this.owner, x, 'int', 'Int.set');
  }
}

export class FloatVar extends FloatExpr {
  set(x: FloatLike): void {
    assign(this.node as VarRef, this.owner, x, 'float', 'Float.set');
  }
}

export class PtrVar<E extends Elem> extends PtrExpr<E> {
  set(x: PtrExpr<E>): void {
    assign(this.node as VarRef, this.owner, x, this.ty, 'Ptr.set');
  }
}

/**
 * A new variable of type `ty`, set to `init` if given (else 0 in every lane). Messages call it
 * `name` if given, else the name its declaration in the user's source gives it (builder.ts declaredName).
 */
export function newVar(ty: Ty, init: Vec | number | undefined, what: string, name?: unknown): IntVar | FloatVar | PtrVar<Elem> {
  const b = builder(what);
  const place = callerPlace();
  let shown: string | undefined;
  if (name !== undefined) {
    const n = explicitName(name);
    if ('error' in n) throw b.error(`${what}(init, name): ${n.error}`);
    shown = n.name;
  } else if (place) shown = declaredName(place) ?? `${what}@${place.line}:${place.col}`; // where it was made, when the source names it nothing
  const v = b.newVar(ty, undefined, shown);
  const out =
    ty === 'int' ? new IntVar(v, b) : ty === 'float' ? new FloatVar(v, b) : new PtrVar(v, b, ty === 'int*' ? 'int' : 'float');
  if (init !== undefined) assign(v, b, init, ty, what, place?.loc);
  return out;
}

export function intExpr(node: Expr, b: KernelBuilder): IntExpr {
  return int(node, b);
}
export function floatExpr(node: Expr, b: KernelBuilder): FloatExpr {
  return flt(node, b);
}

// ---- JavaScript's operators on kernel values

/** What the value is: a type, a vector condition, or any()/all() of one. */
export type ValueKind = Ty | 'condition' | 'any' | 'all';

const KIND: Record<ValueKind, string> = {
  int: 'an Int',
  float: 'a Float',
  'int*': 'a Ptr(Int)',
  'float*': 'a Ptr(Float)',
  condition: 'a condition (a comparison)',
  any: 'any(...)',
  all: 'all(...)',
};

/** The methods to suggest, for each kind of value and each hint JavaScript gives. */
function instead(kind: ValueKind, hint: string): string {
  if (kind === 'condition' || kind === 'any' || kind === 'all')
    return 'conditions combine with c.and(d), c.or(d), c.not(), and are used by If, While, For and Where';
  if (kind === 'int*' || kind === 'float*') return 'write p.add(n) for the address n elements on';
  if (hint === 'default') return 'write a.add(b) for +, a.eq(b) for ==';
  const rem = kind === 'int' ? ', a.rem(b) for %' : '';
  return `write a.sub(b) for -, a.mul(b) for *, a.div(b) for /${rem}, a.lt(b), a.le(b), a.gt(b), a.ge(b) for <, <=, >, >=`;
}

/** How JavaScript used the value, from Symbol.toPrimitive's hint. */
function usedAs(hint: string): string {
  if (hint === 'string') return 'as a string (a template literal such as `${x}`, or String(x))';
  if (hint === 'number') return 'as a number (an operator such as -, *, /, %, <, >, <= or >=)';
  return 'with + or == (JavaScript operators)';
}

/** The error for a kernel value JavaScript tried to convert, at the user's line. */
export function noPrimitive(owner: KernelBuilder, kind: ValueKind, hint: string): DslError {
  const rest =
    hint === 'string'
      ? 'a kernel value stands for code the kernel runs, not a value the host can print; print the whole kernel with k.dump()'
      : `JavaScript operators do not work on kernel values; ${instead(kind, hint)}`;
  return owner.error(`${KIND[kind]} was used ${usedAs(hint)}: ${rest}`);
}
