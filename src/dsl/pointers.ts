// The language's addresses: vectors of addresses of ints or floats, or of ints kept in 8 or 16
// bits (PtrExpr), moved on by elements, and the loads and stores through them.

import { elemBytes, elemOf, type Expr, type PtrTy } from '../source/ast.ts';
import { builder, checkOwner, type KernelBuilder } from './builder.ts';
import { type Elem, type ElemExpr, type ElemLike, floatExpr, intExpr, type IntLike } from './numbers.ts';
import { exprOf, Vec } from './vec.ts';

/** A vector of addresses of E values (4 bytes apart; 2 or 1 for 16- and 8-bit ones). */
export class PtrExpr<E extends Elem> extends Vec {
  constructor(
    node: Expr,
    owner: KernelBuilder,
    readonly elem: E,
  ) {
    super(node, owner);
  }

  /** The address n elements on, in every lane: p + 4n bytes (2n, n for 16- and 8-bit elements). */
  add(n: IntLike): PtrExpr<E> {
    const b = builder('Ptr.add');
    checkOwner(this.owner, 'Ptr.add');
    return new PtrExpr({ k: 'ptradd', ty: this.ty as PtrTy, p: this.node, n: exprOf(n, 'int', 'Ptr.add') }, b, this.elem);
  }

  /** The bytes from one element to the next: 4, or 2 and 1 for 16- and 8-bit elements. */
  get elemBytes(): 1 | 2 | 4 {
    return elemBytes(this.ty as PtrTy);
  }

  /**
   * The 16 values starting at the address in lane 0 (a blocking load, QPULib's *p). With a count,
   * only the first `count` of them (lane 0 of it, from 0 to 16; outside, the nearer end): the
   * other lanes are 0 and their words are not read, so the last vector of an array whose length
   * is not a multiple of 16 needs no padding (`x.add(i).load(n.sub(i))`). 8- and 16-bit elements
   * become Ints: zero-extended for Uint8 and Uint16, sign-extended for Int8 and Int16.
   */
  load(count?: IntLike): ElemExpr<E> {
    const b = builder('Ptr.load');
    checkOwner(this.owner, 'Ptr.load');
    if (b.whereDepth > 0) throw b.error('a load (*p) inside Where: load into a variable before the Where');
    if (b.inFunc !== undefined) throw b.error(`a load (*p) inside func ${b.inFunc}: load in the kernel and pass the values to the func`);
    const n = count === undefined ? undefined : exprOf(count, 'int', 'Ptr.load');
    const ty = elemOf(this.ty);
    const node: Expr = { k: 'load', ty, ptr: this.node, ...(n ? { n } : {}) };
    return (ty === 'int' ? intExpr(node, b) : floatExpr(node, b)) as ElemExpr<E>;
  }

  /**
   * Writes 16 values starting at the address in lane 0, and waits for the write (QPULib's *p = x).
   * With a count, only the first `count` (lane 0 of it, from 0 to 16): the elements after are not
   * written. 8- and 16-bit elements take each lane's low 8 or 16 bits.
   */
  store(x: ElemLike<E>, count?: IntLike): void {
    const b = builder('Ptr.store');
    checkOwner(this.owner, 'Ptr.store');
    const e = exprOf(x as Vec | number, elemOf(this.ty), 'Ptr.store');
    const n = count === undefined ? undefined : exprOf(count, 'int', 'Ptr.store');
    b.emit({ k: 'store', ptr: this.node, e, ...(n ? { n } : {}) });
  }
}
