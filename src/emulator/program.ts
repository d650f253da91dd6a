// A program's translation: its words and, made on first use, each instruction's step (the
// instruction decoded, what it does (effects.ts), the rules it breaks alone or along its
// fall-through), where each block ends, and the cache of translated blocks. Only instructions
// that run are decoded and translated (with the two before each, whose effects the rules read),
// so until it runs a program costs its words and one small typed array, however big it is.
// Steps are kept in a small cache of recent ones; translated blocks are kept until they cover
// CODE_BUDGET instructions, then all forgotten (as QEMU flushes its translation cache), so
// running code that never loops costs time but not memory beyond that budget.
// Translations are shared by every machine that loads the same words, so running a kernel
// again costs nothing.

import { checkProgramSize, decodeHiLo, fieldOf, fieldValue, kindOf, ProgramSizeError } from '../vc4/codec.ts';
import { type Effects, effectsOf } from '../vc4/effects.ts';
import type { AluInstr, Instr } from '../vc4/instr.ts';
import { SIG_SMALL_IMM } from '../vc4/fields.ts';
import { BRANCH_DELAY_SLOTS, branchTarget } from '../vc4/flow.ts';
import { R_NOP } from '../vc4/registers.ts';
import type { Violation } from '../vc4/rules.ts';
import { MUX_A, MUX_B } from '../vc4/tables.ts';
import { blockEnd, type BlockFn, compileBlock, compileUnit } from './blocks.ts';
import type { TranslateOptions } from './translate.ts';
import { EmulatorError } from './errors.ts';
import { makeStep, type Step } from './step.ts';

export interface Translation {
  /** Instructions in the program. */
  readonly length: number;
  /** The program's words, low word first (the translation's own copy). */
  readonly words: Uint32Array;
  /** The step of instruction pc, 0 <= pc < length, made on first use. */
  readonly step: (pc: number) => Step;
  /** What instruction pc does, or undefined outside the program. */
  readonly effects: (pc: number) => Effects | undefined;
  /** Instruction pc decoded, or undefined outside the program. */
  readonly instr: (pc: number) => Instr | undefined;
  /** The instructions, each decoded when it is read (for tools; prefer instr(pc)). */
  readonly instrs: readonly Instr[];
  /** The last instruction of the block that starts at pc (blocks.ts), found on first use. */
  readonly blockEnd: (pc: number) => number;
  /** Translated blocks by first instruction, for strict and non-strict runs; units by pc. */
  readonly blocks: { strict: (BlockFn | undefined)[]; loose: (BlockFn | undefined)[]; units: (BlockFn | undefined)[] };
  /** Translates the block at pc and keeps it in `blocks` (when the budget is spent, alone). */
  readonly block: (pc: number, strict: boolean) => BlockFn;
  /** Translates the unit at pc and keeps it in `blocks.units` (likewise). */
  readonly unit: (pc: number) => BlockFn;
  /** Calls of the block at each pc in the current run (the machine counts, and zeroes them when a run starts). */
  readonly calls: Uint32Array;
  /**
   * Calls of the block at each pc beyond the first one a QPU in each run (a run's calls beyond its
   * number of QPUs), summed over runs: calls a loop made. At HOT_CALLS the block is translated
   * again with SIMD.
   */
  readonly repeats: Uint32Array;
  /** The repeats from which a block's translation has SIMD (HOT_CALLS, or 0 under setSimd('always')). */
  readonly simdFrom: number;
  /** Rules checked on entry to a block: per instruction, by the two executed before it. */
  readonly entryChecks: (Map<number, Violation | null> | undefined)[];
  readonly translate: TranslateOptions;
}

/**
 * Repeated calls (`Translation.repeats`) after which a block is translated again with its lane
 * arithmetic as WebAssembly SIMD: compiling a module costs about as much as running a block's
 * JavaScript lane loops a few dozen times, so code that runs once or twice stays JavaScript.
 * Code that no loop runs stays JavaScript too, however many runs and QPUs run it: SIMD did not
 * pay for it (sha256 on 12 QPUs, when calls of any kind counted: its third run translated every
 * block again, 140-160 ms against 1-15, and its best run took 1.1 ms against 0.5-0.7).
 */
export const HOT_CALLS = 32;
/** When blocks get SIMD: once hot (the default), from their first translation, or never. */
export type SimdMode = 'hot' | 'always' | 'off';
let simdMode: SimdMode = 'hot';

