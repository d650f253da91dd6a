// Runs small kernels on the interpreter for tests: out[i] per lane, from a body that sets `r`.
import { Float, Int, kernel, Ptr, SharedArray, type FloatVar, type IntVar } from '../../src/index.ts';

/** Runs a kernel whose body computes an Int into `r`, and returns r's 16 lanes. */
export function ints(body: (r: IntVar) => void, qpus = 1): number[] {
  const k = kernel([Ptr(Int)], (out) => {
    const r = Int(0);
    body(r);
    out.store(r);
  });
  const out = SharedArray.int32(16);
  k.setNumQPUs(qpus).interpretSync([out]);
  return Array.from(out);
}

export function floats(body: (r: FloatVar) => void): number[] {
  const k = kernel([Ptr(Float)], (out) => {
    const r = Float(0);
    body(r);
    out.store(r);
  });
  const out = SharedArray.float32(16);
  k.interpretSync([out]);
  return Array.from(out);
}

export const lanes = (f: (l: number) => number) => Array.from({ length: 16 }, (_, l) => f(l));
