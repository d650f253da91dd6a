// The language's variables (IntVar, FloatVar, PtrVar): values that statements assign with
// `v.set(x)`, made by newVar with the name messages call them.

import { type Expr, isPtr, readsMemory, storageOf, type Ty, type VarRef } from '../source/ast.ts';
import { builder, callerPlace, checkOwner, describeHost, type KernelBuilder } from './builder.ts';
import { declaredName, explicitName } from './names.ts';
import { type Elem, FloatExpr, type FloatLike, IntExpr, type IntLike } from './numbers.ts';
import { PtrExpr } from './pointers.ts';
import { describeTy, exprOf, Vec } from './vec.ts';

export type ElemVar<E extends Elem> = E extends 'float' ? FloatVar : IntVar;

function assign(v: VarRef, owner: KernelBuilder, x: Vec | number, ty: Ty, what: string, loc?: string): void {
  const b = checkOwner(owner, what);
  let e: Expr;
  if (isPtr(ty)) {
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
    ty === 'int' ? new IntVar(v, b) : ty === 'float' ? new FloatVar(v, b) : new PtrVar(v, b, storageOf(ty));
  if (init !== undefined) assign(v, b, init, ty, what, place?.loc);
  return out;
}
