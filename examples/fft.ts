// The fast Fourier transform of N complex float32 values (256 to 1M points, a power of 2), on
// the QPUs: Stockham's self-sorting radix-16 passes, each a kernel run that reads the previous
// pass's output through the TMUs and writes rows of 16 through the VPM's DMA. The first pass
// does 16-point transforms across the 16 lanes (rotations); the others, across registers, with
// each lane on its own butterfly. Checked against a float64 FFT computed here (the relative RMS
// error, as GPU_FFT's hello_fft computes it, and the worst point), and timed by the cycle model.
// Run: npx tsx examples/fft.ts [--log2n 8,12,16] [--qpus 12]
import { Float, type FloatExpr, type FloatVar, For, gather, index, Int, type IntExpr, kernel, me, numQPUs, Ptr, type PtrExpr, receive, rotate, select, SharedArray } from 'qpu-ts';
import { check, count, type ExampleOptions, type ExampleResult, fastest, qpuList, runIfMain, seconds, since, type Timing, UsageError } from './lib/report.ts';

/** A complex value in the kernel: two Floats. */
interface C {
  readonly re: FloatExpr;
  readonly im: FloatExpr;
}

/** Lanes of a QPU, and the radix of a pass across them. */
const LANES = 16;
const LOG2_LANES = 4;
/**
 * The radix of the passes across registers (the last may be smaller). 16 would take fewer passes,
 * but its 32 Floats and what goes with them outgrow the registers on 12 QPUs, and the values
 * spilled to memory go through the DMA engines the stores need.
 */
const RADIX = 8;
export const MIN_LOG2N = 8;
export const MAX_LOG2N = 20;

const cmul = (a: C, b: C): C => ({ re: a.re.mul(b.re).sub(a.im.mul(b.im)), im: a.re.mul(b.im).add(a.im.mul(b.re)) });
/** A value kept in variables: an expression used twice is computed once. */
const kept = (a: C): C => ({ re: Float(a.re), im: Float(a.im) });

/** a times e^(-2 pi i k / n), with the factors 1, -i, -1, i and (1 - i) / sqrt(2) done without a full multiply. */
function twiddled(a: C, k: number, n: number): C {
  const turn = ((k % n) + n) % n;
  if (turn === 0) return a;
  if (4 * turn === n) return { re: a.im, im: a.re.mul(-1) };
  if (2 * turn === n) return { re: a.re.mul(-1), im: a.im.mul(-1) };
  if (4 * turn === 3 * n) return { re: a.im.mul(-1), im: a.re };
  const angle = (-2 * Math.PI * turn) / n;
  const [c, s] = [Math.fround(Math.cos(angle)), Math.fround(Math.sin(angle))];
  if (8 * turn === n) return { re: a.re.add(a.im).mul(c), im: a.im.sub(a.re).mul(c) };
  return { re: a.re.mul(c).sub(a.im.mul(s)), im: a.re.mul(s).add(a.im.mul(c)) };
}

/** The DFT of xs (a power of 2 of them), decimated in time: y_u = sum over t of x_t e^(-2 pi i t u / n). */
function dft(xs: readonly C[]): C[] {
  const n = xs.length;
  if (n === 1) return [...xs];
  const even = dft(xs.filter((_, i) => i % 2 === 0));
  const odd = dft(xs.filter((_, i) => i % 2 === 1));
  const out: C[] = new Array(n);
  for (let k = 0; k < n / 2; k++) {
    // Each level's outputs kept in variables, so that its inputs die there: 2n Floats live, not a tree of them.
    const e = even[k]!;
    const o = kept(twiddled(odd[k]!, k, n));
    out[k] = kept({ re: e.re.add(o.re), im: e.im.add(o.im) });
    out[k + n / 2] = kept({ re: e.re.sub(o.re), im: e.im.sub(o.im) });
  }
  return out;
}

/** Gathers kept up to 4 in flight (the TMU's queue): a value asked for is received when a fifth is asked, or at `flush`. */
class InFlight {
  private readonly queue: FloatVar[] = [];
  /** Gathers each lane's value at `at` into a new variable, which holds it once received. */
  ask(at: PtrExpr<'float'>): FloatVar {
    if (this.queue.length === 4) receive(this.queue.shift()!);
    const v = Float(0);
    gather(at);
    this.queue.push(v);
    return v;
  }
  /** Receives up to and including `v`. */
  wait(v: FloatVar): void {
    while (this.queue.includes(v)) receive(this.queue.shift()!);
  }
  flush(): void {
    while (this.queue.length) receive(this.queue.shift()!);
  }
}

