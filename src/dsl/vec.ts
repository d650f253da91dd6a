// What every value of the language shares: the base class Vec (an expression node of one
// kernel's builder), the checks that turn an argument (a value or a plain number) into an
// expression of the kernel being built (exprOf, literal), and the errors for a value made by hand
// (forged) or handed to JavaScript's own operators (noPrimitive).
//
// JavaScript's own operators on these values (`index() + 1`, `x * 2`, `x < y`, `${x}`) are
// rejected by TypeScript, but plain JavaScript (or a cast) reaches their Symbol.toPrimitive,
// which throws a DslError naming the kernel, the user's line and the methods to write instead
// (noPrimitive). JavaScript says only whether it wanted a number, a string or either (the hint),
// not which operator, so the message names the operators of that kind. `if (x.lt(y))`, `!c` and
// `a && b` convert nothing and cannot be caught (docs/language.md).

import { type Expr, type PtrTy, type Storage, storageOf, type Ty } from '../source/ast.ts';
import { floatBits } from '../vc4/tables.ts';
import { builder, checkOwner, current, describeHost, DslError as DslErrorClass, type DslError, type KernelBuilder } from './builder.ts';

/**
 * The error for an object that claims a language class without having been made by the language
 * (`Object.create(IntExpr.prototype)`, a spread copy): its parts are private, so only values the
 * language made have them.
 */
export function forged(what: string): never {
  throw (current() ?? { error: (m: string) => new DslErrorClass(m) }).error(
    `${what} was not made by the language (an object made by hand, e.g. with Object.create, or a copy of a value); use the values the language's functions and methods give`,
  );
}

export abstract class Vec {
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
  if (x.ty !== ty) {
    const convert = ty === 'float' && x.ty === 'int' ? ' (convert it with toFloat())' : ty === 'int' && x.ty === 'float' ? ' (convert it with toInt(), or read its bits with asInt())' : '';
    throw builder(what).error(`${what}: expected ${ty === 'int' ? 'an Int' : 'a Float'}, got ${describeTy(x.ty)}${convert}`);
  }
  return x.node;
}

export function describeTy(t: Ty): string {
  return t === 'int' ? 'an Int' : t === 'float' ? 'a Float' : `a Ptr(${STORAGE_NAMES[storageOf(t)]})`;
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

/** The largest finite float32, and the smallest normal one (the QPU reads denormals as 0: docs/emulator.md, "Arithmetic"). */
const FLOAT_MAX = 3.4028234663852886e38;
const FLOAT_MIN_NORMAL = 1.1754943508222875e-38;

// ---- JavaScript's operators on kernel values

/** What the value is: a type, a vector condition, or any()/all() of one. */
export type ValueKind = Ty | 'condition' | 'any' | 'all';

/** What users call each storage: the type they pass to Ptr (dsl/types.ts). */
export const STORAGE_NAMES: Readonly<Record<Storage, string>> = { int: 'Int', float: 'Float', u8: 'Uint8', i8: 'Int8', u16: 'Uint16', i16: 'Int16' };

const KIND: Record<Exclude<ValueKind, PtrTy>, string> = {
  int: 'an Int',
  float: 'a Float',
  condition: 'a condition (a comparison)',
  any: 'any(...)',
  all: 'all(...)',
};

/** The methods to suggest, for each kind of value and each hint JavaScript gives. */
function instead(kind: ValueKind, hint: string): string {
  if (kind === 'condition' || kind === 'any' || kind === 'all')
    return 'conditions combine with c.and(d), c.or(d), c.not(), and are used by If, While, For and Where';
  if (kind !== 'int' && kind !== 'float') return 'write p.add(n) for the address n elements on';
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
  const shown = kind === 'int' || kind === 'float' || kind === 'condition' || kind === 'any' || kind === 'all' ? KIND[kind] : describeTy(kind);
  return owner.error(`${shown} was used ${usedAs(hint)}: ${rest}`);
}
