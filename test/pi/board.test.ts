// Tests for src/pi/board.ts: revision codes decoded (real codes from the Raspberry Pi
// documentation's table), and detectBoard on fake file sets for each outcome and in the
// documented order of checks. Needs: nothing; reads no real device file except in the last test.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import {
  type AccessMode, type AccessResult, BOARD_PATH, type BoardEnv, decodeRevision, detectBoard,
  readPeripheralBase, readRevisionCode, realAccess, realFiles,
} from '../../src/pi/board.ts';

test('decodeRevision reads processor, type and memory from real revision codes', () => {
  const cases: [number, string | undefined, string, number | undefined, boolean][] = [
    [0x9000c1, 'BCM2835', 'Zero W', 512, true],
    [0x900092, 'BCM2835', 'Zero', 512, true],
    [0x900032, 'BCM2835', 'B+', 512, true],
    [0xa01041, 'BCM2836', '2B', 1024, true],
    [0xa22042, 'BCM2837', '2B', 1024, true],
    [0xa02082, 'BCM2837', '3B', 1024, true],
    [0xa020d3, 'BCM2837', '3B+', 1024, true],
    [0x9020e0, 'BCM2837', '3A+', 512, true],
    [0xa02100, 'BCM2837', 'CM3+', 1024, true],
    [0x902120, 'BCM2837', 'Zero 2 W', 512, true],
    [0xc03111, 'BCM2711', '4B', 4096, true],
    [0xc03130, 'BCM2711', '400', 4096, true],
    [0xd04170, 'BCM2712', '5', 8192, true],
    [0x0010, 'BCM2835', 'B+', 512, false],
    [0x0002, 'BCM2835', 'B', 256, false],
    [0x0012, 'BCM2835', 'A+', 256, false],
    [0x1000010, 'BCM2835', 'B+', 512, false], // an old code with the voided-warranty bit
    [0x0015, 'BCM2835', 'A+', undefined, false], // "256 MB / 512 MB"
  ];
  for (const [code, processor, type, memoryMb, newStyle] of cases) {
    assert.deepEqual(decodeRevision(code), { code, newStyle, processor, type, memoryMb }, code.toString(16));
  }
  assert.equal(decodeRevision(0x00ff).type, 'unknown (0xff)');
  assert.equal(decodeRevision(0xa050f0).processor, undefined); // processor 5: not in the table
  assert.equal(decodeRevision(0xa020f0).type, 'Internal');
  assert.equal(decodeRevision(0xa021f0).type, 'unknown (0x1f)');
});

// ---------------------------------------------------------------------------------------------
// Fake machines
// ---------------------------------------------------------------------------------------------

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const dt = (s: string): Uint8Array => text(`${s}\0`);
function be(...words: number[]): Uint8Array {
  const out = new Uint8Array(words.length * 4);
  words.forEach((w, i) => new DataView(out.buffer).setUint32(i * 4, w, false));
  return out;
}

/** soc/ranges of bcm2835.dtsi and bcm2836.dtsi, and a Pi 4's (a 64-bit parent address). */
const RANGES_2835 = be(0x7e000000, 0x20000000, 0x02000000);
const RANGES_2836 = be(0x7e000000, 0x3f000000, 0x01000000, 0x40000000, 0x40000000, 0x00001000);
const RANGES_2711 = be(0x7e000000, 0x0, 0xfe000000, 0x01800000);

interface Machine {
  platform?: string;
  files: Record<string, Uint8Array>;
  devices?: Partial<Record<'/dev/vcio' | '/dev/mem', AccessResult>>;
}

/** A BoardEnv over a fake machine, recording every access check. */
function env(m: Machine, checks: [string, AccessMode][] = []): BoardEnv {
  const devices = { '/dev/vcio': 'ok', '/dev/mem': 'ok', ...m.devices } as Record<string, AccessResult>;
  return {
    platform: m.platform ?? 'linux',
    files: { read: (path) => m.files[path] },
    access: (path, mode) => {
      checks.push([path, mode]);
      return devices[path] ?? 'missing';
    },
  };
}

/** A Pi's files: model, revision code (in the device tree, or only in cpuinfo), ranges, graphics status. */
function pi(model: string, code: number, ranges: Uint8Array, opts: { cpuinfoOnly?: boolean; v3d?: string; fkms?: string } = {}): Record<string, Uint8Array> {
  const files: Record<string, Uint8Array> = {
    [BOARD_PATH.model]: dt(model),
    [BOARD_PATH.cpuinfo]: text(`processor\t: 0\nmodel name\t: ARMv7 Processor rev 4 (v7l)\nHardware\t: BCM2835\nRevision\t: ${code.toString(16).padStart(4, '0')}\nSerial\t\t: 00000000765fc593\n`),
    [BOARD_PATH.socRanges]: ranges,
  };
  if (!opts.cpuinfoOnly) files[BOARD_PATH.revision] = be(code);
  if (opts.v3d) files[BOARD_PATH.v3dStatus] = dt(opts.v3d);
  if (opts.fkms) files[BOARD_PATH.fkmsStatus] = dt(opts.fkms);
  return files;
}