/** Lane l's number with its 4 bits reversed: where lane l's input comes from in a transform across the lanes. */
function reversedLane(): IntExpr {
  const l = index();
  return l.and(1).shl(3).or(l.and(2).shl(1)).or(l.and(4).shr(1)).or(l.and(8).shr(3));
}

/**
 * The first pass: for each i < N / 16, the 16-point DFT of x[i + t N / 16] (t = 0..15), across
 * the lanes, into y[16 i + u]. Lane l gathers input t = reverse(l), and four radix-2 steps of
 * span 1, 2, 4, 8 pair each lane with the one `span` away (rotations): the lane whose span bit
 * is clear takes a + w b, the other a - w b, with the twiddles (signs folded in) from `tw`, 4
 * rows of 16 real parts then 4 of imaginary ones. Each QPU takes 4 consecutive i's at a time,
 * so that its stores are 4 consecutive rows (one DMA transfer each for the real and imaginary
 * parts, pass `rows`).
 */
export const fftLanes = kernel([Ptr(Float), Ptr(Float), Ptr(Float), Ptr(Float), Ptr(Float), Int], function fftLanes(xre, xim, yre, yim, tw, n) {
  const from = Int(reversedLane().mul(n.shr(LOG2_LANES)));
  const twiddles = new InFlight();
  const w = Array.from({ length: LOG2_LANES }, (_, s) => ({ re: twiddles.ask(tw.add(index().add(s * LANES))), im: twiddles.ask(tw.add(index().add((LOG2_LANES + s) * LANES))) }));
  twiddles.flush();
  const GROUP = 4;
  const groups = Int(n.shr(LOG2_LANES + 2));
  const g = Int(me());
  For(g.lt(groups), () => g.set(g.add(numQPUs())), () => {
    const i0 = Int(g.shl(2));
    const inputs = new InFlight();
    const xs: C[] = Array.from({ length: GROUP }, (_, j) => ({ re: inputs.ask(xre.add(i0.add(j)).add(from)), im: inputs.ask(xim.add(i0.add(j)).add(from)) }));
    inputs.flush();
    const ys = xs.map((x) => {
      let v: C = x;
      for (let s = 0; s < LOG2_LANES; s++) {
        const span = 1 << s;
        const low = index().and(span).ne(0);
        const c = kept(v);
        const partner = kept({ re: select(low, rotate(c.re, span), rotate(c.re, LANES - span)), im: select(low, rotate(c.im, span), rotate(c.im, LANES - span)) });
        const a = { re: select(low, partner.re, c.re), im: select(low, partner.im, c.im) };
        const b = kept({ re: select(low, c.re, partner.re), im: select(low, c.im, partner.im) });
        const t = cmul(b, w[s]!);
        v = kept({ re: a.re.add(t.re), im: a.im.add(t.im) });
      }
      return v;
    });
    const reRow = Ptr(Float)(yre.add(i0.shl(LOG2_LANES)));
    const imRow = Ptr(Float)(yim.add(i0.shl(LOG2_LANES)));
    for (let j = 0; j < GROUP; j++) reRow.add(j * LANES).store(ys[j]!.re);
    for (let j = 0; j < GROUP; j++) imRow.add(j * LANES).store(ys[j]!.im);
  });
});

/** The lane pass's twiddles: for step s (span 2^s), lane l's e^(-2 pi i (l mod span) / (2 span)), negated where l's span bit is set. */
export function laneTwiddles(): Float32Array {
  const t = new Float32Array(2 * LOG2_LANES * LANES);
  for (let s = 0; s < LOG2_LANES; s++) {
    const span = 1 << s;
    for (let l = 0; l < LANES; l++) {
      const sign = l & span ? -1 : 1;
      const angle = (-Math.PI * (l % span)) / span;
      t[s * LANES + l] = sign * Math.cos(angle);
      t[(LOG2_LANES + s) * LANES + l] = sign * Math.sin(angle);
    }
  }
  return t;
}

/**
 * A pass across registers of radix r after passes that made transforms of p points (p >= 16):
 * for each i < N / r, with k = i mod p, the r inputs x[i + t N / r] times e^(-2 pi i t k / (r p)),
 * transformed (dft), into y[(i - k) r + k + u p] (u = 0..r-1). Each QPU takes 16 consecutive i's
 * at a time, one a lane; `twre`, `twim` hold the twiddles, t = 1..r-1 each p long. p is a number
 * of the kernel, not an argument, so that the r rows of outputs, p words apart, are one DMA
 * store (pass `rows`) where p fits a DMA store's stride.
 */
