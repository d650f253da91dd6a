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

/**
 * The low bytes of four Ints in one, `b0` lowest: `packBytes(r, g, b, a)` is an RGBA8 pixel
 * (Int.byte(k) takes it apart). b0 with bytes 1-3 set (Int.setByte): three `mov`s through
 * regfile A's pack, and a copy of b0 where it lives on.
 */
export function packBytes(b0: IntLike, b1: IntLike, b2: IntLike, b3: IntLike): IntExpr {
  const [x0, x1, x2, x3] = [b0, b1, b2, b3].map((x) => intOf(x, 'packBytes'));
  return x0!.setByte(1, x1!).setByte(2, x2!).setByte(3, x3!);
}

/** The low half-words of two Ints in one, `lo` lowest (Int.half(k) takes it apart): lo with half-word 1 set (Int.setHalf). */
export function packHalves(lo: IntLike, hi: IntLike): IntExpr {
  const [a, b] = [lo, hi].map((x) => intOf(x, 'packHalves'));
  return a!.setHalf(1, b!);
}