const PI1_BPLUS = pi('Raspberry Pi Model B Plus Rev 1.2', 0x0010, RANGES_2835, { cpuinfoOnly: true });
const ZERO_W = pi('Raspberry Pi Zero W Rev 1.1', 0x9000c1, RANGES_2835, { v3d: 'disabled' });
const PI2 = pi('Raspberry Pi 2 Model B Rev 1.1', 0xa01041, RANGES_2836, { v3d: 'disabled', fkms: 'disabled' });
const PI3 = pi('Raspberry Pi 3 Model B Rev 1.2', 0xa02082, RANGES_2836);
const PI3_KMS = pi('Raspberry Pi 3 Model B Rev 1.2', 0xa02082, RANGES_2836, { v3d: 'okay' });
const PI3_FKMS = pi('Raspberry Pi 3 Model B Rev 1.2', 0xa02082, RANGES_2836, { v3d: 'okay', fkms: 'okay' });
const PI4 = pi('Raspberry Pi 4 Model B Rev 1.1', 0xc03111, RANGES_2711);
const PI5 = pi('Raspberry Pi 5 Model B Rev 1.0', 0xd04170, RANGES_2711);

function ok(m: Machine) {
  const found = detectBoard(env(m));
  assert.ok(found.ok, found.ok ? '' : found.reason);
  return found.board;
}
function refused(m: Machine, ...patterns: RegExp[]): string {
  const found = detectBoard(env(m));
  assert.equal(found.ok, false);
  const reason = found.ok ? '' : found.reason;
  for (const p of patterns) assert.match(reason, p);
  return reason;
}

// ---------------------------------------------------------------------------------------------
// detectBoard
// ---------------------------------------------------------------------------------------------

test('a Pi 1, Zero W, 2 and 3 on the legacy graphics stack are found with their base and flags', () => {
  assert.deepEqual(ok({ files: PI1_BPLUS }), { model: 'Raspberry Pi Model B Plus Rev 1.2', soc: 'BCM2835', peripheralBase: 0x20000000, memFlags: 0xc });
  assert.deepEqual(ok({ files: ZERO_W }), { model: 'Raspberry Pi Zero W Rev 1.1', soc: 'BCM2835', peripheralBase: 0x20000000, memFlags: 0xc });
  assert.deepEqual(ok({ files: PI2 }), { model: 'Raspberry Pi 2 Model B Rev 1.1', soc: 'BCM2836', peripheralBase: 0x3f000000, memFlags: 0x4 });
  assert.deepEqual(ok({ files: PI3 }), { model: 'Raspberry Pi 3 Model B Rev 1.2', soc: 'BCM2837', peripheralBase: 0x3f000000, memFlags: 0x4 });
  const zero2 = pi('Raspberry Pi Zero 2 W Rev 1.0', 0x902120, RANGES_2836);
  assert.equal(ok({ files: zero2 }).soc, 'BCM2837');
});

test('detectBoard checks /dev/vcio for reading and /dev/mem for reading and writing', () => {
  const checks: [string, AccessMode][] = [];
  assert.ok(detectBoard(env({ files: PI3 }, checks)).ok);
  assert.deepEqual(checks, [['/dev/vcio', 'read'], ['/dev/mem', 'readWrite']]);
});

test('without soc/ranges the base is the SoC\'s; without a revision code the compatible strings tell the SoC', () => {
  const noRanges = { ...PI3 };
  delete noRanges[BOARD_PATH.socRanges];
  assert.equal(ok({ files: noRanges }).peripheralBase, 0x3f000000);
  const compatibleOnly = {
    [BOARD_PATH.model]: dt('Raspberry Pi 3 Model B Rev 1.2'),
    [BOARD_PATH.compatible]: text('raspberrypi,3-model-b\0brcm,bcm2837\0'),
  };
  assert.deepEqual(ok({ files: compatibleOnly }), { model: 'Raspberry Pi 3 Model B Rev 1.2', soc: 'BCM2837', peripheralBase: 0x3f000000, memFlags: 0x4 });
  refused({ files: { [BOARD_PATH.model]: dt('Raspberry Pi 3 Model B Rev 1.2') } }, /cannot tell which Raspberry Pi/, /linux,revision/);
});

test('a Pi 3 under the KMS or FKMS driver is refused with how to switch to the legacy stack', () => {
  refused({ files: PI3_KMS }, /vc4 KMS graphics driver owns the QPUs/, /dtoverlay=vc4-kms-v3d in \/boot\/config\.txt/, /comment that line out, reboot/, /legacy graphics stack/);
  refused({ files: PI3_FKMS }, /vc4 FKMS graphics driver/, /dtoverlay=vc4-fkms-v3d/);
  refused({ files: { ...PI3, [BOARD_PATH.fkmsStatus]: dt('okay') } }, /FKMS/);
});

