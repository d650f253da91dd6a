// `qpu pi` with the test device in place of a Pi: the hello world's dump as on the emulator, the
// measured time beside the estimate, a faulting program stopped on the emulator before it
// reaches the QPUs, and a clear refusal where there is no Pi.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { runQpu } from '../helpers/cli.ts';
import { endPiSession, usePiDevice } from '../../src/pi/session.ts';
import { TestPiDevice } from '../helpers/pi-test-device.ts';
import { detectBoard } from '../../src/pi/board.ts';

const hello = new URL('../../examples/asm/hello.qasm', import.meta.url).pathname;
after(() => usePiDevice(undefined));

test('qpu pi runs the hello world on the QPUs: the emulator\'s dump, the measured time and the estimate, memory given back', async () => {
  const d = new TestPiDevice();
  usePiDevice(() => d);
  const args = [hello, '--uniforms', '100,@out', '--buffer', 'out:16', '--dump', 'out:i32'];
  const emu = await runQpu('emu', ...args);
  const pi = await runQpu('pi', ...args, '--stats');
  assert.equal(pi.code, 0, pi.err);
  assert.equal(pi.out.split('\n').slice(1, 3).join('\n'), emu.out.split('\n').slice(1, 3).join('\n'), 'the same words');
  assert.match(pi.out, /^out \(16 words at 0x[0-9a-f]{8}, as i32\):\n4760( 4760){7}\n4760( 4760){7}\n/);
  // The test device is a Pi 3 Model B (its device tree's name): the estimate is for that Pi (300 MHz), unless --model says.
  assert.match(pi.out, /estimated time on a Pi: 1\.470 us \(the Raspberry Pi 3 B, 441 cycles at 300 MHz/);
  const one = await runQpu('pi', ...args, '--stats', '--model', '1');
  assert.match(one.out, /estimated time on a Pi: 1\.604 us \(the Raspberry Pi 1, 401 cycles/);
  assert.match(pi.out, /measured on the QPUs: [\d.]+ (us|ms)/);
  assert.equal(d.held, 0, 'the buffers, code, uniforms and job list given back');
  assert.deepEqual(endPiSession(), []);
});

test('a program that faults stops on the emulator, before the QPUs; a machine without a Pi is refused', async () => {
  const d = new TestPiDevice();
  usePiDevice(() => d);
  const r = await runQpu('pi', hello, '--uniforms', '100');
  assert.equal(r.code, 1);
  assert.match(r.err, /^qpu pi: the emulator stopped the program before it reached the QPUs: .*uniform read.*\(--no-check runs it on the chip anyway\)\n$/);
  assert.ok(!d.calls.some((c) => c.startsWith('execute')), 'nothing ran on the QPUs');
  endPiSession();
  usePiDevice(undefined);
  if (detectBoard().ok) return; // on a Pi whose QPUs can be used, there is no refusal to see
  const none = await runQpu('pi', hello, '--uniforms', '100,@out', '--buffer', 'out:16');
  assert.equal(none.code, 2);
  assert.match(none.err, /^qpu pi: the pi target cannot run here: this is not a Raspberry Pi/);
});

test('qpu pi refuses a program that does not write the host interrupt exactly once (the firmware would wait for it until its timeout)', async () => {
  const { mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'qpu-pi-'));
  const none = join(dir, 'none.qasm');
  writeFileSync(none, readFileSync(hello, 'utf8').replace(/^or rb38, ra39, ra39;.*$/m, 'nop'));
  const d = new TestPiDevice();
  usePiDevice(() => d);
  const r = await runQpu('pi', none, '--uniforms', '100,@out', '--buffer', 'out:16');
  assert.equal(r.code, 1);
  assert.match(r.err, /writes the host interrupt \(host_int\) 0 times on the emulator: .* exactly once/);
  assert.ok(!d.calls.some((c) => c.startsWith('execute')));
  // Through the registers it runs: they count ended programs instead.
  const direct = await runQpu('pi', none, '--uniforms', '100,@out', '--buffer', 'out:16', '--dump', 'out:i32', '--timeout', '5000');
  assert.equal(direct.code, 0, direct.err);
  assert.match(direct.out, /4760/);
  assert.deepEqual(endPiSession(), []);
});

test('qpu pi fills a buffer from a file (--buffer NAME:@FILE) as qpu emu does', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const file = join(mkdtempSync(join(tmpdir(), 'qpu-pi-')), 'in.bin');
  writeFileSync(file, new Uint8Array(new Int32Array([7, -8, 9]).buffer));
  const d = new TestPiDevice();
  usePiDevice(() => d);
  const r = await runQpu('pi', hello, '--uniforms', '100,@out', '--buffer', 'out:16', '--buffer', `in:4@${file}`, '--dump', 'in:i32');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^in \(4 words at 0x[0-9a-f]{8}, as i32\):\n 7 -8  9  0\n$/);
  assert.equal(d.held, 0);
  endPiSession();
});
