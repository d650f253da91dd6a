// The fast Fourier transform of N complex float32 values (256 to 1M points, a power of 2), on
// the QPUs: Stockham's self-sorting passes, each a kernel run that reads the previous pass's
// output through the TMUs and writes rows of 16 through the VPM's DMA. The first pass is of
// radix 64 or 128: 16-point transforms across the 16 lanes (rotations) in 4 or 8 registers, then
// one across the registers; the others are radix 8 (the first of them maybe 4) across registers,
// each lane on its own butterfly. Checked against a float64 FFT (the relative RMS error, as
// GPU_FFT's hello_fft computes it), and timed by the cycle model.
// Run: npx tsx examples/fft.ts [--log2n 8,12,16] [--qpus 12]
import { Float, type FloatExpr, type FloatVar, For, gather, index, Int, type IntExpr, kernel, me, numQPUs, Ptr, type PtrExpr, receive, rotate, select, SharedArray } from 'qpu-ts';
import { fft64, fftErrors, helloSignal, helloTransform, randomSignal, WRONG_FFT } from './lib/fft-reference.ts';
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
 * The radix of the passes across registers (the first may be smaller). 16 would take fewer passes,
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
  /** Gathers a complex value, its real part at `re` and its imaginary part at `im`. */
  askComplex(re: PtrExpr<'float'>, im: PtrExpr<'float'>): Asked {
    return { re: this.ask(re), im: this.ask(im) };
  }
  /** Receives `c` (and everything asked for before it); returns it. */
  take(c: Asked): C {
    this.wait(c.im);
    return c;
  }
}

/** A complex value asked for (InFlight): its parts once received. */
interface Asked {
  readonly re: FloatVar;
  readonly im: FloatVar;
}

/** Lane l's number with its 4 bits reversed: where lane l's input comes from in a transform across the lanes. */
function reversedLane(): IntExpr {
  const l = index();
  return l.and(1).shl(3).or(l.and(2).shl(1)).or(l.and(4).shr(1)).or(l.and(8).shr(3));
}

/**
 * A 16-point DFT across the lanes, decimated in time: lane l holds input reverse(l) (reversedLane),
 * and four radix-2 steps of span 1, 2, 4, 8 pair each lane with the one `span` away (rotations):
 * the lane whose span bit is clear takes a + w b, the other a - w b, with w from `steps` (one
 * twiddle vector a step, signs folded in: laneTwiddles). Lane u ends with output u.
 */
function laneDft(x: C, steps: readonly C[]): C {
  let v: C = x;
  for (let s = 0; s < LOG2_LANES; s++) {
    const span = 1 << s;
    const low = index().and(span).ne(0);
    const c = kept(v);
    const partner = kept({ re: select(low, rotate(c.re, span), rotate(c.re, LANES - span)), im: select(low, rotate(c.im, span), rotate(c.im, LANES - span)) });
    const a = { re: select(low, partner.re, c.re), im: select(low, partner.im, c.im) };
    const b = kept({ re: select(low, c.re, partner.re), im: select(low, c.im, partner.im) });
    const t = cmul(b, steps[s]!);
    v = kept({ re: a.re.add(t.re), im: a.im.add(t.im) });
  }
  return v;
}

/** Rows a QPU's stores may make one DMA store of on 12 QPUs (pass `rows`: its store row and 3 spill rows). */
const ROW_RUN = 4;

/**
 * The first pass, of radix 16 g for g registers: for each i < N / (16 g), the DFT of
 * x[i + t N / (16 g)], t = 0..16g-1, into y[16 g i + u]. As t = g t1 + t2 and u = u1 + 16 u2
 * (t1, u1 a lane; t2, u2 a register), the DFT is one across the lanes of each register t2
 * (laneDft, over t1), each lane u1 of register t2 turned by e^(-2 pi i t2 u1 / 16g), then one
 * across the registers, lane by lane (dft, over t2), whose output u2 is register u2: g rows of
 * 16 one after another in memory. A QPU takes enough consecutive i's at a time for ROW_RUN rows
 * or more, stored as runs of ROW_RUN (pass `rows`). N is a power of 2, at least 16 g. The twiddles come from `tw` (laneTwiddles): the steps' kept in
 * registers, the turns gathered with the inputs (kept, they would crowd out the data at g = 8).
 */
