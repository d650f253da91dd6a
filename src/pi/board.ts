// Which Raspberry Pi this is, and whether the pi target can run QPU code on it: the revision
// code decoded, the device-tree files read, the graphics driver and device permissions checked.
// Needs: a file reader and an access check (BoardEnv), by default the real files through node:fs.
// Guarantees: detectBoard() never throws; it returns the Board (device.ts) of a Pi 1, 2, 3 or Zero
// on the legacy graphics stack with /dev/vcio and /dev/mem usable, or the first reason it is not,
// checked in this order: not a Pi, not a VideoCore IV, KMS/FKMS, /dev/vcio, /dev/mem.
//
// Sources (facts only; no code was copied):
//   revision code fields and the old-style table: raspberrypi/documentation
//     documentation/asciidoc/computers/raspberry-pi/revision-codes.adoc
//   peripheral base from soc/ranges, KMS/FKMS from the status files:
//     raspberrypi/userland host_applications/linux/libs/bcm_host/bcm_host.c
//   memory flag per SoC (0xC on BCM2835, 0x4 DIRECT on BCM2836/7):
//     raspberrypi/userland host_applications/linux/apps/hello_pi/hello_fft/gpu_fft_base.c
//   peripheral bases 0x20000000 / 0x3F000000: torvalds/linux arch/arm/boot/dts/broadcom/bcm2835.dtsi, bcm2836.dtsi
//   /dev/vcio group "video": raspberrypi/linux issue #975; vcio only in raspberrypi/linux.

import { accessSync, constants, readFileSync } from 'node:fs';
import type { Board } from './device.ts';
import { MEM_FLAG } from './mailbox.ts';

// ---------------------------------------------------------------------------------------------
// Revision codes
// ---------------------------------------------------------------------------------------------

export type Processor = 'BCM2835' | 'BCM2836' | 'BCM2837' | 'BCM2711' | 'BCM2712';

/** The SoCs by the revision code's processor field (bits 12-15), with their GPU. */
const PROCESSORS: readonly { readonly name: Processor; readonly gpu: string }[] = [
  { name: 'BCM2835', gpu: 'VideoCore IV' },
  { name: 'BCM2836', gpu: 'VideoCore IV' },
  { name: 'BCM2837', gpu: 'VideoCore IV' },
  { name: 'BCM2711', gpu: 'VideoCore VI' },
  { name: 'BCM2712', gpu: 'VideoCore VII' },
];

/** The board types by the type field (bits 4-11). */
const TYPES: Readonly<Record<number, string>> = {
  0x00: 'A', 0x01: 'B', 0x02: 'A+', 0x03: 'B+', 0x04: '2B', 0x05: 'Alpha', 0x06: 'CM1',
  0x08: '3B', 0x09: 'Zero', 0x0a: 'CM3', 0x0c: 'Zero W', 0x0d: '3B+', 0x0e: '3A+',
  0x0f: 'Internal', 0x10: 'CM3+', 0x11: '4B', 0x12: 'Zero 2 W', 0x13: '400', 0x14: 'CM4',
  0x15: 'CM4S', 0x16: 'Internal', 0x17: '5', 0x18: 'CM5', 0x19: '500', 0x1a: 'CM5 Lite', 0x1b: 'CM0',
};

/** Memory in MB by the memory field (bits 20-22); 7 is "other". */
const MEMORY_MB: readonly number[] = [256, 512, 1024, 2048, 4096, 8192, 16384];

/** The old-style codes 0002-0015 (all BCM2835): type and memory (undefined: 256 or 512 MB). */
const OLD_CODES: Readonly<Record<number, { readonly type: string; readonly memoryMb: number | undefined }>> = {
  0x02: { type: 'B', memoryMb: 256 }, 0x03: { type: 'B', memoryMb: 256 }, 0x04: { type: 'B', memoryMb: 256 },
  0x05: { type: 'B', memoryMb: 256 }, 0x06: { type: 'B', memoryMb: 256 }, 0x07: { type: 'A', memoryMb: 256 },
  0x08: { type: 'A', memoryMb: 256 }, 0x09: { type: 'A', memoryMb: 256 }, 0x0d: { type: 'B', memoryMb: 512 },
  0x0e: { type: 'B', memoryMb: 512 }, 0x0f: { type: 'B', memoryMb: 512 }, 0x10: { type: 'B+', memoryMb: 512 },
  0x11: { type: 'CM1', memoryMb: 512 }, 0x12: { type: 'A+', memoryMb: 256 }, 0x13: { type: 'B+', memoryMb: 512 },
  0x14: { type: 'CM1', memoryMb: 512 }, 0x15: { type: 'A+', memoryMb: undefined },
};

