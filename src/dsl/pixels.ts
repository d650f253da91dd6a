// Packing small ints into words, the inverse of Int.byte and Int.half (numbers.ts): an RGBA8
// pixel from its four channels, two int16s into one word. Each takes the low bits of its
// operands, as a store to an 8- or 16-bit array does (no clamping: clamp first with max/min).

import { builder, checkOwner } from './builder.ts';
import { IntExpr, type IntLike, intExpr } from './numbers.ts';
import { exprOf } from './vec.ts';

/** An Int of one of the arguments (a number becomes a literal), checked. */
function intOf(x: IntLike, what: string): IntExpr {
  const b = builder(what);
  if (x instanceof IntExpr) checkOwner(x.owner, what);
  return x instanceof IntExpr ? x : intExpr(exprOf(x, 'int', what), b);
}

/** x's low byte: x itself when it is a byte of a word already (Int.byte), which needs no mask. */
function lowByte(x: IntExpr): IntExpr {
  const n = x.node;
  return n.k === 'un' && n.op.startsWith('byte') ? x : x.and(255);
}

/** The low bytes of four Ints in one, `b0` lowest: `packBytes(r, g, b, a)` is an RGBA8 pixel (Int.byte(k) takes it apart). */
export function packBytes(b0: IntLike, b1: IntLike, b2: IntLike, b3: IntLike): IntExpr {
  const [x0, x1, x2, x3] = [b0, b1, b2, b3].map((x) => intOf(x, 'packBytes'));
  return lowByte(x0!).or(lowByte(x1!).shl(8)).or(lowByte(x2!).shl(16)).or(x3!.shl(24));
}

/** The low half-words of two Ints in one, `lo` lowest (Int.half(k) takes it apart). */
export function packHalves(lo: IntLike, hi: IntLike): IntExpr {
  const [a, b] = [lo, hi].map((x) => intOf(x, 'packHalves'));
  return a!.and(0xffff).or(b!.shl(16));
}
