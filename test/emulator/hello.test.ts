import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runQpu } from '../helpers/cli.ts';
import { runAsm } from '../helpers/emu.ts';

const hello = new URL('../../examples/asm/hello.qasm', import.meta.url).pathname;

test('the SHA-256 series hello world writes 100 + 0x1234 sixteen times through the VPM and DMA', () => {
  const r = runAsm(readFileSync(hello, 'utf8'), { buffers: { out: 16 }, uniforms: [100, '@out'] });
  assert.deepEqual(r.read('out'), new Array(16).fill(0x1298));
  assert.equal(r.result.total.instructions, 10);
  assert.equal(r.result.total.dmaStoreBytes, 64);
  assert.equal(r.result.total.hostInterrupts, 1);
});

test('qpu emu hello.bin --uniforms 100,@out --buffer out:16 --dump out prints 0x00001298 sixteen times', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-emu-'));
  const bin = join(dir, 'hello.bin');
  assert.equal((await runQpu('asm', hello, '-o', bin)).code, 0);
  const r = await runQpu('emu', bin, '--uniforms', '100,@out', '--buffer', 'out:16', '--dump', 'out');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.match(/0x00001298/g)?.length, 16);
  const s = await runQpu('emu', bin, '--uniforms', '100,@out', '--buffer', 'out:16', '--stats');
  assert.match(s.out, /estimated time on a Pi: /);
  assert.match(s.out, /stall:dma/);
  const t = await runQpu('emu', bin, '--uniforms', '100,@out', '--buffer', 'out:16', '--trace');
  assert.match(t.out, /^qpu {2}0 {2}pc {4}0 {2}ldi ra1, 0x1234$/m);
  assert.equal(t.out.trim().split('\n').length, 10);
});

test('qpu emu: bad command lines and failing programs say why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-emu-'));
  const bin = join(dir, 'hello.bin');
  await runQpu('asm', hello, '-o', bin);
  const noBuf = await runQpu('emu', bin, '--uniforms', '100,@nowhere');
  assert.equal(noBuf.code, 2);
  assert.match(noBuf.err, /@nowhere names no buffer/);
  assert.match((await runQpu('emu', bin, '--qpus', '13')).err, /--qpus 13: expected a whole number from 1 to 12/);
  assert.match((await runQpu('emu', bin, '--dump', 'x')).err, /there is no buffer x/);
  // Without uniforms the program reads past its (empty) uniform stream: a fault, exit status 1.
  const fault = await runQpu('emu', bin, '--uniforms', '100');
  assert.equal(fault.code, 1);
  assert.match(fault.err, /QPU 0, pc 4 \(or vw_addr, unif, 0\): uniform read at 0x[0-9a-f]+: just past the end of uniforms of QPU 0/);
});