/** The fields of a new-style code: bit position and width. */
const FIELD = {
  newStyle: { shift: 23, bits: 1 },
  memory: { shift: 20, bits: 3 },
  processor: { shift: 12, bits: 4 },
  type: { shift: 4, bits: 8 },
} as const;
/** An old-style code is its low 16 bits (bit 24 marks a voided warranty on old boards). */
const OLD_CODE_MASK = 0xffff;

const field = (code: number, f: { shift: number; bits: number }): number => (code >>> f.shift) & ((1 << f.bits) - 1);

/** A decoded revision code. */
export interface Revision {
  readonly code: number;
  /** Bit 23: a new-style code with fields (every board since the Pi 2). */
  readonly newStyle: boolean;
  /** The SoC; undefined for a processor number the table does not know yet. */
  readonly processor: Processor | undefined;
  /** The board type as the documentation names it ("Zero W", "3B+"), or "unknown (0x..)". */
  readonly type: string;
  /** Memory in MB; undefined when the code does not say. */
  readonly memoryMb: number | undefined;
}

/** Decodes a revision code (/proc/cpuinfo's Revision, or the firmware's board revision). */
export function decodeRevision(code: number): Revision {
  if (field(code, FIELD.newStyle) === 0) {
    const old = OLD_CODES[code & OLD_CODE_MASK];
    return { code, newStyle: false, processor: 'BCM2835', type: old?.type ?? `unknown (0x${(code & OLD_CODE_MASK).toString(16)})`, memoryMb: old?.memoryMb };
  }
  const type = field(code, FIELD.type);
  return {
    code,
    newStyle: true,
    processor: PROCESSORS[field(code, FIELD.processor)]?.name,
    type: TYPES[type] ?? `unknown (0x${type.toString(16)})`,
    memoryMb: MEMORY_MB[field(code, FIELD.memory)],
  };
}

// ---------------------------------------------------------------------------------------------
// The files
// ---------------------------------------------------------------------------------------------

/** Reads a file's bytes; undefined when it is missing or cannot be read. */
export interface BoardFiles {
  read(path: string): Uint8Array | undefined;
}

export type AccessMode = 'read' | 'readWrite';
export type AccessResult = 'ok' | 'missing' | 'denied';

/** Where detectBoard looks: the platform, the files and the access check (tests pass fakes). */
export interface BoardEnv {
  /** process.platform. */
  readonly platform: string;
  readonly files: BoardFiles;
  readonly access: (path: string, mode: AccessMode) => AccessResult;
}

/** The files and devices detectBoard reads. */
export const BOARD_PATH = {
  model: '/proc/device-tree/model',
  compatible: '/proc/device-tree/compatible',
  revision: '/proc/device-tree/system/linux,revision',
  cpuinfo: '/proc/cpuinfo',
  socRanges: '/proc/device-tree/soc/ranges',
  v3dStatus: '/proc/device-tree/soc/v3d@7ec00000/status',
  fkmsStatus: '/proc/device-tree/soc/firmwarekms@7e600000/status',
  vcio: '/dev/vcio',
  mem: '/dev/mem',
} as const;

const ACCESS_BITS: Readonly<Record<AccessMode, number>> = {
  read: constants.R_OK,
  readWrite: constants.R_OK | constants.W_OK,
};

/** The real files. */
export const realFiles: BoardFiles = {
  read(path) {
    try {
      return readFileSync(path);
    } catch {
      return undefined;
    }
  },
};

