// Float32 arithmetic as the QPU computes it, for exact scalar references of kernels (the
// package's `qpu-ts/float` entry point). The QPU's add, subtract and multiply round toward zero
// and read and write denormals as zero (docs/emulator.md, "Arithmetic"), where JavaScript's
// Math.fround rounds to nearest and keeps denormals: the two differ in the last bit now and then,
// so a reference built with + and * and Math.fround is not exact. These are the emulator's own
// functions (vc4/arith.ts), on numbers.

import * as arith from './vc4/arith.ts';
import { bitsToFloat, floatBits } from './vc4/tables.ts';

/** The int32 pattern of x as a float32 (arith's functions take signed patterns: a negative float's is below 0). */
const bits = (x: number): number => floatBits(x) | 0;
const op = (f: (a: number, b: number) => number) => (x: number, y: number) => bitsToFloat(f(bits(x), bits(y)));

/** x + y as a QPU's `fadd` computes it (a Float's `add`). */
export const qadd = op(arith.fadd);
/** x - y as a QPU's `fsub` computes it (a Float's `sub`). */
export const qsub = op(arith.fsub);
/** x * y as a QPU's `fmul` computes it (a Float's `mul`). */
export const qmul = op(arith.fmul);
/** The smaller of x and y as `fmin` chooses (a Float's `min`). */
export const qmin = op(arith.fmin);
/** The larger of x and y as `fmax` chooses (a Float's `max`). */
export const qmax = op(arith.fmax);
/** An integer as `itof` converts it (an Int's `toFloat()`): toward zero, as a float32. */
export const qfloat = (i: number): number => bitsToFloat(arith.itof(i | 0));
/** A float as `ftoi` converts it (a Float's `toInt()`): toward zero; out of range, NaN and infinities give 0. */
export const qint = (x: number): number => arith.ftoi(bits(x));
/**
 * The value float arithmetic (add, sub, mul, min, max, conversions) takes x as when x is stored
 * in a Float32Array: Math.fround(x), with denormals as +0. (Moves and stores keep the bits.)
 */
export const qfloat32 = (x: number): number => bitsToFloat(arith.ftz(bits(x)));
