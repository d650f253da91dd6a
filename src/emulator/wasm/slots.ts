// The register memory: one WebAssembly.Memory, shared by every translation's SIMD code, holding
// a slot of SLOT_WORDS words (layout.ts) for each QPU of the runs in progress. A run attaches its
// QPUs to free slots when it starts and detaches them when it ends, copying their state back
// into words of their own, so that the QPUs of a finished run stay readable (Machine.lastRun)
// and the memory holds only the runs in progress: 12 slots for a run on every QPU.
// Needs: a QPU to attach, and its detach when its run ends. Guarantees: the QPU's R, F, Z, N and
// C views are over its slot while attached; growing the memory (a run inside another run's
// callback) moves every attached QPU's views to the new buffer.

import { SLOT_WORDS } from '../layout.ts';

/** What the pool needs of a QPU: to move its views to a buffer at a byte offset. */
export interface SlotUser {
  /** Its slot's byte offset in the register memory, or -1 while detached. */
  base: number;
  /** Points the views at `buffer` from `byteOffset`, copying the state there first when `copy`. */
  moveTo(buffer: ArrayBuffer, byteOffset: number, copy: boolean): void;
  /** Copies the state into the QPU's own words and points the views there. */
  moveHome(): void;
}

/** A slot's size in bytes, a multiple of 64. */
export const SLOT_BYTES = Math.ceil((SLOT_WORDS * 4) / 64) * 64;
const PAGE = 65536;

export const registerMemory = new WebAssembly.Memory({ initial: 2 });
const free: number[] = [];
let next = 0;
const attached = new Set<SlotUser>();

/** Gives `q` a slot and moves its state into it. */
export function attach(q: SlotUser): void {
  let base = free.pop();
  if (base === undefined) {
    base = next;
    next += SLOT_BYTES;
    if (next > registerMemory.buffer.byteLength) {
      registerMemory.grow(Math.ceil((next - registerMemory.buffer.byteLength) / PAGE));
      // The old buffer is detached: every attached QPU's views move to the new one (same offsets).
      for (const u of attached) u.moveTo(registerMemory.buffer, u.base, false);
    }
  }
  q.moveTo(registerMemory.buffer, base, true);
  q.base = base;
  attached.add(q);
}

/** Copies `q`'s state into arrays of its own and frees its slot. */
export function detach(q: SlotUser): void {
  if (!attached.delete(q)) return;
  free.push(q.base);
  q.moveHome();
  q.base = -1;
}

/** Slots in use (for tests). */
export function slotsInUse(): number {
  return attached.size;
}
