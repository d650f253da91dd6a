// A SharedArray is a typed array over GPU memory, and a typed array hands out its whole
// ArrayBuffer: in the emulator that is every array's and every kernel's memory at once, which
// `a.buffer.resize(0)` or a transfer would take from all of them. So the views SharedArrays are
// (and those subarray() and SharedArray.view() make of them) carry their own `buffer`, which
// refuses and says what to do instead, and their own `subarray`, which makes a guarded view too.
// They stay Int32Arrays and Float32Arrays in every other way (prototype, elements, methods).
// Needs: typed arrays over GPU memory. Guarantees: through a guarded view's own properties the
// host reaches only that view's elements. TypedArray.prototype's getter still reaches the buffer
// (nothing in JavaScript can stop that): GpuMemory detects a buffer broken that way.

/** The typed arrays a view of GPU memory can be. */
export type View = Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array;
export type ViewType = { new (buffer: ArrayBuffer, byteOffset: number, length: number): View; readonly BYTES_PER_ELEMENT: number; readonly name: string };

/** The view types SharedArray.view takes, by name. */
export const VIEW_TYPES: readonly ViewType[] = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array];

const TYPED_ARRAY = Object.getPrototypeOf(Int8Array.prototype) as object;
/** TypedArray.prototype's own buffer getter and subarray, taken before any user code runs. */
const bufferGetter = Reflect.getOwnPropertyDescriptor(TYPED_ARRAY, 'buffer')!.get!;
const subarray = Reflect.get(TYPED_ARRAY, 'subarray') as (this: View, begin?: number, end?: number) => View;

/** The ArrayBuffer under a view, guarded or not. */
export function bufferOf(v: View): ArrayBuffer {
  return bufferGetter.call(v) as ArrayBuffer;
}

/**
 * Gives `view` its own `buffer` (refusing, but to Node's own deep comparison and inspection) and
 * `subarray` (a guarded view); `what` names it in the message ("SharedArray image").
 */
export function guarded<T extends View>(view: T, what: string): T {
  Object.defineProperties(view, {
    buffer: {
      get: function buffer(this: View) {
        if (nodeReads(buffer)) return bufferOf(this);
        throw new TypeError(
          `${what}: its buffer is not handed out: the array's memory is part of GPU memory, which other arrays and kernels' code ` +
            `share, and resizing, transferring or viewing it whole would reach or break them. For a copy, use .slice(); ` +
            `for the same memory as bytes or as other elements, SharedArray.bytes(a) or SharedArray.view(a, Uint8Array)`,
        );
      },
      enumerable: false,
      configurable: false,
    },
    subarray: {
      value: function (this: View, begin?: number, end?: number) {
        return guarded(subarray.call(this, begin, end), `a subarray of ${what}`);
      },
      enumerable: false,
      configurable: false,
      writable: false,
    },
  });
  return view;
}

/**
 * Whether the getter `fn` was called by Node's deep comparison (assert.deepStrictEqual,
 * util.isDeepStrictEqual), which compares typed arrays through `a.buffer, a.byteOffset,
 * a.byteLength`, or by util.inspect with showHidden: they only read, and must keep working.
 */
function nodeReads(fn: () => unknown): boolean {
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  let frames: unknown;
  try {
    Error.prepareStackTrace = (_e, callSites) => callSites;
    Error.stackTraceLimit = 1;
    const o: { stack?: unknown } = {};
    Error.captureStackTrace(o, fn);
    frames = o.stack;
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
  const file = Array.isArray(frames) ? (frames[0] as NodeJS.CallSite | undefined)?.getFileName() : undefined;
  return file === 'node:internal/util/comparisons' || file === 'node:internal/util/inspect';
}
