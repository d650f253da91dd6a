// Lane arithmetic as WebAssembly SIMD: a run of instructions that only do lane arithmetic (what
// blocks.ts fuses into one lane loop) becomes one function over a QPU's registers in the shared
// register memory (slots.ts), four lanes a v128 and four chunks of lanes one after another. The
// instructions of a run depend on each other only lane by lane, so chunk by chunk is as good as
// instruction by instruction. Results are those of the JavaScript translation's, bit for bit:
// floats through float.ts, whose rare lanes (NaN, infinities, overflow) call back into arith.ts.
// Needs: instructions `supported` accepts. Guarantees: a function (base: the slot's byte offset,
// qpu: the QPU's number) with the effect of running the instructions in order on that slot.

import * as arith from '../../vc4/arith.ts';
import type { AluInstr, Instr, LoadImmInstr } from '../../vc4/instr.ts';
import { addWriteFile, mulWriteFile, R_ELEM_NUM, R_NOP, R_UNIF, type RegFile, W_ACC0, W_ACC5, W_DMA_ADDR, W_HOST_INT, W_MUTEX, W_NOP, W_SFU_LOG, W_SFU_RECIP, W_TMU_NOSWAP, W_TMU0_S, W_TMU1_S, W_UNIF_ADDR, W_VPM, W_VPM_SETUP } from '../../vc4/registers.ts';
import { SIG_SMALL_IMM as SMALL_IMM } from '../../vc4/fields.ts';
import { ADD_OPS, type AddOpName, COND_ALWAYS, COND_NEVER, LDI_MODE_32, LDI_MODE_SIGNED, LDI_MODE_UNSIGNED, MUL_OPS, type MulOpName, MUX_A, MUX_B, MUX_R4, perElementValues, SIG_LOAD_TMU0, SIG_LOAD_TMU1, SIG_NONE, SIG_PROG_END, SMALL_IMM_ROTATE_R5, smallImmValue } from '../../vc4/tables.ts';
import { ADD_IDENTITY, MUL_IDENTITY } from '../inline.ts';
import { ACC, FLAG_C, FLAG_N, FLAG_Z, REG_A, REG_B, SADD, SMUL, UNIF, wordName, WSCR } from '../layout.ts';
import { type FunctionBuilder, type ImportedFunction, type SimdOp } from './encoder.ts';
import { emitFaddSub, emitFmul, emitFtoi, emitItof } from './float.ts';

/** The JavaScript function the SIMD code calls for rare float lanes: fix(base, op) (FIX_OPS). */
export const FIX_IMPORT: ImportedFunction = { name: 'fix', params: ['i32', 'i32'], results: [] };
const FIX_OPS = ['fadd', 'fsub', 'fmul'] as const;
/** The fix import's function index: the module's only import (module.ts). */
const FIX_FUNCTION = 0;

/**
 * Recomputes with arith.ts the lanes marked rare in the scratch words of the slot at `base`:
 * a at WSCR, b at WSCR + 4, the result at WSCR + 8, the rare lanes (all ones) at WSCR + 12.
 */
export function fixRareLanes(words: Int32Array, base: number, op: number): void {
  const w = (base >> 2) + WSCR;
  const fn = arith[FIX_OPS[op]!];
  for (let l = 0; l < 4; l++) if (words[w + 12 + l] !== 0) words[w + 8 + l] = fn(words[w + l]!, words[w + 4 + l]!);
}

