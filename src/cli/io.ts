// What every subcommand shares: its shape, its error type, the exit statuses, the parsing of
// numbers on the command line, and the I/O it may use (the real process for `qpu`, a recorder in
// tests).

import { isPiModel, PI_MODEL_NAMES, type PiModelName } from '../emulator/models.ts';
import { SFU_MODES, type SfuMode } from '../vc4/sfu-model.ts';
import { closeSync, fstatSync, openSync, readSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { getSystemErrorMap, parseArgs, type ParseArgsConfig } from 'node:util';
import { ASM_SYNTAXES, type AsmSyntax } from '../vc4/asm/assembler.ts';
import { suggest } from '../vc4/asm/names.ts';
import { oneLineEscaped } from '../vc4/asm/text.ts';

/**
 * The exit statuses of every subcommand. OK: success. INPUT: the input is wrong (assembly
 * errors, a machine-code file of the wrong size, broken hardware rules, an emulator error, a
 * kernel that does not compile or a module that does not load). USAGE: the command line is
 * wrong, or a file cannot be read or written (standard output and standard error included).
 * BUG: an internal error of qpu-ts (a bug to report).
 */
export const EXIT = { OK: 0, INPUT: 1, USAGE: 2, BUG: 3 } as const;

/**
 * The exit statuses as every --help states them; `input` says what "the input is wrong" means
 * for the command, `usage` adds a line to status 2.
 */
export function exitHelp(input = '', usage = ''): string {
  return `exit status:
  0  success
  1  the input is wrong${input ? `: ${input}` : ''}
  2  the command line is wrong, or a file cannot be read or written (standard output and
     standard error included; a reader closing a pipe early is fine)${usage ? `;\n     ${usage}` : ''}
  3  a bug in qpu-ts (the message says how to report it; a stack trace follows)
`;
}

export interface Io {
  out(text: string): void;
  err(text: string): void;
  readFile(path: string): Uint8Array;
  writeFile(path: string, data: Uint8Array | string): void;
  /**
   * Resolves once standard output has taken what it was given (at once unless a pipe's reader is
   * behind): output written in pieces waits here, so that it never piles up in memory.
   */
  outDrained?(): Promise<void>;
}

/** Writing to standard output or standard error failed (a full disk, a closed pipe, ...). */
export class OutputError extends Error {
  constructor(
    readonly stream: 'standard output' | 'standard error',
    readonly failure: NodeJS.ErrnoException,
  ) {
    super(`cannot write to ${stream}: ${describeSystemError(failure)}`);
  }
  /** The reader closed its end early (`qpu ... | head`): not an error. */
  get brokenPipe(): boolean {
    return this.failure.code === 'EPIPE';
  }
}

/**
 * Writes to a process stream and throws an OutputError as soon as the stream has failed. Node
 * records a failed write in `errored` at once for files, devices and pipes (the 'error' event
 * comes later), so a command stops at its first lost line instead of running on.
 */
function streamWriter(stream: NodeJS.WriteStream, name: OutputError['stream']): (text: string) => void {
  return (text) => {
    if (!stream.errored) {
      try {
        stream.write(text);
      } catch (e) {
        throw new OutputError(name, e as NodeJS.ErrnoException);
      }
    }
    if (stream.errored) throw new OutputError(name, stream.errored as NodeJS.ErrnoException);
  };
}

/**
 * Makes a process stream that Node writes to a file or a device (standard output redirected with
 * `>`) write every chunk whole or fail. Node writes such a stream with one write(2) a chunk and
 * ignores how much of it went: past a file-size limit (`ulimit -f`; Node ignores SIGXFSZ, so the
 * write returns short) or at the end of a device, the rest of the chunk was lost and the command
 * went on to exit 0. Here a short write is followed by a write of the rest, whose error (EFBIG,
 * ENOSPC) fails the stream as any failed write does. Terminals and pipes are left alone: libuv
 * writes their chunks whole, queuing what does not fit.
 */
export function completeWrites(stream: NodeJS.WriteStream): void {
  const fd = (stream as { fd?: unknown }).fd;
  if (stream.constructor.name !== 'SyncWriteStream' || typeof fd !== 'number') return;
  stream._write = (chunk: Buffer, _encoding: BufferEncoding, done: (e?: Error | null) => void) => {
    try {
      for (let at = 0; at < chunk.length; ) {
        const n = writeSync(fd, chunk, at, chunk.length - at);
        if (n <= 0) throw new Error(`wrote ${at} of ${chunk.length} bytes, then nothing more`);
        at += n;
      }
    } catch (e) {
      done(e as Error);
      return;
    }
    done();
  };
}

/**
 * The largest input any subcommand reads: the emulator's GPU memory, which no program can
 * exceed. Reading stops there, so that a device that never ends (/dev/zero) is an error, not a
 * process that reads until the host's memory runs out.
 */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

/** Reads a whole file, or fails with an INPUT CliError past `max` bytes. */
export function readBounded(path: string, max = MAX_INPUT_BYTES): Uint8Array {
  const tooBig = () => new CliError(`${shown(path)} is larger than ${max / (1024 * 1024)} MiB, more than any QPU program or source can be`, EXIT.INPUT);
  const fd = openSync(path, 'r');
  try {
    const st = fstatSync(fd);
    if (st.isFile() && st.size > max) throw tooBig();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      // A regular file in one read (and one more to see its end); devices, pipes and files whose
      // size says nothing (/proc) in chunks.
      const chunk = new Uint8Array(Math.min(Math.max(st.isFile() ? st.size - total + 1 : 0, 1 << 16), max + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > max) throw tooBig();
    }
    if (chunks.length === 1) return chunks[0]!;
    const all = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.length;
    }
    return all;
  } finally {
    closeSync(fd);
  }
}

