// Float32 arithmetic as the QPU computes it, for scalar reference versions of the examples:
// add, subtract and multiply round toward zero and drop denormals (docs/emulator.md), where
// JavaScript's Math.fround rounds to nearest. The two differ in the last bit now and then.
import * as arith from '../src/vc4/arith.ts';
import { bitsToFloat, floatBits } from '../src/vc4/tables.ts';

const op = (f: (a: number, b: number) => number) => (x: number, y: number) => bitsToFloat(f(floatBits(x), floatBits(y)));

export const qadd = op(arith.fadd);
export const qsub = op(arith.fsub);
export const qmul = op(arith.fmul);