const name = (info: { name: string } | undefined) => info?.name ?? '';
const ADD_SIMPLE: Partial<Record<string, SimdOp>> = { add: 'i32x4.add', sub: 'i32x4.sub', min: 'i32x4.min_s', max: 'i32x4.max_s', and: 'v128.and', or: 'v128.or', xor: 'v128.xor', v8adds: 'i8x16.add_sat_u', v8subs: 'i8x16.sub_sat_u' };
const MUL_SIMPLE: Partial<Record<string, SimdOp>> = { v8min: 'i8x16.min_u', v8max: 'i8x16.max_u', v8adds: 'i8x16.add_sat_u', v8subs: 'i8x16.sub_sat_u' };
const ADD_SUPPORTED = new Set(['fadd', 'fsub', 'fmin', 'fmax', 'fminabs', 'fmaxabs', 'ftoi', 'itof', 'shr', 'asr', 'ror', 'shl', 'not', ...Object.keys(ADD_SIMPLE)]);
const MUL_SUPPORTED = new Set(['fmul', 'mul24', ...Object.keys(MUL_SIMPLE)]);
const SHIFTS = new Set(['shr', 'asr', 'ror', 'shl']);
const REGFILE_WORDS = 32; // addresses 0-31 are register-file words; r0-r3 (W_ACC0...) come next
/** Addresses a supported write reaches: a register file word, r0-r3, or nothing. */
const plainWrite = (addr: number) => addr < W_ACC0 + 4 || addr === W_NOP;
/**
 * I/O registers a write (with condition `always`) reaches through the ALU's scratch vector
 * (SADD, SMUL), which the JavaScript after the SIMD function passes on (access.ts ioWrite):
 * the VPM, the SFU, TMU requests, r5, and the registers that take element 0 (setups, DMA and
 * uniform addresses, tmu_noswap, host_int, the mutex).
 */
const SFU_WRITES = Array.from({ length: W_SFU_LOG - W_SFU_RECIP + 1 }, (_, k) => W_SFU_RECIP + k);
const IO_WRITES = new Set([W_TMU_NOSWAP, W_ACC5, W_HOST_INT, W_UNIF_ADDR, W_VPM, W_VPM_SETUP, W_DMA_ADDR, W_MUTEX, ...SFU_WRITES, W_TMU0_S, W_TMU1_S]);
/** Signals whose effect comes after the instruction's lane work (JavaScript, after the SIMD function). */
const AFTER_SIGNALS = new Set([SIG_NONE, SIG_PROG_END, SIG_LOAD_TMU0, SIG_LOAD_TMU1]);

/** A mul result rotated by a fixed amount (small immediates 49-63; 48 rotates by r5, not supported). */
export function rotation(ins: Instr): number {
  return ins.kind === 'alu' && ins.sig === SMALL_IMM && ins.opMul !== 0 ? Math.max(0, ins.raddrB - SMALL_IMM_ROTATE_R5) : 0;
}

/**
 * Whether SIMD pays for one instruction on its own: a call into WebAssembly costs about what a
 * JavaScript lane loop of a move or an integer operation does, so only float operations (whose
 * rounding is long in JavaScript) and rotations (a permuted copy) go there alone.
 */
export function worthAlone(ins: Instr): boolean {
  if (ins.kind !== 'alu') return false;
  return rotation(ins) > 0 || ADD_OPS[ins.opAdd]?.input === 'float' || ADD_OPS[ins.opAdd]?.output === 'float' || name(MUL_OPS[ins.opMul]) === 'fmul';
}

/**
 * Whether the instruction's lane work can be translated here: lane arithmetic on register
 * files, r0-r5 and small immediates, a mul result rotated by a fixed amount, writes to registers
 * or (condition always) to I/O registers (IO_WRITES); no packs or unpacks, no uniforms or other I/O
 * reads, no `clz`, `v8muld`, shift by a per-lane amount, or flags from `mul24` or a rotation.
 * What the instruction does besides (signals, the I/O writes' effect) stays JavaScript.
 */
