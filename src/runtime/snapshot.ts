// A run's arrays as they were before it, kept on the host, so that the compiled code can run
// later on copies of the same inputs: the interpreter's and the pi target's reports get the
// cycle model's figures this way (runtime/report.ts). The same array passed twice is kept once,
// and given to the later run once, so that the run sees the same aliasing.
// Needs: each array's memory and allocation. Guarantees: replay() runs on fresh allocations of
// `into` holding the words the arrays held at snapshot() time, frees them after, and never
// touches the arrays themselves.

import type { Allocation } from '../common/memory.ts';
import type { ArrayRegion } from '../source/interpreter.ts';
import type { ArrayMemory } from './shared-array.ts';
import { copyWords, type HostArray } from './staging.ts';

export interface Snapshot {
  /** Runs `go` on copies of the arrays' earlier contents in `into`, with `values` pointing at them. */
  replay<T>(into: ArrayMemory, values: readonly number[], go: (values: number[], arrays: ArrayRegion[]) => T): T;
}

/** The arrays' words now (copied word by word: on a Pi they are device memory). */
export function snapshot(arrays: readonly HostArray[]): Snapshot {
  const kept = new Map<Allocation, Int32Array>();
  for (const a of arrays)
    if (!kept.has(a.alloc)) {
      const view = a.memory.view(a.alloc, Int32Array);
      const words = new Int32Array(view.length);
      copyWords(view, words);
      kept.set(a.alloc, words);
    }
  return {
    replay(into, values, go) {
      const out = [...values];
      const copies = new Map<Allocation, Allocation>();
      try {
        const regions = arrays.map((a) => {
          let to = copies.get(a.alloc);
          if (!to) {
            copies.set(a.alloc, (to = into.alloc(a.bytes, a.name)));
            copyWords(kept.get(a.alloc)!, into.view(to, Int32Array));
          }
          out[a.index] = to.address | 0;
          return { name: a.name, address: to.address, bytes: a.bytes };
        });
        return go(out, regions);
      } finally {
        for (const to of copies.values()) into.free(to);
      }
    },
  };
}
