// `--buffer NAME:@FILE` and `--buffer NAME:WORDS@FILE` (qpu emu, qpu pi): a buffer filled from
// a file's bytes, as they are (the words little-endian, as the QPUs and the emulator read
// memory), a partial last word completed with zero bytes and, given WORDS, zeros after the
// file. Only regular files: their size is known before anything is read, and reading them ends
// (a FIFO or /dev/zero is refused, and opened without waiting for a writer).

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { CliError, describeSystemError, formatBytes, shown } from './io.ts';

/** What a path that is not a regular file is, for its message. */
function kind(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Opens `path` for reading without blocking (O_NONBLOCK: opening a FIFO does not wait for a
 * writer) and checks it is a regular file; its descriptor and size. Errors name the buffer.
 */
function openRegular(path: string, buffer: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw new CliError(`--buffer ${buffer}: cannot read ${shown(path)}: ${describeSystemError(e)}`);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new CliError(`--buffer ${buffer}: ${shown(path)} is a folder, not a file`);
    if (!st.isFile()) throw new CliError(`--buffer ${buffer}: ${shown(path)} is ${kind(st)}, not a regular file: a buffer is filled from a file whose size is known`);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/**
 * The words of a buffer filled from `path`: `words` if given (the file must fit in them), else
 * the file's size in words, rounded up. Checked on the command line, before anything is read.
 */
export function bufferFileWords(path: string, buffer: string, words: number | undefined, maxBytes: number): number {
  const { fd, size } = openRegular(path, buffer);
  closeSync(fd);
  if (words !== undefined) {
    if (size > words * 4) throw new CliError(`--buffer ${buffer}: ${shown(path)} has ${size} bytes, more than the buffer's ${words} words (${words * 4} bytes)`);
    return words;
  }
  if (size === 0) throw new CliError(`--buffer ${buffer}: ${shown(path)} is empty: give the buffer a size, ${buffer}:WORDS@FILE`);
  if (size > maxBytes)
    throw new CliError(`--buffer ${buffer}: ${shown(path)} has ${size} bytes (${formatBytes(size)}), more than a buffer can have: ${maxBytes} bytes (${formatBytes(maxBytes)})`);
  return Math.ceil(size / 4);
}

/** Reads the file into `into`, which must hold it (bufferFileWords said so); the bytes after it are left as they are. */
export function readBufferFile(path: string, buffer: string, into: Uint8Array): void {
  const { fd, size } = openRegular(path, buffer);
  try {
    if (size > into.length) throw new CliError(`--buffer ${buffer}: ${shown(path)} grew to ${size} bytes, more than the buffer's ${into.length}, since the command line was checked`);
    let at = 0;
    for (let n; at < into.length && (n = readSync(fd, into, at, into.length - at, null)) > 0; ) at += n;
    // A file that grows while it is read is cut at the buffer's end, and said to be.
    if (at === into.length && readSync(fd, new Uint8Array(1), 0, 1, null) > 0)
      throw new CliError(`--buffer ${buffer}: ${shown(path)} grew past the buffer's ${into.length} bytes while it was read`);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`--buffer ${buffer}: cannot read ${shown(path)}: ${describeSystemError(e)}`);
  } finally {
    closeSync(fd);
  }
}
