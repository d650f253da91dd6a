// What \`qpu emu\` and \`qpu pi\` share on their command lines: buffers (--buffer NAME:WORDS=V,...),
// uniform lists (--uniforms, one for all QPUs or one each), dumps (--dump NAME:FORMAT), and the
// program (machine code, or assembly assembled first). Everything is checked before anything
// is read or allocated, with errors that name the option.

import { AsmError, assemble } from '../vc4/asm/assembler.ts';
import type { Allocation, GpuMemory } from '../common/memory.ts';
import { LaunchError, parseUniforms, type UniformItem } from '../emulator/launch.ts';
import { CliError, EXIT, type Io, isAssembly, parseCount, readInput, syntaxOf } from './io.ts';
import { bufferFileWords, readBufferFile } from './buffer-file.ts';
import { readProgram } from './disasm.ts';
import { DUMP_FORMATS, type DumpFormat, type DumpSpec } from './dump.ts';

/** The options qpu emu and qpu pi share (parseArgs's form). */
export const LAUNCH_OPTIONS = {
  qpus: { type: 'string' },
  buffer: { type: 'string', multiple: true },
  uniforms: { type: 'string', multiple: true },
  dump: { type: 'string', multiple: true },
  stats: { type: 'boolean' },
  model: { type: 'string' },
} as const;

export interface BufferSpec {
  readonly name: string;
  readonly words: number;
  readonly values: readonly number[];
  /** The file whose bytes fill the buffer (--buffer NAME:@FILE), instead of values. */
  readonly file?: string;
}

/** The --buffer options: names, sizes (at most `maxBytes` each) and initial values or files. */
export function parseBuffers(given: readonly string[] | undefined, maxBytes: number): BufferSpec[] {
  const specs: BufferSpec[] = [];
  for (const spec of given ?? []) {
    const match = /^([A-Za-z_]\w*):(.*)$/s.exec(spec);
    const file = match && /^([0-9]*)@(.*)$/s.exec(match[2]!);
    const list = match && !file && /^([^=]*)(?:=(.*))?$/s.exec(match[2]!);
    if (!match || (file && file[2] === '') || (!file && !list))
      throw new CliError(`--buffer ${shownSpec(spec)}: write NAME:WORDS, NAME:WORDS=V,V,..., NAME:@FILE or NAME:WORDS@FILE`);
    const name = match[1]!;
    if (specs.some((s) => s.name === name)) throw new CliError(`--buffer ${name} is given twice`);
    const count = (text: string) => parseCount(text, 0, 1, maxBytes / 4, `--buffer ${name} size`);
    if (file) {
      const path = file[2]!;
      specs.push({ name, words: bufferFileWords(path, name, file[1] ? count(file[1]) : undefined, maxBytes), values: [], file: path });
      continue;
    }
    const [, size, init] = list as unknown as [string, string, string | undefined];
    const words = count(size);
    const values = init === undefined ? [] : parseList(init, `--buffer ${name}`);
    if (values.length > words) throw new CliError(`--buffer ${name}: ${values.length} values for ${words} words`);
    specs.push({ name, words, values });
  }
  return specs;
}

/** A buffer's first contents: its values, or its file's bytes read into `words` (zeroed, `spec.words` long). */
export function fillBuffer(spec: BufferSpec, words: Int32Array): void {
  if (spec.file === undefined) words.set(spec.values);
  else readBufferFile(spec.file, spec.name, new Uint8Array(words.buffer, words.byteOffset, words.byteLength));
}

/** The buffers in an emulator's memory, filled with their values or files; by name. */
export function allocBuffers(memory: GpuMemory, specs: readonly BufferSpec[]): Map<string, Allocation> {
  const buffers = new Map<string, Allocation>();
  for (const s of specs) {
    const a = memory.alloc(s.words * 4, s.name);
    fillBuffer(s, memory.view(a, Int32Array));
    buffers.set(s.name, a);
  }
  return buffers;
}

/** The --uniforms lists: one for every QPU or one per QPU, each @NAME a buffer. */
export function parseUniformLists(given: readonly string[] | undefined, qpus: number, specs: readonly BufferSpec[]): UniformItem[][] {
  let uniforms: UniformItem[][];
  try {
    uniforms = (given ?? []).map(parseUniforms);
  } catch (e) {
    if (e instanceof LaunchError) throw new CliError(`--uniforms: ${e.message}`);
    throw e;
  }
  if (uniforms.length > 1 && uniforms.length !== qpus)
    throw new CliError(`--uniforms is given ${uniforms.length} times for ${qpus} QPU${qpus > 1 ? 's' : ''}: give one list for all, or one per QPU`);
  for (const list of uniforms)
    for (const u of list)
      if ('buffer' in u && !specs.some((s) => s.name === u.buffer))
        throw new CliError(`--uniforms: @${u.buffer} names no buffer (the buffers are: ${specs.map((s) => s.name).join(', ') || 'none'})`);
  return uniforms;
}

/** `--dump NAME` or `--dump NAME:FORMAT`. */
function parseDump(text: string): DumpSpec {
  const [name, format = 'hex', ...rest] = text.split(':');
  if (rest.length || !(DUMP_FORMATS as readonly string[]).includes(format))
    throw new CliError(`--dump ${shownSpec(text)}: write NAME or NAME:FORMAT, FORMAT one of ${DUMP_FORMATS.join(', ')}`);
  return { name: name!, format: format as DumpFormat };
}

/** The --dump options, each naming a buffer. */
export function parseDumps(given: readonly string[] | undefined, specs: readonly BufferSpec[]): DumpSpec[] {
  const dumps = (given ?? []).map(parseDump);
  for (const d of dumps) if (!specs.some((s) => s.name === d.name)) throw new CliError(`--dump ${d.name}: there is no buffer ${d.name}`);
  return dumps;
}

/** The program's words: read, or assembled (its errors printed, and EXIT.INPUT returned). */
export function readRunnable(io: Io, path: string, syntax: string | undefined, command: string): Uint32Array | number {
  if (!isAssembly(path, syntax)) return readProgram(io, path);
  try {
    return assemble(new TextDecoder().decode(readInput(io, path)), { file: path, syntax: syntaxOf(syntax) }).words;
  } catch (e) {
    if (!(e instanceof AsmError)) throw e;
    // file:line:col, one error a line, as qpu asm prints them.
    const n = e.diagnostics.length;
    io.err(`${e.message}\nqpu ${command}: ${n} error${n > 1 ? 's' : ''} in the assembly; nothing was run\n`);
    return EXIT.INPUT;
  }
}

/** A --buffer value in a message, cut short when it carries a long list of values. */
function shownSpec(spec: string): string {
  return spec === '' ? "''" : spec.length > 60 ? spec.slice(0, 57) + '...' : spec;
}

function parseList(text: string, what: string): number[] {
  try {
    return parseUniforms(text).map((u) => {
      if (!('value' in u)) throw new LaunchError('only numbers can fill a buffer');
      return u.value;
    });
  } catch (e) {
    if (e instanceof LaunchError) throw new CliError(`${what}: ${e.message}`);
    throw e;
  }
}