/** The real access check (access(2): as the process's real user). */
export function realAccess(path: string, mode: AccessMode): AccessResult {
  try {
    accessSync(path, ACCESS_BITS[mode]);
    return 'ok';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'denied';
  }
}

/** A device-tree string: the bytes up to the first NUL, as text. */
function dtString(bytes: Uint8Array | undefined): string | undefined {
  if (bytes === undefined) return undefined;
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end)).trim();
}

/** The big-endian u32 at a byte offset, if the bytes reach that far. */
function beU32(bytes: Uint8Array | undefined, offset: number): number | undefined {
  if (bytes === undefined || bytes.length < offset + 4) return undefined;
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(offset, false);
}

/** The revision code: the device tree's linux,revision (4 bytes BE), else cpuinfo's Revision line. */
export function readRevisionCode(files: BoardFiles): number | undefined {
  const fromTree = beU32(files.read(BOARD_PATH.revision), 0);
  if (fromTree !== undefined) return fromTree;
  const cpuinfo = files.read(BOARD_PATH.cpuinfo);
  const line = cpuinfo && /^Revision\s*:\s*([0-9a-f]+)\s*$/im.exec(new TextDecoder().decode(cpuinfo));
  return line ? parseInt(line[1]!, 16) : undefined;
}

/** The SoC from the device tree's compatible strings ("brcm,bcm2837"), when no revision code is found. */
function processorFromCompatible(files: BoardFiles): Processor | undefined {
  const bytes = files.read(BOARD_PATH.compatible);
  if (!bytes) return undefined;
  const names = new TextDecoder().decode(bytes).split('\0');
  return PROCESSORS.find((p) => names.includes(`brcm,${p.name.toLowerCase()}`))?.name;
}

/**
 * The ARM physical address of the peripherals: the big-endian u32 at byte 4 of soc/ranges, or
 * at byte 8 when that is 0 (a 64-bit parent address, as on the Pi 4); undefined when unreadable.
 */
export function readPeripheralBase(files: BoardFiles): number | undefined {
  const ranges = files.read(BOARD_PATH.socRanges);
  const at4 = beU32(ranges, 4);
  return at4 === 0 ? beU32(ranges, 8) : at4;
}

/** Which driver owns V3D: the KMS or FKMS driver when its device-tree node reads "okay". */
export function readGraphicsDriver(files: BoardFiles): 'kms' | 'fkms' | 'legacy' {
  if (dtString(files.read(BOARD_PATH.fkmsStatus)) === 'okay') return 'fkms';
  return dtString(files.read(BOARD_PATH.v3dStatus)) === 'okay' ? 'kms' : 'legacy';
}

// ---------------------------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------------------------

export type BoardDetection = { readonly ok: true; readonly board: Board } | { readonly ok: false; readonly reason: string };

type VideoCoreIv = Board['soc'];

/** What the pi target needs per VideoCore IV SoC: the DTS peripheral base (a fallback) and the memory flag. */
const VC4_SOCS: Readonly<Record<VideoCoreIv, { readonly peripheralBase: number; readonly memFlags: number }>> = {
  // The ARM reaches SDRAM through the VC L2 on BCM2835: L2-cached buffers are coherent (hello_fft).
  BCM2835: { peripheralBase: 0x20000000, memFlags: MEM_FLAG.l1NonAllocating },
  // The ARM bypasses the VC L2 on BCM2836/7: buffers must be the uncached alias (hello_fft).
  BCM2836: { peripheralBase: 0x3f000000, memFlags: MEM_FLAG.direct },
  BCM2837: { peripheralBase: 0x3f000000, memFlags: MEM_FLAG.direct },
};

const CONFIG_TXT = '/boot/config.txt (/boot/firmware/config.txt on Bookworm)';
const NEEDS_VC4 = 'the pi target needs a Pi 1, 2, 3 or Zero: VideoCore IV';

const refuse = (reason: string): BoardDetection => ({ ok: false, reason });

/** The default environment: this process's platform, the real files, the real access check. */
export function realBoardEnv(): BoardEnv {
  return { platform: process.platform, files: realFiles, access: realAccess };
}