function lanesPass(regs: number) {
  const log2g = Math.log2(regs);
  const batch = Math.max(1, ROW_RUN / regs);
  return kernel([Ptr(Float), Ptr(Float), Ptr(Float), Ptr(Float), Ptr(Float), Int], function fftLanes(xre, xim, yre, yim, tw, n) {
    const spread = Int(n.shr(LOG2_LANES + log2g));
    const from = Int(reversedLane().mul(n.shr(LOG2_LANES)));
    const twiddles = new InFlight();
    // Row r of complex twiddles: lane l's real part at tw[2 r 16 + l], its imaginary part 16 on.
    const row = (q: InFlight, r: number) => q.askComplex(tw.add(index().add(2 * r * LANES)), tw.add(index().add((2 * r + 1) * LANES)));
    const steps = Array.from({ length: LOG2_LANES }, (_, s) => row(twiddles, s));
    twiddles.flush();
    const i0 = Int(me().mul(batch));
    For(i0.lt(spread), () => i0.set(i0.add(numQPUs().mul(batch))), () => {
      const inputs = new InFlight();
      // Register t2 of butterfly i0 + j: its input and turn asked for; transformed when taken, while the next ones are on their way.
      const ask = (j: number, t2: number): (() => C) => {
        const at = Int(i0.add(j).add(spread.mul(t2)).add(from));
        const x = inputs.askComplex(xre.add(at), xim.add(at));
        if (!t2) return () => laneDft(inputs.take(x), steps);
        const turn = row(inputs, turnRow(t2));
        return () => (inputs.take(turn), kept(cmul(laneDft(x, steps), turn)));
      };
      const order = Array.from({ length: batch * regs }, (_, k) => [Math.floor(k / regs), k % regs] as const);
      const zs: C[] = [];
      let next = ask(...order[0]!);
      for (let k = 0; k < order.length; k++) {
        const take = next;
        if (k + 1 < order.length) next = ask(...order[k + 1]!);
        zs.push(take());
      }
      const ys = Array.from({ length: batch }, (_, j) => dft(zs.slice(j * regs, (j + 1) * regs)));
      const reRow = Ptr(Float)(yre.add(i0.shl(LOG2_LANES + log2g)));
      const imRow = Ptr(Float)(yim.add(i0.shl(LOG2_LANES + log2g)));
      for (let k = 0; k < batch * regs; k++) reRow.add(k * LANES).store(ys[Math.floor(k / regs)]![k % regs]!.re);
      for (let k = 0; k < batch * regs; k++) imRow.add(k * LANES).store(ys[Math.floor(k / regs)]![k % regs]!.im);
    });
  });
}

/** Where register t2's turn is among the lane pass's twiddles (rows of complex vectors, after the steps'). */
const turnRow = (t2: number) => LOG2_LANES + t2 - 1;

/**
 * The lane pass's twiddles, rows of 16 (a lane each), real then imaginary: for step s (span
 * 2^s) of laneDft, lane l's e^(-2 pi i (l mod span) / (2 span)), negated where l's span bit is
 * set; then for register t2 = 1..regs-1, lane u1's e^(-2 pi i t2 u1 / (16 regs)).
 */
export function laneTwiddles(regs: number): Float32Array {
  const t = new Float32Array(2 * (LOG2_LANES + regs - 1) * LANES);
  const put = (r: number, l: number, angle: number, sign = 1) => {
    t[2 * r * LANES + l] = sign * Math.cos(angle);
    t[(2 * r + 1) * LANES + l] = sign * Math.sin(angle);
  };
  for (let s = 0; s < LOG2_LANES; s++) {
    const span = 1 << s;
    for (let l = 0; l < LANES; l++) put(s, l, (-Math.PI * (l % span)) / span, l & span ? -1 : 1);
  }
  for (let t2 = 1; t2 < regs; t2++) for (let l = 0; l < LANES; l++) put(turnRow(t2), l, (-2 * Math.PI * t2 * l) / (LANES * regs));
  return t;
}

/** The lane passes, by registers, made when first needed. */
const lanePasses = new Map<number, ReturnType<typeof lanesPass>>();
/** The first pass with `regs` registers (radix 16 regs). */
export function lanesPassFor(regs: number): ReturnType<typeof lanesPass> {
  if (!lanePasses.has(regs)) lanePasses.set(regs, lanesPass(regs));
  return lanePasses.get(regs)!;
}

