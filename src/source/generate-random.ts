// What the random program generator (generate.ts) draws from: a seeded PRNG, the choices made
// from it, literals that find edge cases (zeros, denormals, infinities, NaNs, extremes) and the
// operators it uses, so that the same seed makes the same program on every machine.

import type { BinOp, CmpOp, Expr, UnOp } from './ast.ts';
import { type ArithType, BINARY, binaryImpl, COMPARISONS, comparisonRow, names, UNARY } from './ops.ts';

/** mulberry32: a small, fast, well-mixed 32-bit PRNG, so programs are the same on every machine. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

// The operators the generator uses (their rows in ops.ts say whether), in the tables' order:
// binary ones by operand type, unary ones by result type and operand type.
export const BIN: Record<ArithType, BinOp[]> = {
  int: names(BINARY).filter((op) => BINARY[op].generate && binaryImpl(op, 'int') !== undefined),
  float: names(BINARY).filter((op) => BINARY[op].generate && binaryImpl(op, 'float') !== undefined),
};
const unaries = (to: ArithType, from: ArithType): UnOp[] =>
  names(UNARY).filter((op) => UNARY[op].generate && UNARY[op].to === to && UNARY[op].from === from);
export const UN: Record<ArithType, Record<ArithType, UnOp[]>> = {
  int: { int: unaries('int', 'int'), float: unaries('int', 'float') },
  float: { int: unaries('float', 'int'), float: unaries('float', 'float') },
};
const comparisons = (ty: ArithType): CmpOp[] => names(COMPARISONS).filter((op) => COMPARISONS[op].generate && comparisonRow(op)?.[ty] !== undefined);
export const CMP: Record<ArithType, CmpOp[]> = { int: comparisons('int'), float: comparisons('float') };
/** Float patterns that find edge cases: zeros, denormals, infinities, NaNs, extremes. */
const SPECIAL_FLOATS = [
  0, 0x80000000, 0x3f800000, 0xbf800000, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000,
  0x7fc00000, 0xffc00000, 0x3effffff, 0x4b000000, 0xcf000000, 0x4f000000, 0x40490fdb, 0x3dcccccd,
];
const SPECIAL_INTS = [0, 1, -1, 2, 15, 16, -16, -17, 0x7fffffff, -0x80000000, 0xffffff, 0x1000000, 0x12345678, 31, 32, 255, 65535];

/** Choices and literals from a seeded PRNG: what the generator draws everything from. */
export class RandomSource {
  protected readonly r: () => number;

  constructor(seed: number) {
    this.r = rng(seed);
  }

  protected int(n: number): number {
    return this.r() % n;
  }
  protected chance(p: number): boolean {
    return this.r() / 2 ** 32 < p;
  }
  protected pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  protected intLit(): number {
    const c = this.int(4);
    if (c === 0) return this.int(32) - 16;
    if (c === 1) return this.pick(SPECIAL_INTS) | 0;
    if (c === 2) return (this.int(2001) - 1000) | 0;
    return this.r() | 0;
  }
  protected floatLit(): number {
    const c = this.int(5);
    if (c === 0) return this.pick(SPECIAL_FLOATS) | 0;
    if (c === 1) return floatBitsOf(this.pick([0.5, 1, 2, 4, 8, 0.25, 0.125, 3, 10, 100, -1, -2, -0.5]));
    if (c === 2) return floatBitsOf((this.int(20001) - 10000) / 64);
    if (c === 3) return floatBitsOf(Math.fround((this.r() / 2 ** 32 - 0.5) * 2 ** (this.int(60) - 30)));
    return this.r() | 0;
  }
}

/** A literal of `ty` with the 32-bit pattern `bits`. */
export function lit(ty: 'int' | 'float', bits: number): Expr {
  return { k: 'lit', ty, bits: bits | 0 };
}

export function floatBitsOf(x: number): number {
  const f = new Float32Array([x]);
  return new Int32Array(f.buffer)[0]!;
}
