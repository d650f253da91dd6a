// What every subcommand shares: its shape, its error type, and the I/O it may use (the real
// process for `qpu`, a recorder in tests).

import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  readFile(path: string): Uint8Array;
  writeFile(path: string, data: Uint8Array | string): void;
}

export const nodeIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  readFile: (p) => readFileSync(p),
  writeFile: (p, d) => writeFileSync(p, d),
};

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly help: string;
  run(args: readonly string[], io: Io): Promise<number> | number;
}

/** An error to report in one line, with the exit status to return. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly status = 2,
  ) {
    super(message);
  }
}

/** node:util's parseArgs, with its errors turned into CliErrors. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CliError(`${(e as Error).message} (see --help)`);
  }
}

export function readInput(io: Io, path: string): Uint8Array {
  try {
    return io.readFile(path);
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export function writeOutput(io: Io, path: string, data: Uint8Array | string): void {
  try {
    io.writeFile(path, data);
  } catch (e) {
    throw new CliError(`cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 1);
  }
}

/** A count given on the command line: decimal digits only, within [min, max]. */
export function parseCount(text: string | undefined, fallback: number, min: number, max: number, what: string): number {
  if (text === undefined) return fallback;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max)) throw new CliError(`${what} ${text}: a whole number from ${min} to ${max}`);
  return n;
}

export function onePositional(positionals: readonly string[], what: string): string {
  if (positionals.length !== 1)
    throw new CliError(positionals.length === 0 ? `which ${what}? (see --help)` : `one ${what} at a time, not ${positionals.length}`);
  return positionals[0]!;
}
