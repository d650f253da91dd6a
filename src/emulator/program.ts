// A program's translation: its instructions decoded, what each does (effects.ts), the rules it
// breaks alone or along its fall-through, and the cache of translated blocks. Translations are
// shared by every machine that loads the same words, so running a kernel again costs nothing.

import { decodeProgram } from '../vc4/codec.ts';
import { type Effects, effectsOf } from '../vc4/effects.ts';
import type { AluInstr, Instr } from '../vc4/instr.ts';
import { instrViolations, sequenceViolations, type Violation } from '../vc4/rules.ts';
import { blockEnd, type BlockFn } from './blocks.ts';
import type { TranslateOptions } from './compile.ts';

export interface Step {
  readonly instr: Instr;
  readonly effects: Effects;
  /** Touches state other QPUs see: runs only when no other QPU is more than SLACK earlier. */
  readonly shared: boolean;
  /** A semaphore or mutex access: runs only when this QPU is the earliest. */
  readonly sync: boolean;
  readonly nop: boolean;
  /** Rules broken by the instruction alone, and along the fall-through from the two before it. */
  readonly alone: Violation[];
  readonly fallThrough: Violation[];
}

export interface Translation {
  readonly instrs: readonly Instr[];
  readonly steps: readonly Step[];
  /** Translated blocks by first instruction, for strict and non-strict runs; units by pc. */
  readonly blocks: { strict: (BlockFn | undefined)[]; loose: (BlockFn | undefined)[]; units: (BlockFn | undefined)[] };
  /** Rules checked on entry to a block: per instruction, by the two executed before it. */
  readonly entryChecks: (Map<number, Violation | null> | undefined)[];
  /** The last instruction of the block starting at each instruction. */
  readonly blockEnds: Int32Array;
  readonly translate: TranslateOptions;
}

const CACHE = new Map<string, Translation>();
const CACHE_SIZE = 64;

/** The translation of a program's words, from the cache when it has them. */
export function translation(words: Uint32Array): Translation {
  const key = Array.from(words, (w) => w.toString(36)).join(',');
  const hit = CACHE.get(key);
  if (hit) {
    CACHE.delete(key);
    CACHE.set(key, hit);
    return hit;
  }
  const t = translate(decodeProgram(words));
  CACHE.set(key, t);
  if (CACHE.size > CACHE_SIZE) CACHE.delete(CACHE.keys().next().value!);
  return t;
}

function translate(instrs: Instr[]): Translation {
  const effects = instrs.map(effectsOf);
  const steps = instrs.map((instr, pc): Step => {
    const e = effects[pc]!;
    return {
      instr,
      effects: e,
      shared: isShared(instr, e),
      sync: instr.kind === 'sema' || e.raddrs.includes(51) || e.waddrs.some((w) => w.addr === 51),
      nop: isNop(instr),
      alone: instrViolations(e),
      fallThrough: sequenceViolations(e, [effects[pc - 1], effects[pc - 2]]),
    };
  });
  const blockEnds = Int32Array.from(steps, (_, pc) => blockEnd(steps, pc));
  // Reads of the nop register return earlier reads (vc4asm's addendum); remember them only if needed.
  const lastReads = instrs.some((i) => i.kind === 'alu' && readsNopRegister(i));
  return { instrs, steps, blocks: { strict: [], loose: [], units: [] }, entryChecks: [], blockEnds, translate: { lastReads } };
}

/** Instructions whose effects other QPUs can see or that depend on shared units. */
function isShared(i: Instr, e: Effects): boolean {
  if (i.kind === 'sema') return true;
  if (e.vpmAny || e.peripherals.length > 0 || e.tmuLoads[0] + e.tmuLoads[1] > 0) return true;
  return e.waddrs.some((w) => w.addr === 38 || w.addr === 51) || e.raddrs.includes(51);
}

function isNop(i: Instr): boolean {
  return i.kind === 'alu' && i.opAdd === 0 && i.opMul === 0 && (i.sig === 1 || i.sig === 13) && i.raddrA === 39 && (i.sig === 13 || i.raddrB === 39);
}

function readsNopRegister(i: AluInstr): boolean {
  const muxes = [...(i.opAdd ? [i.addA, i.addB] : []), ...(i.opMul ? [i.mulA, i.mulB] : [])];
  return (muxes.includes(6) && i.raddrA === 39) || (muxes.includes(7) && i.sig !== 13 && i.raddrB === 39);
}
