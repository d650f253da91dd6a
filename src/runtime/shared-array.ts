// Arrays that both the host and the QPUs use: typed arrays (Int32Array, Float32Array, and
// Uint8Array, Int8Array, Uint16Array, Int16Array) whose memory is GPU memory, with a bus address
// like a Pi's. Read and write them from the host as any typed array; pass them to a kernel for
// its Ptr(Int), Ptr(Float), Ptr(Uint8), Ptr(Int8), Ptr(Uint16) and Ptr(Int16) parameters. They live where
// the default target's kernels read them (runtime/default-target.ts): in the emulator's GPU
// memory, or on a Pi in memory the firmware allocated and this process maps (pi/memory.ts), so
// that the QPUs read the very array the host wrote. A run on the other kind of target copies
// them in and back (runtime/staging.ts).
//
// Their `buffer` is refused (guarded.ts): it is all of GPU memory. An array a kernel is running
// with is pinned (pin()), and freeing it then is an error, on every target. A freed array's
// memory is used again for new arrays: the host's view of it must not be used after free (on a
// Pi it then reads zeros; in the emulator it may show a newer array's elements).

import { describeHost, userEntries } from '../dsl/builder.ts';
import { type Allocation, GpuMemory } from '../common/memory.ts';
import { piSession } from '../pi/session.ts';
import { defaultTarget } from './default-target.ts';
import { bufferOf, guarded, type View, VIEW_TYPES, type ViewType } from './guarded.ts';

/** The emulator's GPU memory (the emulator and the interpreter run kernels on it). */
export const gpuMemory = new GpuMemory();

/** What SharedArrays can live in: the emulator's GpuMemory, or a Pi's (PiMemory). */
export interface ArrayMemory {
  alloc(bytes: number, name: string): Allocation;
  free(a: Allocation): void;
  view<T extends Int32ArrayConstructor | Float32ArrayConstructor>(a: Allocation, type: T): InstanceType<T>;
  /** Throws when the memory can no longer be used (GpuMemory: its buffer was detached or shrunk). */
  assertIntact?(): void;
}

/** Where new SharedArrays are allocated: the default target's memory. */
export function homeMemory(): ArrayMemory {
  return defaultTarget().target === 'pi' ? piSession().memory : gpuMemory;
}

/** The typed arrays SharedArrays are. */
export type SharedTyped = Int32Array | Float32Array | Uint8Array | Int8Array | Uint16Array | Int16Array;

const ALLOCATIONS = new WeakMap<SharedTyped, { alloc: Allocation; memory: ArrayMemory }>();
/** SharedArrays freed, for messages. */
const FREED = new WeakSet<object>();
/** Allocations a run holds, and what runs ("kernel sum, as its argument p"). */
const PINNED = new Map<Allocation, string>();

export type SharedInt32Array = Int32Array & { readonly busAddress: number };
export type SharedFloat32Array = Float32Array & { readonly busAddress: number };
export type SharedUint8Array = Uint8Array & { readonly busAddress: number };
export type SharedInt8Array = Int8Array & { readonly busAddress: number };
export type SharedUint16Array = Uint16Array & { readonly busAddress: number };
export type SharedInt16Array = Int16Array & { readonly busAddress: number };

type TypedConstructor<T extends SharedTyped> = { new (b: ArrayBuffer, o: number, n: number): T; readonly BYTES_PER_ELEMENT: number; readonly name: string };

/** The element types SharedArray.from makes, with their typed arrays and (for integers) the values they hold. */
const KINDS = {
  int32: { type: Int32Array, lo: -(2 ** 31), hi: 2 ** 32 - 1, what: 'a 32-bit integer' },
  float32: { type: Float32Array },
  uint8: { type: Uint8Array, lo: 0, hi: 255, what: 'a uint8' },
  int8: { type: Int8Array, lo: -128, hi: 127, what: 'an int8' },
  uint16: { type: Uint16Array, lo: 0, hi: 65535, what: 'a uint16' },
  int16: { type: Int16Array, lo: -32768, hi: 32767, what: 'an int16' },
} as const;
type Kind = keyof typeof KINDS;
const TYPES = Object.keys(KINDS) as Kind[];

let counter = 0;