export function supported(ins: Instr): boolean {
  if (ins.kind === 'ldi') return (ins.mode === LDI_MODE_32 || ins.mode === LDI_MODE_SIGNED || ins.mode === LDI_MODE_UNSIGNED) && ins.pm === 0 && ins.pack === 0 && plainWrite(ins.waddrAdd) && plainWrite(ins.waddrMul);
  if (ins.kind !== 'alu') return false;
  if (ins.pack !== 0 || ins.unpack !== 0) return false;
  if (!AFTER_SIGNALS.has(ins.sig) && !(ins.sig === SMALL_IMM && ins.raddrB !== SMALL_IMM_ROTATE_R5)) return false;
  const ioOk = (op: number, addr: number, cond: number) => op === 0 || plainWrite(addr) || (IO_WRITES.has(addr) && cond === COND_ALWAYS);
  if (!ioOk(ins.opAdd, ins.waddrAdd, ins.condAdd) || !ioOk(ins.opMul, ins.waddrMul, ins.condMul)) return false;
  // A rotation's write comes after the add ALU's I/O call in translate.ts (so a failing call leaves
  // it undone): with an I/O write beside it, it stays JavaScript.
  if (rotation(ins) && (ins.sf || !plainWrite(ins.waddrMul) || !plainWrite(ins.waddrAdd))) return false;
  const add = name(ADD_OPS[ins.opAdd]);
  const mul = name(MUL_OPS[ins.opMul]);
  if (ins.opAdd !== 0 && !ADD_SUPPORTED.has(add)) return false;
  if (ins.opMul !== 0 && !MUL_SUPPORTED.has(mul)) return false;
  if (ins.opAdd !== 0 && SHIFTS.has(add) && !(ins.addB === MUX_B && ins.sig === SMALL_IMM)) return false;
  if (ins.sf && ins.opAdd === 0 && mul === 'mul24') return false;
  const muxes = [...(ins.opAdd ? [ins.addA, ins.addB] : []), ...(ins.opMul ? [ins.mulA, ins.mulB] : [])];
  const readsA = muxes.includes(MUX_A);
  const readsB = muxes.includes(MUX_B) && ins.sig !== SMALL_IMM;
  // Register-file reads with effects or values from elsewhere: uniforms, VPM, DMA, the mutex, the nop register.
  // A uniform: JavaScript reads it before the function runs, into the UNIF word (access.ts).
  const plainRead = (addr: number, used: boolean) => addr < REGFILE_WORDS || addr === R_ELEM_NUM || addr === R_UNIF || (addr === R_NOP && !used);
  return plainRead(ins.raddrA, readsA) && (ins.sig === SMALL_IMM || plainRead(ins.raddrB, readsB));
}

const splat = (x: number) => [x, x, x, x];
/** Byte offset of word `w` of chunk `c` (lanes 4c..4c+3) from the slot's base. */
const at = (w: number, c: number) => 4 * (w + 4 * c);

/** Emits the function running `instrs` (each `supported`) on a QPU's slot. */
export function emitLanes(f: FunctionBuilder, instrs: readonly Instr[], first: number): void {
  const base = 0;
  const qpu = 1;
  const e = new Emitter(f, base, qpu);
  // Lane-by-lane stretches run chunk by chunk; a rotation, which reads other chunks' lanes, on its own.
  let from = 0;
  const stretch = (to: number) => {
    for (let c = 0; c < 4 && to > from; c++) {
      e.begin(c);
      for (let k = from; k < to; k++) {
        f.note(`pc ${first + k}, lanes ${4 * c}-${4 * c + 3}`);
        const ins = instrs[k]!;
        if (ins.kind === 'ldi') e.ldi(ins, c);
        else e.alu(ins as AluInstr, c);
      }
      e.end();
    }
  };
  instrs.forEach((ins, k) => {
    if (!rotation(ins)) return;
    stretch(k);
    f.note(`pc ${first + k}, rotated by ${rotation(ins)}`);
    e.rotated(ins as AluInstr);
    from = k + 1;
  });
  stretch(instrs.length);
}

/**
 * Emits instructions chunk by chunk. Within a chunk the registers and flags an instruction reads
 * are loaded into locals once, and those written are stored once, at the chunk's end.
 */
class Emitter {
  private readonly v: number[] = [];
  /** The local of each register-memory word used, its value valid in this chunk when in `live`. */
  private readonly regs = new Map<number, number>();
  private readonly live = new Set<number>();
  private readonly dirty = new Set<number>();
  /**
   * Words and temporaries known, in this chunk, to hold flushed floats (results of fadd, fsub,
   * fmul and itof; flushed already, never a denormal or -0): float operations skip flushing them.
   */
  private readonly cleanWords = new Set<number>();
  private readonly cleanTemps = new Set<number>();
  private chunk = 0;
  constructor(
    private readonly f: FunctionBuilder,
    private readonly base: number,
    private readonly qpu: number,
  ) {}

  begin(c: number): void {
    this.chunk = c;
    this.live.clear();
    this.dirty.clear();
    this.cleanWords.clear();
    this.cleanTemps.clear();
  }

  /** Whether local `v` holds flushed floats. */
  private clean(v: number): boolean {
    if (this.cleanTemps.has(v)) return true;
    for (const w of this.cleanWords) if (this.regs.get(w) === v) return true;
    return false;
  }

