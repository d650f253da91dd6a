// Edges in a picture: an 8-bit RGBA picture (a PNG given with --input, else a rendered scene)
// becomes luminance bytes (Ptr(Int) pixels taken apart with Int.byte, a Ptr(Uint8) store), gets
// its histogram (each QPU counting into counters of its own with scatterAdd, QPU 0 adding them
// up after a semaphore hand-off), is equalised (a gather from the lookup table the host makes
// from the histogram's running sum) and run through a Sobel edge filter (Ptr(Uint8) loads of
// each pixel's neighbours). Every stage is checked against plain TypeScript, bit for bit; the
// equalised picture and the edges are written to out/equalised.png and out/edges.png.
// Run: npx tsx examples/edges.ts [--input picture.png] [--size N] [--qpus 1,2,12]
import { readFileSync } from 'node:fs';
import { For, gather, Int, index, kernel, me, numQPUs, Ptr, receive, scatterAdd, select, SharedArray, Uint8, Where } from 'qpu-ts';
import { mergeCounters } from './lib/counters.ts';
import { Image, readPng, writePng } from './lib/png.ts';
import { scene } from './lib/scene.ts';
import { check, count, type ExampleOptions, type ExampleResult, fastest, qpuList, qpusText, runIfMain, seconds, since, table, type Timing, timing, wholeNumber } from './lib/report.ts';
import type { HostArgs, Kernel, ParamType, RunReport } from 'qpu-ts';

const BINS = 256;

/** Each QPU's 16-pixel vectors of n, one after another numQPUs() apart: `body(i, left)`, left the pixels from i on (the last vector's count). */
function eachVector(n: ReturnType<typeof Int>, body: (i: ReturnType<typeof Int>, left: ReturnType<typeof Int>) => void): void {
  const i = Int(me().mul(16));
  For(i.lt(n), () => i.set(i.add(numQPUs().mul(16))), () => body(i, Int(n.sub(i))));
}

/** Luminance (77 R + 150 G + 29 B + 128) >> 8 of n RGBA8 pixels (words, R the low byte), as bytes. */
export const luma = kernel([Ptr(Int), Ptr(Uint8), Int], function luma(rgba, y, n) {
  eachVector(n, (i, left) => {
    const px = Int(rgba.add(i).load(left));
    y.add(i).store(px.byte(0).mul(77).add(px.byte(1).mul(150)).add(px.byte(2).mul(29)).add(128).shr(8), left);
  });
});

/**
 * The histogram of n bytes into counts[0..255]: QPU q counts into counts[256 q ...] (scatterAdd,
 * no QPU touching another's), raises semaphore 0, and QPU 0 waits for all of them and adds the
 * numQPUs() counters up into the first 256. counts has 256 numQPUs() zeroed words.
 */
export const histogram = kernel([Ptr(Uint8), Ptr(Int), Int], function histogram(y, counts, n) {
  const mine = Ptr(Int)(counts.add(me().mul(BINS)));
  eachVector(n, (i, left) => {
    const v = Int(y.add(i).load(left));
    Where(index().lt(left), () => scatterAdd(mine.add(v), Int(1)));
  });
  mergeCounters(counts, BINS);
});

/**
 * out[1 + i] = lut[y[i]] for n bytes: each lane's own table entry, gathered. The picture starts
 * at byte 1 of out, so that the Sobel filter can read the neighbour left of its first pixel.
 */
export const equalise = kernel([Ptr(Uint8), Ptr(Int), Ptr(Uint8), Int], function equalise(y, lut, out, n) {
  eachVector(n, (i, left) => {
    const v = Int(y.add(i).load(left));
    gather(lut.add(v));
    const t = Int(0);
    receive(t);
    out.add(i.add(1)).store(t, left);
  });
});

/**
 * The Sobel edge strength min(|gx| + |gy|, 255) of a width x height picture of bytes starting at
 * byte 1 of src, rows 1 to height - 2 (dst's first and last rows, and each row's first and last
 * pixel, are left 0).
 */
