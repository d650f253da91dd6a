// Arrays a run needs in another memory than they live in: on a Pi, SharedArrays live in the
// firmware's GPU memory, but the emulator and the interpreter read the emulator's; arrays made
// off the default target's memory can still run on the pi target. Such arrays are copied into
// the run's memory before the run and back after it (also when it fails, as memory written in
// place would be), and the copies freed.
// Needs: each array's memory and allocation. Guarantees: the run sees the arrays' contents at
// its addresses; afterwards the arrays hold what the run left (unless `back` is false).

import type { Allocation } from '../emulator/memory.ts';
import type { ArrayRegion } from '../source/interpreter.ts';
import type { ArrayMemory } from './shared-array.ts';

/** An array argument: its region (name, address, bytes), the parameter it is, where it lives. */
export interface HostArray extends ArrayRegion {
  readonly index: number;
  readonly memory: ArrayMemory;
  readonly alloc: Allocation;
}

/**
 * Runs `go` with the arrays in `into`: those elsewhere are copied to new allocations of `into`
 * (their addresses put into `values`, the parameter values) and, when `back`, copied back.
 */
export function staged<T>(into: ArrayMemory, values: readonly number[], arrays: readonly HostArray[], go: (values: number[], arrays: ArrayRegion[]) => T, back = true): T {
  const out = [...values];
  const copies: { from: HostArray; to: Allocation }[] = [];
  try {
    const regions = arrays.map((a) => {
      if (a.memory === into) return a;
      // The same array passed twice is copied once.
      const to = copies.find((c) => c.from.alloc === a.alloc)?.to ?? copy(a, into, copies);
      out[a.index] = to.address | 0;
      return { name: a.name, address: to.address, bytes: a.bytes };
    });
    return go(out, regions);
  } finally {
    for (const c of copies) {
      if (back) c.from.memory.view(c.from.alloc, Int32Array).set(into.view(c.to, Int32Array));
      into.free(c.to);
    }
  }
}

function copy(a: HostArray, into: ArrayMemory, copies: { from: HostArray; to: Allocation }[]): Allocation {
  const to = into.alloc(a.bytes, a.name);
  copies.push({ from: a, to });
  into.view(to, Int32Array).set(a.memory.view(a.alloc, Int32Array));
  return to;
}