/** Finds the board and checks the pi target can use it (the order of checks: see the header). */
export function detectBoard(env: Partial<BoardEnv> = {}): BoardDetection {
  const { platform, files, access } = { ...realBoardEnv(), ...env };
  if (platform !== 'linux') {
    return refuse(`this is not a Raspberry Pi: the pi target runs on Linux (Raspberry Pi OS) on a Pi 1, 2, 3 or Zero, and this machine runs ${platform}`);
  }
  const model = dtString(files.read(BOARD_PATH.model));
  if (!model || !model.startsWith('Raspberry Pi')) {
    return refuse(`this is not a Raspberry Pi: ${model ? `the device tree names it "${model}"` : `${BOARD_PATH.model} is missing`}; ${NEEDS_VC4}`);
  }
  const soc = findSoc(model, files);
  if (typeof soc !== 'string') return refuse(soc.reason);
  return checkDriverAndDevices(model, soc, files, access);
}

const isVideoCoreIv = (p: Processor): p is VideoCoreIv => p in VC4_SOCS;

/** The SoC, or the reason this board is not a VideoCore IV one (or cannot be told). */
function findSoc(model: string, files: BoardFiles): VideoCoreIv | { reason: string } {
  const code = readRevisionCode(files);
  const processor = code !== undefined ? decodeRevision(code).processor : processorFromCompatible(files);
  if (processor === undefined) {
    const what = code !== undefined ? `its revision code 0x${code.toString(16)} names a processor this version does not know` : `neither ${BOARD_PATH.revision}, the Revision line of ${BOARD_PATH.cpuinfo} nor ${BOARD_PATH.compatible} says which processor it has`;
    return { reason: `cannot tell which Raspberry Pi "${model}" is: ${what}; ${NEEDS_VC4}` };
  }
  if (isVideoCoreIv(processor)) return processor;
  const gpu = PROCESSORS.find((p) => p.name === processor)?.gpu;
  return { reason: `this is a ${model} (${processor}, ${gpu}: a different GPU, without the firmware's QPU calls): ${NEEDS_VC4}` };
}

/** The graphics driver, /dev/vcio and /dev/mem checks, then the Board. */
function checkDriverAndDevices(model: string, soc: VideoCoreIv, files: BoardFiles, access: BoardEnv['access']): BoardDetection {
  const driver = readGraphicsDriver(files);
  if (driver !== 'legacy') {
    const [name, overlay] = driver === 'kms' ? ['KMS', 'vc4-kms-v3d'] : ['FKMS', 'vc4-fkms-v3d'];
    return refuse(`the vc4 ${name} graphics driver owns the QPUs (dtoverlay=${overlay} in ${CONFIG_TXT}), so the firmware refuses to run QPU code: comment that line out, reboot, and the legacy graphics stack takes over`);
  }
  const vcio = access(BOARD_PATH.vcio, 'read');
  if (vcio === 'missing') {
    return refuse(`${BOARD_PATH.vcio} is missing: this kernel has no vcio driver (it is in Raspberry Pi OS kernels, not in mainline ones): run Raspberry Pi OS, or its kernel`);
  }
  if (vcio === 'denied') {
    return refuse(`no permission to use ${BOARD_PATH.vcio}: add your user to the video group (sudo usermod -aG video $USER, then log in again), or run as root`);
  }
  const mem = access(BOARD_PATH.mem, 'readWrite');
  if (mem === 'missing') {
    return refuse(`${BOARD_PATH.mem} is missing: this kernel was built without it (CONFIG_DEVMEM), and the pi target maps GPU memory through it: run Raspberry Pi OS, or its kernel`);
  }
  if (mem === 'denied') {
    return refuse(`no permission to use ${BOARD_PATH.mem}: the pi target maps GPU memory through it, which needs root: run as root (sudo)`);
  }
  const peripheralBase = readPeripheralBase(files) ?? VC4_SOCS[soc].peripheralBase;
  return { ok: true, board: { model, soc, peripheralBase, memFlags: VC4_SOCS[soc].memFlags } };
}
