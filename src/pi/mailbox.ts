// The firmware mailbox of a Raspberry Pi 1/2/3/Zero, as the pi target uses it: the property
// messages that enable the QPUs, allocate, lock, unlock and release GPU memory, run QPU code and
// read the board's revision and VideoCore memory range.
// Needs: a PiDevice (device.ts) for its property() call, the ioctl on /dev/vcio; nothing else.
// Guarantees: buildMessage() and readResponse() are pure and produce and check exactly the layout
// the firmware documents; every failure (a device error, a firmware status, a tag's own error
// value) becomes a MailboxError that names the call in words and says what to do.
//
// Sources (facts only; no code was copied):
//   message layout, tag ids, MEM_FLAG values: raspberrypi/utils vcmailbox/vcmailbox.7
//   exact request words of each call:        raspberrypi/userland hello_pi/hello_fft/mailbox.c
//   ioctl number, status handling, 1 s limit: raspberrypi/linux drivers/char/broadcom/vcio.c and
//                                            drivers/firmware/raspberrypi.c
//   execute status 0x80000000 = timeout:     raspberrypi/userland hello_fft/gpu_fft_base.c
//   enable status 0x80000000 = already on:   doe300/VC4CL src/hal/Mailbox.cpp (enableQPU)

import { MAX_QPUS } from '../vc4/chip.ts';
import type { PiDevice } from './device.ts';

// ---------------------------------------------------------------------------------------------
// The ioctl number
// ---------------------------------------------------------------------------------------------

/**
 * IOCTL_MBOX_PROPERTY = _IOWR(100, 0, char *) (raspberrypi/linux drivers/char/broadcom/vcio.c).
 * The generic Linux encoding (ARM and arm64) is dir << 30 | size << 16 | type << 8 | nr with
 * dir = 3 (read and write), type = 100 = 0x64, nr = 0 and size = sizeof(char *):
 *   32-bit process: 3 << 30 | 4 << 16 | 0x64 << 8 | 0 = 0xC0046400
 *   64-bit process: 3 << 30 | 8 << 16 | 0x64 << 8 | 0 = 0xC0086400
 * The kernel accepts only the number of the calling process's pointer size (Idein/rpi-mailbox
 * pull request #4: the 32-bit number fails with EINVAL from a 64-bit process).
 */
export const IOCTL_MBOX_PROPERTY = { bits32: 0xc0046400, bits64: 0xc0086400 } as const;

/** process.arch values of 32-bit processes (4-byte pointers); every other arch has 8. */
const ARCHS_WITH_32_BIT_POINTERS: readonly string[] = ['arm', 'ia32'];

/** The ioctl number for a process of this architecture (process.arch). */
export function ioctlNumber(arch: string): number {
  return ARCHS_WITH_32_BIT_POINTERS.includes(arch) ? IOCTL_MBOX_PROPERTY.bits32 : IOCTL_MBOX_PROPERTY.bits64;
}

// ---------------------------------------------------------------------------------------------
// The tables: tags, status words, memory flags
// ---------------------------------------------------------------------------------------------

/** A property tag: its id, how many u32 values the request and the response hold, and what it does. */
export interface TagInfo {
  readonly id: number;
  readonly requestWords: number;
  readonly responseWords: number;
  /** The call in words, for messages: "allocate memory". */
  readonly what: string;
}

/** The tags the pi target sends (vcmailbox.7; enable and execute QPU: hello_fft/mailbox.c). */
export const TAG = {
  firmwareRevision: { id: 0x00000001, requestWords: 0, responseWords: 1, what: 'read the firmware revision' },
  boardRevision: { id: 0x00010002, requestWords: 0, responseWords: 1, what: 'read the board revision' },
  vcMemory: { id: 0x00010006, requestWords: 0, responseWords: 2, what: 'read the VideoCore memory range' },
  allocateMemory: { id: 0x0003000c, requestWords: 3, responseWords: 1, what: 'allocate memory' },
  lockMemory: { id: 0x0003000d, requestWords: 1, responseWords: 1, what: 'lock memory' },
  unlockMemory: { id: 0x0003000e, requestWords: 1, responseWords: 1, what: 'unlock memory' },
  releaseMemory: { id: 0x0003000f, requestWords: 1, responseWords: 1, what: 'release memory' },
  executeQpu: { id: 0x00030011, requestWords: 4, responseWords: 1, what: 'execute QPU code' },
  enableQpu: { id: 0x00030012, requestWords: 1, responseWords: 1, what: 'enable the QPUs' },
} as const satisfies Record<string, TagInfo>;

export type TagName = keyof typeof TAG;

