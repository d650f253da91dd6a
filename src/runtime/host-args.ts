// A kernel call's host arguments, checked against the kernel's parameters (from JavaScript too:
// anything may come) and turned into the 32-bit values the kernel's uniforms carry; the arrays
// named by their parameters, so that faults say "past the end of p" on every target.

import { counted } from '../common/budget.ts';
import { describeHost } from '../dsl/builder.ts';
import type { ParamType } from '../dsl/types.ts';
import { type KernelAst, type Storage, storageOf } from '../source/ast.ts';
import { floatBits } from '../vc4/tables.ts';
import { allocationOf, type SharedTyped, wasFreed } from './shared-array.ts';

/** The SharedArray a pointer to each storage takes, and what SharedArray calls its kind. */
const ARRAYS: Readonly<Record<Storage, { readonly type: { new (n: number): SharedTyped; readonly name: string }; readonly kind: string }>> = {
  int: { type: Int32Array, kind: 'int32' },
  float: { type: Float32Array, kind: 'float32' },
  u8: { type: Uint8Array, kind: 'uint8' },
  i8: { type: Int8Array, kind: 'int8' },
  u16: { type: Uint16Array, kind: 'uint16' },
  i16: { type: Int16Array, kind: 'int16' },
};
import type { HostArray } from './staging.ts';

/** Checks the host's arguments against the parameters and turns them into 32-bit values. */
export function hostArguments(ast: KernelAst, params: readonly ParamType[], args: readonly unknown[]): { values: number[]; arrays: HostArray[] } {
  // Arrays are named by their parameters, on both targets: faults say "past the end of p".
  const paramName = (i: number) => ast.params[i]?.userName ?? ast.params[i]?.name ?? '?';
  const fail = (i: number, why: string): never => {
    throw new TypeError(`kernel ${ast.name}: argument ${i + 1} (${paramName(i)}): ${why}`);
  };
  if (args.length !== params.length)
    throw new TypeError(`kernel ${ast.name} takes ${counted(params.length, 'argument')} (then, optionally, run options such as { maxSteps }), not ${args.length}`);
  const arrays: HostArray[] = [];
  const values = params.map((t, i) => {
    const a = args[i];
    if (t.ty === 'int') {
      if (typeof a !== 'number' || !Number.isInteger(a) || a < -(2 ** 31) || a > 2 ** 32 - 1) fail(i, `expected a 32-bit integer (a number), got ${describeHost(a)}`);
      return (a as number) | 0;
    }
    if (t.ty === 'float') {
      if (typeof a !== 'number') fail(i, `expected a number, got ${describeHost(a)}`);
      return floatBits(a as number) | 0;
    }
    const { type, kind } = ARRAYS[storageOf(t.ty)];
    if (!(a instanceof type)) fail(i, `expected a SharedArray of ${kind} (SharedArray.${kind}), got ${describeHost(a)}`);
    const x = allocationOf(a as SharedTyped);
    if (!x) fail(i, wasFreed(a) ? 'this SharedArray was freed (SharedArray.free)' : `this ${type.name} is not in GPU memory: make it with SharedArray.${kind}(n)`);
    // The region is the array's own elements: a kernel reaches none of the bytes that round its allocation up to words.
    arrays.push({ name: paramName(i), address: x!.alloc.address, bytes: (a as SharedTyped).byteLength, index: i, memory: x!.memory, alloc: x!.alloc });
    return x!.alloc.address | 0;
  });
  return { values, arrays };
}