  /** Stores the words the chunk wrote. */
  end(): void {
    for (const w of this.dirty) this.f.get(this.base).get(this.regs.get(w)!).store(at(w, this.chunk), wordName(w));
  }

  private localOf(word: number): number {
    let l = this.regs.get(word);
    if (l === undefined) this.regs.set(word, (l = this.f.local('v128', wordName(word))));
    return l;
  }

  /** The local holding word `word` of this chunk, loaded on first use. */
  private reg(word: number): number {
    const l = this.localOf(word);
    if (!this.live.has(word)) {
      this.f.get(this.base).load(at(word, this.chunk), wordName(word)).set(l);
      this.live.add(word);
    }
    return l;
  }

  /** Sets word `word` from the value on the stack, or where `mask` (a local) is set when given. */
  private assign(word: number, mask?: number, clean = false): void {
    const f = this.f;
    if (clean && (mask === undefined || this.cleanWords.has(word))) this.cleanWords.add(word);
    else this.cleanWords.delete(word);
    if (mask !== undefined) f.get(this.reg(word)).get(mask).simd('v128.bitselect');
    f.set(this.localOf(word));
    this.live.add(word);
    this.dirty.add(word);
  }

  /** A v128 local for temporary `slot` (reused across instructions). */
  private tmp(slot: number, label: string): number {
    return (this.v[slot] ??= this.f.local('v128', label));
  }

  /** Pushes the condition mask of `cond` (2-7) from the flags before this instruction. */
  private condMask(cond: number): void {
    this.f.get(this.reg([FLAG_Z, FLAG_N, FLAG_C][(cond - 2) >> 1]!));
    this.f.v128i32(splat(0)).simd(cond & 1 ? 'i32x4.eq' : 'i32x4.ne');
  }

  /**
   * Writes local `v` to `addr` of `file` under `cond` (mask in local `mask` when not always); a
   * vector I/O register's value goes to `scratch` (SADD or SMUL).
   */
  private write(v: number, file: RegFile, addr: number, cond: number, mask: number, scratch: number): void {
    if (addr === W_NOP || cond === COND_NEVER) return;
    this.f.get(v);
    const word = addr < REGFILE_WORDS ? (file === 'a' ? REG_A : REG_B) + 16 * addr : addr < W_ACC0 + 4 ? ACC + 16 * (addr - W_ACC0) : scratch;
    this.assign(word, cond === COND_ALWAYS ? undefined : mask, this.cleanTemps.has(v));
  }

  /** Sets Z, N and C from result `r` and carry `carry` (0/1 lanes, or undefined for 0) in the lanes `cond` selects. */
  private flags(r: number, carry: number | undefined, cond: number, mask: number): void {
    if (cond === COND_NEVER) return;
    const f = this.f;
    const m = cond === COND_ALWAYS ? undefined : mask;
    f.get(r).v128i32(splat(0)).simd('i32x4.eq').simd('i32x4.neg');
    this.assign(FLAG_Z, m);
    f.get(r).i32(31).simd('i32x4.shr_u');
    this.assign(FLAG_N, m);
    if (carry === undefined) f.v128i32(splat(0));
    else f.get(carry);
    this.assign(FLAG_C, m);
  }

  ldi(i: LoadImmInstr, c: number): void {
    const f = this.f;
    const values = i.mode === LDI_MODE_32 ? splat(i.imm | 0) : perElementValues(i.imm, i.mode === LDI_MODE_SIGNED).slice(4 * c, 4 * c + 4);
    const v = this.tmp(0, 'value');
    f.v128i32(values).set(v);
    const [ma, mm] = [this.tmp(1, 'cond_add'), this.tmp(2, 'cond_mul')];
    if (i.condAdd > COND_ALWAYS) (this.condMask(i.condAdd), f.set(ma));
    if (i.condMul > COND_ALWAYS) (this.condMask(i.condMul), f.set(mm));
    this.write(v, addWriteFile(i.ws), i.waddrAdd, i.condAdd, ma, SADD);
    this.write(v, mulWriteFile(i.ws), i.waddrMul, i.condMul, mm, SMUL);
    if (i.sf) this.flags(v, undefined, i.condAdd, ma);
  }