/**
 * Sets when new translations run lane arithmetic as WebAssembly SIMD, and forgets every cached
 * translation, so the next run translates anew. The results are the same in every mode (tests
 * run both paths); 'always' and 'off' are for tests and measurements.
 */
export function setSimd(mode: SimdMode): void {
  simdMode = mode;
  forgetTranslations();
}

/** Forgets every cached translation (the next run of any program translates it anew). */
export function forgetTranslations(): void {
  CACHE.clear();
  cachedWords = 0;
}

/** Translations by the program's length and a hash of its words; a hit is checked word for word. */
const CACHE = new Map<string, Translation>();
const CACHE_SIZE = 64;
/** The cache also keeps no more than this many words, beyond the most recent program's. */
const CACHE_WORDS = 1 << 22;
let cachedWords = 0;

/**
 * Instructions a translation's blocks and units may cover before they are all forgotten: far
 * more than any loop runs through, about 150 MB of V8 code and source (2-3 KB an instruction).
 */
export const CODE_BUDGET = 1 << 16;
/** Recent steps kept (a power of two); the program's first ones always fit in a kernel this size. */
const STEP_SLOTS = 4096;

/**
 * The translation of a program's words, from the cache when it has them. Throws an
 * EmulatorError for an empty program ('invalid') or one beyond MAX_PROGRAM_INSTRUCTIONS
 * ('unsupported'): see codec.ts.
 */
export function translation(words: Uint32Array): Translation {
  try {
    checkProgramSize(words.length >>> 1);
  } catch (e) {
    if (e instanceof ProgramSizeError) throw new EmulatorError(words.length >>> 1 === 0 ? 'invalid' : 'unsupported', e.message);
    throw e;
  }
  const key = cacheKey(words);
  const hit = CACHE.get(key);
  if (hit && sameWords(hit.words, words)) {
    CACHE.delete(key);
    CACHE.set(key, hit);
    return hit;
  }
  const t = translate(words.slice());
  if (hit) forget(key, hit);
  CACHE.set(key, t);
  cachedWords += t.words.length;
  for (const [k, old] of CACHE) {
    if (old === t || (CACHE.size <= CACHE_SIZE && cachedWords <= CACHE_WORDS + t.words.length)) break;
    forget(k, old);
  }
  return t;
}

function forget(key: string, t: Translation): void {
  CACHE.delete(key);
  cachedWords -= t.words.length;
}

/** The length and two 32-bit hashes of the words: equal words, equal keys. */
function cacheKey(words: Uint32Array): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x9e3779b9;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    h1 = Math.imul(h1 ^ w, 0x01000193);
    h2 = Math.imul(h2 ^ w, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  return `${words.length}:${(h1 >>> 0).toString(36)}:${(h2 >>> 0).toString(36)}`;
}