test('a Pi 4 or 5 is refused: it has no VideoCore IV', () => {
  refused({ files: PI4 }, /Raspberry Pi 4 Model B Rev 1\.1 \(BCM2711, VideoCore VI/, /the pi target needs a Pi 1, 2, 3 or Zero: VideoCore IV/);
  refused({ files: PI5 }, /BCM2712, VideoCore VII/, /needs a Pi 1, 2, 3 or Zero: VideoCore IV/);
  const unknown = pi('Raspberry Pi 9', 0xa050f0, RANGES_2711);
  refused({ files: unknown }, /revision code 0xa050f0 names a processor this version does not know/);
});

test('a machine that is not a Raspberry Pi is refused', () => {
  refused({ files: {} }, /not a Raspberry Pi/, /\/proc\/device-tree\/model is missing/);
  refused({ files: { [BOARD_PATH.model]: dt('Pine64 RockPro64 v2.1') } }, /not a Raspberry Pi: the device tree names it "Pine64 RockPro64 v2\.1"/);
  refused({ platform: 'darwin', files: PI3 }, /not a Raspberry Pi/, /runs darwin/);
  refused({ platform: 'win32', files: {} }, /runs win32/);
});

test('missing or inaccessible devices are refused with what to do', () => {
  refused({ files: PI3, devices: { '/dev/vcio': 'missing' } }, /\/dev\/vcio is missing/, /no vcio driver/);
  refused({ files: PI3, devices: { '/dev/vcio': 'denied' } }, /no permission to use \/dev\/vcio/, /video group/);
  refused({ files: ZERO_W, devices: { '/dev/mem': 'denied' } }, /no permission to use \/dev\/mem/, /run as root \(sudo\)/);
  refused({ files: ZERO_W, devices: { '/dev/mem': 'missing' } }, /\/dev\/mem is missing/, /CONFIG_DEVMEM/);
});

test('the checks come in order: not a Pi, not VideoCore IV, KMS, /dev/vcio, /dev/mem', () => {
  const none = { '/dev/vcio': 'missing', '/dev/mem': 'denied' } as const;
  refused({ platform: 'darwin', files: PI4, devices: none }, /not a Raspberry Pi/);
  refused({ files: { ...PI4, [BOARD_PATH.v3dStatus]: dt('okay') }, devices: none }, /VideoCore VI/);
  refused({ files: PI3_KMS, devices: none }, /KMS/);
  refused({ files: PI3, devices: none }, /vcio is missing/);
  refused({ files: PI3, devices: { '/dev/vcio': 'denied', '/dev/mem': 'denied' } }, /video group/);
});

test('the revision code comes from linux,revision first, then cpuinfo; the base from soc/ranges', () => {
  const files: Record<string, Uint8Array> = { ...PI3, [BOARD_PATH.cpuinfo]: text('Revision\t: 9000c1\n') };
  assert.equal(readRevisionCode({ read: (p) => files[p] }), 0xa02082);
  assert.equal(readRevisionCode({ read: (p) => (p === BOARD_PATH.cpuinfo ? files[p] : undefined) }), 0x9000c1);
  assert.equal(readRevisionCode({ read: () => undefined }), undefined);
  assert.equal(readPeripheralBase({ read: () => RANGES_2835 }), 0x20000000);
  assert.equal(readPeripheralBase({ read: () => RANGES_2836 }), 0x3f000000);
  assert.equal(readPeripheralBase({ read: () => RANGES_2711 }), 0xfe000000);
  assert.equal(readPeripheralBase({ read: () => be(0x7e000000) }), undefined);
});

test('the real environment is read without throwing', () => {
  assert.equal(realFiles.read('/nonexistent/qpu-ts/model'), undefined);
  assert.equal(realAccess('/nonexistent/qpu-ts/vcio', 'read'), 'missing');
  assert.equal(realAccess(tmpdir(), 'read'), 'ok');
  const found = detectBoard();
  assert.equal(typeof found.ok, 'boolean');
});

test('modelOfBoard: the cycle model a board\'s device-tree name stands for; none for a Compute Module or another machine', async () => {
  const { modelOfBoard } = await import('../../src/emulator/models.ts');
  const cases: [string, string | undefined][] = [
    ['Raspberry Pi Model B Rev 2', '1'],
    ['Raspberry Pi Model B Plus Rev 1.2', '1'],
    ['Raspberry Pi Model A Plus Rev 1.1', '1'],
    ['Raspberry Pi Zero Rev 1.3', 'zero'],
    ['Raspberry Pi Zero W Rev 1.1', 'zero'],
    ['Raspberry Pi 2 Model B Rev 1.1', '2'],
    ['Raspberry Pi 3 Model B Rev 1.2', '3'],
    ['Raspberry Pi 3 Model B Plus Rev 1.3', '3b+'],
    ['Raspberry Pi 3 Model A Plus Rev 1.0', '3b+'],
    ['Raspberry Pi Zero 2 W Rev 1.0', 'zero2'],
    ['Raspberry Pi Compute Module 3 Rev 1.0', undefined],
    ['Raspberry Pi 4 Model B Rev 1.4', undefined],
    ['QEMU Virtual Machine', undefined],
  ];
  for (const [tree, want] of cases) assert.equal(modelOfBoard(tree), want, tree);
});
