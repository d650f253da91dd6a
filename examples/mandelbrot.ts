// The Mandelbrot set: a kernel that counts, for every pixel of a grid, the iterations of
// z = z^2 + c before |z| reaches 2, 16 pixels a vector and the rows dealt out to the QPUs. Run
// on 1 to 12 QPUs (the Pi's estimated time falls as QPUs are added: no memory traffic to wait
// for), checked bit for bit against plain TypeScript, and drawn to out/mandelbrot.png.
// Run: npx tsx examples/mandelbrot.ts [--width W] [--height H] [--iterations N] [--qpus 1,2,4,8,12]
import { any, Float, For, index, Int, kernel, me, numQPUs, Ptr, SharedArray, store, Where, While } from 'qpu-ts';
import { qadd, qfloat, qfloat32, qmul, qsub } from 'qpu-ts/float';
import { bandColour, Image, writePng } from './lib/png.ts';
import { checkSameBits, count, type ExampleOptions, type ExampleResult, qpuList, qpusText, runIfMain, seconds, since, table, type Timing, timed, UsageError, wholeNumber, fastest } from './lib/report.ts';

/**
 * Escape counts: counts[y * width + x] for the point c = (left + x step, top - y step), at most
 * maxIter. QPU q does rows q, q + numQPUs(), ...; width must be a multiple of 16.
 */
export const mandelbrot = kernel(
  [Ptr(Int), Int, Int, Float, Float, Float, Int],
  function mandelbrot(counts, width, height, left, top, step, maxIter) {
    const y = Int(me());
    For(y.lt(height), () => y.set(y.add(numQPUs())), () => {
      const ci = Float(top.sub(y.toFloat().mul(step)));
      const p = Ptr(Int)(counts.add(y.mul(width)));
      const x = Int(0);
      For(x.lt(width), () => x.set(x.add(16)), () => {
        const cr = Float(left.add(x.add(index()).toFloat().mul(step)));
        const [re, im, re2, im2] = [Float(0), Float(0), Float(0), Float(0)];
        const n = Int(0);
        // Lanes still iterating: |z|^2 below 4 and the count below the limit.
        const going = () => re2.add(im2).lt(4).and(n.lt(maxIter));
        While(any(going()), () => {
          Where(going(), () => {
            im.set(re.mul(im).mul(2).add(ci));
            re.set(re2.sub(im2).add(cr));
            re2.set(re.mul(re));
            im2.set(im.mul(im));
            n.set(n.add(1));
          });
        });
        store(n, p);
        p.set(p.add(16));
      });
    });
  },
);

/** Where the picture is: its top left corner and the distance between pixels, as the kernel reads them. */
export interface View {
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly top: number;
  readonly step: number;
  readonly maxIter: number;
}

/** The whole set, -2.5 to 1 across, centred vertically, in a `width` x `height` grid. */
export function wholeSet(width: number, height: number, maxIter: number): View {
  const step = qfloat32(3.5 / width);
  return { width, height, left: -2.5, top: qfloat32((height / 2) * step), step, maxIter };
}

/** The scalar version: the kernel's arithmetic in the same order, each operation rounded as the QPU rounds. */
export function mandelbrotScalar({ width, height, left, top, step, maxIter }: View): Int32Array {
  const counts = new Int32Array(width * height);
  for (let y = 0; y < height; y++) {
    const ci = qsub(top, qmul(qfloat(y), step));
    for (let x = 0; x < width; x++) {
      const cr = qadd(left, qmul(qfloat(x), step));
      let [re, im, re2, im2, n] = [0, 0, 0, 0, 0];
      while (qadd(re2, im2) < 4 && n < maxIter) {
        im = qadd(qmul(qmul(re, im), 2), ci);
        re = qadd(qsub(re2, im2), cr);
        re2 = qmul(re, re);
        im2 = qmul(im, im);
        n++;
      }
      counts[y * width + x] = n;
    }
  }
  return counts;
}

