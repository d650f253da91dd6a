// The command line's conveniences for a new user: negative numbers as option values, buffers
// printed as numbers or floats, a missing uniform explained, the uniforms a compiled kernel reads
// with a ready `qpu emu` line, and `qpu --version`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runQpu } from './helpers/cli.ts';
import { formatF32, formatWords } from '../src/cli/dump.ts';
import { floatBits } from '../src/vc4/tables.ts';
import { describeUniforms } from '../src/cli/layout.ts';
import type { KernelAst } from '../src/source/ast.ts';
import type { Compiled } from '../src/compiler/driver.ts';

const root = new URL('..', import.meta.url).pathname;
const hello = join(root, 'examples/asm/hello.qasm');
const gcd = join(root, 'examples/gcd.ts');
const heat = join(root, 'examples/heat.ts');
const dir = mkdtempSync(join(tmpdir(), 'qpu-options-'));

test('negative numbers are option values, with or without =', async () => {
  for (const args of [
    ['--uniforms', '-2,@out'],
    ['--uniforms=-2,@out'],
  ]) {
    const r = await runQpu('emu', hello, ...args, '--buffer', 'out:16', '--dump', 'out:i32');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^out \(16 words at 0x[0-9a-f]+, as i32\):\n4658( 4658){7}\n/); // -2 + 0x1234
  }
  const floats = await runQpu('emu', hello, '--uniforms', '-1.5,@out', '--buffer', 'out:16=-0.25,-1e-3', '--dump', 'out:f32');
  assert.equal(floats.code, 0, floats.err);
  // A negative count is still refused as a count, by name.
  const r = await runQpu('emu', hello, '--qpus', '-2');
  assert.equal(r.code, 2);
  assert.match(r.err, /^qpu emu: --qpus -2: expected a whole number from 1 to 12/);
});

test('--dump NAME:FORMAT prints words as hex, i32, u32 or f32; a bad format is refused', async () => {
  const words = new Int32Array([-1, 0, 7, floatBits(0.1) | 0, floatBits(-3.5) | 0, 0x7fc00000, floatBits(Infinity) | 0, 0x80000000 | 0, 1]);
  assert.equal(formatWords(words, 'i32'), '         -1           0           7  1036831949 -1067450368  2143289344  2139095040 -2147483648\n          1\n');
  assert.equal(formatWords(words.subarray(0, 3), 'u32'), '4294967295          0          7\n');
  assert.equal(formatWords(words.subarray(0, 2), 'hex'), '0xffffffff 0x00000000\n');
  assert.deepEqual(Array.from(words, formatF32), ['NaN(0xffffffff)', '0', '1e-44', '0.1', '-3.5', 'NaN(0x7fc00000)', 'Infinity', '-0', '1e-45']);
  assert.equal(formatF32(floatBits(1 / 3)), '0.33333334');
  assert.equal(formatF32(floatBits(16777217)), '16777216');
  for (const x of [Math.PI, 1e-30, 3.4e38, -(2 ** -126), 123456.789]) assert.equal(Math.fround(Number(formatF32(floatBits(x)))), Math.fround(x), String(x));
  const bad = await runQpu('emu', hello, '--uniforms', '1,@out', '--buffer', 'out:16', '--dump', 'out:f64');
  assert.deepEqual([bad.code, bad.out], [2, '']);
  assert.equal(bad.err, 'qpu emu: --dump out:f64: write NAME or NAME:FORMAT, FORMAT one of hex, i32, u32, f32\n');
});

test('a program that reads more uniforms than it is given says so, and where to find the list', async () => {
  const bin = join(dir, 'gcd.bin');
  assert.equal((await runQpu('compile', gcd, '--kernel', 'gcd', '-o', bin)).code, 0);
  const r = await runQpu('emu', bin, '--uniforms', '0');
  assert.equal(r.code, 1);
  assert.match(r.err, /^qpu emu: QPU 0, pc \d+ \(.*\): uniform read at 0x[0-9a-f]+: just past the end of uniforms of QPU 0 .*: the program reads more uniforms than --uniforms gave QPU 0 \(1\); qpu compile -o prints the uniforms a compiled kernel reads\n$/);
});

test('qpu compile -o prints the uniforms each QPU reads and a qpu emu line that runs the code as written', async () => {
  const bin = join(dir, 'heat.bin');
  const r = await runQpu('compile', heat, '--qpus', '4', '-o', bin);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '');
  const lines = r.err.split('\n');
  assert.match(lines[0]!, /^step: \d+ instructions for 4 QPUs written to .*heat\.bin$/);
  assert.deepEqual(lines.slice(1, 9), [
    'each QPU reads these uniforms, in order (docs/compiler.md, "The calling convention"):',
    "   0  %qpu      the QPU's number, 0 to N-1 (me())",
    '   1  %qpus     N, the number of QPUs (numQPUs())',
    '   2  @grid     grid: Ptr(Float), the bus address of its array',
    '   3  @gridOut  gridOut: Ptr(Float), the bus address of its array',
    '   4  0         pitch: Int, the value',
    '   5  0         width: Int, the value',
    '   6  0         height: Int, the value',
  ]);
  const command = lines[10]!.trim();
  assert.equal(command, `qpu emu ${bin} --qpus 4 --buffer grid:64 --buffer gridOut:64 --uniforms %qpu,%qpus,@grid,@gridOut,0,0,0 --dump grid:f32 --dump gridOut:f32 --stats`);
  // The line runs as it is.
  const run = await runQpu(...command.split(' ').slice(1));
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /^grid \(64 words at 0x[0-9a-f]+, as f32\):\n/);
  assert.match(run.out, /estimated time on a Pi: /);
  assert.ok(readFileSync(bin).length > 0);
});

test('qpu --version prints the package version', async () => {
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  for (const flag of ['--version', '-v']) assert.deepEqual(await runQpu(flag), { code: 0, out: `qpu-ts ${version}\n`, err: '' });
});

test('the qpu emu line gives buffers names qpu emu and a shell take, each once', () => {
  const ast = { params: [{ ty: 'int*', name: 'scratch' }, { ty: 'float*', name: '...args' }, { ty: 'int*', name: '$in' }, { ty: 'float', name: 'x' }] } as unknown as KernelAst;
  const c = { qpus: 2, uniformsBeforeArgs: 3, scratchBytes: 4608 } as unknown as Compiled;
  const text = describeUniforms(ast, c, 'my k.bin');
  assert.match(text, /\n {3}2 {2}@scratch_2 {2}the address of 4608 bytes of scratch memory/);
  assert.match(text, /\n {3}3 {2}@scratch {4}scratch: Ptr\(Int\), the bus address of its array\n {3}4 {2}@arg1 {7}\.\.\.args: Ptr\(Float\)/);
  assert.match(text, /\n {2}qpu emu 'my k\.bin' --qpus 2 --buffer scratch_2:1152 --buffer scratch:32 --buffer arg1:32 --buffer arg2:32 --uniforms %qpu,%qpus,@scratch_2,@scratch,@arg1,@arg2,0\.0 --dump scratch:i32 --dump arg1:f32 --dump arg2:i32 --stats\n$/);
});
