// What the bench scripts share on the command line: the errors they end with and how each ends
// the process. A bad command line, or a file or directory that is missing or not what it should
// be, ends in one line and exit status 2; a wrong result (ours, a self-check's or another
// project's program run here) or an emulator error in one line and status 1; anything else is a
// bug and keeps its stack trace.
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isMainModule, SelfCheckError } from '../examples/lib/report.ts';
import { EmulatorError } from '../src/emulator/errors.ts';

/** A command line, file or directory the bench cannot run with: a one-line error, exit status 2. */
export class BadInput extends Error {}
/** A result that is not what the program computes (an emulation gone wrong): a one-line error, exit status 1. */
export class WrongResult extends Error {}

/** Runs `main` with the command line's arguments when the module at `url` is the script Node was asked to run. */
export async function runBenchMain(url: string, main: (argv: string[]) => Promise<void> | void): Promise<void> {
  if (!process.argv[1] || !isMainModule(url, process.argv[1])) return;
  try {
    await main(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof BadInput || e instanceof WrongResult || e instanceof SelfCheckError || e instanceof EmulatorError)) throw e;
    console.error(e.message);
    process.exitCode = e instanceof BadInput ? 2 : 1;
  }
}

/** A file the user named, read; a BadInput saying which and why when it cannot be (`hint`: how to make it). */
export function readInput(file: string, hint = ''): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new BadInput(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}${hint}`);
  }
}

/**
 * The words of a vc4asm-style hex listing, `text` of `file`: each line "0xLOW, 0xHIGH, // ..." is
 * one instruction (blank lines and comments are skipped); a BadInput naming the line otherwise
 * (`what`: whose listing it should be).
 */
export function hexWords(file: string, text: string, what: string): Uint32Array {
  const words: number[] = [];
  text.split('\n').forEach((line, i) => {
    const code = line.split('//')[0]!.trim();
    if (!code) return;
    const m = /^(0x[0-9a-f]{1,8})\s*,\s*(0x[0-9a-f]{1,8})\s*,?$/i.exec(code);
    if (!m) throw new BadInput(`${file}:${i + 1}: not an instruction of ${what} ("0xLOW, 0xHIGH, // ..."): ${line.trim().slice(0, 60)}`);
    words.push(Number(m[1]), Number(m[2]));
  });
  return new Uint32Array(words);
}

/**
 * The words of a binary of 64-bit instructions, `file` (little-endian, low word first), read; a
 * BadInput when it cannot be read (`hint`: how to make it) or is not whole instructions.
 */
export function binWords(file: string, hint = ''): Uint32Array {
  const b = readInput(file, hint);
  if (b.length === 0 || b.length % 8) throw new BadInput(`${file}: not 64-bit instructions (${b.length} bytes)`);
  return new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}

/** Checks that a file the bench is asked to write (`--json FILE`) has a directory to go in; returns the path. */
export function outputFile(flag: string, path: string | undefined): string | undefined {
  if (path !== undefined && !statSync(dirname(resolve(path)), { throwIfNoEntry: false })?.isDirectory()) throw new BadInput(`${flag} ${path}: no such directory to write it in`);
  return path;
}
