// The device layer of the pi target: the few system calls running QPU code on a Raspberry Pi
// takes, behind a small interface so that everything above it (memory, launch, clean-up) runs
// the same on a Pi (koffi-device.ts: /dev/vcio and /dev/mem through the C library) and in tests
// (a recording device that serves memory and runs the code on the emulator).
// Needs: nothing. Guarantees: the contract each implementation keeps, documented per member.

/** A Raspberry Pi's VideoCore IV, as board.ts finds it (model, addresses, what to allocate with). */
export interface Board {
  /** What /proc/device-tree/model says (or a test device's name), for messages. */
  readonly model: string;
  /** The SoC: BCM2835 (Pi 1, Zero), BCM2836 (Pi 2), BCM2837 (Pi 3, Zero 2, later Pi 2). */
  readonly soc: 'BCM2835' | 'BCM2836' | 'BCM2837';
  /** The ARM physical address of the peripherals (0x20000000 on BCM2835, 0x3F000000 else). */
  readonly peripheralBase: number;
  /** The memory-allocation flags for buffers both the ARM and the QPUs use (mailbox.ts MEM_FLAG). */
  readonly memFlags: number;
}

/**
 * The system calls of the pi target. Every method is synchronous and throws an Error whose
 * message names the call and the reason (`open /dev/vcio: permission denied (EACCES)`).
 */
export interface PiDevice {
  readonly board: Board;
  /**
   * Sends a firmware property message (mailbox.ts builds and reads them): the ioctl on
   * /dev/vcio, which overwrites `message` with the response. Throws when the ioctl fails (the
   * firmware refused the message: EINVAL; the kernel's 1 s limit passed: ETIMEDOUT).
   */
  property(message: Uint32Array): void;
  /**
   * Maps `bytes` of ARM physical memory at `physical` (a multiple of 4096) for reading and
   * writing, uncached (/dev/mem opened O_SYNC): the words there, as the QPUs see them.
   */
  map(physical: number, bytes: number): Mapping;
  /** Releases the device (closes /dev/vcio and /dev/mem); mappings must be unmapped first. */
  close(): void;
}

/** A mapping of physical memory; `words` is valid until unmap(). */
export interface Mapping {
  /** The mapped memory as 32-bit words: read and write it with aligned word accesses only. */
  readonly words: Uint32Array;
  unmap(): void;
}
