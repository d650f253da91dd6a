// The pi target's device on a real Raspberry Pi: the firmware mailbox (an ioctl on /dev/vcio)
// and GPU memory mapped through /dev/mem, with the C library's open, ioctl, mmap, munmap and
// close called through koffi (an optional dependency, imported only when the pi target is used).
// Needs: koffi 2.11 or later (koffi.view) and glibc (libc.so.6); on a Pi, root for /dev/mem and
// the video group (or root) for /dev/vcio. The paths, the ioctl request and the loader can be
// changed for tests (regular files stand in for the devices).
// Guarantees: koffi is loaded by import() (openKoffiDevice, loadKoffiOpener) or require()
// (loadKoffiOpenerSync), never when this file is merely imported. Every device method is
// synchronous and throws a PiSystemError naming the call, the path, errno's name and what to do.
// A property message is checked against its array's size before the kernel copies the response
// back into it. A mapping's words are the mapped memory itself (no copy); its `words` throws
// once it is unmapped. close() unmaps what is still mapped and closes both files; a second
// close() does nothing.

import { constants as fsConstants } from 'node:fs';
import { createRequire } from 'node:module';
import { constants as osConstants } from 'node:os';
import type { Board, Mapping, PiDevice } from './device.ts';
import { ioctlNumber } from './mailbox.ts';

/** The firmware mailbox device (raspberrypi/linux drivers/char/broadcom/vcio.c). */
export const VCIO_PATH = '/dev/vcio';
/** Physical memory; GPU memory is outside Linux's RAM, so it maps uncached when opened O_SYNC. */
export const MEM_PATH = '/dev/mem';

/** Linux's mmap protection and sharing flags (the same on ARM, arm64 and x86). */
const PROT_READ = 0x1;
const PROT_WRITE = 0x2;
const MAP_SHARED = 0x1;
const MAP_PRIVATE = 0x2;
const MAP_FIXED = 0x10;
const MAP_ANONYMOUS = 0x20;
/** Linux's O_CLOEXEC (asm-generic, used by ARM and arm64): child processes do not inherit the fds. */
const O_CLOEXEC = 0o2000000;
/** A mapping starts on a page: the Pi's kernels use 4 KiB pages. */
const PAGE_BYTES = 4096;
const WORD_BYTES = 4;
const BITS_PER_BYTE = 8;
/** A property message's smallest size: the size word, the request/response code and the end tag. */
const MESSAGE_MIN_BYTES = 12;
/** Physical addresses on a VideoCore IV Pi fit in 32 bits. */
const PHYSICAL_LIMIT = 2 ** 32;
/** The package koffi is imported from (a variable, so the type-checker does not need it installed). */
const KOFFI_PACKAGE = 'koffi';
/** The C library koffi loads the calls from (glibc's soname on every Raspberry Pi OS). */
const LIBC = 'libc.so.6';

/** What a test changes; a Pi uses the defaults. */
export interface KoffiDeviceOptions {
  /** The mailbox device (default /dev/vcio). */
  readonly vcioPath?: string;
  /** The physical-memory device (default /dev/mem). */
  readonly memPath?: string;
  /** The ioctl request of a property message (default: mailbox.ts's ioctlNumber(process.arch)). */
  readonly propertyRequest?: number;
  /** Imports koffi (default: `import('koffi')`); tests simulate a missing package with it. */
  readonly loadKoffi?: () => Promise<unknown>;
  /** The same for loadKoffiOpenerSync (default: `require('koffi')`). */
  readonly requireKoffi?: () => unknown;
}

/** A failed system call: which, on what, and errno's name (`code`, as Node's own errors have it). */
export class PiSystemError extends Error {
  constructor(
    message: string,
    readonly syscall: string,
    readonly path: string,
    readonly code: string,
    readonly errno: number,
  ) {
    super(message);
    this.name = 'PiSystemError';
  }
}

