// Tests for src/pi/mailbox.ts: every message byte for byte against hand-written fixtures, the
// response checks and each error case, the Mailbox calls against a fake firmware that checks
// each message and answers it, device errors mapped to explained MailboxErrors, ioctlNumber.
// Needs: test/pi/fixtures/mailbox-messages.ts. Touches no device.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildMessage, END_TAG, ioctlNumber, IOCTL_MBOX_PROPERTY, Mailbox, MailboxError, MEM_FLAG,
  messageWords, PROPERTY_CODE, readResponse, TAG, TAG_RESPONSE_BIT, type TagName,
} from '../../src/pi/mailbox.ts';
import { MESSAGES } from './fixtures/mailbox-messages.ts';

const hexBytes = (m: Uint32Array): string =>
  Array.from(new Uint8Array(m.buffer, m.byteOffset, m.byteLength), (b) => b.toString(16).padStart(2, '0'))
    .join('').replace(/(.{8})(?!$)/g, '$1 ');

/** What the firmware (through vcio) leaves in a message it answered: status, response bit and length, values. */
function answer(message: Uint32Array, values: readonly number[], length = values.length * 4): void {
  message[1] = PROPERTY_CODE.success;
  message[4] = (TAG_RESPONSE_BIT | length) >>> 0;
  message.set(values, 5);
}

const answered = (tag: TagName, values: readonly number[], request: readonly number[] = []): Uint32Array => {
  const m = buildMessage(tag, request.length ? request : new Array(TAG[tag].requestWords).fill(0));
  answer(m, values);
  return m;
};

test('every message is the documented words, and the same bytes little-endian', () => {
  assert.equal(new Uint8Array(new Uint32Array([1]).buffer)[0], 1, 'these tests assume a little-endian host, as the Pi is');
  for (const f of MESSAGES) {
    const m = buildMessage(f.tag, f.values);
    assert.deepEqual(Array.from(m), f.words, f.name);
    assert.equal(hexBytes(m), f.bytes, f.name);
    assert.equal(m.length, messageWords(f.tag), f.name);
    assert.equal(m[m.length - 1], END_TAG);
  }
});

test('buildMessage refuses values that do not fit the tag', () => {
  assert.throws(() => buildMessage('allocateMemory', [4096, 4096]), /allocate memory: the request takes 3 values, not 2/);
  assert.throws(() => buildMessage('lockMemory', [-1]), RangeError);
  assert.throws(() => buildMessage('lockMemory', [1.5]), RangeError);
  assert.throws(() => buildMessage('lockMemory', [2 ** 32]), RangeError);
  assert.throws(() => buildMessage('boardRevision', [1]), RangeError);
});

test('readResponse returns the response values of an answered message', () => {
  assert.deepEqual(readResponse('enableQpu', answered('enableQpu', [0], [1])), [0]);
  assert.deepEqual(readResponse('allocateMemory', answered('allocateMemory', [3])), [3]);
  assert.deepEqual(readResponse('boardRevision', answered('boardRevision', [0xa02082])), [0xa02082]);
  assert.deepEqual(readResponse('vcMemory', answered('vcMemory', [0x3b400000, 0x04c00000])), [0x3b400000, 0x04c00000]);
  // The real lock answer in doe300/VC4CL issue #99: tag word 0x80000004, value 0xbe6f8000.
  const lock = buildMessage('lockMemory', [0x14]);
  lock[1] = 0x80000000;
  lock[4] = 0x80000004;
  lock[5] = 0xbe6f8000;
  assert.deepEqual(readResponse('lockMemory', lock), [0xbe6f8000]);
  // A longer response length than the tag's is accepted (the firmware states what it wanted).
  const long = buildMessage('boardRevision', []);
  answer(long, [0x9000c1], 8);
  assert.deepEqual(readResponse('boardRevision', long), [0x9000c1]);
});

/** Asserts a MailboxError for the tag whose message matches every pattern. */
function throwsMailbox(fn: () => unknown, tag: TagName, ...patterns: RegExp[]): MailboxError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof MailboxError, `expected a MailboxError, got ${String(e)}`);
    assert.equal(e.tag, tag);
    assert.equal(e.name, 'MailboxError');
    const what = tag === 'enableQpu' ? /(en|dis)able the QPUs/ : new RegExp(TAG[tag].what);
    for (const p of [what, ...patterns]) assert.match(e.message, p);
    return e;
  }
  return assert.fail('expected a MailboxError');
}