export const sobel = kernel([Ptr(Uint8), Ptr(Uint8), Int, Int], function sobel(src, dst, width, height) {
  const y = Int(me().add(1));
  For(y.lt(height.sub(1)), () => y.set(y.add(numQPUs())), () => {
    const x = Int(0);
    For(x.lt(width), () => x.set(x.add(16)), () => {
      const left = Int(width.sub(x));
      const at = Ptr(Uint8)(src.add(y.mul(width).add(x).add(1)));
      // The pixel's neighbours: up, here and down rows, a pixel to the left and to the right.
      const p = (dy: number, dx: number) => Int(at.add(width.mul(dy).add(dx)).load(dx === 1 ? left.sub(1) : left));
      const [ul, u, ur, l, r, dl, d, dr] = [p(-1, -1), p(-1, 0), p(-1, 1), p(0, -1), p(0, 1), p(1, -1), p(1, 0), p(1, 1)];
      const gx = ur.add(r.shl(1)).add(dr).sub(ul.add(l.shl(1)).add(dl));
      const gy = dl.add(d.shl(1)).add(dr).sub(ul.add(u.shl(1)).add(ur));
      const col = x.add(index());
      const edge = select(col.eq(0).or(col.eq(width.sub(1))), 0, gx.abs().add(gy.abs()).min(255));
      dst.add(y.mul(width).add(x)).store(edge, left);
    });
  });
});

// ---- the same in plain TypeScript, and the lookup table

export function lumaScalar(rgba: Int32Array): Uint8Array {
  return Uint8Array.from(rgba, (p) => (77 * (p & 255) + 150 * ((p >>> 8) & 255) + 29 * ((p >>> 16) & 255) + 128) >> 8);
}

export function histogramScalar(y: Uint8Array): Int32Array {
  const h = new Int32Array(BINS);
  for (const v of y) h[v]!++;
  return h;
}

/** Histogram equalisation's table: each level to 255 (cdf - cdf of the darkest level) / (n - that), rounded. */
export function equaliseTable(h: Int32Array, n: number): Int32Array {
  const lut = new Int32Array(BINS);
  let cdf = 0;
  const first = h.find((c) => c > 0) ?? 0;
  for (let v = 0; v < BINS; v++) {
    cdf += h[v]!;
    lut[v] = n === first ? v : Math.max(0, Math.round((255 * (cdf - first)) / (n - first)));
  }
  return lut;
}

export function sobelScalar(src: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  const at = (x: number, y: number) => src[y * width + x]!;
  for (let y = 1; y < height - 1; y++)
    for (let x = 1; x < width - 1; x++) {
      const gx = at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1) - (at(x - 1, y - 1) + 2 * at(x - 1, y) + at(x - 1, y + 1));
      const gy = at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1) - (at(x - 1, y - 1) + 2 * at(x, y - 1) + at(x + 1, y - 1));
      out[y * width + x] = Math.min(Math.abs(gx) + Math.abs(gy), 255);
    }
  return out;
}

// ---- the example

export interface EdgesOptions extends ExampleOptions {
  /** A PNG to read (8-bit RGB or RGBA); else a scene rendered `size` pixels wide, 3/4 as high (examples/lib/scene.ts). */
  readonly input?: string;
  readonly size?: number;
  readonly qpus?: readonly number[];
}

/** The picture's pixels as RGBA8 words (R the low byte). */
function picture(opts: EdgesOptions): { width: number; height: number; pixels: Int32Array; name: string } {
  const size = opts.size ?? 320;
  const png = opts.input ? readPng(readFileSync(opts.input)) : { width: size, height: Math.round((size * 3) / 4), data: undefined };
  const data = png.data ?? scene(png.width, png.height);
  const words = new Int32Array(data.buffer.slice(data.byteOffset, data.byteOffset + png.width * png.height * 4));
  return { width: png.width, height: png.height, pixels: words, name: opts.input ?? 'a rendered scene' };
}

const gray = (v: Uint8Array, width: number, height: number): Image => {
  const img = new Image(width, height);
  for (let i = 0; i < v.length; i++) img.set(i % width, Math.floor(i / width), [v[i]!, v[i]!, v[i]!]);
  return img;
};

/** What the host computes in plain TypeScript, and the arrays the kernels share. */
interface Work {
  readonly width: number;
  readonly height: number;
  readonly n: number;
  readonly want: { y: Uint8Array; h: Int32Array; eq: Uint8Array; edges: Uint8Array };
  readonly rgba: Int32Array;
  readonly y: Uint8Array;
  readonly lut: Int32Array;
  readonly eq: Uint8Array;
  readonly edges: Uint8Array;
}

function prepare(width: number, height: number, pixels: Int32Array): Work {
  const n = width * height;
  const y = lumaScalar(pixels);
  const h = histogramScalar(y);
  const lutHost = equaliseTable(h, n);
  const eq = Uint8Array.from(y, (v) => lutHost[v]!);
  const want = { y, h, eq, edges: sobelScalar(eq, width, height) };
  // eq holds the picture from byte 1 on (equalise).
  return { width, height, n, want, rgba: SharedArray.from(pixels, 'int32'), y: SharedArray.uint8(n), lut: SharedArray.from(lutHost, 'int32'), eq: SharedArray.uint8(n + 1), edges: SharedArray.uint8(n) };
}

