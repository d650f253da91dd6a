// Encode and decode 64-bit QPU words, driven by the layouts in fields.ts. Decoding is total and
// lossless: every word decodes to an instruction that encodes back to the same word.
//
// Words are handled as two unsigned 32-bit halves (fast, no BigInt) or as a bigint for the
// public API. In memory and in files a word is little-endian: the low 32 bits first.

import { ALU_LAYOUT, BRANCH_LAYOUT, type Field, INSTRUCTION_BYTES, LDI_LAYOUT, SEMA_LAYOUT } from './fields.ts';
import type { Instr, InstrKind } from './instr.ts';
import { LDI_MODE_SEMAPHORE, SIG_BRANCH, SIG_LOAD_IMM } from './tables.ts';

export const LAYOUTS: Readonly<Record<InstrKind, readonly Field[]>> = {
  alu: ALU_LAYOUT,
  ldi: LDI_LAYOUT,
  sema: SEMA_LAYOUT,
  branch: BRANCH_LAYOUT,
};

function mask(width: number): number {
  return width === 32 ? 0xffffffff : (1 << width) - 1;
}

function getField(hi: number, lo: number, fd: Field): number {
  const word = fd.lo >= 32 ? hi : lo;
  const shift = fd.lo >= 32 ? fd.lo - 32 : fd.lo;
  const v = fd.width === 32 ? word >>> 0 : (word >>> shift) & mask(fd.width);
  return fd.signed ? v | 0 : v;
}

/** The signal field, the top bits of every format, and the load-immediate mode below it (in the high word). */
const SIG = ALU_LAYOUT.find((fd) => fd.name === 'sig')!;
const SIG_SHIFT = SIG.lo - 32;
const MODE = LDI_LAYOUT.find((fd) => fd.name === 'mode')!;
const MODE_SHIFT = MODE.lo - 32;
const MODE_MASK = (1 << MODE.width) - 1;

/** The kind of instruction a word holds, from its signal and load-immediate mode bits. */
export function kindOf(hi: number): InstrKind {
  const sig = hi >>> SIG_SHIFT;
  if (sig === SIG_BRANCH) return 'branch';
  if (sig === SIG_LOAD_IMM) return ((hi >>> MODE_SHIFT) & MODE_MASK) === LDI_MODE_SEMAPHORE ? 'sema' : 'ldi';
  return 'alu';
}

/** Reads one field of a word given as its high and low 32-bit halves. */
export function fieldValue(hi: number, lo: number, fd: Field): number {
  return getField(hi, lo, fd);
}

/** The field `name` of a layout (for callers that read single fields of many words). */
export function fieldOf(kind: InstrKind, name: string): Field {
  const fd = LAYOUTS[kind].find((x) => x.name === name);
  if (!fd) throw new Error(`${kind} instructions have no field ${name}`);
  return fd;
}

/**
 * One decoder per kind, generated from its layout: it builds the instruction as one object
 * literal, so every instruction of a kind has the same compact shape (adding the properties one
 * by one gave large, slow dictionary-mode objects: 1 GB for a million instructions).
 */
const DECODERS = Object.fromEntries(
  (Object.keys(LAYOUTS) as InstrKind[]).map((kind) => {
    const props = LAYOUTS[kind]
      .filter((fd) => fd.fixed === undefined)
      .map((fd) => {
        const word = fd.lo >= 32 ? 'hi' : 'lo';
        const shift = fd.lo >= 32 ? fd.lo - 32 : fd.lo;
        const v = fd.width === 32 ? `${word} >>> 0` : `(${word} >>> ${shift}) & ${mask(fd.width)}`;
        return `${fd.name}: ${fd.signed ? `(${v}) | 0` : v}`;
      });
    const src = `return function decode_${kind}(hi, lo) { return { kind: '${kind}', ${props.join(', ')} }; }`;
    return [kind, new Function(src)() as (hi: number, lo: number) => Instr];
  }),
) as Record<InstrKind, (hi: number, lo: number) => Instr>;

/** Decode a word given as its high and low 32-bit halves. */
export function decodeHiLo(hi: number, lo: number): Instr {
  return DECODERS[kindOf(hi)](hi, lo);
}

export class EncodeError extends Error {}

/** Encode to [high, low] 32-bit halves. Throws EncodeError when a field is out of range. */
export function encodeHiLo(instr: Instr): [number, number] {
  let hi = 0;
  let lo = 0;
  const rec = instr as unknown as Record<string, number>;
  for (const fd of LAYOUTS[instr.kind]) {
    let v = fd.fixed ?? rec[fd.name];
    if (typeof v !== 'number' || !Number.isInteger(v))
      throw new EncodeError(`${instr.kind} instruction: field ${fd.name} is ${String(v)}, not an integer`);
    if (fd.signed ? v < -(2 ** (fd.width - 1)) || v >= 2 ** (fd.width - 1) : v < 0 || v > mask(fd.width) >>> 0)
      throw new EncodeError(
        `${instr.kind} instruction: field ${fd.name} = ${v} does not fit in ${fd.width} bit${fd.width > 1 ? 's' : ''}`,
      );
    v = fd.width === 32 ? v >>> 0 : v & mask(fd.width);
    if (fd.lo >= 32) hi |= v << (fd.lo - 32);
    else if (fd.width === 32) lo = v;
    else lo |= v << fd.lo;
  }
  return [hi >>> 0, lo >>> 0];
}

