// The koffi device (src/pi/koffi-device.ts) off a Pi: koffi loads and the C declarations bind
// (64- and 32-bit forms), a missing /dev/vcio and a missing koffi give their clear errors, and
// with regular files standing in for /dev/vcio and /dev/mem the real calls run end to end: an
// ioctl whose kernel writes land in the message's own array, and words written through an mmap
// read back from the file, and the other way round. Needs: koffi installed (the tests that call
// the C library are skipped with the reason otherwise); Linux with glibc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Board } from '../../src/pi/device.ts';
import { bindLibc, KOFFI_MISSING, libcPrototypes, loadKoffiOpener, loadKoffiOpenerSync, openKoffiDevice, PiSystemError, VCIO_PATH } from '../../src/pi/koffi-device.ts';

const KOFFI = 'koffi';
const koffi: any = await import(KOFFI).then(
  (m: { default?: unknown }) => m.default ?? m,
  () => undefined,
);
const needsKoffi = koffi ? {} : { skip: 'koffi is not installed (npm install --no-save koffi to run these tests)' };
const onLinux = process.platform === 'linux' ? {} : { skip: 'the C library calls are Linux/glibc ones' };
const needs = { ...onLinux, ...needsKoffi };

const BOARD: Board = { model: 'test stand-in', soc: 'BCM2837', peripheralBase: 0x3f000000, memFlags: 0x4 };
/** FIONREAD (asm-generic, so also x86's and ARM's): on a regular file, the bytes left to read, written through the pointer. */
const FIONREAD = 0x541b;
const PAGE = 4096;

/** A folder with a file of `bytes` bytes (a pattern in it), removed after the test. */
function scratchFile(t: { after(fn: () => void): void }, bytes: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-koffi-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'memory');
  const words = Uint32Array.from({ length: bytes / 4 }, (_, i) => (i * 0x01010101) >>> 0);
  writeFileSync(path, new Uint8Array(words.buffer));
  return path;
}

const openFds = (): number => readdirSync('/proc/self/fd').length;

test('koffi loads and every C declaration binds, in its 64-bit and its 32-bit (mmap64) form', needs, () => {
  const libc = koffi.load('libc.so.6');
  for (const bytes of [8, 4]) for (const proto of Object.values(libcPrototypes(bytes))) assert.equal(typeof libc.func(proto), 'function', proto);
  assert.equal(bindLibc(koffi).pointerBytes, koffi.sizeof('void *'));
});

test('without /dev/vcio, opening the device fails with ENOENT naming /dev/vcio and what to do', { ...needs, skip: existsSync(VCIO_PATH) ? 'this machine has /dev/vcio' : needs.skip }, async () => {
  const before = openFds();
  await assert.rejects(openKoffiDevice(BOARD), (e: unknown) => {
    assert.ok(e instanceof PiSystemError);
    assert.deepEqual([e.syscall, e.path, e.code], ['open', '/dev/vcio', 'ENOENT']);
    assert.match(e.message, /^open \/dev\/vcio: no such file or directory \(ENOENT\): .*Raspberry Pi 1, 2, 3 or Zero.*target: 'emulator'/);
    return true;
  });
  assert.equal(openFds(), before);
});

test('a /dev/mem that cannot be opened names itself, and the mailbox file opened first is closed again', needs, async (t) => {
  const vcio = scratchFile(t, PAGE);
  const before = openFds();
  await assert.rejects(openKoffiDevice(BOARD, { vcioPath: vcio, memPath: `${vcio}.missing` }), (e: unknown) => {
    assert.ok(e instanceof PiSystemError);
    assert.equal(e.message, `open ${vcio}.missing: no such file or directory (ENOENT): this kernel has no /dev/mem: the pi target needs Raspberry Pi OS's kernel`);
    return true;
  });
  assert.equal(openFds(), before);
});

test("property: the ioctl gets the message's own memory, and what the kernel writes lands in the same array", needs, async (t) => {
  const file = scratchFile(t, 40);
  const device = await openKoffiDevice(BOARD, { vcioPath: file, memPath: file, propertyRequest: FIONREAD });
  t.after(() => device.close());
  const message = Uint32Array.of(16, 0, 0x30012, 0);
  device.property(message);
  assert.deepEqual(Array.from(message), [40, 0, 0x30012, 0]); // FIONREAD wrote the file's size into word 0
  const backing = new Uint32Array(8);
  const inside = backing.subarray(3, 7); // an array that starts inside its buffer
  inside.set([16, 0, 0, 0]);
  device.property(inside);
  assert.deepEqual(Array.from(backing), [0, 0, 0, 40, 0, 0, 0, 0]);
});

test("property: the mailbox's request on a file that is no mailbox fails with ENOTTY, naming the call, file and tag", needs, async (t) => {
  const file = scratchFile(t, PAGE);
  const device = await openKoffiDevice(BOARD, { vcioPath: file, memPath: file });
  t.after(() => device.close());
  const message = Uint32Array.of(28, 0, 0x30012, 4, 4, 1, 0);
  assert.throws(() => device.property(message), {
    name: 'PiSystemError',
    message: `ioctl ${file} (property message, tag 0x00030012): inappropriate ioctl for device (ENOTTY): this file is not the firmware mailbox device`,
  });
  assert.deepEqual(Array.from(message), [28, 0, 0x30012, 4, 4, 1, 0]);
});

