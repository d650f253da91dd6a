// The ALU operations as inline JavaScript, for the translated lane loops: the same results as
// the functions of src/vc4/arith.ts (a test checks them against each other on random inputs),
// written out so that the JIT compiles a lane's arithmetic with few calls. Floats are read
// through the Float32Array view F over the registers; rare cases (NaN inputs) call arith.

import { toF } from '../vc4/arith.ts';
import type { AddOpName, MulOpName } from '../vc4/tables.ts';
import { type Code, F, js, R, set, type Ref } from './code.ts';
import { FSCR } from './layout.ts';

/** An ALU input: its 32-bit pattern as an expression, and its float value (zero and denormals read as +0). */
export interface Val {
  readonly int: Code;
  readonly float: Code;
  /** For a register word: the word in the F view, so the float can come straight from there. */
  readonly fref?: Ref;
  /** A statement before the lane loop that `float` needs (a uniform's float, computed once). */
  readonly floatDef?: Code;
  /** The value comes from other lanes (the nop register). */
  readonly crossLane?: boolean;
}

/** Lane l of register vector `word` (layout.ts). */
export function regVal(word: number): Val {
  const f = F(word, 'l');
  return { int: [R(word, 'l')], float: ['flushF(', f, ')'], fref: f };
}

/** Statements loading float input `name` from `ref` (the F view), zero and denormals as +0. */
export function loadFloat(name: string, ref: Ref): Code {
  return js`let ${name} = ${ref}; if (${name} < ${MIN_NORMAL} && ${name} > -${MIN_NORMAL}) ${name} = 0;`;
}

/** A constant pattern. */
export function constVal(bits: number): Val {
  const f = toF(bits | 0);
  return { int: [String(bits | 0)], float: [Number.isNaN(f) ? 'NaN' : String(f)] };
}

/** Any other pattern: the float through toF (for rare inputs: unpacked values, lane numbers). */
export function exprVal(int: Code): Val {
  return { int, float: js`toF(${int})` };
}

/** The smallest normal single; magnitudes below it read (and are written) as +0. */
const MIN_NORMAL = '1.1754943508222875e-38';
/** 2^128: sums and products from here on are infinities. */
const OVERFLOW = '3.402823669209385e38';

/**
 * Rounds the double `${out}_f` (an exact sum or product, or a sum whose tiny remainder `lo` the
 * statements in `lo` compute) toward zero to a single, as arith.roundToZero does: Math.fround
 * rounds to nearest; when that went away from zero, the single one unit nearer zero is
 * fround(f - f * 2^-24) (f * 2^-24 lies strictly between a half and a whole unit, or is exactly
 * the unit below a power of two). +0 below the smallest normal, tested on the exact value: toward
 * zero, a result is below 2^-126 exactly when the exact value is, and the rounded one can be
 * wrong there (an exact product in [2^-126 - 2^-150, 2^-126) rounds to nearest up to 2^-126, and
 * the step back toward zero is a tie in the denormal spacing that rounds up again). For sums the
 * double is exact whenever it is that small (float sums that cancel are exact). NaN, infinities
 * and 2^128 and beyond take `slow` (the arith function), whose pattern goes to `${out}_bits`
 * (and `${out}_slow` is set).
 */
function toZero(out: string, slow: Code, lo?: string): Code {
  const fr = `${out}_f`;
  return js`let ${out}_slow = false, ${out}_bits = 0; if (${fr} < ${OVERFLOW} && ${fr} > -${OVERFLOW}) { let f = Math.fround(${fr}); if (f !== ${fr}) { if (f > 0 ? f > ${fr} : f < ${fr}) f = f === Infinity ? 3.4028234663852886e38 : f === -Infinity ? -3.4028234663852886e38 : Math.fround(f - f * 5.960464477539063e-8); } ${
    lo ? `else if (f !== 0) { ${lo} if (lo !== 0 && (f > 0) === (lo < 0)) f = Math.fround(f - f * 5.960464477539063e-8); } ` : ''
  }${fr} = ${fr} < ${MIN_NORMAL} && ${fr} > -${MIN_NORMAL} ? 0 : f; } else { ${out}_bits = ${slow}; ${out}_slow = true; }`;
}

/** Defines `out` as the pattern of a float result (from the F view, or the slow path's). */
export function intOfFloat(out: string): Code {
  return js`const ${out} = ${out}_slow ? ${out}_bits : (${set(F(FSCR))} = ${out}_f, ${R(FSCR)});`;
}

/** The ops whose result is a float kept as a double (the _f, _slow and _bits locals). */
export const ADD_FLOAT_OUT: ReadonlySet<AddOpName> = new Set(['fadd', 'fsub', 'itof']);
export const MUL_FLOAT_OUT: ReadonlySet<MulOpName> = new Set(['fmul']);

/**
 * Opcodes that return their input when both inputs are the same value: `or x, x` and `v8min x, x`
 * are how moves are written, and they become a plain copy. (fmin and fmax return an operand
 * unchanged, without flushing; fminabs and fmaxabs clear the sign and are not here.)
 */
export const ADD_IDENTITY: ReadonlySet<AddOpName> = new Set(['fmin', 'fmax', 'min', 'max', 'and', 'or']);
export const MUL_IDENTITY: ReadonlySet<MulOpName> = new Set(['v8min', 'v8max']);

/**
 * Statements computing add-ALU operation `op` of inputs `a` and `b` (locals `aa`/`ab` hold their
 * patterns, `fa`/`fb` their float values when the op reads floats) into `out`.
 */
