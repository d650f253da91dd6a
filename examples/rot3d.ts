// Rotating vertices about the Z axis: QPULib's second example, versions 1, 2 and 3, turning a
// teapot of 192,000 points; each version checked bit for bit against plain TypeScript and timed
// (the Pi's estimated time and the emulator's), the teapot drawn before and after (out/rot3d.png).
// Run: npx tsx examples/rot3d.ts [--vertices N] [--degrees D] [--qpus 1,2,4,8,12]
import { Float, For, gather, index, Int, kernel, me, numQPUs, Ptr, receive, SharedArray, store } from 'qpu-ts';
import { qadd, qfloat32, qmul, qsub } from 'qpu-ts/float';
import { Image, writePng } from './lib/png.ts';
import { checkSameBits, type ExampleOptions, type ExampleResult, qpuList, qpusText, runIfMain, since, type Timing, timed, timingTable, UsageError, fastest, wholeNumber } from './lib/report.ts';
import { type PointCloud, radius, render, teapot, turnNormals } from './lib/teapot.ts';

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

export interface Rot3DOptions extends ExampleOptions {
  /** How many vertices (default 192,000, as in QPULib's README): a multiple of 16 times every QPU count. */
  readonly vertices?: number;
  /** The angle to turn by, in degrees (default 180, as QPULib turns its teapot). */
  readonly degrees?: number;
  /** The QPU counts version 3 runs on (default 1, 2, 4, 8 and 12); versions 1 and 2 run on one. */
  readonly qpus?: readonly number[];
}

/** The runs: versions 1 and 2 on one QPU (on more, every QPU would turn every vertex), version 3 on each count. */
const runs = (qpus: readonly number[]) => [[rot3D_1, 1] as const, [rot3D_2, 1] as const, ...qpus.map((q) => [rot3D_3, q] as const)];

/** Turns a teapot with every version, checks each against rot3DScalar, draws it before and after. */
export async function main(opts: Rot3DOptions = {}): Promise<ExampleResult> {
  const log = opts.log ?? console.log;
  const start = performance.now();
  const { vertices: n = 192_000, degrees = 180, qpus = [1, 2, 4, 8, 12] } = opts;
  const multiple = 16 * qpus.reduce(lcm, 1);
  if (n % multiple) throw new UsageError(`rot3D: ${n} vertices; version 3 on ${qpus.join(', ')} QPUs needs a multiple of ${multiple}`);
  const theta = (degrees * Math.PI) / 180;
  const [cos, sin] = [qfloat32(Math.cos(theta)), qfloat32(Math.sin(theta))];
  const object = teapot(n);
  const want = { x: object.x.slice(), y: object.y.slice() };
  rot3DScalar(n, cos, sin, want.x, want.y);

  const timings: Timing[] = [];
  let turned: PointCloud = object;
  for (const [k, q] of runs(qpus)) {
    const x = SharedArray.float32(n + 16 * q, 'x');
    const y = SharedArray.float32(n + 16 * q, 'y');
    x.set(object.x);
    y.set(object.y);
    k.setNumQPUs(q).code(); // compiled before the clock starts
    timings.push((await timed(k.kernelName, () => k(n, cos, sin, x, y))).timing);
    checkSameBits(`${k.kernelName} on ${qpusText(q)}, x`, x.subarray(0, n), want.x);
    checkSameBits(`${k.kernelName} on ${qpusText(q)}, y`, y.subarray(0, n), want.y);
    turned = { ...object, x: x.slice(0, n), y: y.slice(0, n) };
    SharedArray.free(x);
    SharedArray.free(y);
  }
  const picture = drawBeforeAfter(object, turnNormals(turned, theta), opts.outDir);

  log(`A teapot of ${n.toLocaleString('en-US')} points turned by ${degrees} degrees about the z axis (x' = x cos - y sin, y' = y cos + x sin).`);
  log(`Every version gives exactly the plain TypeScript's floats (QPU rounding); vertex 0: (${object.x[0]!.toFixed(4)}, ${object.y[0]!.toFixed(4)}) -> (${turned.x[0]!.toFixed(4)}, ${turned.y[0]!.toFixed(4)})`);
  for (const line of timingTable(timings)) log(`  ${line}`);
  if (n === 192_000) log(`  (QPULib's README, its own code on a Pi: version 1 40 ms, version 2 18 ms, version 3 on 2 QPUs 16 ms)`);
  log(`picture, before and after: ${picture}`);
  return { name: 'rot3D', summary: `${n.toLocaleString('en-US')} vertices turned ${degrees} degrees by 3 versions`, pictures: [picture], timings, headline: fastest(timings), wallSeconds: since(start) };
}

const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
const lcm = (a: number, b: number): number => (a * b) / gcd(a, b);

/** The teapot before (left) and after (right), side by side, in out/rot3d.png. */
function drawBeforeAfter(before: PointCloud, after: PointCloud, outDir?: string): string {
  const size = 480;
  const scale = size / (2.2 * radius(before));
  const img = new Image(2 * size + 4, size);
  img.paste(render(before, size, scale, [150, 200, 235]), 0, 0);
  img.paste(render(after, size, scale, [240, 190, 120]), size + 4, 0);
  return writePng(img, 'rot3d.png', outDir);
}

/** An angle in degrees from the command line. */
function angle(text: string): number {
  const d = Number(text);
  if (text.trim() === '' || !Number.isFinite(d)) throw new UsageError(`--degrees ${text}: a number of degrees`);
  return d;
}

await runIfMain(
  import.meta.url,
  'npx tsx examples/rot3d.ts [--vertices N] [--degrees D] [--qpus 1,2,4,8,12]: QPULib\'s rot3D versions 1-3 turning a teapot',
  { vertices: { type: 'string' }, degrees: { type: 'string' }, qpus: { type: 'string' } },
  (v) =>
    main({
      vertices: v.vertices === undefined ? undefined : wholeNumber('vertices', v.vertices as string),
      degrees: v.degrees === undefined ? undefined : angle(v.degrees as string),
      qpus: v.qpus === undefined ? undefined : qpuList(v.qpus as string),
    }),
);