function make<T extends SharedTyped>(type: TypedConstructor<T>, n: unknown, name: unknown, from: string): T {
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0) throw new RangeError(`${from}: a SharedArray has a whole number of elements above 0, not ${describeHost(n)}`);
  if (name !== undefined && (typeof name !== 'string' || name.length === 0))
    throw new TypeError(`${from}: the name must be a string of one or more characters, not ${describeHost(name)}`);
  const memory = homeMemory();
  const label = name ?? `array${counter++}`;
  const alloc = memory.alloc(n * type.BYTES_PER_ELEMENT, label);
  // The allocation as words (its bytes rounded up to whole words), seen as n elements of `type`.
  const words = memory.view(alloc, Int32Array);
  const view = guarded(new type(words.buffer as ArrayBuffer, words.byteOffset, n), `SharedArray ${label}`);
  Object.defineProperty(view, 'busAddress', { value: alloc.address, enumerable: false });
  ALLOCATIONS.set(view, { alloc, memory });
  return view;
}

/** What `from` was given, checked: an array-like of numbers (integer types: integers they hold). */
function checkValues(values: unknown, type: Kind): ArrayLike<unknown> {
  const where = `SharedArray.from(values, '${type}')`;
  if (typeof values !== 'object' || values === null || typeof (values as ArrayLike<unknown>).length !== 'number')
    throw new TypeError(`${where}: values must be an array or a typed array of numbers, not ${describeHost(values)}`);
  const xs = values as ArrayLike<unknown>;
  if (xs.length === 0) throw new RangeError(`${where}: no values; a SharedArray has at least one element`);
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (typeof x !== 'number') throw new TypeError(`${where}: element ${i} is ${describeHost(x)}, not a number`);
    const k = KINDS[type];
    if ('lo' in k && (!Number.isInteger(x) || x < k.lo || x > k.hi)) throw new RangeError(`${where}: element ${i} is ${x}, not ${k.what} (${k.lo} to ${k.hi})`);
  }
  return xs;
}

export const SharedArray = userEntries({
  /** n 32-bit integers in GPU memory, zeroed. */
  int32(n: number, name?: string): SharedInt32Array {
    return make(Int32Array, n, name, 'SharedArray.int32') as SharedInt32Array;
  },
  /** n 32-bit floats in GPU memory, zeroed. */
  float32(n: number, name?: string): SharedFloat32Array {
    return make(Float32Array, n, name, 'SharedArray.float32') as SharedFloat32Array;
  },
  /** n 8-bit unsigned integers in GPU memory, zeroed (for Ptr(Uint8)). */
  uint8(n: number, name?: string): SharedUint8Array {
    return make(Uint8Array, n, name, 'SharedArray.uint8') as SharedUint8Array;
  },
  /** n 8-bit signed integers, zeroed (for Ptr(Int8)). */
  int8(n: number, name?: string): SharedInt8Array {
    return make(Int8Array, n, name, 'SharedArray.int8') as SharedInt8Array;
  },
  /** n 16-bit unsigned integers, zeroed (for Ptr(Uint16)). */
  uint16(n: number, name?: string): SharedUint16Array {
    return make(Uint16Array, n, name, 'SharedArray.uint16') as SharedUint16Array;
  },
  /** n 16-bit signed integers, zeroed (for Ptr(Int16)). */
  int16(n: number, name?: string): SharedInt16Array {
    return make(Int16Array, n, name, 'SharedArray.int16') as SharedInt16Array;
  },
  from: fromValues,
  /**
   * The same memory as another typed array (Uint8Array, Int32Array, Float32Array, ...): writes
   * through either show in both. Like the array, it does not hand out its buffer.
   */
  view<T extends View>(a: SharedTyped, type: ViewType & { new (b: ArrayBuffer, o: number, n: number): T }): T {
    const x = ALLOCATIONS.get(a);
    if (!x) throw new TypeError(`SharedArray.view(a, type): ${notShared(a)}`);
    x.memory.assertIntact?.();
    if (!VIEW_TYPES.includes(type)) throw new TypeError(`SharedArray.view(a, type): the type is one of ${VIEW_TYPES.map((t) => t.name).join(', ')}, not ${describeHost(type)}`);
    return guarded(new type(bufferOf(a), a.byteOffset, a.byteLength / type.BYTES_PER_ELEMENT) as T, `a ${type.name} view of SharedArray ${x.alloc.name}`);
  },
  /** The array's memory as bytes: SharedArray.view(a, Uint8Array). */
  bytes(a: SharedTyped): Uint8Array {
    return SharedArray.view(a, Uint8Array);
  },
  /**
   * Gives the array's GPU memory back: kernels refuse the array from now on, and the host must
   * not use it (its memory goes to new arrays). Freeing an array twice does nothing; freeing
   * one a kernel is running with (from its onProgress callback) is an error.
   */
  free(a: SharedTyped): void {
    const x = ALLOCATIONS.get(a);
    if (!x) {
      if (FREED.has(a)) return;
      throw new TypeError(`SharedArray.free: ${notShared(a)}`);
    }
    const holder = PINNED.get(x.alloc);
    if (holder !== undefined)
      throw new Error(`SharedArray.free(${x.alloc.name}): ${holder}, which is running: free it after the run has ended (not from its onProgress callback)`);
    x.memory.free(x.alloc);
    ALLOCATIONS.delete(a);
    FREED.add(a);
  },
});

