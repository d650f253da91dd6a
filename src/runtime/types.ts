// The runtime's types that its modules share, below all of them (so that no two modules import
// each other for a type): where a kernel runs, and what the host passes for each parameter.

import type { FloatType, IntType, ParamType, ParamValue, PtrType } from '../dsl/types.ts';

/** Where a kernel runs: compiled, on the machine-code emulator or a Pi's QPUs, or on the reference interpreter. */
export type RunTarget = 'emulator' | 'interpreter' | 'pi';

/** What the host passes for each parameter type. */
export type HostArg<T extends ParamType> = T extends IntType
  ? number
  : T extends FloatType
    ? number
    : T extends PtrType<infer E>
      ? HostArray<E>
      : never;

/** The typed array (a SharedArray) the host passes for a pointer to each storage. */
export type HostArray<E> = E extends 'int'
  ? Int32Array
  : E extends 'float'
    ? Float32Array
    : E extends 'u8'
      ? Uint8Array
      : E extends 'i8'
        ? Int8Array
        : E extends 'u16'
          ? Uint16Array
          : E extends 'i16'
            ? Int16Array
            : never;

export type HostArgs<P extends readonly ParamType[]> = { [K in keyof P]: P[K] extends ParamType ? HostArg<P[K]> : never };
export type ParamValues<P extends readonly ParamType[]> = { [K in keyof P]: P[K] extends ParamType ? ParamValue<P[K]> : never };
