// Arrays that both the host and the QPUs use: typed arrays (Int32Array, Float32Array) whose
// memory is GPU memory, with a bus address like a Pi's. Read and write them from the host as any
// typed array; pass them to a kernel for its Ptr(Int) and Ptr(Float) parameters.

import { type Allocation, GpuMemory } from '../emulator/memory.ts';

/** The GPU memory SharedArrays live in (like the Pi's mailbox memory, shared by every kernel). */
export const gpuMemory = new GpuMemory();

const ALLOCATIONS = new WeakMap<Int32Array | Float32Array, { alloc: Allocation; memory: GpuMemory }>();

export type SharedInt32Array = Int32Array & { readonly busAddress: number };
export type SharedFloat32Array = Float32Array & { readonly busAddress: number };

let counter = 0;

function make<T extends Int32Array | Float32Array>(type: { new (b: ArrayBuffer, o: number, n: number): T }, n: number, name?: string): T {
  if (!Number.isInteger(n) || n <= 0) throw new RangeError(`a SharedArray has a whole number of elements above 0, not ${n}`);
  const alloc = gpuMemory.alloc(n * 4, name ?? `array${counter++}`);
  const view = gpuMemory.view(alloc, type as unknown as Int32ArrayConstructor) as unknown as T;
  Object.defineProperty(view, 'busAddress', { value: alloc.address, enumerable: false });
  ALLOCATIONS.set(view, { alloc, memory: gpuMemory });
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
    a.set(values as ArrayLike<number>);
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
export function allocationOf(a: Int32Array | Float32Array): { alloc: Allocation; memory: GpuMemory } | undefined {
  return ALLOCATIONS.get(a);
}
