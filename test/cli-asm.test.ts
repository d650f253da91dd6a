import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runQpu } from './helpers/cli.ts';

const hello = new URL('../examples/asm/hello.qasm', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'qpu-cli-'));

test('qpu --help and each command --help explain themselves', async () => {
  const top = await runQpu('--help');
  assert.equal(top.code, 0);
  assert.match(top.out, /commands:\n {2}run .*\n {2}debug .*\n {2}compile .*\n {2}emu .*\n {2}pi .*\n {2}asm .*\n {2}disasm .*\n {2}validate /);
  for (const cmd of ['asm', 'disasm', 'validate', 'debug']) {
    const r = await runQpu(cmd, '--help');
    assert.equal(r.code, 0);
    assert.match(r.out, new RegExp(`^usage: qpu ${cmd} `));
  }
  assert.equal((await runQpu('frobnicate')).code, 2);
});

test('qpu asm -o writes 80 bytes for the hello world; --hex prints the words', async () => {
  const out = join(dir, 'hello.bin');
  const r = await runQpu('asm', hello, '-o', out);
  assert.deepEqual([r.code, r.err], [0, '']);
  const bytes = readFileSync(out);
  assert.equal(bytes.length, 80);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x34, 0x12, 0, 0, 0x67, 0x40, 0x02, 0xe0]); // ldi ra1, 0x1234
  const h = await runQpu('asm', hello, '--hex');
  assert.equal(h.out.split('\n')[0], '0xE0024067_00001234');
  assert.equal(h.out.trim().split('\n').length, 10);
});

test('qpu asm reports file:line:col and writes nothing on error', async () => {
  const src = join(dir, 'bad.qasm');
  writeFileSync(src, 'nop\nadd r0, ra1, ra2\nfrob r0\n');
  const out = join(dir, 'bad.bin');
  const r = await runQpu('asm', src, '-o', out);
  assert.equal(r.code, 1);
  assert.match(r.err, new RegExp(`${src}:2:14: error: two different regfile-A reads`));
  assert.match(r.err, new RegExp(`${src}:3:1: error: unknown operation 'frob'`));
  assert.match(r.err, /2 errors; no output written/);
  assert.equal(existsSync(out), false);
  assert.equal((await runQpu('asm', join(dir, 'missing.qasm'), '--hex')).code, 2);
  assert.match((await runQpu('asm', hello)).err, /-o OUT.bin, or --hex/);
});

test('qpu disasm prints assembly that reassembles to the same bytes', async () => {
  const bin = join(dir, 'rt.bin');
  await runQpu('asm', hello, '-o', bin);
  const d = await runQpu('disasm', bin);
  assert.equal(d.code, 0);
  const src2 = join(dir, 'rt.qasm');
  writeFileSync(src2, d.out);
  const bin2 = join(dir, 'rt2.bin');
  assert.equal((await runQpu('asm', src2, '-o', bin2)).code, 0);
  assert.deepEqual(readFileSync(bin2), readFileSync(bin));
  const n = await runQpu('disasm', '--numeric', bin);
  assert.match(n.out, /add rb48, ra1, rb32/);
  const odd = join(dir, 'odd.bin');
  writeFileSync(odd, new Uint8Array(12));
  const e = await runQpu('disasm', odd);
  assert.equal(e.code, 1);
  assert.match(e.err, /12 bytes \(4 left over\)/);
});

test('qpu validate: exit status 1 when a rule is broken, with index, rule and instruction', async () => {
  const ok = await runQpu('validate', hello);
  assert.equal(ok.code, 0);
  assert.match(ok.out, /10 instructions, 0 errors, 0 warnings/);
  const src = join(dir, 'hazard.qasm');
  writeFileSync(src, 'mov ra1, 1\nadd r0, ra1, 1\nnop.tend\nnop\nnop\n');
  const bad = await runQpu('validate', src);
  assert.equal(bad.code, 1);
  assert.match(bad.out, new RegExp(`${src}:2: instruction 1: error \\[regfile-read-after-write\\] reads ra1`));
  assert.match(bad.out, /\n {4}add r0, ra1, 1\n/);
  const bin = join(dir, 'hazard.bin');
  await runQpu('asm', src, '-o', bin);
  assert.equal((await runQpu('validate', bin)).code, 1);
  assert.match((await runQpu('validate', '--rules')).out, /^regfile-read-after-write +error/);
});