function registersPass(r: number, p: number) {
  const log2r = Math.log2(r);
  return kernel([Ptr(Float), Ptr(Float), Ptr(Float), Ptr(Float), Ptr(Float), Ptr(Float), Int], function fftRegisters(xre, xim, yre, yim, twre, twim, n) {
    const spread = Int(n.shr(log2r));
    const blocks = Int(n.shr(log2r + LOG2_LANES));
    const b = Int(me());
    For(b.lt(blocks), () => b.set(b.add(numQPUs())), () => {
      const i0 = Int(b.shl(LOG2_LANES));
      const k0 = Int(i0.and(p - 1));
      const inputs = new InFlight();
      // Input t times its twiddle: its gathers asked now, the product made when taken, while later gathers are on their way.
      const ask = (t: number): (() => C) => {
        const at = Int(i0.add(spread.mul(t)).add(index()));
        const x = { re: inputs.ask(xre.add(at)), im: inputs.ask(xim.add(at)) };
        if (t === 0) return () => (inputs.wait(x.im), x);
        const k = Int(k0.add(p * (t - 1)).add(index()));
        const w = { re: inputs.ask(twre.add(k)), im: inputs.ask(twim.add(k)) };
        return () => (inputs.wait(w.im), kept(cmul(x, w)));
      };
      const takes = Array.from({ length: r }, (_, t) => ask(t));
      const ys = dft(takes.map((take) => take()));
      const base = Int(i0.sub(k0).shl(log2r).add(k0));
      const reRow = Ptr(Float)(yre.add(base));
      const imRow = Ptr(Float)(yim.add(base));
      for (let u = 0; u < r; u++) reRow.add(p * u).store(ys[u]!.re);
      for (let u = 0; u < r; u++) imRow.add(p * u).store(ys[u]!.im);
    });
  });
}

/** The passes across registers, by radix and p, made when first needed. */
const registerPasses = new Map<string, ReturnType<typeof registersPass>>();
/** The pass of radix r after transforms of p points. */
export function registersPassFor(r: number, p: number): ReturnType<typeof registersPass> {
  const key = `${r} ${p}`;
  if (!registerPasses.has(key)) registerPasses.set(key, registersPass(r, p));
  return registerPasses.get(key)!;
}

/** One pass of a plan: across the lanes (the first), or across registers of radix r after transforms of p points. */
type Pass = { readonly kind: 'lanes' } | { readonly kind: 'registers'; readonly r: number; readonly p: number };

/** The passes for 2^log2n points: the lane pass, then radix-16 passes, then one of radix 2, 4 or 8 for the bits left. */
export function plan(log2n: number): Pass[] {
  const passes: Pass[] = [{ kind: 'lanes' }];
  let p = LANES;
  for (let left = log2n - LOG2_LANES; left > 0; ) {
    const r = Math.min(RADIX, 2 ** left);
    passes.push({ kind: 'registers', r, p });
    p *= r;
    left -= Math.log2(r);
  }
  return passes;
}

/** A registers pass's twiddles: for t = 1..r-1 and k < p, e^(-2 pi i t k / (r p)) at (t - 1) p + k, computed in float64. */
function registerTwiddles(r: number, p: number): { re: Float32Array; im: Float32Array } {
  const re = SharedArray.float32((r - 1) * p, `twiddles re, radix ${r} after ${p}`);
  const im = SharedArray.float32((r - 1) * p, `twiddles im, radix ${r} after ${p}`);
  for (let t = 1; t < r; t++)
    for (let k = 0; k < p; k++) {
      const angle = (-2 * Math.PI * t * k) / (r * p);
      re[(t - 1) * p + k] = Math.cos(angle);
      im[(t - 1) * p + k] = Math.sin(angle);
    }
  return { re, im };
}

/** A transform of one size, ready to run: its buffers (the input goes in `re`, `im`), twiddles and passes. */
export interface Fft {
  readonly log2n: number;
  readonly re: Float32Array;
  readonly im: Float32Array;
  /** Runs the passes on `qpus` QPUs; the result is in `output()`. Returns each pass's timing. */
  run(qpus: number): Promise<Timing[]>;
  output(): { re: Float32Array; im: Float32Array };
  free(): void;
}