  alu(i: AluInstr, c: number): void {
    const [ra, rm] = this.compute(i, c);
    const [ma, mm] = [this.tmp(1, 'cond_add'), this.tmp(2, 'cond_mul')];
    if (i.opAdd) this.write(ra, addWriteFile(i.ws), i.waddrAdd, i.condAdd, ma, SADD);
    if (i.sf && i.opAdd) this.flags(ra, this.carry, i.condAdd, ma);
    if (i.opMul) this.write(rm, mulWriteFile(i.ws), i.waddrMul, i.condMul, mm, SMUL);
    if (i.sf && !i.opAdd && i.opMul) this.flags(rm, undefined, i.condMul, mm);
  }

  /** The carry of the last add computed, when the instruction sets flags. */
  private carry: number | undefined;

  /**
   * Reads the instruction's inputs for chunk `c`, its conditions (into the cond_add and cond_mul
   * locals) and computes both results; returns the locals holding them (-1 for a nop ALU).
   */
  private compute(i: AluInstr, c: number, results: [number, number] = [7, 10]): [number, number] {
    const f = this.f;
    const small = i.sig === SMALL_IMM;
    const muxes = [...(i.opAdd ? [i.addA, i.addB] : []), ...(i.opMul ? [i.mulA, i.mulB] : [])];
    const a = muxes.includes(MUX_A) ? this.readFile(i.raddrA, REG_A, 3, c) : -1;
    let b = -1;
    if (muxes.includes(MUX_B)) {
      if (small) f.v128i32(splat(smallImmValue(i.raddrB))).set((b = this.tmp(4, 'imm')));
      else b = this.readFile(i.raddrB, REG_B, 4, c);
    }
    // An accumulator's local: `or r0, r0` reads one local twice and is seen as a move.
    const input = (m: number): number => (m === MUX_A ? a : m === MUX_B ? b : this.reg(ACC + 16 * m));
    const [ma, mm] = [this.tmp(1, 'cond_add'), this.tmp(2, 'cond_mul')];
    // Conditions read the flags from before the instruction.
    if (i.opAdd && i.condAdd > COND_ALWAYS) (this.condMask(i.condAdd), f.set(ma));
    if (i.opMul && i.condMul > COND_ALWAYS) (this.condMask(i.condMul), f.set(mm));
    let ra = -1;
    this.carry = undefined;
    if (i.opAdd) {
      const [x, y] = [input(i.addA), input(i.addB)];
      ra = this.tmp(results[0], `add_result${results[0] === 7 ? '' : `_${c}`}`);
      this.carry = this.addOp(i, x, y, ra, small ? smallImmValue(i.raddrB) : 0, i.sf === 1);
    }
    let rm = -1;
    if (i.opMul) {
      const [x, y] = [input(i.mulA), input(i.mulB)];
      rm = this.tmp(results[1], `mul_result${results[1] === 10 ? '' : `_${c}`}`);
      this.mulOp(i, x, y, rm);
    }
    return [ra, rm];
  }

  /**
   * An instruction whose mul result is rotated (Guide p. 20): destination lane d takes the result
   * of lane d - n, across all 16 lanes when both mul inputs are r0-r3, else within each quad
   * (vc4asm's addendum). Every chunk's results are computed first (all inputs read), then written.
   * Conditions are those of the destination lane.
   */
  rotated(i: AluInstr): void {
    const f = this.f;
    const n = rotation(i);
    const results: [number, number][] = [];
    const conds: [number, number][] = [];
    for (let c = 0; c < 4; c++) {
      this.begin(c);
      results.push(this.compute(i, c, [40 + c, 44 + c]));
      // The conditions of each chunk, kept for the writes.
      const [ma, mm] = [this.tmp(48 + c, `cond_add_${c}`), this.tmp(52 + c, `cond_mul_${c}`)];
      f.get(this.tmp(1, 'cond_add')).set(ma).get(this.tmp(2, 'cond_mul')).set(mm);
      conds.push([ma, mm]);
      this.end();
    }
    const full = i.mulA < MUX_R4 && i.mulB < MUX_R4; // both inputs r0-r3
    const j = n >> 2;
    const r = n & 3;
    for (let c = 0; c < 4; c++) {
      this.begin(c);
      if (i.opAdd) this.write(results[c]![0], addWriteFile(i.ws), i.waddrAdd, i.condAdd, conds[c]![0], SADD);
      // Lane 4c + k takes lane (4c + k - n) & 15 (full), or 4c + ((k - n) & 3) (quads).
      const lanes: number[] = [];
      for (let k = 0; k < 4; k++) {
        // Full: lanes 0-3 of the shuffle are the chunk before (c - j - 1), 4-7 the chunk c - j.
        const lane = full ? (k < r ? 4 - r + k : 4 + (k - r)) : (k - n) & 3;
        for (let b = 0; b < 4; b++) lanes.push(4 * lane + b);
      }
      const rot = this.tmp(30, 'rotated');
      if (full) f.get(results[(c - j - 1) & 3]![1]).get(results[(c - j) & 3]![1]);
      else f.get(results[c]![1]).get(results[c]![1]);
      f.shuffle(lanes).set(rot);
      this.write(rot, mulWriteFile(i.ws), i.waddrMul, i.condMul, conds[c]![1], SMUL);
      this.end();
    }
  }

