// Integer operators that take several instructions (the rows of ops.ts use them): the full
// 32-bit multiply built from the chip's 24-bit one; bytes and half-words of words.

import { constantOf, fits24, type OpLowering, shiftBy } from './op-emitter.ts';
import { COLOURS, type ColourCode, type InsertCode, insertFunction, type UnpackCode, UNPACKS } from '../compiler/operands.ts';
import { colourToFloatBits } from '../vc4/arith.ts';

/**
 * A byte of each lane (byte0-byte3, zero-extended) or a half-word (half0, half1, sign-extended):
 * its meaning, and its lowering as the IR's unpack operation, which emit.ts makes one `mov`
 * through regfile A's unpack (Guide p. 31, Table 6) when the value is in regfile A, else two
 * shifts. The small immediate beside it leans the allocator's choice toward regfile A.
 */
export function unpackRow(code: UnpackCode) {
  const u = UNPACKS[code];
  return {
    from: 'int',
    to: 'int',
    fn: (a: number) => (u.signed ? (a << u.shl) >> u.shr : (a << u.shl) >>> u.shr) | 0,
    lower: ((l, dst, a, _b, cond) => {
      let x = a;
      if (x.k === 'imm') {
        x = l.fresh();
        l.mov(x, a);
      }
      l.alu(code, dst, x, l.int(0), cond ? { cond } : {});
    }) satisfies OpLowering,
    generate: true,
  } as const;
}

/**
 * A word with byte k (setByte0-3) or half-word k (setHalf0-1) replaced by the low bits of another
 * Int (Int.setByte, setHalf): the IR's insert, which emit.ts makes one `mov` through regfile A's
 * pack (Guide p. 31, Table 7). Into the destination, or where that is the inserted value
 * (which the insert must not overwrite) or no virtual register, into a fresh register it copies.
 */
export function insertRow(code: InsertCode) {
  return {
    int: {
      fn: insertFunction(code),
      lower: ((l, dst, a, b, cond) => {
        if (dst.k === 'v' && !(b.k === 'v' && b.id === dst.id)) return l.alu(code, dst, a, b, cond ? { cond } : {});
        const t = l.fresh();
        l.alu(code, t, a, b);
        l.mov(dst, t, cond);
      }) satisfies OpLowering,
    },
    generate: true,
  } as const;
}

/**
 * Byte k of each lane as a colour, a Float in [0, 1] (Int.colour): byte / 255 rounded toward zero,
 * as regfile A's unpack gives it to a float operation (Guide p. 31, Table 6; vc4/arith.ts). The
 * IR's colour operation, one `fmax` of the word with itself, which the allocator keeps in regfile A.
 */
export function colourRow(code: ColourCode) {
  const shift = 8 * COLOURS[code].byte;
  return {
    from: 'int',
    to: 'float',
    fn: (a: number) => colourToFloatBits((a >>> shift) & 255),
    lower: ((l, dst, a, _b, cond) => {
      let x = a;
      if (x.k !== 'v') {
        x = l.fresh();
        l.mov(x, a);
      }
      l.alu(code, dst, x, x, cond ? { cond } : {});
    }) satisfies OpLowering,
    generate: true,
  } as const;
}

/**
 * The low 32 bits of a * b (Math.imul), from `mul24`, which multiplies the low 24 bits of each
 * operand, unsigned. With a = ah * 2^24 + al (ah its top 8 bits) and b likewise,
 * a * b = al * bl + ((ah * bl + al * bh) << 24) modulo 2^32: three `mul24` and five add-ALU
 * operations. Where value ranges (compiler/ranges.ts) show that an operand fits in 24 bits, its
 * high part is 0 and its product goes (two `mul24`, three more); where both fit, one `mul24` is
 * the product; a constant power of two is a shift.
 */
export const multiply: OpLowering = (l, dst, a, b, cond) => {
  const c = { cond };
  for (const [x, y] of [[a, b], [b, a]] as const) {
    const k = constantOf(l, y);
    if (k === 0) return l.mov(dst, l.int(0), cond);
    if (k !== undefined && k > 0 && (k & (k - 1)) === 0) return l.alu('shl', dst, x, shiftBy(l, Math.log2(k)), c);
  }
  if (fits24(l, a) && fits24(l, b)) return l.alu('mul24', dst, a, b, c);
  const low = l.fresh();
  l.alu('mul24', low, a, b);
  const high = l.fresh();
  if (fits24(l, a) || fits24(l, b)) {
    const [big, small] = fits24(l, b) ? [a, b] : [b, a];
    const h = l.fresh();
    l.alu('shr', h, big, shiftBy(l, 24));
    l.alu('mul24', high, h, small);
  } else {
    const ah = l.fresh();
    const bh = l.fresh();
    l.alu('shr', ah, a, shiftBy(l, 24));
    l.alu('shr', bh, b, shiftBy(l, 24));
    const x = l.fresh();
    const y = l.fresh();
    l.alu('mul24', x, ah, b);
    l.alu('mul24', y, a, bh);
    l.alu('add', high, x, y);
  }
  const shifted = l.fresh();
  l.alu('shl', shifted, high, shiftBy(l, 24));
  l.alu('add', dst, low, shifted, c);
};