/**
 * A pass across registers of radix r after passes that made transforms of p points (p >= 16):
 * for each i < N / r, with k = i mod p, the r inputs x[i + t N / r] times e^(-2 pi i t k / (r p)),
 * transformed (dft), into y[(i - k) r + k + u p] (u = 0..r-1). Each QPU takes 16 consecutive i's
 * at a time, one a lane (N a power of 2, at least 16 r); `twre`, `twim` hold the twiddles, t = 1..r-1
 * each p long. p is a number
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
        const x = inputs.askComplex(xre.add(at), xim.add(at));
        if (t === 0) return () => inputs.take(x);
        const k = Int(k0.add(p * (t - 1)).add(index()));
        const w = inputs.askComplex(twre.add(k), twim.add(k));
        return () => (inputs.take(w), kept(cmul(x, w)));
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

/** One pass of a plan: across the lanes and `regs` registers (the first), or across registers of radix r after transforms of p points. */
type Pass = { readonly kind: 'lanes'; readonly regs: number } | { readonly kind: 'registers'; readonly r: number; readonly p: number };

/** The most registers the lane pass spreads its transform over (its radix is 16 times as many). */
const MAX_LANE_REGS = 8;

/**
 * The passes for 2^log2n points: the lane pass, of radix 16 g, then radix-RADIX passes, the first
 * of them maybe smaller, for the bits left. Of g = 1, 2, 4, 8, the one with the fewest passes,
 * counting a radix-2 pass as half a pass more (its rows come in runs of 2 only), then the largest.
 */