/** A tag's response values, as many as its row says. */
export type Response<T extends TagName> = (typeof TAG)[T]['responseWords'] extends 2 ? [number, number] : [number];

/** Word 1 of a message: the request code, and the firmware's answers (vcmailbox.7). */
export const PROPERTY_CODE = {
  request: 0x00000000,
  success: 0x80000000,
  /** "error parsing request buffer (partial response)". */
  parseError: 0x80000001,
} as const;

/** Set in a tag's indicator word when the firmware answered it; the low 31 bits are the length. */
export const TAG_RESPONSE_BIT = 0x80000000;
/** The tag id that ends a message. */
export const END_TAG = 0x00000000;

/** The status word execute QPU answers (hello_fft/gpu_fft_base.c). */
export const EXECUTE_STATUS = { ok: 0x00000000, timeout: 0x80000000 } as const;
/** The status word enable QPU answers: 0, or 0x80000000 when another user holds them enabled (VC4CL). */
export const ENABLE_STATUS = { ok: 0x00000000, alreadyInUse: 0x80000000 } as const;
/** The value of enable QPU's request, and of execute QPU's noflush (hello_fft/mailbox.c). */
export const SWITCH = { off: 0, on: 1 } as const;
/** The status word unlock and release memory answer (vcmailbox.7: "status=0 is success"). */
export const MEMORY_STATUS = { ok: 0x00000000 } as const;

/** The allocate-memory flags (vcmailbox.7, "Allocate memory"). */
export const MEM_FLAG = {
  /** Normal allocating alias; not for use from the ARM. */
  normal: 0,
  /** Can be resized to 0 at any time; for cached data. */
  discardable: 1 << 0,
  /** The 0xC alias: uncached. */
  direct: 1 << 2,
  /** The 0x8 alias: non-allocating in L2 but coherent. */
  coherent: 2 << 2,
  /** Allocating in L2 (the 0x4 alias). */
  l1NonAllocating: 3 << 2,
  /** Initialise the buffer to zeros. */
  zero: 1 << 4,
  /** Do not initialise it (the default is all ones). */
  noInit: 1 << 5,
  /** Likely to stay locked for a long time. */
  hintPermalock: 1 << 6,
} as const;

/** Where each field sits in a one-tag message (word indices). */
const WORD = { size: 0, code: 1, tag: 2, bufferBytes: 3, indicator: 4, values: 5 } as const;
const BYTES_PER_WORD = 4;
const U32_MAX = 0xffffffff;

// ---------------------------------------------------------------------------------------------
// The error
// ---------------------------------------------------------------------------------------------

