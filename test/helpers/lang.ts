// Runs small kernels for the language's tests on the three ways a kernel runs: the reference
// interpreter, and the compiled code on the emulator at -O0 and at -O2. They must agree bit for
// bit (chibicc's habit: a test per feature tests the compiler too).
import assert from 'node:assert/strict';
import { Float, If, index, Int, kernel, me, Ptr, semaDec, semaInc, SharedArray, store, type FloatVar, type IntVar } from '../../src/index.ts';
import type { HostArgs, Kernel, ParamType } from '../../src/index.ts';

/** The runs a kernel must agree on: the interpreter's, then the emulator's at each level. */
const RUNS = [
  { name: 'the interpreter', run: (k: Kernel<readonly ParamType[]>, args: readonly unknown[]) => k.interpretSync(args as never) },
  ...([0, 2] as const).map((opt) => ({
    name: `the emulator at -O${opt}`,
    run: (k: Kernel<readonly ParamType[]>, args: readonly unknown[]) => {
      const level = k.optLevel;
      try {
        return k.setOptLevel(opt).emulateSync(args as never);
      } finally {
        k.setOptLevel(level);
      }
    },
  })),
];

/** An array's words, bit for bit (a float's bits, NaNs' payloads too). */
const words = (a: unknown): unknown => (a instanceof Int32Array || a instanceof Float32Array ? Array.from(SharedArray.view(a, Int32Array)) : a);

/**
 * Runs kernel `k` on the interpreter and, compiled at -O0 and -O2, on the emulator, each with
 * fresh arguments from `args()` (so that every run starts from the same memory), and asserts
 * that every array ends the same in all three, bit for bit. Returns the interpreter's arguments.
 */
export function onAll<P extends readonly ParamType[]>(k: Kernel<P>, args: () => HostArgs<P>): HostArgs<P> {
  let first: { name: string; args: HostArgs<P> } | undefined;
  for (const { name, run } of RUNS) {
    const a = args();
    run(k as unknown as Kernel<readonly ParamType[]>, a);
    if (!first) first = { name, args: a };
    else {
      assert.deepEqual(a.map(words), first.args.map(words), `kernel ${k.kernelName}: ${name} disagrees with ${first.name}\n${k.dump()}`);
      for (const x of a) if (x instanceof Int32Array || x instanceof Float32Array) SharedArray.free(x);
    }
  }
  return first!.args;
}

/** Runs a kernel whose body computes an Int into `r` on all three (onAll), and returns r's 16 lanes. */
export function ints(body: (r: IntVar) => void, qpus = 1): number[] {
  const k = kernel([Ptr(Int)], (out) => {
    const r = Int(0);
    body(r);
    out.store(r);
  }).setNumQPUs(qpus);
  const [out] = onAll(k, () => [SharedArray.int32(16)]);
  return Array.from(out);
}

/** The same for a Float in `r`. */
export function floats(body: (r: FloatVar) => void): number[] {
  const k = kernel([Ptr(Float)], (out) => {
    const r = Float(0);
    body(r);
    out.store(r);
  });
  const [out] = onAll(k, () => [SharedArray.float32(16)]);
  return Array.from(out);
}

export const lanes = (f: (l: number) => number) => Array.from({ length: 16 }, (_, l) => f(l));

/** On 2 QPUs: QPU 0 stores index() + 100 to p without waiting and raises semaphore 0; QPU 1 waits for it and copies *p to q. */
export function handoffKernel() {
  return kernel([Ptr(Int), Ptr(Int)], function handoff(p, q) {
    If(me().eq(0), () => {
      store(index().add(100), p);
      semaInc(0);
    }).Else(() => {
      semaDec(0);
      q.store(p.load());
    });
  }).setNumQPUs(2);
}
