// Runs small kernels on the interpreter for tests: out[i] per lane, from a body that sets `r`.
import { Float, If, index, Int, kernel, me, Ptr, semaDec, semaInc, SharedArray, store, type FloatVar, type IntVar } from '../../src/index.ts';

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