/** Prepares a transform of 2^log2n points: two pairs of buffers (ping, pong) and each pass's twiddles. */
export function prepareFft(log2n: number): Fft {
  if (!Number.isInteger(log2n) || log2n < MIN_LOG2N || log2n > MAX_LOG2N) throw new UsageError(`fft: 2^${log2n} points; the example does 2^${MIN_LOG2N} to 2^${MAX_LOG2N}`);
  const n = 2 ** log2n;
  const bufs = [0, 1].map((b) => ({ re: SharedArray.float32(n, `re ${b}`), im: SharedArray.float32(n, `im ${b}`) }));
  const lanes = SharedArray.from(laneTwiddles(), 'float32');
  const passes = plan(log2n).map((pass) => ({ pass, tw: pass.kind === 'registers' ? registerTwiddles(pass.r, pass.p) : undefined }));
  const last = bufs[passes.length % 2]!;
  return {
    log2n,
    re: bufs[0]!.re,
    im: bufs[0]!.im,
    async run(qpus) {
      const timings: Timing[] = [];
      for (const [k, { pass, tw }] of passes.entries()) {
        const [x, y] = [bufs[k % 2]!, bufs[(k + 1) % 2]!];
        const start = performance.now();
        const report =
          pass.kind === 'lanes'
            ? await fftLanes.setNumQPUs(qpus)(x.re, x.im, y.re, y.im, lanes, n, { maxSteps: Infinity })
            : await registersPassFor(pass.r, pass.p).setNumQPUs(qpus)(x.re, x.im, y.re, y.im, tw!.re, tw!.im, n, { maxSteps: Infinity });
        const name = pass.kind === 'lanes' ? 'fftLanes' : `fftRegisters r${pass.r} p${pass.p}`;
        timings.push({ kernel: name, qpus: report.qpus, piSeconds: report.seconds, wallSeconds: since(start), instructions: report.run.total.instructions });
      }
      return timings;
    },
    output: () => last,
    free() {
      for (const b of bufs) SharedArray.free(b.re), SharedArray.free(b.im);
      SharedArray.free(lanes);
      for (const { tw } of passes) if (tw) SharedArray.free(tw.re), SharedArray.free(tw.im);
    },
  };
}

/** The DFT of (re, im) in float64 (radix-2, in place on copies): what the QPUs' result is measured against. */
export function fft64(re: ArrayLike<number>, im: ArrayLike<number>): { re: Float64Array; im: Float64Array } {
  const n = re.length;
  const [xr, xi] = [Float64Array.from(re), Float64Array.from(im)];
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) [xr[i], xr[j], xi[i], xi[j]] = [xr[j]!, xr[i]!, xi[j]!, xi[i]!];
  }
  for (let len = 2; len <= n; len *= 2) {
    const angle = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len)
      for (let k = 0; k < len / 2; k++) {
        const [c, s] = [Math.cos(angle * k), Math.sin(angle * k)];
        const [a, b] = [i + k, i + k + len / 2];
        const tr = xr[b]! * c - xi[b]! * s;
        const ti = xr[b]! * s + xi[b]! * c;
        [xr[b], xi[b]] = [xr[a]! - tr, xi[a]! - ti];
        [xr[a], xi[a]] = [xr[a]! + tr, xi[a]! + ti];
      }
  }
  return { re: xr, im: xi };
}

/** The relative RMS error of (re, im) against (wantRe, wantIm): sqrt(sum |got - want|^2 / sum |want|^2). */
export function relRms(re: ArrayLike<number>, im: ArrayLike<number>, wantRe: ArrayLike<number>, wantIm: ArrayLike<number>): number {
  let [err, ref] = [0, 0];
  for (let i = 0; i < re.length; i++) {
    err += (re[i]! - wantRe[i]!) ** 2 + (im[i]! - wantIm[i]!) ** 2;
    ref += wantRe[i]! ** 2 + wantIm[i]! ** 2;
  }
  return Math.sqrt(err / ref);
}

/** hello_fft's test signal: 0.5 at points 1 and N - 1, whose transform is cos(2 pi i / N). */
export function helloInput(re: Float32Array, im: Float32Array): void {
  re.fill(0);
  im.fill(0);
  re[1] = re[re.length - 1] = 0.5;
}

/** Pseudo-random values in [-1, 1), the same every run. */
export function randomInput(re: Float32Array, im: Float32Array): void {
  let s = 12345;
  const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 31) - 1;
  for (let i = 0; i < re.length; i++) [re[i], im[i]] = [next(), next()];
}