/** A mailbox call that failed: which tag, and (when known) the errno or the status word. */
export class MailboxError extends Error {
  constructor(
    readonly tag: TagName,
    message: string,
    readonly details: { readonly errno?: string; readonly status?: number; readonly cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'MailboxError';
  }
}

const hex = (n: number): string => `0x${(n >>> 0).toString(16).padStart(8, '0')}`;

function failure(tag: TagName, reason: string, details?: MailboxError['details'], what?: string): MailboxError {
  return new MailboxError(tag, `the firmware mailbox call to ${what ?? TAG[tag].what} failed: ${reason}`, details);
}

// ---------------------------------------------------------------------------------------------
// Building and reading messages
// ---------------------------------------------------------------------------------------------

/** The number of words of a one-tag message for this tag: header 2, tag header 3, values, end 1. */
export function messageWords(tag: TagName): number {
  const { requestWords, responseWords } = TAG[tag];
  return WORD.values + Math.max(requestWords, responseWords) + 1;
}

/**
 * The property message asking `tag` with `values`: size in bytes, request code, tag id,
 * value-buffer bytes (room for the larger of request and response), the request indicator
 * (bit 31 clear; the request's length in bytes, as hello_fft sends it), the values padded with
 * zeros, the end tag. Throws a RangeError if the values do not fit the tag.
 */
export function buildMessage(tag: TagName, values: readonly number[]): Uint32Array {
  const info = TAG[tag];
  if (values.length !== info.requestWords) {
    throw new RangeError(`${info.what}: the request takes ${info.requestWords} values, not ${values.length}`);
  }
  values.forEach((v, i) => checkU32(`${info.what}: value ${i}`, v));
  const message = new Uint32Array(messageWords(tag));
  message[WORD.size] = message.length * BYTES_PER_WORD;
  message[WORD.code] = PROPERTY_CODE.request;
  message[WORD.tag] = info.id;
  message[WORD.bufferBytes] = Math.max(info.requestWords, info.responseWords) * BYTES_PER_WORD;
  message[WORD.indicator] = info.requestWords * BYTES_PER_WORD;
  message.set(values, WORD.values);
  message[message.length - 1] = END_TAG;
  return message;
}

/**
 * The response values in a message the firmware answered. Checks the size word, the status
 * word (0x80000000), the tag id, the tag's response bit and that the response is not shorter
 * than the tag's; throws a MailboxError naming the tag otherwise.
 */
export function readResponse<T extends TagName>(tag: T, message: Uint32Array): Response<T> {
  const info: TagInfo = TAG[tag];
  const words = messageWords(tag);
  /** Word i of the message, which has `words` words once its length is checked. */
  const word = (i: number): number => message[i] ?? 0;
  if (message.length !== words || message[WORD.size] !== words * BYTES_PER_WORD) {
    throw failure(tag, `the message has ${message.length} words and size word ${message[WORD.size]}, not the ${words} words (${words * BYTES_PER_WORD} bytes) of this tag`);
  }
  checkStatus(tag, word(WORD.code));
  if (word(WORD.tag) !== info.id) {
    throw failure(tag, `the response is for tag ${hex(word(WORD.tag))}, not ${hex(info.id)}`);
  }
  const indicator = word(WORD.indicator);
  if ((indicator & TAG_RESPONSE_BIT) === 0) {
    throw failure(tag, `the firmware did not answer tag ${hex(info.id)} (its response bit is clear): this firmware does not know the tag; update it (sudo apt full-upgrade) and reboot`);
  }
  const length = indicator & ~TAG_RESPONSE_BIT;
  if (length < info.responseWords * BYTES_PER_WORD) {
    throw failure(tag, `the firmware answered ${length} bytes, less than the ${info.responseWords * BYTES_PER_WORD} bytes of this tag's response`);
  }
  return Array.from(message.subarray(WORD.values, WORD.values + info.responseWords)) as Response<T>;
}

function checkStatus(tag: TagName, code: number): void {
  if (code === PROPERTY_CODE.success) return;
  if (code === PROPERTY_CODE.parseError) {
    throw failure(tag, `the firmware could not parse the request (status ${hex(code)}, a partial response)`, { status: code });
  }
  if (code === PROPERTY_CODE.request) {
    throw failure(tag, 'the message came back unanswered (status word still 0): the firmware did not process it', { status: code });
  }
  throw failure(tag, `the firmware answered with the unknown status ${hex(code)}`, { status: code });
}

function checkU32(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > U32_MAX) {
    throw new RangeError(`${name} must be an integer from 0 to ${U32_MAX}, not ${value}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Device errors
// ---------------------------------------------------------------------------------------------

/** The errno name of a device error: its `code` property, or an (EXXX) in its message. */
function errnoOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' ? /\b(E[A-Z][A-Z0-9]+)\b/.exec(message)?.[1] : undefined;
}

const CONFIG_TXT = '/boot/config.txt (/boot/firmware/config.txt on Bookworm)';

/** Why the ioctl failed, explained for this tag. */
function explainDeviceError(tag: TagName, errno: string | undefined, error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  if (errno === 'EINVAL' && tag === 'enableQpu') {
    return `the firmware refused (EINVAL): usually the vc4 KMS or FKMS graphics driver owns the QPUs (dtoverlay=vc4-kms-v3d or vc4-fkms-v3d in ${CONFIG_TXT}): comment that line out and reboot; or gpu_mem=16 selected the cut-down firmware, which has no 3D: set gpu_mem=64 or more`;
  }
  if (errno === 'EINVAL') {
    return `the firmware answered with an error status (EINVAL; dmesg shows "Request ... returned status ..."): ${text}`;
  }
  if (errno === 'ETIMEDOUT' && tag === 'executeQpu') {
    return 'the QPU job ran past the kernel\'s 1 s limit for one mailbox call (ETIMEDOUT): split the work into shorter jobs; a timed-out job may leave the GPU unusable until a reboot';
  }
  if (errno === 'ETIMEDOUT') {
    return 'the firmware did not answer within the kernel\'s 1 s limit (ETIMEDOUT): the GPU may be hung by an earlier job; reboot';
  }
  return `the ioctl on /dev/vcio failed: ${text}`;
}

// ---------------------------------------------------------------------------------------------
// The calls
// ---------------------------------------------------------------------------------------------

/** The firmware calls of the pi target, over a device's property() ioctl. */
export class Mailbox {
  constructor(private readonly device: Pick<PiDevice, 'property'>) {}

  /** Sends one tag and returns its response values; what overrides the tag's words in errors. */
  private call<T extends TagName>(tag: T, values: readonly number[], what?: string): Response<T> {
    const message = buildMessage(tag, values);
    try {
      this.device.property(message);
    } catch (error) {
      const errno = errnoOf(error);
      throw failure(tag, explainDeviceError(tag, errno, error), { errno, cause: error }, what);
    }
    return readResponse(tag, message);
  }

  /** Enables (or disables) the QPUs; enabling fails under the KMS/FKMS driver or gpu_mem=16. */
  enableQpus(on: boolean): void {
    const what = on ? 'enable the QPUs' : 'disable the QPUs';
    const [status] = this.call('enableQpu', [on ? SWITCH.on : SWITCH.off], what);
    if (status === ENABLE_STATUS.ok || status === ENABLE_STATUS.alreadyInUse) return;
    throw failure('enableQpu', `the firmware answered status ${hex(status)}: the vc4 KMS or FKMS graphics driver may own the QPUs (dtoverlay=vc4-kms-v3d or vc4-fkms-v3d in ${CONFIG_TXT}: comment that line out and reboot), or gpu_mem=16 selected the cut-down firmware (set gpu_mem=64 or more)`, { status }, what);
  }

  /** Allocates `bytes` of GPU memory aligned to `alignment` bytes; returns its handle (never 0). */
  allocate(bytes: number, alignment: number, flags: number): number {
    const [handle] = this.call('allocateMemory', [bytes, alignment, flags]);
    if (handle === 0) {
      throw failure('allocateMemory', `out of GPU memory: the firmware returned handle 0 for ${bytes} bytes (alignment ${alignment}, flags ${hex(flags)}): raise gpu_mem in ${CONFIG_TXT} (at least 64 MB, 128 MB is safer) and reboot, or use less memory`, { status: 0 });
    }
    return handle;
  }

  /** Locks an allocation in place; returns its bus address (with the alias bits; never 0). */
  lock(handle: number): number {
    const [busAddress] = this.call('lockMemory', [handle]);
    if (busAddress === 0) {
      throw failure('lockMemory', `the firmware returned bus address 0 for handle ${handle}: the handle is not a live allocation`, { status: 0 });
    }
    return busAddress;
  }

  /** Unlocks an allocation (it keeps its contents but may move). */
  unlock(handle: number): void {
    this.expectOk('unlockMemory', this.call('unlockMemory', [handle])[0], handle);
  }

  /** Frees an allocation. */
  release(handle: number): void {
    this.expectOk('releaseMemory', this.call('releaseMemory', [handle])[0], handle);
  }

  private expectOk(tag: 'unlockMemory' | 'releaseMemory', status: number, handle: number): void {
    if (status === MEMORY_STATUS.ok) return;
    throw failure(tag, `the firmware answered status ${hex(status)} for handle ${handle}: the handle is not a live allocation`, { status });
  }

  /**
   * Runs `qpus` programs: the job list at `controlBusAddress` holds one {uniforms, code} pair
   * of bus addresses per QPU. noflush (true or 1) skips the firmware's GPU cache flush before
   * the run (raspberrypi/firmware issue #747); timeoutMs is the firmware's wait.
   */
  executeQpu(qpus: number, controlBusAddress: number, noflush: boolean | 0 | 1, timeoutMs: number): void {
    if (!Number.isInteger(qpus) || qpus < 1 || qpus > MAX_QPUS) {
      throw new RangeError(`${TAG.executeQpu.what}: the number of QPUs must be from 1 to ${MAX_QPUS}, not ${qpus}`);
    }
    const [status] = this.call('executeQpu', [qpus, controlBusAddress, noflush ? SWITCH.on : SWITCH.off, timeoutMs]);
    if (status === EXECUTE_STATUS.ok) return;
    if (status === EXECUTE_STATUS.timeout) {
      throw failure('executeQpu', `the QPUs did not finish within ${timeoutMs} ms (status ${hex(status)}): check that exactly one QPU writes the host interrupt when all are done; a timed-out job may leave the GPU unusable until a reboot`, { status });
    }
    throw failure('executeQpu', `the firmware answered status ${hex(status)}`, { status });
  }

  /** The board's revision code (board.ts decodeRevision). */
  boardRevision(): number {
    return this.call('boardRevision', [])[0];
  }

  /** The firmware's revision (a build time stamp). */
  firmwareRevision(): number {
    return this.call('firmwareRevision', [])[0];
  }

  /** The VideoCore's part of the memory: its ARM physical base and size in bytes. */
  vcMemory(): { base: number; size: number } {
    const [base, size] = this.call('vcMemory', []);
    return { base, size };
  }
}
