// Integer operators that take several instructions (the rows of ops.ts use them): the full
// 32-bit multiply built from the chip's 24-bit one; bytes and half-words of words.

import { constantOf, fits24, type OpLowering, shiftBy } from './op-emitter.ts';
import { type UnpackCode, UNPACKS } from '../compiler/operands.ts';

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
