// Rotating vertices about the Z axis: QPULib's second example, versions 1, 2 and 3.
// Run: npx tsx examples/rot3d.ts
import { Float, For, gather, index, Int, kernel, me, numQPUs, Ptr, receive, SharedArray, store } from 'qpu-ts';
import { qadd, qmul, qsub } from 'qpu-ts/float';

/** Version 1: blocking loads and stores, 16 vertices an iteration. */
export const rot3D_1 = kernel([Int, Float, Float, Ptr(Float), Ptr(Float)], function rot3D_1(n, cosTheta, sinTheta, x, y) {
  const i = Int(0);
  For(i.lt(n), () => i.set(i.add(16)), () => {
    const xOld = Float(x.add(i).load());
    const yOld = Float(y.add(i).load());
    x.add(i).store(xOld.mul(cosTheta).sub(yOld.mul(sinTheta)));
    y.add(i).store(yOld.mul(cosTheta).add(xOld.mul(sinTheta)));
  });
});

/** Version 2: the next iteration's vectors are gathered while this one's are computed. */
export const rot3D_2 = kernel([Int, Float, Float, Ptr(Float), Ptr(Float)], function rot3D_2(n, cosTheta, sinTheta, x, y) {
  const p = Ptr(Float)(x.add(index()));
  const q = Ptr(Float)(y.add(index()));
  gather(p);
  gather(q);
  const xOld = Float();
  const yOld = Float();
  const i = Int(0);
  For(i.lt(n), () => i.set(i.add(16)), () => {
    gather(p.add(16));
    gather(q.add(16));
    receive(xOld);
    receive(yOld);
    store(xOld.mul(cosTheta).sub(yOld.mul(sinTheta)), p);
    store(yOld.mul(cosTheta).add(xOld.mul(sinTheta)), q);
    p.set(p.add(16));
    q.set(q.add(16));
  });
  receive(xOld);
  receive(yOld);
});

/** Version 3: the vertices shared out between the QPUs. */
export const rot3D_3 = kernel([Int, Float, Float, Ptr(Float), Ptr(Float)], function rot3D_3(n, cosTheta, sinTheta, x, y) {
  const inc = Int(numQPUs().shl(4));
  const p = Ptr(Float)(x.add(index()).add(me().shl(4)));
  const q = Ptr(Float)(y.add(index()).add(me().shl(4)));
  gather(p);
  gather(q);
  const xOld = Float();
  const yOld = Float();
  const i = Int(0);
  For(i.lt(n), () => i.set(i.add(inc)), () => {
    gather(p.add(inc));
    gather(q.add(inc));
    receive(xOld);
    receive(yOld);
    store(xOld.mul(cosTheta).sub(yOld.mul(sinTheta)), p);
    store(yOld.mul(cosTheta).add(xOld.mul(sinTheta)), q);
    p.set(p.add(inc));
    q.set(q.add(inc));
  });
  receive(xOld);
  receive(yOld);
});

/** The scalar version, in float32 as the QPU rounds (toward zero). */
export function rot3DScalar(n: number, cosTheta: number, sinTheta: number, x: Float32Array, y: Float32Array): void {
  for (let i = 0; i < n; i++) {
    const xOld = x[i]!;
    const yOld = y[i]!;
    x[i] = qsub(qmul(xOld, cosTheta), qmul(yOld, sinTheta));
    y[i] = qadd(qmul(yOld, cosTheta), qmul(xOld, sinTheta));
  }
}

/**
 * Vertices for n-vertex runs, as QPULib's test makes them (x[i] = y[i] = i). Versions 2 and 3
 * gather one round of vectors past the last vertex (the prefetch of the final iteration), so the
 * arrays have 16 spare elements per QPU after the n vertices.
 */
export function rot3DArrays(n: number, qpus = 12): { x: Float32Array; y: Float32Array } {
  const x = SharedArray.float32(n + 16 * qpus, 'x');
  const y = SharedArray.float32(n + 16 * qpus, 'y');
  for (let i = 0; i < n; i++) x[i] = y[i] = i;
  return { x, y };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = 1920;
  const theta = Math.fround(3.14159);
  const { x, y } = rot3DArrays(n);
  await rot3D_3.setNumQPUs(4)(n, Math.cos(theta), Math.sin(theta), x, y);
  console.log(`first vertices after rotating by ${theta}:`, Array.from(x.slice(0, 4)), Array.from(y.slice(0, 4)));
}