/** The kind of a typed array `from` is given, by its class (int32 for anything else). */
function kindOf(values: unknown): Kind {
  return TYPES.find((k) => values instanceof KINDS[k].type) ?? 'int32';
}

/** The typed array of each kind. */
interface KindArrays {
  int32: SharedInt32Array;
  float32: SharedFloat32Array;
  uint8: SharedUint8Array;
  int8: SharedInt8Array;
  uint16: SharedUint16Array;
  int16: SharedInt16Array;
}

/**
 * A SharedArray holding a copy of `values`: 'int32' (integers that fit 32 bits), 'float32',
 * 'uint8', 'int8', 'uint16' or 'int16' (integers the type holds); by default the type of a
 * typed array given, else 'int32'.
 */
function fromValues<K extends Kind>(values: ArrayLike<number>, type: K): KindArrays[K];
function fromValues<T extends SharedTyped>(values: T | ArrayLike<number>, type?: Kind): T;
function fromValues(values: ArrayLike<number>, type: Kind = kindOf(values)): SharedTyped {
  if (!(TYPES as readonly unknown[]).includes(type))
    throw new TypeError(`SharedArray.from(values, type): the type is ${TYPES.map((t) => `'${t}'`).join(', ')}, not ${describeHost(type)}`);
  const xs = checkValues(values, type);
  const a = make(KINDS[type].type as TypedConstructor<SharedTyped>, xs.length, undefined, 'SharedArray.from');
  // Element by element: on a Pi the array is device memory, where a bulk copy can fault.
  for (let i = 0; i < xs.length; i++) a[i] = xs[i] as number;
  return a;
}

/** Why `a` is not a SharedArray, for messages. */
function notShared(a: unknown): string {
  if (FREED.has(a as object)) return 'this SharedArray was freed (SharedArray.free): its memory may be another array\'s now';
  return `expected a SharedArray (SharedArray.int32, float32, uint8, ... or from), got ${ArrayBuffer.isView(a) ? `${/^[AEIOU]/.test(a.constructor.name) ? 'an' : 'a'} ${a.constructor.name} that is not one` : describeHost(a)}`;
}

/** The GPU allocation behind a SharedArray, or undefined for an ordinary typed array (or a freed one). */
export function allocationOf(a: SharedTyped): { alloc: Allocation; memory: ArrayMemory } | undefined {
  return ALLOCATIONS.get(a);
}

/** Whether `a` was a SharedArray and has been freed. */
export function wasFreed(a: unknown): boolean {
  return typeof a === 'object' && a !== null && FREED.has(a);
}

/**
 * Pins the allocations of a run's arrays (each with the parameter it is) until the returned
 * function is called: SharedArray.free refuses them meanwhile. `who` is what runs ("kernel sum").
 */
export function pin(arrays: readonly { readonly alloc: Allocation; readonly name: string }[], who: string): () => void {
  const mine = arrays.filter((a) => !PINNED.has(a.alloc));
  for (const a of mine) PINNED.set(a.alloc, `${who} has it as its argument ${a.name}`);
  return () => {
    for (const a of mine) PINNED.delete(a.alloc);
  };
}