export function encode(instr: Instr): bigint {
  const [hi, lo] = encodeHiLo(instr);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

export function decode(word: bigint): Instr {
  return decodeHiLo(Number((word >> 32n) & 0xffffffffn), Number(word & 0xffffffffn));
}

/** The bits of `width` bits at `lo` of a 64-bit word, as [hi, lo] masks. */
export function fieldMask(lo: number, width: number): [number, number] {
  const m = width >= 32 ? 0xffffffff : (1 << width) - 1;
  if (lo >= 32) return [(m << (lo - 32)) >>> 0, 0];
  return [lo + width > 32 ? m >>> (32 - lo) : 0, (m << lo) >>> 0];
}

/** The bits of the fields of `kind` that the hardware ignores (Field.dontCare), as [hi, lo]. */
export function dontCareMask(kind: InstrKind): [number, number] {
  let [hi, lo] = [0, 0];
  for (const fd of LAYOUTS[kind]) {
    if (!fd.dontCare) continue;
    const [h, l] = fieldMask(fd.lo, fd.width);
    [hi, lo] = [(hi | h) >>> 0, (lo | l) >>> 0];
  }
  return [hi, lo];
}

// ---- Programs: sequences of words ----

/**
 * The most instructions a program may have: 2^20, 8 MiB of code. Real QPU programs are far
 * smaller (Mesa's shaders and hand-written kernels such as GPU_FFT's hold hundreds to a few
 * thousand instructions; this project's compiler stress test emits about 3,000), and the firmware's
 * GPU memory split is 64-256 MB on most Pis. The limit keeps what the validator and the emulator
 * hold (tens of bytes an instruction while validating; the words, and what runs, while
 * emulating) below a few hundred megabytes, whatever the input. The validator refuses larger
 * programs, and empty ones, with a ProgramSizeError, the emulator with an EmulatorError of the
 * same message (docs/emulator.md, "Program size").
 */
export const MAX_PROGRAM_INSTRUCTIONS = 1 << 20;

/** A program with no instructions, or more than MAX_PROGRAM_INSTRUCTIONS. */
export class ProgramSizeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProgramSizeError';
  }
}

/** Why a program of `count` instructions cannot be validated or run, or undefined when it can. */
export function programSizeProblem(count: number): string | undefined {
  if (count === 0) return 'the program has no instructions';
  if (count > MAX_PROGRAM_INSTRUCTIONS)
    return (
      `the program has ${count} instructions (${count * INSTRUCTION_BYTES} bytes); qpu-ts takes at most ` +
      `${MAX_PROGRAM_INSTRUCTIONS} (8 MiB, MAX_PROGRAM_INSTRUCTIONS), far more than any real QPU program`
    );
  return undefined;
}

/** Throws a ProgramSizeError for an empty program or one beyond MAX_PROGRAM_INSTRUCTIONS. */
export function checkProgramSize(count: number): void {
  const problem = programSizeProblem(count);
  if (problem) throw new ProgramSizeError(problem);
}

/** Words of a program as (low, high) pairs, the order they have in memory. */
export function encodeProgram(instrs: readonly Instr[]): Uint32Array {
  const out = new Uint32Array(instrs.length * 2);
  instrs.forEach((ins, i) => {
    const [hi, lo] = encodeHiLo(ins);
    out[2 * i] = lo;
    out[2 * i + 1] = hi;
  });
  return out;
}

export function decodeProgram(words: Uint32Array): Instr[] {
  const out: Instr[] = [];
  for (let i = 0; i + 1 < words.length; i += 2) out.push(decodeHiLo(words[i + 1]!, words[i]!));
  return out;
}

/** Little-endian bytes of a program (low word first), as written by `qpu asm`. */
export function programToBytes(words: Uint32Array): Uint8Array {
  const bytes = new Uint8Array(words.length * 4);
  const dv = new DataView(bytes.buffer);
  words.forEach((w, i) => dv.setUint32(4 * i, w, true));
  return bytes;
}

export class ProgramBytesError extends Error {}

export function bytesToProgram(bytes: Uint8Array): Uint32Array {
  if (bytes.length % INSTRUCTION_BYTES !== 0)
    throw new ProgramBytesError(
      `a QPU program is a sequence of ${INSTRUCTION_BYTES}-byte instructions, but this one has ${bytes.length} bytes (${bytes.length % INSTRUCTION_BYTES} left over)`,
    );
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const words = new Uint32Array(bytes.length / 4);
  for (let i = 0; i < words.length; i++) words[i] = dv.getUint32(4 * i, true);
  return words;
}

/** `0xHHHHHHHH_LLLLLLLL`, the form Mesa's comments and our --hex output use. */
export function formatWord(hi: number, lo: number): string {
  const h = (n: number) => (n >>> 0).toString(16).toUpperCase().padStart(8, '0');
  return `0x${h(hi)}_${h(lo)}`;
}