test('readResponse names the tag and the problem in each error case', () => {
  const parse = answered('allocateMemory', [3]);
  parse[1] = PROPERTY_CODE.parseError;
  const e = throwsMailbox(() => readResponse('allocateMemory', parse), 'allocateMemory', /could not parse the request \(status 0x80000001/);
  assert.equal(e.details.status, 0x80000001);

  throwsMailbox(() => readResponse('lockMemory', buildMessage('lockMemory', [7])), 'lockMemory', /unanswered/);
  const odd = answered('lockMemory', [1]);
  odd[1] = 0x12345678;
  throwsMailbox(() => readResponse('lockMemory', odd), 'lockMemory', /unknown status 0x12345678/);

  const noBit = answered('allocateMemory', [3]);
  noBit[4] = 4; // VC4CL issue #67: a value but no response bit
  throwsMailbox(() => readResponse('allocateMemory', noBit), 'allocateMemory', /response bit is clear/, /0x0003000c/);

  const short = buildMessage('vcMemory', []);
  answer(short, [0x3b400000], 4);
  throwsMailbox(() => readResponse('vcMemory', short), 'vcMemory', /answered 4 bytes, less than the 8 bytes/);

  const otherTag = answered('unlockMemory', [0]);
  otherTag[2] = TAG.releaseMemory.id;
  throwsMailbox(() => readResponse('unlockMemory', otherTag), 'unlockMemory', /for tag 0x0003000f, not 0x0003000e/);

  throwsMailbox(() => readResponse('executeQpu', answered('lockMemory', [0])), 'executeQpu', /not the 10 words \(40 bytes\)/);
});

/** One exchange the fake firmware expects: the request words, then an answer or a device error. */
type Exchange = { words: readonly number[]; values?: readonly number[]; error?: Error };

/** A device whose property() checks each message against a script and answers it like the firmware. */
class FakeFirmware {
  private next = 0;
  constructor(private readonly script: readonly Exchange[]) {}
  property(message: Uint32Array): void {
    const step = this.script[this.next++];
    assert.ok(step, `unexpected message ${Array.from(message)}`);
    assert.deepEqual(Array.from(message), step.words);
    if (step.error) throw step.error;
    answer(message, step.values ?? []);
  }
  done(): void {
    assert.equal(this.next, this.script.length, 'every scripted message was sent');
  }
}

const words = (tag: TagName, values: readonly number[]): number[] => Array.from(buildMessage(tag, values));
const fixture = (tag: TagName, n = 0): readonly number[] => MESSAGES.filter((f) => f.tag === tag)[n]!.words;

test('a Mailbox sends the fixture messages and returns what the firmware answers', () => {
  const fw = new FakeFirmware([
    { words: fixture('enableQpu', 0), values: [0] },
    { words: fixture('allocateMemory'), values: [7] },
    { words: fixture('lockMemory'), values: [0xbe6f8000] },
    { words: fixture('executeQpu'), values: [0] },
    { words: fixture('unlockMemory'), values: [0] },
    { words: fixture('releaseMemory'), values: [0] },
    { words: fixture('enableQpu', 1), values: [0] },
    { words: fixture('boardRevision'), values: [0xa02082] },
    { words: fixture('vcMemory'), values: [0x3b400000, 0x04c00000] },
    { words: fixture('firmwareRevision'), values: [0x5e0f4a1b] },
  ]);
  const mb = new Mailbox(fw);
  mb.enableQpus(true);
  const handle = mb.allocate(0x100000, 4096, MEM_FLAG.l1NonAllocating);
  assert.equal(handle, 7);
  assert.equal(mb.lock(handle), 0xbe6f8000);
  mb.executeQpu(12, 0xbe6f8000, true, 1000);
  mb.unlock(handle);
  mb.release(handle);
  mb.enableQpus(false);
  assert.equal(mb.boardRevision(), 0xa02082);
  assert.deepEqual(mb.vcMemory(), { base: 0x3b400000, size: 0x04c00000 });
  assert.equal(mb.firmwareRevision(), 0x5e0f4a1b);
  fw.done();
});

test('executeQpu takes noflush as true/false or 1/0 and checks the QPU count', () => {
  const fw = new FakeFirmware([
    { words: words('executeQpu', [1, 0xc0001000, 0, 500]), values: [0] },
    { words: words('executeQpu', [2, 0xc0001000, 1, 500]), values: [0] },
    { words: words('executeQpu', [3, 0xc0001000, 0, 500]), values: [0] },
  ]);
  const mb = new Mailbox(fw);
  mb.executeQpu(1, 0xc0001000, false, 500);
  mb.executeQpu(2, 0xc0001000, 1, 500);
  mb.executeQpu(3, 0xc0001000, 0, 500);
  fw.done();
  assert.throws(() => mb.executeQpu(0, 0xc0001000, false, 500), /1 to 12, not 0/);
  assert.throws(() => mb.executeQpu(13, 0xc0001000, false, 500), /1 to 12, not 13/);
});

test('the tag-level error values become explained MailboxErrors', () => {
  const one = (tag: TagName, request: readonly number[], values: readonly number[]) =>
    new Mailbox(new FakeFirmware([{ words: words(tag, request), values }]));

  throwsMailbox(() => one('allocateMemory', [1 << 20, 4096, 4], [0]).allocate(1 << 20, 4096, MEM_FLAG.direct),
    'allocateMemory', /out of GPU memory/, /handle 0 for 1048576 bytes/, /raise gpu_mem in \/boot\/config\.txt/, /at least 64 MB/, /use less memory/);
  throwsMailbox(() => one('lockMemory', [9], [0]).lock(9), 'lockMemory', /bus address 0 for handle 9/);
  throwsMailbox(() => one('unlockMemory', [9], [1]).unlock(9), 'unlockMemory', /status 0x00000001 for handle 9/);
  throwsMailbox(() => one('releaseMemory', [9], [0x80000000]).release(9), 'releaseMemory', /status 0x80000000 for handle 9/);

  const timeout = throwsMailbox(() => one('executeQpu', [4, 0xc0002000, 0, 250], [0x80000000]).executeQpu(4, 0xc0002000, false, 250),
    'executeQpu', /the QPUs did not finish within 250 ms/, /unusable until a reboot/);
  assert.equal(timeout.details.status, 0x80000000);
  throwsMailbox(() => one('executeQpu', [4, 0xc0002000, 0, 250], [5]).executeQpu(4, 0xc0002000, false, 250),
    'executeQpu', /status 0x00000005/);

  throwsMailbox(() => one('enableQpu', [1], [2]).enableQpus(true), 'enableQpu', /enable the QPUs/, /status 0x00000002/, /vc4-kms-v3d/, /gpu_mem=16/);
  // 0x80000000: another user holds the QPUs enabled (doe300/VC4CL src/hal/Mailbox.cpp); not an error.
  one('enableQpu', [1], [0x80000000]).enableQpus(true);
  one('enableQpu', [0], [0x80000000]).enableQpus(false);
});

/** An Error as a device throws it: a message naming the call, and the errno as its code. */
function deviceError(code: string, withCode = true): Error {
  const e = new Error(`ioctl /dev/vcio: failed (${code})`);
  if (withCode) Object.assign(e, { code });
  return e;
}

test('device errors become MailboxErrors that explain the cause', () => {
  const failing = (tag: TagName, request: readonly number[], error: Error) =>
    new Mailbox(new FakeFirmware([{ words: words(tag, request), error }]));

  const einval = deviceError('EINVAL');
  const e = throwsMailbox(() => failing('enableQpu', [1], einval).enableQpus(true), 'enableQpu',
    /^the firmware mailbox call to enable the QPUs failed/, /EINVAL/, /KMS or FKMS graphics driver owns the QPUs/,
    /dtoverlay=vc4-kms-v3d/, /comment that line out and reboot/, /gpu_mem=16/);
  assert.equal(e.details.errno, 'EINVAL');
  assert.equal(e.cause, einval);
  throwsMailbox(() => failing('enableQpu', [0], einval).enableQpus(false), 'enableQpu', /disable the QPUs/);

  const t = throwsMailbox(() => failing('executeQpu', [12, 0xc0003000, 1, 1000], deviceError('ETIMEDOUT')).executeQpu(12, 0xc0003000, true, 1000),
    'executeQpu', /ETIMEDOUT/, /1 s limit/, /shorter jobs/, /until a reboot/);
  assert.equal(t.details.errno, 'ETIMEDOUT');

  // The errno is also found in the message when the error has no code property.
  const a = throwsMailbox(() => failing('allocateMemory', [4096, 4096, 4], deviceError('EINVAL', false)).allocate(4096, 4096, 4),
    'allocateMemory', /error status \(EINVAL/);
  assert.equal(a.details.errno, 'EINVAL');
  throwsMailbox(() => failing('lockMemory', [3], deviceError('ETIMEDOUT')).lock(3), 'lockMemory', /did not answer within the kernel's 1 s limit/);
  throwsMailbox(() => failing('boardRevision', [], deviceError('EBADF')).boardRevision(), 'boardRevision', /the ioctl on \/dev\/vcio failed: .*EBADF/);
});

test('ioctlNumber follows the process pointer size; the numbers are _IOWR(100, 0, char *)', () => {
  const iowr = (type: number, nr: number, size: number) => ((3 << 30) | (size << 16) | (type << 8) | nr) >>> 0;
  assert.equal(IOCTL_MBOX_PROPERTY.bits32, iowr(100, 0, 4));
  assert.equal(IOCTL_MBOX_PROPERTY.bits64, iowr(100, 0, 8));
  assert.equal(ioctlNumber('arm'), 0xc0046400);
  assert.equal(ioctlNumber('arm64'), 0xc0086400);
  assert.equal(ioctlNumber('ia32'), 0xc0046400);
  assert.equal(ioctlNumber('x64'), 0xc0086400);
});

test('the tag and flag tables hold the documented values', () => {
  assert.deepEqual(Object.fromEntries(Object.entries(TAG).map(([k, v]) => [k, [v.id, v.requestWords, v.responseWords]])), {
    firmwareRevision: [0x1, 0, 1], boardRevision: [0x10002, 0, 1], vcMemory: [0x10006, 0, 2],
    allocateMemory: [0x3000c, 3, 1], lockMemory: [0x3000d, 1, 1], unlockMemory: [0x3000e, 1, 1],
    releaseMemory: [0x3000f, 1, 1], executeQpu: [0x30011, 4, 1], enableQpu: [0x30012, 1, 1],
  });
  assert.deepEqual({ ...MEM_FLAG }, {
    normal: 0, discardable: 1, direct: 4, coherent: 8, l1NonAllocating: 0xc, zero: 0x10, noInit: 0x20, hintPermalock: 0x40,
  });
});