  /** The local holding what reading `addr` of a register file gives: a register, elem_num (A) or qpu_num (B). */
  private readFile(addr: number, file: number, slot: number, c: number): number {
    if (addr < REGFILE_WORDS) return this.reg(file + 16 * addr);
    const t = this.tmp(slot, addr === R_UNIF ? 'unif' : file === REG_A ? 'elem_num' : 'qpu_num');
    if (addr === R_UNIF) this.f.get(this.base).load32Splat(4 * UNIF, 'unif');
    else if (file === REG_A) this.f.v128i32([4 * c, 4 * c + 1, 4 * c + 2, 4 * c + 3]);
    else this.f.get(this.qpu).simd('i32x4.splat');
    this.f.set(t);
    return t;
  }

  /**
   * The add ALU's op into local `out`; returns the local holding its carry (0/1 lanes) when the
   * instruction sets flags (`flags`) and the carry is not 0.
   */
  private addOp(i: AluInstr, x: number, y: number, out: number, imm: number, flags: boolean): number | undefined {
    const carry = this.addResult(i, x, y, out, imm, flags);
    return flags ? carry : undefined;
  }

  private addResult(i: AluInstr, x: number, y: number, out: number, imm: number, flags: boolean): number | undefined {
    const f = this.f;
    const op = name(ADD_OPS[i.opAdd]) as AddOpName;
    const carry = this.tmp(11, 'carry');
    const bit = () => f.v128i32(splat(1)).simd('v128.and');
    this.cleanTemps.delete(out);
    if (x === y && ADD_IDENTITY.has(op)) {
      if (this.clean(x)) this.cleanTemps.add(out);
      f.get(x).set(out);
      return undefined; // and, or: C is 0; min, max, fmin, fmax: a > a is false

    }
    const simple = ADD_SIMPLE[op];
    if (simple) {
      f.get(x).get(y).simd(simple).set(out);
      if (!flags) return undefined;
      if (op === 'add') f.get(out).get(x).simd('i32x4.lt_u');
      else if (op === 'sub') f.get(x).get(y).simd('i32x4.lt_u');
      else if (op === 'min' || op === 'max') f.get(x).get(y).simd('i32x4.gt_s');
      else return undefined;
      f.simd('i32x4.neg').set(carry);
      return carry;
    }
    switch (op) {
      case 'fadd':
      case 'fsub':
        this.float(op, () => emitFaddSub(f, x, y, op === 'fsub', out, this.rare(), { a: this.clean(x), b: this.clean(y) }), x, y, out);
        this.cleanTemps.add(out);
        return flags ? this.positive(out, carry) : undefined;
      case 'itof':
        emitItof(f, x, out);
        this.cleanTemps.add(out);
        return flags ? this.positive(out, carry) : undefined;
      case 'ftoi':
        emitFtoi(f, x, out, { a: this.clean(x) });
        return undefined;
      case 'not':
        f.get(x).simd('v128.not').set(out);
        return undefined;
      case 'fmin':
      case 'fmax':
      case 'fminabs':
      case 'fmaxabs': {
        // fmin/fmax order sign-magnitude patterns (+0 = -0); the abs forms compare magnitudes.
        const abs = op.endsWith('abs');
        const [kx, ky] = [this.tmp(12, 'key_a'), this.tmp(13, 'key_b')];
        this.key(x, abs, kx);
        this.key(y, abs, ky);
        f.get(kx).get(ky).simd('i32x4.gt_s').set(carry);
        const [px, py] = abs ? [kx, ky] : [x, y];
        const min = op === 'fmin' || op === 'fminabs';
        f.get(min ? py : px).get(min ? px : py).get(carry).simd('v128.bitselect').set(out);
        f.get(carry).simd('i32x4.neg').set(carry);
        return carry;
      }
      default: {
        // Shifts by the small immediate's low 5 bits.
        const n = imm & 31;
        if (op === 'shr') f.get(x).i32(n).simd('i32x4.shr_u').set(out);
        else if (op === 'asr') f.get(x).i32(n).simd('i32x4.shr_s').set(out);
        else if (op === 'shl') f.get(x).i32(n).simd('i32x4.shl').set(out);
        else if (n === 0) f.get(x).set(out);
        else f.get(x).i32(n).simd('i32x4.shr_u').get(x).i32(32 - n).simd('i32x4.shl').simd('v128.or').set(out);
        if (op === 'ror' || n === 0 || !flags) return undefined;
        f.get(x).i32(op === 'shl' ? 32 - n : n - 1).simd('i32x4.shr_u');
        bit();
        f.set(carry);
        return carry;
      }
    }
  }

