// One definition, two readings: a function written once against `Dual<V>` computes on 32-bit
// patterns with the chip's arithmetic (V = number: the reference interpreter's meaning) or emits
// the QPU instructions that compute the same (V = Src: the lowering). The math library
// (math.ts) is written this way, so that its meaning and its code cannot differ by a bit.

import * as arith from '../vc4/arith.ts';
import type { OpEmitter, OpLowering, Sfu } from './op-emitter.ts';
import type { AluCode, Src } from '../compiler/operands.ts';

type Binary = 'fadd' | 'fsub' | 'fmul' | 'fmin' | 'fmax' | 'add' | 'sub' | 'and' | 'or' | 'xor' | 'shl' | 'shr' | 'asr' | 'min' | 'max';
type Unary = 'ftoi' | 'itof' | 'fabs';
/** The SFU's functions, in Table 14's order. */
const SFU = ['recip', 'recipsqrt', 'exp2', 'log2'] as const;
export type SfuName = (typeof SFU)[number];

/** How a lane-by-lane choice tests: a < b as floats, as signed ints, or as unsigned ints. */
export type Less = 'flt' | 'ilt' | 'ult';

export interface Dual<V> {
  /** A 32-bit pattern. */
  bits(b: number): V;
  /** A float constant: x rounded to float32 (to nearest: the constant is what it says). */
  f(x: number): V;
  op(code: Binary, a: V, b: V): V;
  un(code: Unary, a: V): V;
  sfu(fn: SfuName, a: V): V;
  /** Lane by lane: `yes` where a < b (as `less` says), else `no`. Sets flags. */
  pick(less: Less, a: V, b: V, yes: V, no: V): V;
  /** The same for several pairs [yes, no] under one test (one flag setting). */
  choose(less: Less, a: V, b: V, pairs: readonly (readonly [V, V])[]): V[];
}

const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);
/** The float32 pattern of x, rounded to nearest. */
export const floatBits = (x: number): number => ((f32[0] = x), i32[0]!);

const UNARY: Record<Unary, (a: number) => number> = { ftoi: arith.ftoi, itof: arith.itof, fabs: (a) => arith.fmaxabs(a, a) };
const BINARY: Record<Binary, (a: number, b: number) => number> = {
  fadd: arith.fadd,
  fsub: arith.fsub,
  fmul: arith.fmul,
  fmin: arith.fmin,
  fmax: arith.fmax,
  add: arith.add,
  sub: arith.sub,
  and: arith.and,
  or: arith.or,
  xor: arith.xor,
  shl: arith.shl,
  shr: arith.shr,
  asr: arith.asr,
  min: arith.min,
  max: arith.max,
};

/** The evaluators made so far, by SFU function (the exact one and the chip model's, in practice). */
const EVALUATORS = new Map<Sfu, Dual<number>>();

/** The meaning: patterns in, patterns out, the SFU as the run says. */
export function evaluator(sfu: Sfu = arith.sfu): Dual<number> {
  let e = EVALUATORS.get(sfu);
  if (!e) EVALUATORS.set(sfu, (e = makeEvaluator(sfu)));
  return e;
}

/** Whether a < b as `less` says. */
const holds = (less: Less, a: number, b: number): boolean =>
  less === 'flt' ? arith.fkey(a) < arith.fkey(b) : less === 'ilt' ? (a | 0) < (b | 0) : a >>> 0 < b >>> 0;

function makeEvaluator(sfu: Sfu): Dual<number> {
  return {
    bits: (b) => b | 0,
    f: floatBits,
    op: (code, a, b) => BINARY[code](a, b) | 0,
    un: (code, a) => UNARY[code](a) | 0,
    sfu: (fn, a) => sfu(SFU.indexOf(fn), a),
    pick: (less, a, b, yes, no) => (holds(less, a, b) ? yes : no),
    choose: (less, a, b, pairs) => pairs.map(([yes, no]) => (holds(less, a, b) ? yes : no)),
  };
}

const CODES: Record<Binary | Unary, AluCode> = { ...Object.fromEntries(Object.keys(BINARY).map((k) => [k, k])), ftoi: 'ftoi', itof: 'itof', fabs: 'fmaxabs' } as Record<Binary | Unary, AluCode>;

/** The lowering: each operation an instruction into a new virtual register. */
export function emitter(l: OpEmitter): Dual<Src> {
  const into = (code: AluCode, a: Src, b: Src = a) => {
    const r = l.fresh();
    l.alu(code, r, a, b);
    return r;
  };
  return {
    bits: (b) => l.word(b),
    f: (x) => l.word(floatBits(x)),
    op: (code, a, b) => into(CODES[code], a, b),
    un: (code, a) => into(CODES[code], a),
    sfu: (fn, a) => {
      l.mov(l.p(`sfu_${fn}`), a);
      const r = l.fresh();
      l.mov(r, l.p('r4'));
      return r;
    },
    pick: (less, a, b, yes, no) => choose(less, a, b, [[yes, no]])[0]!,
    choose,
  };
  function choose(less: Less, a: Src, b: Src, pairs: readonly (readonly [Src, Src])[]): Src[] {
    // fmax.setf (max.setf) b, a sets C where b is the greater: where a < b; sub.setf a, b its borrow, where a < b unsigned.
    if (less === 'ult') l.alu('sub', l.p('nop'), a, b, { setf: true });
    else l.alu(less === 'flt' ? 'fmax' : 'max', l.p('nop'), b, a, { setf: true });
    return pairs.map(([yes, no]) => {
      const r = l.fresh();
      l.mov(r, no);
      l.mov(r, yes, 'cs');
      return r;
    });
  }
}

/** A unary operator's meaning and lowering from one definition (its row also needs setsFlags where `pick` is used). */
export function dualUnary(def: <V>(o: Dual<V>, x: V) => V): { fn: (a: number, sfu?: Sfu) => number; lower: OpLowering } {
  return {
    fn: (a, sfu) => def(evaluator(sfu), a),
    lower: (l, dst, a, _b, cond) => l.mov(dst, def(emitter(l), a), cond),
  };
}

/** The same for a binary operator. */
export function dualBinary(def: <V>(o: Dual<V>, x: V, y: V) => V): { fn: (a: number, b: number, sfu?: Sfu) => number; lower: OpLowering } {
  return {
    fn: (a, b, sfu) => def(evaluator(sfu), a, b),
    lower: (l, dst, a, b, cond) => l.mov(dst, def(emitter(l), a, b), cond),
  };
}