export function plan(log2n: number): Pass[] {
  const log2r = Math.log2(RADIX);
  const rest = (log2g: number) => log2n - LOG2_LANES - log2g;
  const cost = (log2g: number) => Math.ceil(rest(log2g) / log2r) + (rest(log2g) % log2r === 1 ? 0.5 : 0) - log2g / 16;
  const options = Array.from({ length: Math.log2(MAX_LANE_REGS) + 1 }, (_, log2g) => log2g).filter((log2g) => rest(log2g) >= 0);
  const g = options.reduce((a, b) => (cost(b) < cost(a) ? b : a));
  const passes: Pass[] = [{ kind: 'lanes', regs: 2 ** g }];
  // The smaller pass first: the later a pass, the further apart its rows (p words), and rows
  // too far apart for a DMA store's stride are a transfer each.
  const left = log2n - LOG2_LANES - g;
  const radices = [...(left % log2r ? [2 ** (left % log2r)] : []), ...Array<number>(Math.floor(left / log2r)).fill(RADIX)];
  let p = LANES * 2 ** g;
  for (const r of radices) {
    passes.push({ kind: 'registers', r, p });
    p *= r;
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

/** A pass's run: its timing and, when it was profiled, what bounds it (the profiler's verdict, in a sentence). */
export interface PassTiming extends Timing {
  readonly bound?: string;
}

/** A transform of one size, ready to run: its buffers (the input goes in `re`, `im`), twiddles and passes. */
export interface Fft {
  readonly log2n: number;
  readonly re: Float32Array;
  readonly im: Float32Array;
  /** Runs the passes on `qpus` QPUs; the result is in `output()`. Returns each pass's timing (and, if `profile`, what bounds it). */
  run(qpus: number, profile?: boolean): Promise<PassTiming[]>;
  output(): { re: Float32Array; im: Float32Array };
  free(): void;
}

/** Prepares a transform of 2^log2n points: two pairs of buffers (ping, pong) and each pass's twiddles. */
export function prepareFft(log2n: number): Fft {
  if (!Number.isInteger(log2n) || log2n < MIN_LOG2N || log2n > MAX_LOG2N) throw new UsageError(`fft: 2^${log2n} points; the example does 2^${MIN_LOG2N} to 2^${MAX_LOG2N}`);
  const n = 2 ** log2n;
  const bufs = [0, 1].map((b) => ({ re: SharedArray.float32(n, `re ${b}`), im: SharedArray.float32(n, `im ${b}`) }));
  const passes = plan(log2n).map((pass) => ({ pass, tw: pass.kind === 'registers' ? registerTwiddles(pass.r, pass.p) : undefined }));
  const first = passes[0]!.pass as Extract<Pass, { kind: 'lanes' }>;
  const lanes = SharedArray.from(laneTwiddles(first.regs), 'float32');
  const last = bufs[passes.length % 2]!;
  return {
    log2n,
    re: bufs[0]!.re,
    im: bufs[0]!.im,
    async run(qpus, profile = false) {
      const timings: PassTiming[] = [];
      for (const [k, { pass, tw }] of passes.entries()) {
        const [x, y] = [bufs[k % 2]!, bufs[(k + 1) % 2]!];
        const start = performance.now();
        const report =
          pass.kind === 'lanes'
            ? await lanesPassFor(pass.regs).setNumQPUs(qpus)(x.re, x.im, y.re, y.im, lanes, n, { maxSteps: Infinity, profile })
            : await registersPassFor(pass.r, pass.p).setNumQPUs(qpus)(x.re, x.im, y.re, y.im, tw!.re, tw!.im, n, { maxSteps: Infinity, profile });
        const name = pass.kind === 'lanes' ? `fftLanes r${LANES * pass.regs}` : `fftRegisters r${pass.r} p${pass.p}`;
        timings.push({ kernel: name, qpus: report.qpus, piSeconds: report.seconds, wallSeconds: since(start), instructions: report.run.total.instructions, bound: report.profile?.verdict.text });
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

export interface FftRun {
  readonly log2n: number;
  readonly qpus: number;
  readonly piSeconds: number;
  readonly instructions: number;
  /** hello_fft's error: its signal against the exact cosine. */
  readonly helloRms: number;
  /** A random signal's error against the float64 FFT of the same float32 values. */
  readonly randomRms: number;
  readonly passes: readonly PassTiming[];
}

/** Transforms hello_fft's signal and a random one of 2^log2n points on `qpus` QPUs, checks both, and times (and, if `profile`, profiles) the first. */
export async function runFft(log2n: number, qpus: number, profile = false): Promise<FftRun> {
  const fft = prepareFft(log2n);
  try {
    helloSignal(fft.re, fft.im);
    const passes = await fft.run(qpus, profile);
    const exact = helloTransform(2 ** log2n);
    const helloRms = fftErrors(fft.output().re, fft.output().im, exact.re, exact.im).relRms;
    randomSignal(fft.re, fft.im);
    const want = fft64(fft.re, fft.im);
    await fft.run(qpus);
    const randomRms = fftErrors(fft.output().re, fft.output().im, want.re, want.im).relRms;
    check(helloRms < WRONG_FFT && randomRms < WRONG_FFT, () => `fft of 2^${log2n} points on ${qpus} QPUs: relative RMS errors ${helloRms.toExponential(2)} and ${randomRms.toExponential(2)}, not a rounding error`);
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

/** Sizes from a command line: "8,12,16" (log2 of the points), each from MIN_LOG2N to MAX_LOG2N; `flag` names the option in the error. */
export function sizeList(text: string, flag = '--log2n'): number[] {
  const sizes = text.split(',').map((k) => (/^\s*\d+\s*$/.test(k) ? Number(k) : NaN));
  if (sizes.some((k) => !(k >= MIN_LOG2N && k <= MAX_LOG2N))) throw new UsageError(`${flag} ${text}: sizes from ${MIN_LOG2N} to ${MAX_LOG2N} (log2 of the points), separated by commas`);
  return sizes;
}

/** One QPU count from the command line (a list is refused: the passes run on one). */
export function oneQpuCount(text: string): number {
  const qpus = qpuList(text);
  if (qpus.length !== 1) throw new UsageError(`--qpus ${text}: one QPU count from 1 to 12`);
  return qpus[0]!;
}

/** Transforms each size, checks it, prints the time and the errors. */
export async function main(opts: FftOptions = {}): Promise<ExampleResult> {
  const log = opts.log ?? console.log;
  const start = performance.now();
  const { log2n = [8, 12, 16], qpus = 12 } = opts;
  if (!log2n.length) throw new UsageError('fft: no sizes to transform');
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
      qpus: v.qpus === undefined ? undefined : oneQpuCount(v.qpus as string),
    }),
);
