// Arrays that both the host and the QPUs use: typed arrays (Int32Array, Float32Array) whose
// memory is GPU memory, with a bus address like a Pi's. Read and write them from the host as any
// typed array; pass them to a kernel for its Ptr(Int) and Ptr(Float) parameters. They live where
// the default target's kernels read them (runtime/default-target.ts): in the emulator's GPU
// memory, or on a Pi in memory the firmware allocated and this process maps (pi/memory.ts), so
// that the QPUs read the very array the host wrote. A run on the other kind of target copies
// them in and back (runtime/staging.ts).

import { type Allocation, GpuMemory } from '../emulator/memory.ts';
import { piSession } from '../pi/session.ts';
import { defaultTarget } from './default-target.ts';

/** The emulator's GPU memory (the emulator and the interpreter run kernels on it). */
export const gpuMemory = new GpuMemory();

/** What SharedArrays can live in: the emulator's GpuMemory, or a Pi's (PiMemory). */
export interface ArrayMemory {
  alloc(bytes: number, name: string): Allocation;
  free(a: Allocation): void;
  view<T extends Int32ArrayConstructor | Float32ArrayConstructor>(a: Allocation, type: T): InstanceType<T>;
}

/** Where new SharedArrays are allocated: the default target's memory. */
export function homeMemory(): ArrayMemory {
  return defaultTarget().target === 'pi' ? piSession().memory : gpuMemory;
}

const ALLOCATIONS = new WeakMap<Int32Array | Float32Array, { alloc: Allocation; memory: ArrayMemory }>();

export type SharedInt32Array = Int32Array & { readonly busAddress: number };
export type SharedFloat32Array = Float32Array & { readonly busAddress: number };

let counter = 0;

function make<T extends Int32Array | Float32Array>(type: { new (b: ArrayBuffer, o: number, n: number): T }, n: number, name?: string): T {
  if (!Number.isInteger(n) || n <= 0) throw new RangeError(`a SharedArray has a whole number of elements above 0, not ${n}`);
  const memory = homeMemory();
  const alloc = memory.alloc(n * 4, name ?? `array${counter++}`);
  const view = memory.view(alloc, type as unknown as Int32ArrayConstructor) as unknown as T;
  Object.defineProperty(view, 'busAddress', { value: alloc.address, enumerable: false });
  ALLOCATIONS.set(view, { alloc, memory });
  return view;
}

export const SharedArray = {
  /** n 32-bit integers in GPU memory, zeroed. */
  int32(n: number, name?: string): SharedInt32Array {
    return make(Int32Array, n, name) as SharedInt32Array;
  },
  /** n 32-bit floats in GPU memory, zeroed. */
  float32(n: number, name?: string): SharedFloat32Array {
    return make(Float32Array, n, name) as SharedFloat32Array;
  },
  /** A SharedArray holding a copy of `values`. */
  from<T extends Int32Array | Float32Array>(values: T | ArrayLike<number>, type: 'int32' | 'float32' = values instanceof Float32Array ? 'float32' : 'int32'): T {
    const a = type === 'int32' ? make(Int32Array, values.length) : make(Float32Array, values.length);
    // Element by element: on a Pi the array is device memory, where a bulk copy can fault.
    for (let i = 0; i < values.length; i++) a[i] = (values as ArrayLike<number>)[i]!;
    return a as T;
  },
  /** Unmaps the array's GPU memory: kernels that touch it afterwards fault. */
  free(a: Int32Array | Float32Array): void {
    const x = ALLOCATIONS.get(a);
    if (x) x.memory.free(x.alloc);
    ALLOCATIONS.delete(a);
  },
};

/** The GPU allocation behind a SharedArray, or undefined for an ordinary typed array. */
export function allocationOf(a: Int32Array | Float32Array): { alloc: Allocation; memory: ArrayMemory } | undefined {
  return ALLOCATIONS.get(a);
}
