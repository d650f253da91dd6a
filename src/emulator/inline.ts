// The ALU operations as inline JavaScript, for the translated lane loops: the same results as
// the functions of src/vc4/arith.ts (a test checks them against each other on random inputs),
// written out so that the JIT compiles a lane's arithmetic with few calls. Floats are read
// through the Float32Array view F over the registers; rare cases (NaN inputs) call arith.

import { toF } from '../vc4/arith.ts';
import { FSCR } from './qpu.ts';

/** An ALU input: its 32-bit pattern as an expression, and its float value (zero and denormals read as +0). */
export interface Val {
  readonly int: string;
  readonly float: string;
  /** For a register word: its index, so the float can come straight from the F view. */
  readonly findex?: string;
}

/** A register word R[index]. */
export function regVal(index: string): Val {
  return { int: `R[${index}]`, float: `((R[${index}] & 0x7f800000) ? F[${index}] : 0)`, findex: index };
}

/** A constant pattern. */
export function constVal(bits: number): Val {
  const f = toF(bits | 0);
  return { int: String(bits | 0), float: Number.isNaN(f) ? 'NaN' : String(f) };
}

/** Any other pattern: the float through toF (for rare inputs: unpacked values, lane numbers). */
export function exprVal(int: string): Val {
  return { int, float: `toF(${int})` };
}

/**
 * Rounds the double `s` toward zero to a single, into `out` (arith.roundToZero written out for
 * the common case). `exactLo` defines `lo`, the tiny part of an inexact double sum; without it `s`
 * is exact. Zero, denormal, infinite and NaN results take `slow`, the arith function.
 */
function toZero(out: string, s: string, slow: string, exactLo?: string): string {
  return (
    `F[${FSCR}] = ${s}; let ${out} = R[${FSCR}]; { const e = ${out} & 0x7f800000; ` +
    `if (e === 0 || e === 0x7f800000) ${out} = ${slow}; else { const f = F[${FSCR}]; ` +
    (exactLo
      ? `if (f !== ${s}) { if (f > 0 ? f > ${s} : f < ${s}) ${out} -= 1; } else { ${exactLo} if (lo !== 0 && (f > 0) === (lo < 0)) ${out} -= 1; } `
      : `if (f > 0 ? f > ${s} : f < ${s}) ${out} -= 1; `) +
    `if ((${out} & 0x7f800000) === 0) ${out} = 0; } }`
  );
}

/** a + b rounded toward zero (arith.fadd, with `slow` for the special cases), into `out`. */
function sumToZero(out: string, a: string, b: string, slow: string): string {
  const lo = `const t = s${out} - ${a}, lo = (${a} - (s${out} - t)) + (${b} - t);`;
  return `const s${out} = ${a} + ${b}; ${toZero(out, `s${out}`, slow, lo)}`;
}

/**
 * Statements computing add-ALU opcode `op` of inputs `a` and `b` (locals `aa`/`ab` hold their
 * patterns, `fa`/`fb` their float values when the op reads floats) into `out`.
 */
export function addOpCode(op: number, out: string): string[] {
  const c = (expr: string) => [`const ${out} = ${expr};`];
  switch (op) {
    case 1:
      return [sumToZero(out, 'fa', 'fb', 'fadd(aa, ab)')];
    case 2:
      return [sumToZero(out, 'fa', '-fb', 'fsub(aa, ab)')];
    case 3:
      return c('(aa < 0 ? -(aa & 0x7fffffff) : aa) > (ab < 0 ? -(ab & 0x7fffffff) : ab) ? ab : aa');
    case 4:
      return c('(aa < 0 ? -(aa & 0x7fffffff) : aa) > (ab < 0 ? -(ab & 0x7fffffff) : ab) ? aa : ab');
    case 5:
      return c('(aa & 0x7fffffff) > (ab & 0x7fffffff) ? ab & 0x7fffffff : aa & 0x7fffffff');
    case 6:
      return c('(aa & 0x7fffffff) > (ab & 0x7fffffff) ? aa & 0x7fffffff : ab & 0x7fffffff');
    case 7:
      return c('fa > -2147483649 && fa < 2147483648 ? fa | 0 : 0');
    case 8:
      return [toZero(out, 'aa', 'itof(aa)')];
    case 12:
      return c('(aa + ab) | 0');
    case 13:
      return c('(aa - ab) | 0');
    case 14:
      return c('(aa >>> (ab & 31)) | 0');
    case 15:
      return c('aa >> (ab & 31)');
    case 16:
      return c('((aa >>> (ab & 31)) | (aa << (32 - (ab & 31)))) | 0');
    case 17:
      return c('aa << (ab & 31)');
    case 18:
      return c('aa < ab ? aa : ab');
    case 19:
      return c('aa > ab ? aa : ab');
    case 20:
      return c('aa & ab');
    case 21:
      return c('aa | ab');
    case 22:
      return c('aa ^ ab');
    case 23:
      return c('~aa');
    case 24:
      return c('Math.clz32(aa)');
    case 30:
      return c('v8adds(aa, ab)');
    case 31:
      return c('v8subs(aa, ab)');
    default:
      throw new Error(`no add opcode ${op}`);
  }
}

/** The same for the mul ALU, with inputs `ma`/`mb` (`fma`/`fmb`). */
export function mulOpCode(op: number, out: string): string[] {
  const c = (expr: string) => [`const ${out} = ${expr};`];
  switch (op) {
    case 1:
      return [`const s${out} = fma * fmb;`, toZero(out, `s${out}`, 'fmul(ma, mb)')];
    case 2:
      return c('Math.imul(ma & 0xffffff, mb & 0xffffff)');
    case 3:
      return c('v8muld(ma, mb)');
    case 4:
      return c('v8min(ma, mb)');
    case 5:
      return c('v8max(ma, mb)');
    case 6:
      return c('v8adds(ma, mb)');
    case 7:
      return c('v8subs(ma, mb)');
    default:
      throw new Error(`no mul opcode ${op}`);
  }
}

/** Which inputs an opcode reads as floats and which as patterns. */
export const ADD_READS_FLOAT: ReadonlySet<number> = new Set([1, 2, 7]);
export const MUL_READS_FLOAT: ReadonlySet<number> = new Set([1]);

/** The carry flag of an add opcode as an expression (arith.addCarry inline). */
export function addCarryExpr(op: number, r: string): string {
  switch (op) {
    case 1:
    case 2:
    case 8:
      return `(${r} > 0 ? 1 : 0)`;
    case 3:
    case 4:
      return '((aa < 0 ? -(aa & 0x7fffffff) : aa) > (ab < 0 ? -(ab & 0x7fffffff) : ab) ? 1 : 0)';
    case 5:
    case 6:
      return '((aa & 0x7fffffff) > (ab & 0x7fffffff) ? 1 : 0)';
    case 12:
      return '((aa >>> 0) + (ab >>> 0) > 0xffffffff ? 1 : 0)';
    case 13:
      return '((aa >>> 0) < (ab >>> 0) ? 1 : 0)';
    case 14:
    case 15:
      return '((ab & 31) ? (aa >>> ((ab & 31) - 1)) & 1 : 0)';
    case 17:
      return '((ab & 31) ? (aa >>> (32 - (ab & 31))) & 1 : 0)';
    case 18:
    case 19:
      return '(aa > ab ? 1 : 0)';
    default:
      return '0';
  }
}

export function mulCarryExpr(op: number): string {
  return op === 2 ? '((ma & 0xffffff) * (mb & 0xffffff) > 0xffffff ? 1 : 0)' : '0';
}
