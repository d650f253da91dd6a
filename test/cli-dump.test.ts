// qpu emu --dump on big buffers: the dump is written as it is formatted, a piece at a time,
// waiting for a slow reader, so that memory stays bounded whatever the buffer's size (a
// 64 Mi-word dump used to build one string of all of it: 4.4 GB and a V8 abort).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QPU_PROCESS } from './helpers/cli.ts';
import { dumpPieces, formatWords } from '../src/cli/dump.ts';

const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'qpu-dump-'));
const [node, ...qpu] = QPU_PROCESS as [string, ...string[]];

/** `qpu args` as a process whose JavaScript heap is limited to `heapMiB`, its output through `shell` (`| wc -c`). */
function bounded(heapMiB: number, args: readonly string[], shell: string) {
  const line = [node, `--max-old-space-size=${heapMiB}`, ...qpu, ...args].map((a) => `'${a}'`).join(' ');
  return spawnSync('bash', ['-c', `set -o pipefail; ${line} ${shell}`], { cwd: root, encoding: 'utf8', timeout: 60_000 });
}

const WORDS = 4 * 1024 * 1024;

test('a 4 Mi-word dump (46 MB of text) runs in a 48 MiB heap, into a slow pipe and into a file', () => {
  const prog = join(dir, 'end.qasm');
  writeFileSync(prog, 'nop.tend\nnop\nnop\n');
  // Through a pipe whose reader starts late: without waiting for it, the text piles up in memory.
  const piped = bounded(48, ['emu', prog, '--buffer', `out:${WORDS}`, '--dump', 'out'], `| (sleep 1; wc -c)`);
  assert.equal(piped.status, 0, piped.stderr);
  const header = `out (${WORDS} words at 0x`.length + 8 + '):\n'.length;
  assert.equal(Number(piped.stdout.trim()), header + WORDS * 11);
  const file = join(dir, 'dump.txt');
  const filed = bounded(48, ['emu', prog, '--buffer', `out:${WORDS}`, '--dump', 'out:i32'], `> '${file}'`);
  assert.equal(filed.status, 0, filed.stderr);
  const text = readFileSync(file, 'latin1');
  assert.equal(text.length, header + ', as i32'.length + WORDS * 2);
  assert.ok(text.endsWith('\n0 0 0 0 0 0 0 0\n'));
});

test('a dump in pieces is the dump in one: the same columns, aligned to the widest value of the whole buffer', () => {
  const words = new Int32Array(200_000);
  for (let i = 0; i < words.length; i++) words[i] = (i * 2654435761) % 1000;
  words[150_000] = -2147483648; // the widest, in the last piece only
  for (const format of ['hex', 'i32', 'u32', 'f32'] as const) {
    const pieces = [...dumpPieces(words, format)];
    assert.ok(pieces.length > 1, 'written in pieces');
    const text = pieces.join('');
    assert.equal(text, formatWords(words, format));
    const lines = text.split('\n');
    assert.equal(lines.length, 25_001);
    const width = lines[0]!.length;
    assert.ok(lines.slice(0, -1).every((l) => l.length === width), `${format}: every line as wide`);
  }
});