export function addOpCode(op: AddOpName, out: string, [ia, ib]: readonly [Code, Code] = [['aa'], ['ab']]): Code[] {
  const c = (expr: string) => [js`const ${out} = ${expr};`];
  switch (op) {
    case 'fadd':
    case 'fsub': {
      const b = op === 'fadd' ? 'fb' : '-fb';
      const lo = `const t = ${out}_f - fa, lo = (fa - (${out}_f - t)) + (${b} - t);`;
      return [js`let ${out}_f = fa + ${b};`, toZero(out, js`${op}(${ia}, ${ib})`, lo)];
    }
    case 'fmin':
      return c('(aa < 0 ? -(aa & 0x7fffffff) : aa) > (ab < 0 ? -(ab & 0x7fffffff) : ab) ? ab : aa');
    case 'fmax':
      return c('(aa < 0 ? -(aa & 0x7fffffff) : aa) > (ab < 0 ? -(ab & 0x7fffffff) : ab) ? aa : ab');
    case 'fminabs':
      return c('(aa & 0x7fffffff) > (ab & 0x7fffffff) ? ab & 0x7fffffff : aa & 0x7fffffff');
    case 'fmaxabs':
      return c('(aa & 0x7fffffff) > (ab & 0x7fffffff) ? aa & 0x7fffffff : ab & 0x7fffffff');
    case 'ftoi':
      return c('fa > -2147483649 && fa < 2147483648 ? fa | 0 : 0');
    case 'itof':
      return [js`let ${out}_f = aa;`, toZero(out, js`itof(aa)`)];
    case 'add':
      return c('(aa + ab) | 0');
    case 'sub':
      return c('(aa - ab) | 0');
    case 'shr':
      return c('(aa >>> (ab & 31)) | 0');
    case 'asr':
      return c('aa >> (ab & 31)');
    case 'ror':
      return c('((aa >>> (ab & 31)) | (aa << (32 - (ab & 31)))) | 0');
    case 'shl':
      return c('aa << (ab & 31)');
    case 'min':
      return c('aa < ab ? aa : ab');
    case 'max':
      return c('aa > ab ? aa : ab');
    case 'and':
      return c('aa & ab');
    case 'or':
      return c('aa | ab');
    case 'xor':
      return c('aa ^ ab');
    case 'not':
      return c('~aa');
    case 'clz':
      return c('Math.clz32(aa)');
    case 'v8adds':
      return c('v8adds(aa, ab)');
    case 'v8subs':
      return c('v8subs(aa, ab)');
    case 'nop':
      throw new Error('no code for the add ALU\'s nop');
  }
}

/** The same for the mul ALU, with inputs `ma`/`mb` (`fma`/`fmb`). */
export function mulOpCode(op: MulOpName, out: string, [ia, ib]: readonly [Code, Code] = [['ma'], ['mb']]): Code[] {
  const c = (expr: string) => [js`const ${out} = ${expr};`];
  switch (op) {
    case 'fmul':
      return [js`let ${out}_f = fma * fmb;`, toZero(out, js`fmul(${ia}, ${ib})`)];
    case 'mul24':
      return c('Math.imul(ma & 0xffffff, mb & 0xffffff)');
    case 'v8muld':
      return c('v8muld(ma, mb)');
    case 'v8min':
      return c('v8min(ma, mb)');
    case 'v8max':
      return c('v8max(ma, mb)');
    case 'v8adds':
      return c('v8adds(ma, mb)');
    case 'v8subs':
      return c('v8subs(ma, mb)');
    case 'nop':
      throw new Error('no code for the mul ALU\'s nop');
  }
}

/** Which inputs an opcode reads as floats and which as patterns. */
export const ADD_READS_FLOAT: ReadonlySet<AddOpName> = new Set(['fadd', 'fsub', 'ftoi']);
export const MUL_READS_FLOAT: ReadonlySet<MulOpName> = new Set(['fmul']);

/** The carry flag of an add operation as an expression (arith.addCarry inline). */
export function addCarryExpr(op: AddOpName, r: string): string {
  switch (op) {
    case 'fadd':
    case 'fsub':
    case 'itof':
      return `(${r} > 0 ? 1 : 0)`;
    case 'fmin':
    case 'fmax':
      return '((aa < 0 ? -(aa & 0x7fffffff) : aa) > (ab < 0 ? -(ab & 0x7fffffff) : ab) ? 1 : 0)';
    case 'fminabs':
    case 'fmaxabs':
      return '((aa & 0x7fffffff) > (ab & 0x7fffffff) ? 1 : 0)';
    case 'add':
      return '((aa >>> 0) + (ab >>> 0) > 0xffffffff ? 1 : 0)';
    case 'sub':
      return '((aa >>> 0) < (ab >>> 0) ? 1 : 0)';
    case 'shr':
    case 'asr':
      return '((ab & 31) ? (aa >>> ((ab & 31) - 1)) & 1 : 0)';
    case 'shl':
      return '((ab & 31) ? (aa >>> (32 - (ab & 31))) & 1 : 0)';
    case 'min':
    case 'max':
      return '(aa > ab ? 1 : 0)';
    default:
      return '0';
  }
}

/** The carry flag of a mul operation as an expression (arith.mulCarry inline). */
export function mulCarryExpr(op: MulOpName): string {
  return op === 'mul24' ? '((ma & 0xffffff) * (mb & 0xffffff) > 0xffffff ? 1 : 0)' : '0';
}