export const KOFFI_MISSING =
  'the pi target needs the koffi package to call the C library: npm install koffi. ' +
  "On a Pi 1 or Zero (ARMv6) koffi's prebuilt ARM binary, built for ARMv7 hard-float, may not run: " +
  'build it from source (sudo apt install cmake make g++; rm -rf node_modules/@koromix/koffi-linux-arm; ' +
  'cd node_modules/koffi && node cnoke.cjs -P . -D src/koffi --release), as docs/pi.md says';

/** Opens the device for `board`: imports koffi, binds the C library, opens /dev/vcio and /dev/mem. */
export async function openKoffiDevice(board: Board, options: KoffiDeviceOptions = {}): Promise<PiDevice> {
  return (await loadKoffiOpener(options))(board);
}

/** Imports koffi and binds the C library once; the opener it returns is synchronous. */
export async function loadKoffiOpener(options: KoffiDeviceOptions = {}): Promise<(board: Board) => PiDevice> {
  const load = options.loadKoffi ?? (() => import(KOFFI_PACKAGE));
  let module: unknown;
  try {
    module = await load();
  } catch (e) {
    throw koffiMissing(e, 'import');
  }
  return opener(checkKoffi(module), options);
}

/** The same, synchronously: koffi loaded with require() (its CommonJS entry), for a caller that cannot wait. */
export function loadKoffiOpenerSync(options: KoffiDeviceOptions = {}): (board: Board) => PiDevice {
  const load = options.requireKoffi ?? (() => createRequire(import.meta.url)(KOFFI_PACKAGE) as unknown);
  let module: unknown;
  try {
    module = load();
  } catch (e) {
    throw koffiMissing(e, 'require');
  }
  return opener(checkKoffi(module), options);
}

function opener(koffi: Koffi, options: KoffiDeviceOptions): (board: Board) => PiDevice {
  const libc = bindLibc(koffi);
  const request = options.propertyRequest ?? ioctlNumber(process.arch);
  const paths = { vcio: options.vcioPath ?? VCIO_PATH, mem: options.memPath ?? MEM_PATH };
  return (board) => new KoffiDevice(board, libc, paths, request);
}

/** The part of koffi this file uses (the same in koffi 2.11+ and 3). */
export interface Koffi {
  load(path: string): { func(prototype: string): (...args: unknown[]) => unknown };
  errno(): number;
  view(pointer: unknown, bytes: number): ArrayBuffer;
  address(pointer: unknown): bigint;
  sizeof(type: string): number;
}

const koffiMissing = (e: unknown, how: 'import' | 'require'): Error =>
  new Error(`${KOFFI_MISSING} (${how}('koffi') failed: ${(e as Error).message})`, { cause: e });

/** The loaded module's koffi object, checked for what this file calls. */
function checkKoffi(module: unknown): Koffi {
  const koffi = ((module as { default?: unknown }).default ?? module) as Partial<Koffi>;
  if (typeof koffi.load !== 'function') throw new Error(`${KOFFI_MISSING} (the module loaded as koffi has no koffi.load)`);
  if (typeof koffi.view !== 'function' || typeof koffi.address !== 'function')
    throw new Error('the pi target needs koffi 2.11 or later (for koffi.view, memory without a copy): npm install koffi@latest');
  return koffi as Koffi;
}

/** The C declarations, per pointer size: a 32-bit glibc's mmap takes a 32-bit off_t, so 32-bit processes call mmap64. */
export function libcPrototypes(pointerBytes: number): Record<'open' | 'close' | 'ioctl' | 'mmap' | 'munmap' | 'strerror', string> {
  const mmap = pointerBytes === 8 ? 'mmap' : 'mmap64';
  return {
    open: 'int open(const char *path, int flags, ...)',
    close: 'int close(int fd)',
    // Variadic as glibc declares it; the message pointer is passed as ('void *', array).
    ioctl: 'int ioctl(int fd, unsigned long request, ...)',
    mmap: `void *${mmap}(void *addr, size_t length, int prot, int flags, int fd, int64_t offset)`,
    munmap: 'int munmap(void *addr, size_t length)',
    strerror: 'const char *strerror(int errnum)',
  };
}

