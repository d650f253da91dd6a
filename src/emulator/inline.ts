// The ALU operations as inline JavaScript, for the translated lane loops: the same results as
// the functions of src/vc4/arith.ts (a test checks them against each other on random inputs),
// written out so that the JIT compiles a lane's arithmetic without calls. Floats are read
// through the Float32Array view F over the registers and converted back through the scratch
// word FSCR, which is how single-precision rounding happens.

import { ftz, toF } from '../vc4/arith.ts';
import { FSCR } from './qpu.ts';

/** An ALU input: its 32-bit pattern as an expression, and its float value (denormals flushed). */
export interface Val {
  readonly int: string;
  readonly float: string;
  /** For a register word: its index, so the float can come straight from the F view. */
  readonly findex?: string;
}

/** A register word R[index]. */
export function regVal(index: string): Val {
  return { int: `R[${index}]`, float: `((R[${index}] & 0x7f800000) ? F[${index}] : (R[${index}] < 0 ? -0 : 0))`, findex: index };
}

/** A constant pattern. */
export function constVal(bits: number): Val {
  const f = toF(bits | 0);
  return { int: String(bits | 0), float: Object.is(f, -0) ? '-0' : Number.isNaN(f) ? 'NaN' : String(f) };
}

/** Any other pattern: the float through toF (for rare inputs: unpacked values, lane numbers). */
export function exprVal(int: string): Val {
  return { int, float: `toF(${int})` };
}

/** The float result `fexpr` rounded to single precision, flushed, NaN made canonical, into `out`. */
function floatResult(out: string, fexpr: string): string[] {
  return [
    `F[${FSCR}] = ${fexpr};`,
    `let ${out} = R[${FSCR}];`,
    `if ((${out} & 0x7f800000) === 0) ${out} &= 0x80000000; else if ((${out} & 0x7fffffff) > 0x7f800000) ${out} = 0x7fc00000;`,
  ];
}

/**
 * Statements computing add-ALU opcode `op` of inputs `a` and `b` (locals `aa`/`ab` hold their
 * patterns, `fa`/`fb` their float values when the op reads floats) into `out`.
 */
export function addOpCode(op: number, out: string): string[] {
  switch (op) {
    case 1:
      return floatResult(out, 'fa + fb');
    case 2:
      return floatResult(out, 'fa - fb');
    case 3:
      return floatResult(out, 'fb < fa ? fb : fa');
    case 4:
      return floatResult(out, 'fb > fa ? fb : fa');
    case 5:
      return floatResult(out, 'Math.abs(fb) < Math.abs(fa) ? Math.abs(fb) : Math.abs(fa)');
    case 6:
      return floatResult(out, 'Math.abs(fb) > Math.abs(fa) ? Math.abs(fb) : Math.abs(fa)');
    case 7:
      return [`const ${out} = fa > -2147483649 && fa < 2147483648 ? fa | 0 : 0;`];
    case 8:
      return [`F[${FSCR}] = aa;`, `const ${out} = R[${FSCR}];`];
    case 12:
      return [`const ${out} = (aa + ab) | 0;`];
    case 13:
      return [`const ${out} = (aa - ab) | 0;`];
    case 14:
      return [`const ${out} = (aa >>> (ab & 31)) | 0;`];
    case 15:
      return [`const ${out} = aa >> (ab & 31);`];
    case 16:
      return [`const ${out} = ((aa >>> (ab & 31)) | (aa << (32 - (ab & 31)))) | 0;`];
    case 17:
      return [`const ${out} = aa << (ab & 31);`];
    case 18:
      return [`const ${out} = aa < ab ? aa : ab;`];
    case 19:
      return [`const ${out} = aa > ab ? aa : ab;`];
    case 20:
      return [`const ${out} = aa & ab;`];
    case 21:
      return [`const ${out} = aa | ab;`];
    case 22:
      return [`const ${out} = aa ^ ab;`];
    case 23:
      return [`const ${out} = ~aa;`];
    case 24:
      return [`const ${out} = Math.clz32(aa);`];
    case 30:
      return [`const ${out} = v8adds(aa, ab);`];
    case 31:
      return [`const ${out} = v8subs(aa, ab);`];
    default:
      throw new Error(`no add opcode ${op}`);
  }
}

/** The same for the mul ALU, with inputs `ma`/`mb` (`fma`/`fmb`). */
export function mulOpCode(op: number, out: string): string[] {
  switch (op) {
    case 1:
      return floatResult(out, 'fma * fmb');
    case 2:
      return [`const ${out} = Math.imul(ma & 0xffffff, mb & 0xffffff);`];
    case 3:
      return [`const ${out} = v8muld(ma, mb);`];
    case 4:
      return [`const ${out} = v8min(ma, mb);`];
    case 5:
      return [`const ${out} = v8max(ma, mb);`];
    case 6:
      return [`const ${out} = v8adds(ma, mb);`];
    case 7:
      return [`const ${out} = v8subs(ma, mb);`];
    default:
      throw new Error(`no mul opcode ${op}`);
  }
}

/** Which inputs an opcode reads as floats and which as patterns. */
export const ADD_READS_FLOAT: ReadonlySet<number> = new Set([1, 2, 3, 4, 5, 6, 7]);
export const MUL_READS_FLOAT: ReadonlySet<number> = new Set([1]);

/** The carry flag of an add opcode as an expression (arith.addCarry inline). */
export function addCarryExpr(op: number, r: string): string {
  switch (op) {
    case 1:
    case 2:
      return `(${r} > 0 ? 1 : 0)`;
    case 3:
    case 4:
      return '(fa > fb ? 1 : 0)';
    case 5:
    case 6:
      return '(Math.abs(fa) > Math.abs(fb) ? 1 : 0)';
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

export { ftz };