export interface FftRun {
  readonly log2n: number;
  readonly qpus: number;
  readonly piSeconds: number;
  readonly instructions: number;
  /** hello_fft's error: its signal against the exact cosine. */
  readonly helloRms: number;
  /** A random signal's error against the float64 FFT of the same float32 values. */
  readonly randomRms: number;
  readonly passes: readonly Timing[];
}

/** Beyond this a result is wrong, not rounded. */
const WRONG = 1e-4;

/** Transforms hello_fft's signal and a random one of 2^log2n points on `qpus` QPUs, checks both, and times the first. */
export async function runFft(log2n: number, qpus: number): Promise<FftRun> {
  const fft = prepareFft(log2n);
  try {
    const n = 2 ** log2n;
    helloInput(fft.re, fft.im);
    const passes = await fft.run(qpus);
    const cos = Float64Array.from({ length: n }, (_, i) => Math.cos((2 * Math.PI * i) / n));
    const helloRms = relRms(fft.output().re, fft.output().im, cos, new Float64Array(n));
    randomInput(fft.re, fft.im);
    const want = fft64(fft.re, fft.im);
    await fft.run(qpus);
    const randomRms = relRms(fft.output().re, fft.output().im, want.re, want.im);
    check(helloRms < WRONG && randomRms < WRONG, () => `fft of 2^${log2n} points on ${qpus} QPUs: relative RMS errors ${helloRms.toExponential(2)} and ${randomRms.toExponential(2)}, not a rounding error`);
    const sum = (f: (t: Timing) => number) => passes.reduce((a, t) => a + f(t), 0);
    return { log2n, qpus, piSeconds: sum((t) => t.piSeconds), instructions: sum((t) => t.instructions), helloRms, randomRms, passes };
  } finally {
    fft.free();
  }
}

export interface FftOptions extends ExampleOptions {
  /** log2 of the sizes (default 8, 12, 16). */
  readonly log2n?: readonly number[];
  /** QPUs (default 12). */
  readonly qpus?: number;
}

/** The sizes from the command line: "8,12,16" (log2 of the points). */
function sizeList(text: string): number[] {
  const sizes = text.split(',').map(Number);
  if (sizes.some((k) => !Number.isInteger(k) || k < MIN_LOG2N || k > MAX_LOG2N)) throw new UsageError(`--log2n ${text}: sizes from ${MIN_LOG2N} to ${MAX_LOG2N} (log2 of the points), separated by commas`);
  return sizes;
}

/** Transforms each size, checks it, prints the time and the errors. */
export async function main(opts: FftOptions = {}): Promise<ExampleResult> {
  const log = opts.log ?? console.log;
  const start = performance.now();
  const { log2n = [8, 12, 16], qpus = 12 } = opts;
  const runs: FftRun[] = [];
  for (const k of log2n) runs.push(await runFft(k, qpus));
  log(`FFT of N complex float32 values on ${qpus} QPUs, checked against float64 (relative RMS error; hello_fft's signal and a random one):`);
  log('  points      passes   Pi time (cycle model)   instructions   error (hello)   error (random)');
  for (const r of runs)
    log(`  ${count(2 ** r.log2n).padStart(9)}   ${String(r.passes.length).padStart(6)}   ${seconds(r.piSeconds).padStart(21)}   ${count(r.instructions).padStart(12)}   ${r.helloRms.toExponential(2).padStart(13)}   ${r.randomRms.toExponential(2).padStart(14)}`);
  const timings = runs.map((r) => ({ kernel: `fft 2^${r.log2n}`, qpus, piSeconds: r.piSeconds, wallSeconds: r.passes.reduce((a, t) => a + t.wallSeconds, 0), instructions: r.instructions }));
  const big = runs[runs.length - 1]!;
  return { name: 'fft', summary: `FFT of ${count(2 ** big.log2n)} points, ${seconds(big.piSeconds)} in the cycle model`, pictures: [], timings, headline: fastest(timings), wallSeconds: since(start) };
}

await runIfMain(
  import.meta.url,
  'npx tsx examples/fft.ts [--log2n 8,12,16] [--qpus N]: FFTs of 2^k complex float32 points, checked and timed',
  { log2n: { type: 'string' }, qpus: { type: 'string' } },
  (v) =>
    main({
      log2n: v.log2n === undefined ? undefined : sizeList(v.log2n as string),
      qpus: v.qpus === undefined ? undefined : qpuList(v.qpus as string)[0],
    }),
);