function sameWords(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function translate(words: Uint32Array): Translation {
  const length = words.length >>> 1;
  const ends = new Int32Array(length); // block end + 1; 0 until asked
  const at = recent((pc) => decodeAt(words, pc));
  const effects = (pc: number) => (pc >= 0 && pc < length ? at(pc).effects : undefined);
  const instr = (pc: number) => (pc >= 0 && pc < length ? at(pc).instr : undefined);
  const step = recent((pc) => makeStep(at(pc), [effects(pc - 1), effects(pc - 2)]));
  const blocks = { strict: [] as (BlockFn | undefined)[], loose: [] as (BlockFn | undefined)[], units: [] as (BlockFn | undefined)[] };
  const entryChecks: Translation['entryChecks'] = [];
  const calls = new Uint32Array(length);
  const repeats = new Uint32Array(length);
  let covered = 0;
  /** Counts the instructions a new block covers; past the budget forgets every block (in place). */
  const spend = (instructions: number) => {
    covered += instructions;
    if (covered <= CODE_BUDGET) return;
    for (const a of [blocks.strict, blocks.loose, blocks.units, entryChecks]) a.length = 0;
    covered = instructions;
  };
  const t: Translation = {
    length,
    words,
    step,
    effects,
    instr,
    instrs: lazyList(length, (pc) => instr(pc)!),
    blockEnd: (pc) => (ends[pc] ||= blockEnd(words, pc) + 1) - 1,
    blocks,
    block: (pc, strict) => {
      spend(t.blockEnd(pc) - pc + 1);
      // A block's first translation is JavaScript only; one a loop has entered HOT_CALLS times is
      // made again with SIMD, whose compilation pays only for code that runs often. A block that
      // branches back to its own start is a loop: it gets SIMD at once.
      const simd = t.translate.simd && (repeats[pc]! >= t.simdFrom || loopsToItself(t, pc));
      return ((strict ? blocks.strict : blocks.loose)[pc] = compileBlock(t, pc, strict, simd ? t.translate : { ...t.translate, simd: false }));
    },
    calls,
    repeats,
    unit: (pc) => {
      spend(1);
      return (blocks.units[pc] = compileUnit(t, pc, t.translate));
    },
    entryChecks,
    // Reads of the nop register return earlier reads (vc4asm's addendum); remember them only if needed.
    translate: { lastReads: anyReadsNopRegister(words, length), simd: simdMode !== 'off' },
    simdFrom: simdMode === 'always' ? 0 : HOT_CALLS,
  };
  return t;
}

/** Whether the block at `start` ends with a relative branch (its last delay slot) back to `start`. */
function loopsToItself(t: Translation, start: number): boolean {
  const end = t.blockEnd(start);
  const at = end - BRANCH_DELAY_SLOTS;
  if (at < start) return false;
  const b = t.instr(at)!;
  return b.kind === 'branch' && b.rel === 1 && b.reg === 0 && branchTarget(at, b.imm) === start;
}

/** `make(pc)`, remembered for the last STEP_SLOTS instructions asked for (one slot per pc modulo). */
function recent<T>(make: (pc: number) => T): (pc: number) => T {
  const tags = new Int32Array(STEP_SLOTS).fill(-1);
  const slots: T[] = [];
  return (pc) => {
    const k = pc & (STEP_SLOTS - 1);
    if (tags[k] !== pc) {
      slots[k] = make(pc);
      tags[k] = pc;
    }
    return slots[k]!;
  };
}

function decodeAt(words: Uint32Array, pc: number): { instr: Instr; effects: Effects } {
  const instr = decodeHiLo(words[2 * pc + 1]!, words[2 * pc]!);
  return { instr, effects: effectsOf(instr) };
}

/** A read-only array view of `length` items, each made by `at` when it is read. */
function lazyList<T>(length: number, at: (i: number) => T): readonly T[] {
  return new Proxy([] as T[], {
    get(target, key, receiver) {
      if (key === 'length') return length;
      if (typeof key === 'string' && /^(0|[1-9]\d*)$/.test(key)) return Number(key) < length ? at(Number(key)) : undefined;
      return Reflect.get(target, key, receiver) as unknown;
    },
    has: (target, key) => (typeof key === 'string' && /^(0|[1-9]\d*)$/.test(key) ? Number(key) < length : Reflect.has(target, key)),
  });
}

const F_RADDR_A = fieldOf('alu', 'raddrA');
const F_RADDR_B = fieldOf('alu', 'raddrB');
const F_OP_ADD = fieldOf('alu', 'opAdd');
const F_OP_MUL = fieldOf('alu', 'opMul');

/** Whether any instruction reads the nop register through a mux; decodes only the candidates. */
function anyReadsNopRegister(words: Uint32Array, length: number): boolean {
  for (let pc = 0; pc < length; pc++) {
    const hi = words[2 * pc + 1]!;
    const lo = words[2 * pc]!;
    if (kindOf(hi) !== 'alu' || (fieldValue(hi, lo, F_OP_ADD) === 0 && fieldValue(hi, lo, F_OP_MUL) === 0)) continue;
    if (fieldValue(hi, lo, F_RADDR_A) !== R_NOP && fieldValue(hi, lo, F_RADDR_B) !== R_NOP) continue;
    if (readsNopRegister(decodeHiLo(hi, lo) as AluInstr)) return true;
  }
  return false;
}

function readsNopRegister(i: AluInstr): boolean {
  const muxes = [...(i.opAdd ? [i.addA, i.addB] : []), ...(i.opMul ? [i.mulA, i.mulB] : [])];
  return (muxes.includes(MUX_A) && i.raddrA === R_NOP) || (muxes.includes(MUX_B) && i.sig !== SIG_SMALL_IMM && i.raddrB === R_NOP);
}