/** The C library's calls, bound, and what turns a failure into a message. */
export interface Libc {
  readonly pointerBytes: number;
  readonly open: (path: string, flags: number) => number;
  readonly close: (fd: number) => number;
  /** ioctl(fd, request, pointer to the array's memory): the kernel's writes land in the array. */
  readonly ioctl: (fd: number, request: number, message: Uint32Array) => number;
  readonly mmap: (bytes: number, prot: number, flags: number, fd: number, offset: number) => unknown;
  readonly munmap: (pointer: unknown, bytes: number) => number;
  /** Puts private zeroed memory in place of a mapping (mmap MAP_FIXED | MAP_ANONYMOUS at its address); the result, or MAP_FAILED. */
  readonly replaceWithAnonymous: (pointer: unknown, bytes: number) => unknown;
  readonly mapFailed: (pointer: unknown) => boolean;
  readonly view: (pointer: unknown, bytes: number) => ArrayBuffer;
  /** The error for the call that just failed (errno read at once). */
  readonly failure: (syscall: string, path: string, what: string, hint: (code: string) => string | undefined) => PiSystemError;
}

/** Binds the declarations; throws if the C library or one of its functions cannot be found. */
export function bindLibc(koffi: Koffi): Libc {
  const pointerBytes = koffi.sizeof('void *');
  let lib: ReturnType<Koffi['load']>;
  try {
    lib = koffi.load(LIBC);
  } catch (e) {
    throw new Error(`koffi.load ${LIBC}: ${(e as Error).message}: the pi target needs glibc, as Raspberry Pi OS has`, { cause: e });
  }
  const c = Object.fromEntries(Object.entries(libcPrototypes(pointerBytes)).map(([name, proto]) => [name, lib.func(proto)]));
  const mapFailed = (1n << BigInt(BITS_PER_BYTE * pointerBytes)) - 1n; // MAP_FAILED, (void *) -1 as koffi.address gives it
  return {
    pointerBytes,
    open: (path, flags) => c.open!(path, flags) as number,
    close: (fd) => c.close!(fd) as number,
    ioctl: (fd, request, message) => c.ioctl!(fd, request, 'void *', message) as number,
    mmap: (bytes, prot, flags, fd, offset) => c.mmap!(null, bytes, prot, flags, fd, offset),
    munmap: (pointer, bytes) => c.munmap!(pointer, bytes) as number,
    replaceWithAnonymous: (pointer, bytes) => c.mmap!(pointer, bytes, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
    mapFailed: (pointer) => pointer === null || [mapFailed, -1n].includes(koffi.address(pointer)),
    view: (pointer, bytes) => koffi.view(pointer, bytes),
    failure: (syscall, path, what, hint) => {
      const errno = koffi.errno();
      const code = errnoName(errno);
      const text = lowerFirst(String(c.strerror!(errno) ?? `error ${errno}`));
      const help = hint(code);
      const message = `${syscall} ${path}${what ? ` ${what}` : ''}: ${text} (${code})${help ? `: ${help}` : ''}`;
      return new PiSystemError(message, syscall, path, code, errno);
    },
  };
}

/** errno numbers to names (EACCES, ...), the first name where two share a number (EAGAIN before EWOULDBLOCK). */
const ERRNO_NAMES = new Map<number, string>();
for (const [name, value] of Object.entries(osConstants.errno)) if (!ERRNO_NAMES.has(value)) ERRNO_NAMES.set(value, name);

export function errnoName(errno: number): string {
  return ERRNO_NAMES.get(errno) ?? `errno ${errno}`;
}

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);
const hex = (n: number): string => `0x${n.toString(16).padStart(8, '0')}`;

/** A hint by errno's name, as a failure's `hint` argument takes it. */
const byCode = (table: Readonly<Record<string, string>>) => (code: string): string | undefined => table[code];