  /** Sets `carry` to 1 in the lanes where the pattern in `v` is a positive integer (fadd's, fsub's and itof's C). */
  private positive(v: number, carry: number): number {
    this.f.get(v).v128i32(splat(0)).simd('i32x4.gt_s').simd('i32x4.neg').set(carry);
    return carry;
  }

  /** fmin/fmax's order key of `v` into `out`: the sign-magnitude pattern as an integer; the magnitude for the abs forms. */
  private key(v: number, abs: boolean, out: number): void {
    const f = this.f;
    f.get(v).v128i32(splat(0x7fffffff)).simd('v128.and');
    if (abs) return void f.set(out);
    const m = this.tmp(14, 'sign');
    f.get(v).i32(31).simd('i32x4.shr_s').tee(m).simd('v128.xor').get(m).simd('i32x4.sub').set(out);
  }

  private mulOp(i: AluInstr, x: number, y: number, out: number): void {
    const f = this.f;
    const op = name(MUL_OPS[i.opMul]) as MulOpName;
    this.cleanTemps.delete(out);
    if (x === y && MUL_IDENTITY.has(op)) {
      if (this.clean(x)) this.cleanTemps.add(out);
      return void f.get(x).set(out);
    }
    const simple = MUL_SIMPLE[op];
    if (simple) return void f.get(x).get(y).simd(simple).set(out);
    if (op === 'mul24') {
      const low = (v: number) => f.get(v).v128i32(splat(0xffffff)).simd('v128.and');
      low(x);
      low(y);
      return void f.simd('i32x4.mul').set(out);
    }
    this.float('fmul', () => emitFmul(f, x, y, out, this.rare(), { a: this.clean(x), b: this.clean(y) }), x, y, out);
    this.cleanTemps.add(out);
  }

  /** The rare-lane mask, cleared. */
  private rare(): number {
    const r = this.tmp(15, 'rare');
    this.f.v128i32(splat(0)).set(r);
    return r;
  }

  /** Runs a float op's emitter, then recomputes its rare lanes with arith.ts through the fix import. */
  private float(op: (typeof FIX_OPS)[number], emit: () => void, x: number, y: number, out: number): void {
    const f = this.f;
    emit();
    const rare = this.tmp(15, 'rare');
    f.get(rare).simd('v128.any_true');
    f.if(() => {
      const put = (w: number, v: number, what: string) => f.get(this.base).get(v).store(4 * (WSCR + w), what);
      put(0, x, 'scratch a');
      put(4, y, 'scratch b');
      put(8, out, 'scratch result');
      put(12, rare, 'scratch rare');
      f.get(this.base).i32(FIX_OPS.indexOf(op)).call(FIX_FUNCTION, `fix_${op}`);
      f.get(this.base).load(4 * (WSCR + 8), 'scratch result').set(out);
    });
  }
}
