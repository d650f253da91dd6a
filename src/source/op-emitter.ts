// What an operator's lowering function (a row of ops.ts) is given and may do: the lowering's
// emitter (compiler/lower.ts implements it, test/language/ops.test.ts runs it on one lane).

import { type AddOpName, type MulOpName, shiftImmediate } from '../vc4/tables.ts';
import type { AluCode, Imm, PReg, PRegName, Reg, Src, TrueCode, VReg, WriteCond } from '../compiler/operands.ts';

/**
 * What an operator's lowering function needs of a lowering (compiler/lower.ts provides it): to
 * emit instructions, and the IR's registers and small immediates (compiler/ir.ts's p and int, so
 * that the language needs only the IR's types).
 */
export interface OpEmitter {
  fresh(): VReg;
  alu(code: AluCode, dst: Reg, a: Src, b?: Src, extra?: { cond?: WriteCond; setf?: boolean }): void;
  mov(dst: Reg, src: Src, cond?: WriteCond): void;
  p(name: PRegName): PReg;
  int(n: number): Imm;
  /** A 32-bit pattern as an operand: a small immediate when one reads as it (as an int or a float), else loaded (`ldi`). */
  word(bits: number): Src;
  /** An interval every lane of Int operand x is known to lie in (compiler/ranges.ts), if one is. */
  range(x: Src): { readonly lo: number; readonly hi: number } | undefined;
}

/**
 * How an operator becomes QPU instructions, its operands computed: one ALU operation (Tables 12
 * and 13) from the operands into the destination (a unary operator's operand is read as both),
 * or a function that emits several instructions. With `cond`, only the last instruction writes
 * `dst`, in the lanes where the condition code holds; the others write temporaries.
 */
export type OpLowering = AddOpName | MulOpName | ((l: OpEmitter, dst: Reg, a: Src, b: Src, cond: TrueCode | undefined) => void);


/** The SFU's function of a pattern (function 0 recip, 1 recipsqrt, 2 exp2, 3 log2): arith.sfu, or vc4/sfu-model.ts's chip model. */
export type Sfu = (fn: number, bits: number) => number;

/** x's value when the lowering knows it is one constant (its range, compiler/ranges.ts). */
export function constantOf(l: OpEmitter, x: Src): number | undefined {
  const r = l.range(x);
  return r && r.lo === r.hi ? r.lo : undefined;
}

/** Whether every value of x is known to be a 24-bit unsigned number, which `mul24` reads whole. */
export function fits24(l: OpEmitter, x: Src): boolean {
  const r = l.range(x);
  return r !== undefined && r.lo >= 0 && r.hi < 2 ** 24;
}

/** A shift amount 0-31 as a small immediate (vc4/tables.ts, shiftImmediate). */
export const shiftBy = (l: OpEmitter, k: number) => l.int(shiftImmediate(k));
