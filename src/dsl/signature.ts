// A kernel's signature checked as plain JavaScript may give it: kernel(params, body, opts) where
// TypeScript's types do not hold (a `.js` caller, a cast, a hole in the list). Every mistake is a
// DslError naming the kernel and the user's line, never a TypeError from inside qpu-ts or, worse,
// a kernel built from what was given: a hole in `[Ptr(Int), , Int]` used to shift the parameters
// onto local variables, and the kernel computed the wrong thing on every target.

import { describeHost, DslError, type SourcePlace } from './builder.ts';
import { Float, Int, Int8, Int16, Ptr, type ParamType, Uint8, Uint16 } from './types.ts';

/** A kernel's name: 1 to 64 characters, none of them white space, control characters or backquotes. */
const KERNEL_NAME = /^[^\s`\p{Cc}\p{Cf}]{1,64}$/u;

/** The most parameters a kernel takes (each is a uniform the QPU reads; 64 is far beyond any real kernel). */
export const MAX_PARAMS = 64;

const TYPES: readonly [ParamType, string][] = [
  [Int, 'Int'],
  [Float, 'Float'],
  [Ptr(Int), 'Ptr(Int)'],
  [Ptr(Float), 'Ptr(Float)'],
  [Ptr(Uint8), 'Ptr(Uint8)'],
  [Ptr(Int8), 'Ptr(Int8)'],
  [Ptr(Uint16), 'Ptr(Uint16)'],
  [Ptr(Int16), 'Ptr(Int16)'],
];

/** What was passed for a parameter's type, for the message. */
function describeType(t: unknown): string {
  if (t === Ptr) return 'Ptr itself (write Ptr(Int) or Ptr(Float))';
  if (typeof t === 'function') return t.name ? `the function ${t.name}` : 'a function';
  return describeHost(t);
}

/**
 * The kernel's name, having checked its parameter list, function and options; `place` is where
 * kernel() was called, for messages.
 */
export function checkSignature(params: unknown, body: unknown, opts: unknown, place: SourcePlace | undefined): string {
  const at = place ? ` (${place.loc})` : '';
  const fnName = typeof body === 'function' && KERNEL_NAME.test(body.name) ? body.name : undefined;
  const optName = opts !== null && typeof opts === 'object' ? (opts as { name?: unknown }).name : undefined;
  const name = typeof optName === 'string' && KERNEL_NAME.test(optName) ? optName : (fnName ?? 'kernel');
  const fail = (why: string): never => {
    throw new DslError(`kernel ${name}${at}: ${why}`);
  };
  if (opts !== undefined && (opts === null || typeof opts !== 'object')) fail(`kernel()'s options, if given, are an object such as { name: 'saxpy' }, not ${describeHost(opts)}`);
  const asserting = opts !== null && typeof opts === 'object' ? (opts as { assertions?: unknown }).assertions : undefined;
  if (asserting !== undefined && typeof asserting !== 'boolean') fail(`kernel()'s option assertions is true (the default) or false, not ${describeHost(asserting)}`);
  for (const key of opts !== null && typeof opts === 'object' ? Object.keys(opts) : [])
    if (key !== 'name' && key !== 'assertions') fail(`kernel() has no option called "${key}": its options are name and assertions (run options such as qpus go to the call, or k.with(...))`);
  if (optName !== undefined && (typeof optName !== 'string' || !KERNEL_NAME.test(optName)))
    fail(`a kernel's name is a string of 1 to 64 characters without spaces, control characters or backquotes, not ${describeHost(optName)}`);
  if (!Array.isArray(params)) fail(`kernel()'s first argument is the list of parameter types, such as [Ptr(Float), Int], not ${describeHost(params)}`);
  const list = params as unknown[];
  if (list.length > MAX_PARAMS) fail(`a kernel takes at most ${MAX_PARAMS} parameters, not ${list.length}`);
  for (let i = 0; i < list.length; i++) {
    if (!(i in list)) fail(`parameter ${i + 1} of ${list.length} has no type (a hole in the list, as in [Ptr(Int), , Int]); give every parameter Int, Float or a Ptr (Ptr(Int), Ptr(Float), Ptr(Uint8), ...)`);
    if (!TYPES.some(([t]) => t === list[i])) fail(`parameter ${i + 1}'s type must be Int, Float or a Ptr (Ptr(Int), Ptr(Float), Ptr(Uint8), Ptr(Int8), Ptr(Uint16), Ptr(Int16)), not ${describeType(list[i])}`);
  }
  if (typeof body !== 'function') fail(`kernel()'s second argument is the kernel's function, such as (p, n) => { ... }, not ${describeHost(body)}`);
  return name;
}