export const nodeIo: Io = {
  out: streamWriter(process.stdout, 'standard output'),
  err: streamWriter(process.stderr, 'standard error'),
  readFile: (p) => readBounded(p),
  writeFile: (p, d) => writeFileSync(p, d),
  outDrained: () => drained(process.stdout),
};

/** Resolves when the stream has written what it holds, or has failed (the write after says how). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (!stream.writableNeedDrain || stream.errored || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ['drain', 'error', 'close']) stream.off(event, done);
      resolve();
    };
    for (const event of ['drain', 'error', 'close']) stream.on(event, done);
  });
}

/** Failures of the process streams already reported, so that their later 'error' events are not. */
export const reportedOutputErrors = new WeakSet<Error>();

/**
 * Reports a failed write to standard output or error and returns the exit status: a broken
 * pipe is silent success; anything else is one line on standard error, when that still works,
 * and USAGE.
 */
export function outputFailed(e: OutputError, prefix: string, io: Io): number {
  reportedOutputErrors.add(e.failure);
  if (e.brokenPipe) return EXIT.OK;
  if (e.stream === 'standard output') quietly(io, `${prefix}: ${e.message}\n`);
  return EXIT.USAGE;
}

/** Writes to standard error, ignoring a failure of standard error itself (nothing is left to tell). */
export function quietly(io: Io, text: string): void {
  try {
    io.err(text);
  } catch (e) {
    if (!(e instanceof OutputError)) throw e;
    reportedOutputErrors.add(e.failure);
  }
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly help: string;
  run(args: readonly string[], io: Io): Promise<number> | number;
}

/** An error to report in one line, with the exit status to return (USAGE unless told). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly status: number = EXIT.USAGE,
  ) {
    super(message);
  }
}

/**
 * node:util's parseArgs, with its errors turned into CliErrors, and negative numbers taken as
 * option values: `--uniforms -2.0,1` is `--uniforms=-2.0,1` (parseArgs alone reads `-2.0` as
 * options and refuses it as ambiguous).
 */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: joinNegativeValues(args, options), options, allowPositionals: true, strict: true });
  } catch (e) {
    const unknown = (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '([^']*)'/.exec((e as Error).message)?.[1] : undefined;
    if (unknown !== undefined) {
      const names = Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
      const near = suggest(unknown, names);
      throw new CliError(`unknown option ${shown(unknown)}${near ? ` (${near}?)` : ''}; the options are ${names.filter((n) => n.startsWith('--')).join(', ')} (see --help)`);
    }
    // Node's messages can run over several lines ("... is ambiguous.\nDid you forget ...").
    throw new CliError(`${(e as Error).message.split('\n').join(' ')} (see --help)`);
  }
}

/** A negative number, decimal, hex or float (`-2`, `-0x10`, `-1.5e3`, `-.5`), or a list starting with one. */
const NEGATIVE = /^-(\d|\.\d|0x[0-9a-f]|inf)/i;

/** The arguments with `--opt VALUE` and `-o VALUE` joined as `--opt=VALUE` where VALUE is NEGATIVE and opt takes a value. */
function joinNegativeValues(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const takesValue = (arg: string): string | undefined => {
    const long = /^--([^=]+)$/.exec(arg)?.[1];
    const name = long ?? Object.keys(options).find((k) => arg === `-${options[k]!.short ?? '\0'}`);
    return name !== undefined && options[name]?.type === 'string' ? name : undefined;
  };
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i] === '--' ? undefined : takesValue(args[i]!);
    if (name !== undefined && i + 1 < args.length && NEGATIVE.test(args[i + 1]!)) out.push(`--${name}=${args[++i]}`);
    else if (args[i] === '--') return [...out, ...args.slice(i)];
    else out.push(args[i]!);
  }
  return out;
}