test('property refuses a message whose size word is more than its array holds (the kernel would write past it)', needs, async (t) => {
  const file = scratchFile(t, PAGE);
  const device = await openKoffiDevice(BOARD, { vcioPath: file, memPath: file, propertyRequest: FIONREAD });
  t.after(() => device.close());
  for (const bad of [Uint32Array.of(32, 0, 0, 0), Uint32Array.of(8, 0, 0), Uint32Array.of(14, 0, 0, 0), new Uint32Array(2)])
    assert.throws(() => device.property(bad), { name: 'RangeError', message: /^property: a message's first word is its size in bytes/ });
});

test('map: words written through the mapping are in the file, and the file is in the words, without copies', needs, async (t) => {
  const file = scratchFile(t, 3 * PAGE);
  const device = await openKoffiDevice(BOARD, { vcioPath: file, memPath: file });
  t.after(() => device.close());
  const mapping = device.map(PAGE, 2 * PAGE);
  const words = mapping.words;
  assert.equal(words.length, (2 * PAGE) / 4);
  assert.equal(words[0], ((PAGE / 4) * 0x01010101) >>> 0); // the file's word at byte 4096
  words[0] = 0xdeadbeef;
  words[words.length - 1] = 0x12345678;
  const onDisk = () => new Uint32Array(new Uint8Array(readFileSync(file)).buffer);
  assert.deepEqual([onDisk()[PAGE / 4], onDisk()[(3 * PAGE) / 4 - 1]], [0xdeadbeef, 0x12345678]);
  assert.equal(onDisk()[0], 0); // the first page is not mapped, and not touched
  writeFileSync(file, new Uint8Array(Uint32Array.of(1, 2, 3, 4).buffer), { flag: 'r+' });
  const second = device.map(0, PAGE);
  assert.deepEqual(Array.from(second.words.subarray(0, 4)), [1, 2, 3, 4]);
  const stale = second.words; // as a SharedArray over freed GPU memory would be held
  second.unmap();
  mapping.unmap();
  assert.throws(() => mapping.words, { message: /^the mapping of 0x00001000 \(8192 bytes of .*\) has been unmapped$/ });
  mapping.unmap(); // a second unmap does nothing
  // Touching an array over an ended mapping reads zeros and writes nowhere, instead of killing the process.
  assert.equal(stale[0], 0);
  stale[1] = 99;
  assert.equal(onDisk()[1], 2, 'the file is not written through the stale array');
});

test('map: a failed mmap is an error naming the call, the file and the range; bad ranges are refused before it', needs, async () => {
  const device = await openKoffiDevice(BOARD, { vcioPath: '/dev/null', memPath: '/dev/null' });
  try {
    assert.throws(() => device.map(0, PAGE), { name: 'PiSystemError', message: /^mmap \/dev\/null at 0x00000000 \(4096 bytes\): no such device \(ENODEV\)$/ });
    assert.throws(() => device.map(100, PAGE), { name: 'RangeError', message: /multiple of 4096, not 100/ });
    assert.throws(() => device.map(0, 6), { name: 'RangeError', message: /6 bytes at 0x00000000/ });
    assert.throws(() => device.map(2 ** 32 - PAGE, 2 * PAGE), { name: 'RangeError' });
  } finally {
    device.close();
  }
});

test('close unmaps what is still mapped and closes both files; it is then closed for good', needs, async (t) => {
  const file = scratchFile(t, PAGE);
  const before = openFds();
  const device = await openKoffiDevice(BOARD, { vcioPath: file, memPath: file });
  assert.equal(openFds(), before + 2);
  const mapping = device.map(0, PAGE);
  device.close();
  assert.equal(openFds(), before);
  assert.throws(() => mapping.words, /has been unmapped/);
  device.close();
  assert.throws(() => device.property(Uint32Array.of(12, 0, 0)), /^Error: property: the pi target's device .* is closed$/);
  assert.throws(() => device.map(0, PAGE), /^Error: map: .* is closed$/);
});

test('the openers bind once and open synchronously, with the board they are given; one loads koffi by require()', needs, async (t) => {
  const file = scratchFile(t, PAGE);
  for (const open of [await loadKoffiOpener({ vcioPath: file, memPath: file }), loadKoffiOpenerSync({ vcioPath: file, memPath: file })]) {
    const device = open(BOARD);
    assert.equal(device.board, BOARD);
    assert.equal(device.map(0, PAGE).words[0], 0);
    device.close();
  }
});

test('without koffi, the error says to install it, and how to build it on a Pi 1 or Zero', async () => {
  const missing = () => Promise.reject(Object.assign(new Error("Cannot find package 'koffi'"), { code: 'ERR_MODULE_NOT_FOUND' }));
  await assert.rejects(openKoffiDevice(BOARD, { loadKoffi: missing }), (e: unknown) => {
    assert.ok(e instanceof Error);
    assert.ok(e.message.startsWith('the pi target needs the koffi package to call the C library: npm install koffi. '), e.message);
    assert.match(e.message, /Pi 1 or Zero \(ARMv6\).*ARMv7 hard-float.*build it from source.*cnoke/);
    assert.match(e.message, /\(import\('koffi'\) failed: Cannot find package 'koffi'\)$/);
    assert.equal((e.cause as Error).message, "Cannot find package 'koffi'");
    return true;
  });
  assert.ok(KOFFI_MISSING.length > 0);
  assert.throws(
    () => loadKoffiOpenerSync({ requireKoffi: () => { throw new Error("Cannot find module 'koffi'"); } }),
    (e: unknown) => e instanceof Error && e.message.startsWith(KOFFI_MISSING) && e.message.endsWith("(require('koffi') failed: Cannot find module 'koffi')"),
  );
  await assert.rejects(openKoffiDevice(BOARD, { loadKoffi: async () => ({ default: { load() {}, errno() {} } }) }), /needs koffi 2\.11 or later/);
});
