// The language's types as values: Int, Float and Ptr(Int), Ptr(Float). A kernel lists its
// parameters' types with them, and each is also the way to make a variable: `Int(0)`,
// `Float(x.mul(2))`, `Ptr(Float)(p.add(16))`. A second argument names the variable in messages
// and dumps (`Int(0, 'count')`); without one, the name comes from its declaration (builder.ts declaredName).

import type { Ty } from '../source/ast.ts';
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
export interface PtrType<E extends Elem> {
  readonly ty: E extends 'int' ? 'int*' : 'float*';
  readonly elem: E;
  /** A new pointer variable, 0 in every lane unless `init` is given; `name` names it in messages. */
  (init?: PtrExpr<E>, name?: string): PtrVar<E>;
}
export type ParamType = IntType | FloatType | PtrType<'int'> | PtrType<'float'>;

export const Int: IntType = Object.assign((init?: IntLike, name?: string) => newVar('int', init, 'Int', name) as IntVar, {
  ty: 'int' as const,
});
export const Float: FloatType = Object.assign((init?: FloatLike, name?: string) => newVar('float', init, 'Float', name) as FloatVar, {
  ty: 'float' as const,
});

const PTR_INT: PtrType<'int'> = Object.assign(
  (init?: PtrExpr<'int'>, name?: string) => newVar('int*', init, 'Ptr(Int)', name) as PtrVar<'int'>,
  { ty: 'int*' as const, elem: 'int' as const },
);
const PTR_FLOAT: PtrType<'float'> = Object.assign(
  (init?: PtrExpr<'float'>, name?: string) => newVar('float*', init, 'Ptr(Float)', name) as PtrVar<'float'>,
  { ty: 'float*' as const, elem: 'float' as const },
);

/** The type of a vector of addresses of Ints or Floats. */
export function Ptr(elem: IntType): PtrType<'int'>;
export function Ptr(elem: FloatType): PtrType<'float'>;
export function Ptr(elem: IntType | FloatType): PtrType<'int'> | PtrType<'float'> {
  if (elem === Int) return PTR_INT;
  if (elem === Float) return PTR_FLOAT;
  const at = callerLocation();
  throw new DslError(`Ptr takes Int or Float (Ptr(Int), Ptr(Float)), not ${describeHost(elem)}${at ? ` (at ${at})` : ''}`);
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