/** The four kernels on `q` QPUs, compiled on the emulator (their reports) or on the reference interpreter; each stage checked. */
function pipeline(w: Work, q: number, target: 'emulator' | 'interpreter'): RunReport[] {
  const counts = SharedArray.int32(BINS * q);
  const go = <P extends readonly ParamType[]>(k: Kernel<P>, args: HostArgs<P>) =>
    target === 'emulator' ? k.setNumQPUs(q).emulateSync(args, { maxSteps: Infinity }) : k.setNumQPUs(q).interpretSync(args, { maxSteps: Infinity });
  const on = `${qpusText(q)} (${target})`;
  const reports = [go(luma, [w.rgba, w.y, w.n]), go(histogram, [w.y, counts, w.n]), go(equalise, [w.y, w.lut, w.eq, w.n]), go(sobel, [w.eq, w.edges, w.width, w.height])];
  check(w.want.y.every((v, i) => v === w.y[i]), () => `luminance on ${on} differs from plain TypeScript's`);
  check(w.want.h.every((c, v) => counts[v] === c), () => `histogram on ${on}: ${Array.from(counts.slice(0, 8))}... want ${Array.from(w.want.h.slice(0, 8))}...`);
  check(w.want.eq.every((v, i) => v === w.eq[i + 1]), () => `equalised picture on ${on} differs`);
  check(w.want.edges.every((v, i) => v === w.edges[i]), () => `edges on ${on} differ`);
  SharedArray.free(counts);
  return reports;
}

function release(w: Work): void {
  for (const a of [w.rgba, w.y, w.lut, w.eq, w.edges]) SharedArray.free(a);
}

/** The whole pipeline on the reference interpreter, for a scene `size` pixels wide, checked against plain TypeScript. */
export function edgesCheck(size: number, q: number): void {
  const height = Math.round((size * 3) / 4);
  const data = scene(size, height);
  const w = prepare(size, height, new Int32Array(data.buffer));
  try {
    pipeline(w, q, 'interpreter');
  } finally {
    release(w);
  }
}

export async function main(opts: EdgesOptions = {}): Promise<ExampleResult> {
  const start = performance.now();
  const log = opts.log ?? console.log;
  const { width, height, pixels, name } = picture(opts);
  const w = prepare(width, height, pixels);
  const timings: Timing[] = [];
  for (const q of opts.qpus ?? [1, 12]) {
    for (const k of [luma, histogram, equalise, sobel] as Kernel<readonly ParamType[]>[]) k.setNumQPUs(q).code(); // compiled before the clock starts
    const t0 = performance.now();
    const reports = pipeline(w, q, 'emulator');
    const wallSeconds = since(t0);
    const each = reports.map((r) => timing('edges', r, wallSeconds));
    timings.push({ kernel: 'edges', qpus: q, wallSeconds, piSeconds: each.reduce((t, x) => t + x.piSeconds, 0), instructions: each.reduce((t, x) => t + x.instructions, 0) });
  }
  const equalised = writePng(gray(w.eq.subarray(1), width, height), 'equalised.png', opts.outDir);
  const edgePicture = writePng(gray(w.edges, width, height), 'edges.png', opts.outDir);
  release(w);

  const strong = w.want.edges.reduce((t, v) => t + (v >= 128 ? 1 : 0), 0);
  log(`${name}: ${width}x${height} RGBA8 pixels to luminance, histogram, equalisation and Sobel edges; ${count(strong)} strong edge pixels.`);
  log("Every stage on every QPU count gives exactly the plain TypeScript's bytes.");
  const rows = timings.map((t) => [String(t.qpus), seconds(t.piSeconds), seconds(t.wallSeconds), count(t.instructions)]);
  for (const line of table(['QPUs', 'Pi time, 4 kernels (cycle model)', 'emulator (wall)', 'instructions'], rows)) log(`  ${line}`);
  log(`pictures: ${equalised}, ${edgePicture}`);
  return { name: 'edges', summary: `${width}x${height} picture, ${count(strong)} strong edge pixels`, pictures: [equalised, edgePicture], timings, headline: fastest(timings), wallSeconds: since(start) };
}

await runIfMain(
  import.meta.url,
  'npx tsx examples/edges.ts [--input picture.png] [--size N] [--qpus 1,12]: luminance, histogram equalisation and Sobel edges of an 8-bit RGBA picture',
  { input: { type: 'string' }, size: { type: 'string' }, qpus: { type: 'string' } },
  (v) => main({ input: v.input as string | undefined, size: v.size === undefined ? undefined : wholeNumber('size', v.size as string, 16), qpus: v.qpus === undefined ? undefined : qpuList(v.qpus as string) }),
);
