// Arrays a run needs in another memory than they live in: on a Pi, SharedArrays live in the
// firmware's GPU memory, but the emulator and the interpreter read the emulator's; arrays made
// off the default target's memory can still run on the pi target. Such arrays are copied into
// the run's memory before the run and back after it (also when it fails, as memory written in
// place would be), and the copies freed. Copies are word by word: on a Pi one side is uncached
// device memory, where the C library's bulk copies (what TypedArray.set uses) can fault.
// Needs: each array's memory and allocation. Guarantees: the run sees the arrays' contents at
// its addresses; afterwards the arrays hold what the run left (unless `back` is false); an
// error from freeing a copy never hides the run's own; a memory lost before or during the run
// (its buffer detached from outside: GpuMemoryLost) is the run's error, not what it computed.

import type { Allocation } from '../common/memory.ts';
import type { ArrayRegion } from '../source/interpreter.ts';
import type { ArrayMemory } from './shared-array.ts';

/** An array argument: its region (name, address, bytes), the parameter it is, where it lives. */
export interface HostArray extends ArrayRegion {
  readonly index: number;
  readonly memory: ArrayMemory;
  readonly alloc: Allocation;
}

export interface StagingOptions {
  /** Copy the run's arrays back into the host's (default true). */
  readonly back?: boolean;
  /** Copy every array, also those already in `into` (a run that must not touch the originals). */
  readonly always?: boolean;
}

/**
 * Runs `go` with the arrays in `into`: those elsewhere (all, with `always`) are copied to new
 * allocations of `into` (their addresses put into `values`, the parameter values), and back.
 */
export function staged<T>(into: ArrayMemory, values: readonly number[], arrays: readonly HostArray[], go: (values: number[], arrays: ArrayRegion[]) => T, opts: StagingOptions = {}): T {
  const out = [...values];
  const copies: { from: HostArray; to: Allocation }[] = [];
  const intact = () => [into, ...arrays.map((a) => a.memory)].forEach((m) => m.assertIntact?.());
  intact();
  let failed = false;
  try {
    const regions = arrays.map((a) => {
      if (a.memory === into && !opts.always) return a;
      // The same array passed twice is copied once.
      const to = copies.find((c) => c.from.alloc === a.alloc)?.to ?? copy(a, into, copies);
      out[a.index] = to.address | 0;
      return { name: a.name, address: to.address, bytes: a.bytes };
    });
    const result = go(out, regions);
    intact();
    return result;
  } catch (e) {
    failed = true;
    intact();
    throw e;
  } finally {
    let first: unknown;
    for (const c of copies)
      try {
        if (opts.back ?? true) copyWords(into.view(c.to, Int32Array), c.from.memory.view(c.from.alloc, Int32Array));
        into.free(c.to);
      } catch (e) {
        first ??= e;
      }
    if (first !== undefined && !failed) throw first;
  }
}

function copy(a: HostArray, into: ArrayMemory, copies: { from: HostArray; to: Allocation }[]): Allocation {
  const to = into.alloc(a.bytes, a.name);
  copies.push({ from: a, to });
  copyWords(a.memory.view(a.alloc, Int32Array), into.view(to, Int32Array));
  return to;
}

/** Copies words one by one, aligned (safe on device memory, where bulk copies may fault). */
export function copyWords(from: Int32Array, to: Int32Array): void {
  const n = Math.min(from.length, to.length);
  for (let i = 0; i < n; i++) to[i] = from[i]!;
}
