// The language's types as values: Int, Float and Ptr(Int), Ptr(Float). A kernel lists its
// parameters' types with them, and each is also the way to make a variable: `Int(0)`,
// `Float(x.mul(2))`, `Ptr(Float)(p.add(16))`.

import type { Ty } from '../source/ast.ts';
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
  /** A new Int variable, 0 in every lane unless `init` is given. */
  (init?: IntLike): IntVar;
}
export interface FloatType {
  readonly ty: 'float';
  (init?: FloatLike): FloatVar;
}
export interface PtrType<E extends Elem> {
  readonly ty: E extends 'int' ? 'int*' : 'float*';
  readonly elem: E;
  (init?: PtrExpr<E>): PtrVar<E>;
}
export type ParamType = IntType | FloatType | PtrType<'int'> | PtrType<'float'>;

export const Int: IntType = Object.assign((init?: IntLike) => newVar('int', init, 'Int') as IntVar, { ty: 'int' as const });
export const Float: FloatType = Object.assign((init?: FloatLike) => newVar('float', init, 'Float') as FloatVar, {
  ty: 'float' as const,
});

const PTR_INT: PtrType<'int'> = Object.assign((init?: PtrExpr<'int'>) => newVar('int*', init, 'Ptr(Int)') as PtrVar<'int'>, {
  ty: 'int*' as const,
  elem: 'int' as const,
});
const PTR_FLOAT: PtrType<'float'> = Object.assign(
  (init?: PtrExpr<'float'>) => newVar('float*', init, 'Ptr(Float)') as PtrVar<'float'>,
  { ty: 'float*' as const, elem: 'float' as const },
);

/** The type of a vector of addresses of Ints or Floats. */
export function Ptr(elem: IntType): PtrType<'int'>;
export function Ptr(elem: FloatType): PtrType<'float'>;
export function Ptr(elem: IntType | FloatType): PtrType<'int'> | PtrType<'float'> {
  if (elem === Int) return PTR_INT;
  if (elem === Float) return PTR_FLOAT;
  throw new TypeError('Ptr takes Int or Float');
}

/** A new variable holding `x`, of x's type. */
export function Var(x: IntExpr): IntVar;
export function Var(x: FloatExpr): FloatVar;
export function Var<E extends Elem>(x: PtrExpr<E>): PtrVar<E>;
export function Var(x: IntExpr | FloatExpr | PtrExpr<Elem>): IntVar | FloatVar | PtrVar<Elem> {
  return newVar(x.ty as Ty, x, 'Var');
}

/** What a kernel parameter of each type is inside the kernel's function. */
export type ParamValue<T extends ParamType> = T extends IntType
  ? IntVar
  : T extends FloatType
    ? FloatVar
    : T extends PtrType<infer E>
      ? PtrVar<E>
      : never;