const ROOT_FOR_MEM = 'the pi target maps GPU memory through /dev/mem, which needs root: run with sudo';
const NOT_ALLOWED_TO_MAP = 'the kernel does not let /dev/mem map this physical range';

/** What to do after a failed call, by errno's name; undefined when there is nothing to add. */
const HINTS = {
  openVcio: byCode({
    ENOENT: "no firmware mailbox here: the pi target runs on a Raspberry Pi 1, 2, 3 or Zero with Raspberry Pi OS's kernel (docs/pi.md); elsewhere use { target: 'emulator' }",
    EACCES: 'the mailbox device belongs to root and the video group, and the pi target also needs root for /dev/mem: run with sudo',
    EPERM: 'the mailbox device belongs to root and the video group, and the pi target also needs root for /dev/mem: run with sudo',
  }),
  openMem: byCode({ EACCES: ROOT_FOR_MEM, EPERM: ROOT_FOR_MEM, ENOENT: "this kernel has no /dev/mem: the pi target needs Raspberry Pi OS's kernel" }),
  property: byCode({
    EINVAL:
      'the firmware refused the message; if config.txt has dtoverlay=vc4-kms-v3d (or vc4-fkms-v3d), the KMS driver owns the QPUs: comment that line out and reboot (docs/pi.md)',
    ETIMEDOUT:
      "no answer within the kernel's 1 s limit on a mailbox call: a QPU program that runs longer, or never raises the host interrupt, ends so; the GPU may need a reboot",
    ENOTTY: 'this file is not the firmware mailbox device',
  }),
  mmap: byCode({ EPERM: NOT_ALLOWED_TO_MAP, EACCES: NOT_ALLOWED_TO_MAP, EINVAL: 'the address must be page-aligned and the length above zero' }),
  none: byCode({}),
};

/** The device: both files open from construction until close(). */
class KoffiDevice implements PiDevice {
  private vcio: number;
  private mem: number;
  private readonly mappings = new Set<KoffiMapping>();

  constructor(
    readonly board: Board,
    private readonly libc: Libc,
    private readonly paths: { readonly vcio: string; readonly mem: string },
    private readonly request: number,
  ) {
    this.vcio = this.openFile(paths.vcio, fsConstants.O_RDONLY, HINTS.openVcio);
    try {
      this.mem = this.openFile(paths.mem, fsConstants.O_RDWR | fsConstants.O_SYNC, HINTS.openMem);
    } catch (e) {
      libc.close(this.vcio);
      throw e;
    }
  }

  property(message: Uint32Array): void {
    this.checkOpen('property');
    checkMessage(message);
    if (this.libc.ioctl(this.vcio, this.request, message) < 0)
      throw this.libc.failure('ioctl', this.paths.vcio, `(property message, tag ${hex(message[2] ?? 0)})`, HINTS.property);
  }

  map(physical: number, bytes: number): Mapping {
    this.checkOpen('map');
    checkRange(physical, bytes);
    const pointer = this.libc.mmap(bytes, PROT_READ | PROT_WRITE, MAP_SHARED, this.mem, physical);
    if (this.libc.mapFailed(pointer)) throw this.libc.failure('mmap', this.paths.mem, `at ${hex(physical)} (${bytes} bytes)`, HINTS.mmap);
    let words: Uint32Array;
    try {
      words = new Uint32Array(this.libc.view(pointer, bytes));
    } catch (e) {
      this.libc.munmap(pointer, bytes);
      throw new Error(`koffi.view of the mapping at ${hex(physical)}: ${(e as Error).message}`, { cause: e });
    }
    const mapping = new KoffiMapping(this.libc, pointer, physical, bytes, words, this.paths.mem, () => this.mappings.delete(mapping));
    this.mappings.add(mapping);
    return mapping;
  }

