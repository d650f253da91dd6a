// `--dump NAME[:FORMAT]` of qpu emu and qpu pi: a buffer's 32-bit words printed after the run,
// 8 a line, in a format, with columns right-aligned to the widest value of the whole buffer. A
// dump is written as it is formatted, a piece of PIECE_LINES lines at a time, waiting for a slow
// reader between pieces: memory stays bounded whatever the buffer's size (up to all of GPU
// memory, 64 Mi words: about 740 MB of text).

import { hex } from '../common/memory.ts';
import { bitsToFloat } from '../vc4/tables.ts';
import type { Io } from './io.ts';

export const DUMP_FORMATS = ['hex', 'i32', 'u32', 'f32'] as const;
export type DumpFormat = (typeof DUMP_FORMATS)[number];

export interface DumpSpec {
  readonly name: string;
  readonly format: DumpFormat;
}

/** Words a line. */
const LINE_WORDS = 8;
/** Lines formatted and written at a time: under 1 MB of text in any format. */
const PIECE_LINES = 8192;

const SHOW: Readonly<Record<DumpFormat, (w: number) => string>> = { hex, i32: (w) => String(w), u32: (w) => String(w >>> 0), f32: formatF32 };

/**
 * The width of the widest word in a format. An integer's text is widest at the smallest or the
 * largest value, so i32 and u32 need only those; a float's must be formatted to know.
 */
function columnWidth(words: Int32Array, format: DumpFormat): number {
  if (format === 'hex' || words.length === 0) return 0;
  if (format === 'f32') {
    let width = 0;
    for (const w of words) width = Math.max(width, formatF32(w).length);
    return width;
  }
  let lo = Infinity;
  let hi = -Infinity;
  for (const w of words) {
    const v = format === 'u32' ? w >>> 0 : w;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return Math.max(String(lo).length, String(hi).length);
}

/** The dump's text in pieces of PIECE_LINES lines: 32-bit words, 8 a line, columns right-aligned to the widest. */
export function* dumpPieces(words: Int32Array, format: DumpFormat): Generator<string> {
  const show = SHOW[format];
  const width = columnWidth(words, format);
  const pieceWords = LINE_WORDS * PIECE_LINES;
  for (let start = 0; start < words.length; start += pieceWords) {
    const end = Math.min(words.length, start + pieceWords);
    let out = '';
    for (let i = start; i < end; i++) out += show(words[i]!).padStart(width) + ((i + 1) % LINE_WORDS === 0 || i + 1 === end ? '\n' : ' ');
    yield out;
  }
}

/** The whole dump as one string (small buffers; big ones go through writeDump). */
export function formatWords(words: Int32Array, format: DumpFormat): string {
  return [...dumpPieces(words, format)].join('');
}

/** Writes a buffer's dump to standard output, its header line first, a piece at a time as standard output takes them. */
export async function writeDump(io: Io, d: DumpSpec, address: number, words: Int32Array): Promise<void> {
  io.out(`${d.name} (${words.length} words at ${hex(address)}${d.format === 'hex' ? '' : `, as ${d.format}`}):\n`);
  for (const piece of dumpPieces(words, d.format)) {
    io.out(piece);
    await io.outDrained?.();
  }
}

/** A float32's bits as the shortest decimal that reads back to the same float32 (NaNs with their bits). */
export function formatF32(bits: number): string {
  const x = bitsToFloat(bits);
  if (Number.isNaN(x)) return `NaN(${hex(bits)})`;
  if (!Number.isFinite(x) || x === 0) return Object.is(x, -0) ? '-0' : String(x);
  for (let digits = 1; digits < 9; digits++) {
    const t = x.toPrecision(digits);
    if (Math.fround(Number(t)) === x) return String(Number(t));
  }
  return String(Number(x.toPrecision(9)));
}