/** "no such file or directory (ENOENT)" for a Node system error; its message for anything else. */
export function describeSystemError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const known = typeof err?.errno === 'number' ? getSystemErrorMap().get(err.errno) : undefined;
  if (known) return `${known[1]} (${known[0]})`;
  if (err?.code) return err.code;
  return firstLine(err instanceof Error ? err.message : String(e));
}

/** The first non-empty line of a message, for errors that must fit on one line. */
export function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '')?.trim() ?? text.trim();
}

/** Reads an input file; a file that cannot be read (missing, a directory, no permission) is USAGE. */
export function readInput(io: Io, path: string): Uint8Array {
  try {
    return io.readFile(path);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`cannot read ${shown(path)}: ${describeSystemError(e)}`);
  }
}

/** Writes an output file; a file that cannot be written is USAGE, as one that cannot be read. */
export function writeOutput(io: Io, path: string, data: Uint8Array | string): void {
  try {
    io.writeFile(path, data);
  } catch (e) {
    throw new CliError(`cannot write ${shown(path)}: ${describeSystemError(e)}`);
  }
}

/**
 * Refuses an output path that is the input file (the same file through another name, a link
 * or a symbolic link included), which writing would destroy. A missing output is fine.
 */
export function refuseOverwrite(input: string, output: string): void {
  let a, b;
  try {
    a = statSync(input);
    b = statSync(output);
  } catch {
    return;
  }
  if (a.isFile() && a.dev === b.dev && a.ino === b.ino)
    throw new CliError(`the output file ${shown(output)} is the input file ${shown(input)}: writing it would destroy the input; choose another output file`);
}

/**
 * A command-line value (a file name, an argument) in a message: its unprintable characters
 * escaped (escape sequences, newlines, a right-to-left override: text.ts), and quoted when it
 * would otherwise be invisible.
 */
export function shown(text: string): string {
  return text === '' || /\s/.test(text) ? `'${oneLineEscaped(text)}'` : oneLineEscaped(text);
}

/**
 * The one parser of counts given on the command line (--qpus, --max-steps, buffer sizes, ...):
 * decimal digits only (no sign, no 0x, no exponent, no fraction), from min to max. `text`
 * undefined (the option not given) is `fallback`. Every count of every subcommand goes through
 * here, so all say the same thing when wrong.
 */
export function parseCount(text: string | undefined, fallback: number, min: number, max: number, what: string): number {
  if (text === undefined) return fallback;
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max && Number.isSafeInteger(n)))
    throw new CliError(`${what} ${shown(text)}: expected a whole number from ${min} to ${max}, in decimal digits`);
  return n;
}

/** The --syntax option of the commands that assemble: qpu-ts (default) or series. */
export const SYNTAX_OPTION = { syntax: { type: 'string' } } as const;
export const SYNTAX_HELP = `      --syntax S      the assembly's dialect: qpu-ts (docs/asm.md, the default) or series
                      (the SHA-256 series' assembler, bit for bit: docs/asm.md)`;

export function syntaxOf(value: string | undefined): AsmSyntax {
  if (value === undefined) return 'qpu-ts';
  if (!(ASM_SYNTAXES as readonly string[]).includes(value))
    throw new CliError(`--syntax ${value}: the syntaxes are ${ASM_SYNTAXES.join(' and ')}`);
  return value as AsmSyntax;
}

/** Whether a program file is assembly: named so (.qasm, .asm, .s), or given a --syntax. */
export function isAssembly(path: string, syntax: string | undefined): boolean {
  return syntax !== undefined || /\.(qasm|asm|s)$/i.test(path);
}

export function onePositional(positionals: readonly string[], what: string): string {
  if (positionals.length !== 1)
    throw new CliError(positionals.length === 0 ? `which ${what}? (see --help)` : `one ${what} at a time, not ${positionals.length}`);
  return positionals[0]!;
}

/** "1.5 MiB": a size in bytes as messages show it. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  for (const [unit, size] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const)
    if (n >= size) return `${Number((n / size).toFixed(1))} ${unit}`;
  return `${n} bytes`;
}

/** --model M: the Pi whose time the cycle model estimates (models.ts), or undefined for the default. */
export function piModelOption(text: string | undefined): PiModelName | undefined {
  if (text === undefined) return undefined;
  if (!isPiModel(text)) throw new CliError(`--model ${shown(text)}: the models are ${PI_MODEL_NAMES.join(', ')} (Pis with a VideoCore IV)`);
  return text;
}

/** An --sfu value: the SFU's mode (vc4/sfu-model.ts), or undefined when the option is not given. */
export function sfuMode(text: string | undefined): SfuMode | undefined {
  if (text === undefined) return undefined;
  if (!(SFU_MODES as readonly string[]).includes(text)) throw new CliError(`--sfu ${shown(text)}: the modes are ${SFU_MODES.join(', ')}`);
  return text as SfuMode;
}