export interface MandelbrotOptions extends ExampleOptions {
  /** The grid (default 1024 x 768; the width a multiple of 16). */
  readonly width?: number;
  readonly height?: number;
  /** The most iterations a pixel gets (default 256): points that reach it count as inside the set. */
  readonly iterations?: number;
  /** The QPU counts to run on (default 1, 2, 4, 8 and 12). */
  readonly qpus?: readonly number[];
}

/** Computes the grid on each QPU count, checks each against mandelbrotScalar, draws it. */
export async function main(opts: MandelbrotOptions = {}): Promise<ExampleResult> {
  const log = opts.log ?? console.log;
  const start = performance.now();
  const { width = 1024, height = 768, iterations = 256, qpus = [1, 2, 4, 8, 12] } = opts;
  if (width % 16) throw new UsageError(`mandelbrot: ${width} pixels across; the width must be a multiple of 16`);
  if (!qpus.length) throw new UsageError('mandelbrot: no QPU counts to run on');
  const view = wholeSet(width, height, iterations);
  const want = mandelbrotScalar(view);
  const counts = SharedArray.int32(width * height, 'counts');
  const timings: Timing[] = [];
  for (const q of qpus) {
    counts.fill(-1);
    mandelbrot.setNumQPUs(q).code(); // compiled before the clock starts
    const args = [counts, width, height, view.left, view.top, view.step, iterations] as const;
    // A big grid on one QPU can take the emulator more than the default 5 s: no step budget.
    timings.push((await timed('mandelbrot', () => mandelbrot.emulateSync(args, { maxSteps: Infinity }))).timing);
    checkSameBits(`escape counts on ${qpusText(q)}`, counts, want);
  }
  const picture = writePng(draw(counts, view), 'mandelbrot.png', opts.outDir);
  const inside = want.reduce((t, n) => t + (n === iterations ? 1 : 0), 0);
  SharedArray.free(counts);

  log(`Escape counts of ${count(width * height)} points (${width}x${height}, at most ${iterations} iterations): ${count(inside)} inside the set.`);
  log(`Every QPU count gives exactly the plain TypeScript's counts (QPU float rounding).`);
  const one = timings[0]!.piSeconds;
  const rows = timings.map((t) => [String(t.qpus), seconds(t.piSeconds), `${(one / t.piSeconds).toFixed(2)}x`, seconds(t.wallSeconds), count(t.instructions)]);
  for (const line of table(['QPUs', 'Pi time (cycle model)', `speed-up over ${qpusText(timings[0]!.qpus)}`, 'emulator (wall)', 'instructions'], rows)) log(`  ${line}`);
  log(`picture: ${picture}`);
  return { name: 'mandelbrot', summary: `${width}x${height} escape counts, ${count(inside)} points inside`, pictures: [picture], timings, headline: fastest(timings), wallSeconds: since(start) };
}

/** Escape counts as colours: bands outside the set, black inside. */
function draw(counts: Int32Array, { width, height, maxIter }: View): Image {
  const img = new Image(width, height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const n = counts[y * width + x]!;
      if (n < maxIter) img.set(x, y, bandColour(n + 12));
    }
  return img;
}

await runIfMain(
  import.meta.url,
  'npx tsx examples/mandelbrot.ts [--width W] [--height H] [--iterations N] [--qpus 1,2,4,8,12]: the Mandelbrot set on 1 to 12 QPUs',
  { width: { type: 'string' }, height: { type: 'string' }, iterations: { type: 'string' }, qpus: { type: 'string' } },
  (v) => {
    const num = (name: string) => (v[name] === undefined ? undefined : wholeNumber(name, v[name] as string));
    return main({ width: num('width'), height: num('height'), iterations: num('iterations'), qpus: v.qpus === undefined ? undefined : qpuList(v.qpus as string) });
  },
);
