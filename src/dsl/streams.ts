// Broadcast streams (source/streams.ts defines them): `stream(p)` starts reading consecutive
// elements from one address, and each `s.next()` is the next of them in every lane. It is the
// QPU's uniform stream, which the chip reads ahead through each slice's uniforms cache: the way
// hand-written kernels broadcast a row of scalars (py-videocore's SGEMM multiplies a column of A
// by B's row this way), one element an instruction with no rotation and no TMU request.

import { elemOf, type PtrTy } from '../source/ast.ts';
import { builder, callerPlace, checkOwner, describeHost, type KernelBuilder } from './builder.ts';
import { notInWhere } from './control.ts';
import { declaredName } from './names.ts';
import { type Elem, type ElemExpr, floatExpr, intExpr } from './numbers.ts';
import { PtrExpr } from './pointers.ts';
import { describeTy } from './vec.ts';

/** A started stream of E values: `next()` takes them in order. */
export class Stream<E extends Elem> {
  constructor(
    /** The stream statement's number in its kernel. */
    readonly id: number,
    readonly ty: PtrTy,
    readonly owner: KernelBuilder,
  ) {}

  /**
   * The next element of the stream, the same in every lane (a Float for floats, else an Int),
   * and the stream moves on by one. Reading a stream after another has started on this QPU is an
   * error when the kernel runs: a QPU has one stream at a time.
   */
  next(): ElemExpr<E> {
    const b = builder('next');
    checkOwner(this.owner, 'next');
    notInWhere(b, 's.next()');
    if (b.inParallel) throw b.error('s.next() inside parallelFor: its elements run on QPUs and lanes in no fixed order, so no one stream would be read in order; use a For');
    const ty = elemOf(this.ty) === 'float' ? 'float' : 'int';
    const place = callerPlace();
    const shown = (place && declaredName(place)) ?? `next@${place ? `${place.line}:${place.col}` : this.id}`;
    const v = b.newVar(ty, undefined, shown);
    b.emit({ k: 'next', v, stream: this.id });
    return (ty === 'float' ? floatExpr(v, b) : intExpr(v, b)) as ElemExpr<E>;
  }
}

/**
 * Starts this QPU's broadcast stream at `p`, whose address must be the same in every lane, and
 * returns it: each `next()` then gives the next element in every lane. Ints and floats only (a
 * stream reads whole 32-bit words). Like a gather, it reads memory through a cache that this
 * run's stores do not update, so it may not read what the kernel has stored.
 */
export function stream<E extends Elem>(p: PtrExpr<E>): Stream<E> {
  const b = builder('stream');
  notInWhere(b, 'stream');
  if (!(p instanceof PtrExpr)) throw b.error(`stream needs a Ptr, not ${describeHost(p)}`);
  checkOwner(p.owner, 'stream');
  if (p.elemBytes !== 4)
    throw b.error(`stream reads 32-bit words, and ${describeTy(p.ty)} points to ${p.elemBytes * 8}-bit elements: load them 16 at a time (p.load())`);
  if (b.inParallel) throw b.error('stream inside parallelFor: its elements run on QPUs and lanes in no fixed order, so no one stream would be read in order; use a For');
  const id = b.streams++;
  b.emit({ k: 'stream', ptr: p.node, id });
  return new Stream<E>(id, p.ty as PtrTy, b);
}