  close(): void {
    if (this.vcio < 0) return;
    const failed: string[] = [];
    for (const m of [...this.mappings]) attempt(failed, () => m.unmap());
    for (const [fd, path] of [
      [this.vcio, this.paths.vcio],
      [this.mem, this.paths.mem],
    ] as const)
      attempt(failed, () => {
        if (this.libc.close(fd) < 0) throw this.libc.failure('close', path, '', HINTS.none);
      });
    this.vcio = this.mem = -1;
    if (failed.length) throw new Error(`closing the pi target's device: ${failed.join('; ')}`);
  }

  private openFile(path: string, flags: number, hint: (code: string) => string | undefined): number {
    const fd = this.libc.open(path, flags | O_CLOEXEC);
    if (fd < 0) throw this.libc.failure('open', path, '', hint);
    return fd;
  }

  private checkOpen(method: string): void {
    if (this.vcio < 0) throw new Error(`${method}: the pi target's device (${this.paths.vcio}, ${this.paths.mem}) is closed`);
  }
}

/** A mapping of physical memory; munmap'ed once. */
class KoffiMapping implements Mapping {
  private live: Uint32Array | undefined;

  constructor(
    private readonly libc: Libc,
    private readonly pointer: unknown,
    private readonly physical: number,
    private readonly bytes: number,
    words: Uint32Array,
    private readonly path: string,
    private readonly forget: () => void,
  ) {
    this.live = words;
  }

  /**
   * The mapped words. Throws after unmap(); an array taken before then must not be used after
   * it (it still points at the unmapped addresses: touching it kills the process with SIGSEGV).
   */
  get words(): Uint32Array {
    if (!this.live) throw new Error(`the mapping of ${hex(this.physical)} (${this.bytes} bytes of ${this.path}) has been unmapped`);
    return this.live;
  }

  /**
   * Ends the mapping of GPU memory; a second call does nothing. Arrays over it may still be held
   * (a SharedArray after SharedArray.free): instead of unmapping the addresses, which would make
   * touching them kill the process, private zeroed memory takes their place, so stale arrays
   * read zeros and their writes go nowhere. Only if that fails is the range unmapped.
   */
  unmap(): void {
    if (!this.live) return;
    this.live = undefined;
    this.forget();
    if (!this.libc.mapFailed(this.libc.replaceWithAnonymous(this.pointer, this.bytes))) return;
    if (this.libc.munmap(this.pointer, this.bytes) < 0)
      throw this.libc.failure('munmap', this.path, `at ${hex(this.physical)} (${this.bytes} bytes)`, HINTS.none);
  }
}

/** The kernel copies back as many bytes as word 0 says: more than the array holds would overwrite other memory. */
function checkMessage(message: Uint32Array): void {
  const size = message[0] ?? 0;
  if (message.length < MESSAGE_MIN_BYTES / WORD_BYTES || size < MESSAGE_MIN_BYTES || size % WORD_BYTES || size > message.byteLength)
    throw new RangeError(
      `property: a message's first word is its size in bytes, ${MESSAGE_MIN_BYTES} or more, a multiple of ${WORD_BYTES}, ` +
        `and at most its array's ${message.byteLength} bytes; this one says ${size}`,
    );
}

function checkRange(physical: number, bytes: number): void {
  if (!Number.isInteger(physical) || physical < 0 || physical % PAGE_BYTES)
    throw new RangeError(`map: the physical address must be a multiple of ${PAGE_BYTES}, not ${physical}`);
  if (!Number.isInteger(bytes) || bytes <= 0 || bytes % WORD_BYTES || physical + bytes > PHYSICAL_LIMIT)
    throw new RangeError(`map: ${bytes} bytes at ${hex(physical)}: the length must be a positive multiple of ${WORD_BYTES} within 4 GiB`);
}

/** Runs a clean-up step, noting its failure and going on. */
function attempt(failed: string[], step: () => void): void {
  try {
    step();
  } catch (e) {
    failed.push((e as Error).message);
  }
}
