// The language's types as values: Int, Float and Ptr(Int), Ptr(Float), and pointers to ints kept
// in 8 or 16 bits, Ptr(Uint8), Ptr(Int8), Ptr(Uint16), Ptr(Int16). A kernel lists its parameters'
// types with them, and each is also the way to make a variable: `Int(0)`, `Float(x.mul(2))`,
// `Ptr(Float)(p.add(16))`. A second argument names the variable in messages
// and dumps (`Int(0, 'count')`); without one, the name comes from its declaration (builder.ts declaredName).

import type { Narrow, Ty } from '../source/ast.ts';
import { builder, callerLocation, describeHost, DslError } from './builder.ts';
import {
  type Elem,
  FloatExpr,
  type FloatLike,
  type FloatVar,
  IntExpr,
  type IntLike,
  type IntVar,
  newVar,
  PtrExpr,
  type PtrVar,
} from './values.ts';

export interface IntType {
  readonly ty: 'int';
  /** A new Int variable, 0 in every lane unless `init` is given; `name` names it in messages. */
  (init?: IntLike, name?: string): IntVar;
}
export interface FloatType {
  readonly ty: 'float';
  /** A new Float variable, 0 in every lane unless `init` is given; `name` names it in messages. */
  (init?: FloatLike, name?: string): FloatVar;
}
/** An element type only memory has (Ptr(Uint8)...): loads widen it to an Int, stores narrow an Int to it. */
export interface NarrowType<N extends Narrow> {
  readonly storage: N;
  readonly name: string;
}
export const Uint8: NarrowType<'u8'> = { storage: 'u8', name: 'Uint8' };
export const Int8: NarrowType<'i8'> = { storage: 'i8', name: 'Int8' };
export const Uint16: NarrowType<'u16'> = { storage: 'u16', name: 'Uint16' };
export const Int16: NarrowType<'i16'> = { storage: 'i16', name: 'Int16' };
const NARROW = [Uint8, Int8, Uint16, Int16] as const;

export interface PtrType<E extends Elem> {
  readonly ty: `${E}*`;
  readonly elem: E;
  /** A new pointer variable, 0 in every lane unless `init` is given; `name` names it in messages. */
  (init?: PtrExpr<E>, name?: string): PtrVar<E>;
}
/** Each pointer type, as a union (PtrType<Elem> would not take PtrType<'int'>: its function's parameter varies the other way). */
export type AnyPtrType = { [E in Elem]: PtrType<E> }[Elem];
export type ParamType = IntType | FloatType | AnyPtrType;

export const Int: IntType = Object.assign((init?: IntLike, name?: string) => newVar('int', init, 'Int', name) as IntVar, {
  ty: 'int' as const,
});
export const Float: FloatType = Object.assign((init?: FloatLike, name?: string) => newVar('float', init, 'Float', name) as FloatVar, {
  ty: 'float' as const,
});

function ptrType<E extends Elem>(elem: E, shown: string): PtrType<E> {
  const ty = `${elem}*` as const;
  return Object.assign((init?: PtrExpr<E>, name?: string) => newVar(ty, init, `Ptr(${shown})`, name) as PtrVar<E>, { ty, elem });
}
const PTRS = new Map<unknown, AnyPtrType>([
  [Int, ptrType('int', 'Int')],
  [Float, ptrType('float', 'Float')],
  ...NARROW.map((t) => [t, ptrType<Narrow>(t.storage, t.name) as AnyPtrType] as const),
]);

/** The type of a vector of addresses of Ints or Floats, or of Ints kept in 8 or 16 bits (Uint8, Int8, Uint16, Int16). */
export function Ptr(elem: IntType): PtrType<'int'>;
export function Ptr(elem: FloatType): PtrType<'float'>;
export function Ptr<N extends Narrow>(elem: NarrowType<N>): PtrType<N>;
export function Ptr(elem: IntType | FloatType | NarrowType<Narrow>): AnyPtrType {
  const t = PTRS.get(elem);
  if (t) return t;
  const at = callerLocation();
  throw new DslError(`Ptr takes Int, Float, Uint8, Int8, Uint16 or Int16 (Ptr(Int), Ptr(Uint8), ...), not ${describeHost(elem)}${at ? ` (at ${at})` : ''}`);
}

/** A new variable holding `x`, of x's type; `name` names it in messages. */
export function Var(x: IntExpr, name?: string): IntVar;
export function Var(x: FloatExpr, name?: string): FloatVar;
export function Var<E extends Elem>(x: PtrExpr<E>, name?: string): PtrVar<E>;
export function Var(x: IntExpr | FloatExpr | PtrExpr<Elem>, name?: string): IntVar | FloatVar | PtrVar<Elem> {
  if (!(x instanceof IntExpr || x instanceof FloatExpr || x instanceof PtrExpr))
    throw builder('Var').error(`Var needs an Int, a Float or a Ptr to copy, not ${describeHost(x)}`);
  return newVar(x.ty as Ty, x, 'Var', name);
}

/** What a kernel parameter of each type is inside the kernel's function. */
export type ParamValue<T extends ParamType> = T extends IntType
  ? IntVar
  : T extends FloatType
    ? FloatVar
    : T extends PtrType<infer E>
      ? PtrVar<E>
      : never;
