// qpu emu --buffer NAME:@FILE and NAME:WORDS@FILE: a buffer filled from a file's bytes
// (little-endian words, a partial last word completed with zeros), its size the file's or
// WORDS; files that are missing, folders, not regular files (a FIFO, /dev/zero), empty or too
// big for GPU memory are refused before anything runs, in one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, ftruncateSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QPU_PROCESS, runQpu } from './helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'qpu-bufferfile-'));
const end = join(dir, 'end.qasm');
writeFileSync(end, 'nop.tend\nnop\nnop\n');
const words = join(dir, 'words.bin');
writeFileSync(words, new Uint8Array(new Int32Array([1, -2, 3, 0x12345678, 5]).buffer));
const odd = join(dir, 'odd.bin');
writeFileSync(odd, new Uint8Array([1, 2, 3, 4, 5, 6]));

async function dump(...buffer: string[]) {
  const r = await runQpu('emu', end, ...buffer.flatMap((b) => ['--buffer', b]), '--dump', 'in:i32');
  assert.equal(r.code, 0, r.err);
  return r.out.split('\n').slice(1).join(' ').trim().split(/\s+/).map(Number);
}

test('NAME:@FILE is a buffer of the file\'s words; a partial last word is completed with zero bytes', async () => {
  assert.deepEqual(await dump(`in:@${words}`), [1, -2, 3, 0x12345678, 5]);
  assert.deepEqual(await dump(`in:@${odd}`), [0x04030201, 0x0605]);
  // The uniforms can name it as any other buffer.
  const r = await runQpu('emu', end, '--buffer', `in:@${words}`, '--uniforms', '@in', '--dump', 'in');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^in \(5 words at 0x[0-9a-f]{8}\):\n0x00000001 0xfffffffe 0x00000003 0x12345678 0x00000005\n$/);
});

test('NAME:WORDS@FILE is a buffer of WORDS words starting with the file, zeros after it', async () => {
  assert.deepEqual(await dump(`in:8@${words}`), [1, -2, 3, 0x12345678, 5, 0, 0, 0]);
  assert.deepEqual(await dump(`in:2@${odd}`), [0x04030201, 0x0605]);
  const r = await runQpu('emu', end, '--buffer', `in:4@${words}`);
  assert.deepEqual([r.code, r.out], [2, '']);
  assert.equal(r.err, `qpu emu: --buffer in: ${words} has 20 bytes, more than the buffer's 4 words (16 bytes)\n`);
});

test('files that cannot fill a buffer are refused in one line, before anything runs', async () => {
  const folder = join(dir, 'folder');
  mkdirSync(folder);
  const empty = join(dir, 'empty.bin');
  writeFileSync(empty, '');
  // Sparse: 300 MB that take no disk.
  const huge = join(dir, 'huge.bin');
  const fd = openSync(huge, 'w');
  ftruncateSync(fd, 300 * 1024 * 1024);
  closeSync(fd);
  const cases: [string, RegExp][] = [
    [`in:@${join(dir, 'missing.bin')}`, /^--buffer in: cannot read .*missing\.bin: no such file or directory \(ENOENT\)$/],
    [`in:@${folder}`, /^--buffer in: .*folder is a folder, not a file$/],
    ['in:@/dev/zero', /^--buffer in: \/dev\/zero is a character device, not a regular file: a buffer is filled from a file whose size is known$/],
    [`in:@${empty}`, /^--buffer in: .*empty\.bin is empty: give the buffer a size, in:WORDS@FILE$/],
    [`in:@${huge}`, /^--buffer in: .*huge\.bin has 314572800 bytes \(300 MiB\), more than a buffer can have: 268435456 bytes \(256 MiB\)$/],
    [`in:@`, /^--buffer in:@: write NAME:WORDS, NAME:WORDS=V,V,\.\.\., NAME:@FILE or NAME:WORDS@FILE$/],
  ];
  for (const [spec, message] of cases) {
    const t = performance.now();
    const r = await runQpu('emu', end, '--buffer', spec);
    assert.deepEqual([r.code, r.out], [2, ''], `${spec}: ${r.err}`);
    assert.match(r.err.replace(/^qpu emu: /, '').trimEnd(), message, spec);
    assert.ok(performance.now() - t < 2000, `${spec}: refused at once`);
  }
  // Too big to fit beside the others: the memory check counts it.
  const big = join(dir, 'big.bin');
  const fd2 = openSync(big, 'w');
  ftruncateSync(fd2, 200 * 1024 * 1024);
  closeSync(fd2);
  const both = await runQpu('emu', end, '--buffer', `a:@${big}`, '--buffer', `b:@${big}`);
  assert.equal(both.code, 2);
  assert.match(both.err, /^qpu emu: the buffers do not fit in the emulator's 256 MiB of GPU memory: a 52428800 words \(200 MiB\), b 52428800 words/);
  if (process.getuid?.() !== 0) {
    const secret = join(dir, 'secret.bin');
    writeFileSync(secret, 'abcd');
    chmodSync(secret, 0o000);
    const r = await runQpu('emu', end, '--buffer', `in:@${secret}`);
    assert.equal(r.code, 2);
    assert.match(r.err, /cannot read .*secret\.bin: permission denied \(EACCES\)/);
  }
});

test('a FIFO is refused, not waited on', { skip: process.platform === 'win32' }, () => {
  const fifo = join(dir, 'fifo');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const r = spawnSync(QPU_PROCESS[0]!, [...QPU_PROCESS.slice(1), 'emu', end, '--buffer', `in:@${fifo}`], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.signal, null, 'ended on its own');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^qpu emu: --buffer in: .*fifo is a FIFO, not a regular file: a buffer is filled from a file whose size is known\n$/);
});
