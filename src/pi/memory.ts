// GPU memory on a Raspberry Pi: each allocation is a firmware allocation (mailbox.ts: allocate,
// lock), mapped into this process through the device (device.ts: /dev/mem), so that a
// SharedArray on a Pi is a view of the very memory the QPUs read and write. Allocations are
// released (unmapped, unlocked, released) when freed, and all of them by `releaseAll`, which
// session.ts calls on every way out of the process: GPU memory not released stays lost until
// the Pi reboots (hello_fft's gpu_fft.txt: "GPU memory is permanently lost if not freed").
// Needs: a PiDevice and a Mailbox on it, QPUs enabled or not. Guarantees: every allocation is
// page-aligned, zeroed, mapped uncached at the bus address the firmware locked it at (which is
// what the QPUs are given: the alias bits matter, py-videocore #5), and below the peripherals.

import type { Allocation } from '../common/memory.ts';
import type { Mapping, PiDevice } from './device.ts';
import { type Mailbox, MEM_FLAG } from './mailbox.ts';

/** Allocations are whole pages (the mapping's granule), aligned to one. */
export const PI_PAGE = 4096;
/** Bus-address alias bits (0x40000000 L2-cached on BCM2835, 0xC0000000 uncached): the ARM maps the address without them. */
const ALIAS_BITS = 0xc0000000;

/** An ARM physical address from a bus address (hello_fft's BUS_TO_PHYS). */
export const busToPhysical = (bus: number): number => (bus & ~ALIAS_BITS) >>> 0;

interface PiAllocation extends Allocation {
  readonly handle: number;
  readonly mapping: Mapping;
  /** Set while free() runs, so that a failure inside it does not start another. */
  freeing?: boolean;
}

/** free()'s steps: unmap, unlock, release. */
const RELEASE_STEP = 2;

/** Runs every step, whatever fails; returns the failures with their step numbers. */
export function attempt(steps: readonly (() => void)[]): { step: number; error: unknown }[] {
  const failures: { step: number; error: unknown }[] = [];
  steps.forEach((run, step) => {
    try {
      run();
    } catch (error) {
      failures.push({ step, error });
    }
  });
  return failures;
}

export class PiMemory {
  private readonly live = new Map<number, PiAllocation>();

  constructor(
    private readonly device: PiDevice,
    private readonly mailbox: Mailbox,
  ) {}

  /** Allocates `bytes` (rounded up to whole pages), zeroed, and maps it; the allocation's address is its bus address. */
  alloc(bytes: number, name: string): Allocation {
    if (!Number.isInteger(bytes) || bytes <= 0) throw new RangeError(`cannot allocate ${bytes} bytes for ${name}`);
    const size = Math.ceil(bytes / PI_PAGE) * PI_PAGE;
    const handle = this.mailbox.allocate(size, PI_PAGE, this.device.board.memFlags | MEM_FLAG.zero);
    let bus: number | undefined;
    try {
      bus = this.mailbox.lock(handle);
      const physical = busToPhysical(bus);
      // The peripherals sit above the memory the ARM can map: the top of a 1 GB board's GPU memory is out of reach.
      if (physical + size > this.device.board.peripheralBase)
        throw new Error(
          `GPU memory for ${name} was placed at ${hex(physical)}, where the ARM cannot map it (the peripherals start at ${hex(this.device.board.peripheralBase)}): lower gpu_mem or allocate less`,
        );
      const mapping = this.device.map(physical, size);
      const a: PiAllocation = { name, address: bus, bytes: Math.ceil(bytes / 4) * 4, handle, mapping };
      this.live.set(bus, a);
      return a;
    } catch (e) {
      // Give the allocation back; the first error is the one to report.
      attempt([() => bus !== undefined && this.mailbox.unlock(handle), () => this.mailbox.release(handle)]);
      throw e;
    }
  }

  /** An Int32Array or Float32Array over an allocation: the GPU memory itself, not a copy. */
  view<T extends Int32ArrayConstructor | Float32ArrayConstructor>(a: Allocation, type: T): InstanceType<T> {
    const words = this.owned(a).mapping.words;
    return new type(words.buffer as ArrayBuffer, words.byteOffset, a.bytes / 4) as InstanceType<T>;
  }

  /** The allocation's words (for copying code, uniforms and job lists in with aligned word writes). */
  words(a: Allocation): Uint32Array {
    return this.owned(a).mapping.words;
  }

  /**
   * Unmaps, unlocks and releases an allocation (views of it then read zeros: koffi-device.ts).
   * Each step is tried even when one before fails; the allocation is forgotten only once the
   * firmware has released it, so releaseAll tries again what failed. Throws the first failure.
   */
  free(a: Allocation): void {
    const x = this.live.get(a.address);
    if (!x || x.freeing) return;
    x.freeing = true;
    const failures = attempt([() => x.mapping.unmap(), () => this.mailbox.unlock(x.handle), () => this.mailbox.release(x.handle)]);
    // Released (the last step went through): forgotten. Else kept, to be tried again.
    if (!failures.some((f) => f.step === RELEASE_STEP)) this.live.delete(a.address);
    x.freeing = false;
    if (failures.length) throw failures[0]!.error;
  }

  /** Releases every allocation, going on past failures; returns the messages of those that failed. */
  releaseAll(): string[] {
    const failed: string[] = [];
    for (const a of [...this.live.values()])
      try {
        this.free(a);
      } catch (e) {
        failed.push(`${a.name}: ${(e as Error).message}`);
      }
    return failed;
  }

  /** Allocations not released yet. */
  get allocations(): readonly Allocation[] {
    return [...this.live.values()];
  }

  private owned(a: Allocation): PiAllocation {
    const x = this.live.get(a.address);
    if (!x) throw new Error(`${a.name} at ${hex(a.address)} is not live GPU memory of this Pi (freed, or from another memory)`);
    return x;
  }
}

function hex(n: number): string {
  return '0x' + (n >>> 0).toString(16).padStart(8, '0');
}
