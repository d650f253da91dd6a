// FFTs' published times beside the cycle model's, for bench:published (bench/published.ts): three
// releases of Andrew Holme's GPU_FFT and vc4asm's optimised version of it, each run from its own
// hello_fft directory by bench/gpu-fft.ts, each with the times published for it on a Pi 1 (ms or
// us per transform, the host's launch included). GPU_FFT's releases share their host code where
// it matters here (the buffers, uniforms and twiddle tables, word for word up to 2^17 points;
// raspberrypi/userland's history): what differs is the shaders and the launch.
// - 3.0 (master) and 2.0 (commit 8f542a1, 2014-12-29) poke the V3D's registers for a batch of up
//   to BUSY_WAIT_LIMIT points (a launch fitted here to 3.0's two times at 2^8 points) and go
//   through the mailbox for more (gpu_fft.c's GPU_FFT_BUSY_WAIT_LIMIT).
// - 1.0 (commit 5c34cc2, 2014-01-30) has 2.0's shaders, word for word, up to 2^17 points, timed
//   a year earlier in batches of 1 to 50, and always goes through the mailbox: "a kernel ioctl
//   call which adds 100us overhead", its gpu_fft.txt says, a round figure its own table belies
//   (2^8 points take 112 us in batches of 1 and 2 x 56 in batches of 2), so 1.0's launch is
//   fitted to its 2^8 in batches of 1; the other mailbox launches here take the text's 100 us.
//   All three ask the firmware not to flush the caches (noflush = 1); the model starts each
//   launch with them cold all the same.
// - vc4asm's (bench/vc4asm-fft.ts) launches as 3.0 does, but its mailbox call asks for a flush,
//   whose cost no one has published: its launch beyond BUSY_WAIT_LIMIT points is taken as 100 us
//   all the same.
import { createHash } from 'node:crypto';
import { checkGpuFftDir, type GpuFftFigures, type Prepare, PUBLISHED_BATCH10_MS, PUBLISHED_MS, readShader, runGpuFft, shaderFile } from './gpu-fft.ts';
import { prepareVc4asmFft } from './vc4asm-fft.ts';
import { BadInput } from './cli.ts';
import { WRONG_FFT } from '../examples/lib/fft-reference.ts';

export interface Figure {
  name: string;
  published: string;
  modelled: string;
  /** Modelled over published, of times (a rate's ratio is inverted so that above 1 is slower). */
  ratio: number;
  /** Whether a parameter of the model was fitted to this figure. */
  fitted: boolean;
  detail: string;
}

/** A release of GPU_FFT: its published times, in ms per transform, by batch size and log2 N. */
export interface Release {
  name: string;
  /** Where its hello_fft directory comes from (raspberrypi/userland's host_applications/linux/apps/hello_pi/hello_fft). */
  source: string;
  /** The first 16 hex digits of the SHA-256 of its 2^8 shader's words, which tell the releases apart (1.0's and 2.0's are the same). */
  shader256: string;
  /** The error (relative RMS or worst point, examples/lib/fft-reference.ts) above which a result is wrong. */
  wrong: number;
  times: Readonly<Record<number, Readonly<Record<number, number>>>>;
  /** The largest size run. */
  maxLog2n: number;
  /** Its launch in us for a batch of `points` in all: a published figure, or undefined for a fitted one (to 3.0's 2^8, or with `ownLaunch` to its own). */
  launchUs: (points: number) => number | undefined;
  /** Whether its fitted launch is fitted to its own time at 2^8 points in batches of 1 (else to 3.0's two at 2^8). */
  ownLaunch?: boolean;
  /** Its host, when not GPU_FFT's own (bench/gpu-fft.ts). */
  prepare?: Prepare;
}

/** The mailbox's launch, "100us overhead" (gpu_fft.txt, releases 1.0 and 2.0). */
export const MAILBOX_LAUNCH_US = 100;
/** Batches of up to this many points in all launch through the V3D's registers, larger ones through the mailbox (GPU_FFT_BUSY_WAIT_LIMIT in 2.0's, 3.0's and vc4asm's gpu_fft.c). */
export const BUSY_WAIT_LIMIT = 5 << 12;
/** 3.0's, 2.0's and vc4asm's launch: the fitted one up to BUSY_WAIT_LIMIT points, the mailbox's beyond. */
const registersOrMailbox = (points: number) => (points <= BUSY_WAIT_LIMIT ? undefined : MAILBOX_LAUNCH_US);

const HELLO_FFT = 'raspberrypi/userland, host_applications/linux/apps/hello_pi/hello_fft';

export const RELEASE_3_0: Release = {
  name: 'GPU_FFT 3.0',
  source: `${HELLO_FFT}, at master`,
  shader256: '36189b7c9c095406',
  wrong: WRONG_FFT,
  times: { 1: PUBLISHED_MS, 10: PUBLISHED_BATCH10_MS },
  maxLog2n: 20,
  launchUs: registersOrMailbox,
};

// Release 2.0 is less accurate: its gpu_fft.txt publishes 70 ppm RMS at 2^17, doubling each size
// to 720 ppm at 2^21 (3.0 reworked it). Here 2^17 measures 87 ppm RMS and 125 ppm at its worst
// point; 5e-3 is well above 2.0's error at 2^21 and far below a wrong emulation's, of order 1.
export const RELEASE_2_0: Release = {
  name: 'GPU_FFT 2.0',
  source: `${HELLO_FFT}, at commit 8f542a1`,
  shader256: '536b91c2ea2e9c39',
  wrong: 5e-3,
  times: {
    1: { 8: 0.036, 9: 0.051, 10: 0.07, 11: 0.11, 12: 0.24, 13: 0.58, 14: 1.2, 15: 3.3, 16: 6.8, 17: 16, 18: 42, 19: 95, 20: 190, 21: 380 },
    10: { 8: 0.016, 9: 0.027, 10: 0.045, 11: 0.095, 12: 0.25, 13: 0.61, 14: 1.2, 15: 3.2 },
  },
  maxLog2n: 21,
  launchUs: registersOrMailbox,
};

/** Release 1.0's table, in us per transform, batches of 1 to 50 (its gpu_fft.txt). */
const US_1_0: Record<number, number[]> = {
  1: [112, 125, 136, 180, 298, 689, 1274, 3397, 6978, 16734],
  2: [56, 74, 85, 133, 285, 663, 1227, 3362, 6759, 16179],
  5: [31, 75, 61, 113, 274, 631, 1188, 3228, 6693, 16180],
  10: [22, 37, 54, 107, 256, 624, 1167, 3225, 6703, 16110],
  20: [19, 31, 52, 101, 252, 615, 1138, 3202, 6684, 16181],
  50: [16, 26, 45, 93, 240, 608, 1131, 3196, 6674, 16171],
};
// Its errors are 2.0's up to 2^17 (the same table of ppm in both gpu_fft.txt files).
export const RELEASE_1_0: Release = {
  name: 'GPU_FFT 1.0',
  source: `${HELLO_FFT}, at commit 5c34cc2`,
  shader256: '536b91c2ea2e9c39',
  wrong: 5e-3,
  times: Object.fromEntries(Object.entries(US_1_0).map(([batch, us]) => [batch, Object.fromEntries(us.map((t, i) => [8 + i, t / 1e3]))])),
  maxLog2n: 17,
  launchUs: () => undefined,
  ownLaunch: true,
};

/**
 * vc4asm's optimised hello_fft (bench/vc4asm-fft.ts), its sample at maazl/vc4asm commit
 * 6e64cfd, timed by a user on a Pi 1 B, not said to be overclocked, with its profile.pl
 * (batches of 1; 20 runs, the first dropped, then those more than 5% from the median, then the
 * median of the rest; maazl/vc4asm issue 5, 2015-09-23, a report of its failing from 2^17 up).
 */
export const RELEASE_VC4ASM: Release = {
  name: "vc4asm's GPU_FFT",
  source: 'maazl/vc4asm, sample/hello_fft at commit 6e64cfd, hex/ assembled from its qasm/ with that commit\'s vc4asm',
  shader256: '801816fbec597a22',
  wrong: WRONG_FFT,
  times: { 1: { 8: 0.019, 9: 0.031, 10: 0.047, 11: 0.089, 12: 0.233, 13: 0.631, 14: 1.275, 15: 2.753, 16: 5.391 } },
  maxLog2n: 16,
  launchUs: registersOrMailbox,
  prepare: prepareVc4asmFft,
};

/** The sizes run of a release: every one with a published time in batches of 1, up to its largest. */
export const releaseSizes = (r: Release) => Object.keys(r.times[1]!).map(Number).filter((k) => k <= r.maxLog2n);

/** Checks that `dir`, given with `--option`, holds `release`'s shaders; returns it. */
export function checkRelease(option: string, dir: string, release: Release): string {
  checkGpuFftDir(`--${option} ${dir}`, dir, releaseSizes(release));
  const digest = createHash('sha256').update(new Uint8Array(readShader(shaderFile(dir, 8)).buffer)).digest('hex').slice(0, 16);
  if (digest !== release.shader256) throw new BadInput(`--${option} ${dir}: its shaders are not ${release.name}'s, which are in ${release.source}`);
  return dir;
}

/**
 * A batch of `batch` transforms in one launch, per transform in us: the launch's share, the
 * first transform with the caches cold (the host clears them before a launch), the others with
 * the code in the instruction caches (each job runs the same code on other buffers).
 */
const perTransform = (launchUs: number, batch: number, g: { piSeconds: number; warmSeconds: number }) => launchUs / batch + ((g.piSeconds + (batch - 1) * g.warmSeconds) * 1e6) / batch;

/** The launch and its host work in us, fitted to release 3.0's published times at 2^8 in batches of 1 and 10 (2^8's modelled `g`). */
function fittedLaunchUs(g: { piSeconds: number; warmSeconds: number }): number {
  // published1 = L + cold, published10 = L / 10 + (cold + 9 warm) / 10: solve for L with both, by least squares.
  const [p1, p10] = [PUBLISHED_MS[8]! * 1e3, PUBLISHED_BATCH10_MS[8]! * 1e3];
  const [r1, r10] = [p1 - perTransform(0, 1, g), p10 - perTransform(0, 10, g)];
  return Math.max(0, (r1 + r10 / 10) / (1 + 1 / 100));
}

/** 1.0's mailbox launch in us, fitted to its own time at 2^8 points in batches of 1 (`g`, 2^8's modelled run): that time less the run, cold. */
function ownLaunchUs(release: Release, g: { piSeconds: number }): number {
  return Math.max(0, release.times[1]![8]! * 1e3 - g.piSeconds * 1e6);
}

/** Whether a parameter of the model was fitted to `release`'s figure at 2^log2n points in batches of `batch` (docs/timing.md). */
const fittedTo = (release: Release, log2n: number, batch: number) =>
  (release === RELEASE_3_0 && (log2n === 8 || log2n === 20 || (batch === 1 && (log2n === 13 || log2n === 14)))) || (release.ownLaunch === true && log2n === 8 && batch === 1);

/**
 * `release` run from hello_fft's directory `dir`: each size's run, once, and the model's time
 * per transform in a batch. Where its launch is not a published figure, it is fitted: to its own
 * 2^8 in batches of 1 with `ownLaunch` (1.0), else to 3.0's two at 2^8 (3.0's own runs, or
 * `fit`'s, which must be release 3.0's model).
 */
export class ReleaseModel {
  private readonly runs = new Map<number, GpuFftFigures>();
  private fittedLaunch: number | undefined;

  constructor(
    readonly dir: string,
    readonly release: Release,
    private readonly fit: ReleaseModel | undefined,
  ) {}

  /** Its run at 2^log2n points (bench/gpu-fft.ts), checked against the transform. */
  run(log2n: number): GpuFftFigures {
    let g = this.runs.get(log2n);
    if (!g) this.runs.set(log2n, (g = runGpuFft(this.dir, log2n, this.release)));
    return g;
  }

  /** Its launch in us for a batch of `points` in all. */
  launchUs(points: number): number {
    const own = this.release.launchUs(points);
    if (own !== undefined) return own;
    if (this.release.ownLaunch) return (this.fittedLaunch ??= ownLaunchUs(this.release, this.run(8)));
    const fit = this.release === RELEASE_3_0 ? this : this.fit;
    if (fit?.release !== RELEASE_3_0) throw new Error(`${this.release.name}: its launch is fitted to release 3.0's times, which needs 3.0's model`);
    return (this.fittedLaunch ??= fittedLaunchUs(fit.run(8)));
  }

  /** Its time per transform in us at 2^log2n points in batches of `batch`. */
  perTransformUs(log2n: number, batch: number): number {
    return perTransform(this.launchUs(batch << log2n), batch, this.run(log2n));
  }
}

/**
 * The release's published figures beside its model's. Fitted (docs/timing.md): 3.0's 2^8 (the
 * launch), its 2^20 (how a DMA store's cost splits between its fixed part and its rows) and its
 * 2^13 and 2^14 in batches of 1 (a line's time from the system cache); 1.0's 2^8 in batches of 1
 * (its launch).
 */
export function gpuFftFigures(model: ReleaseModel): Figure[] {
  const { release } = model;
  return releaseSizes(release).flatMap((log2n) => {
    const g = model.run(log2n);
    return Object.entries(release.times)
      .filter(([, t]) => t[log2n] !== undefined)
      .map(([b, t]) => {
        const [batch, publishedMs] = [Number(b), t[log2n]!];
        const modelled = model.perTransformUs(log2n, batch);
        return {
          name: `${release.name} 2^${log2n} points, batch ${batch}`,
          published: `${publishedMs} ms`,
          modelled: `${(modelled / 1e3).toPrecision(3)} ms`,
          ratio: modelled / 1e3 / publishedMs,
          fitted: fittedTo(release, log2n, batch),
          detail: `${g.instructions} instructions on ${g.qpus} QPUs, ${(g.piSeconds * 1e3).toPrecision(3)} ms on the QPUs (${(g.warmSeconds * 1e3).toPrecision(3)} warm) + ${(model.launchUs(batch << log2n) / batch).toFixed(1)} us launch`,
        };
      });
  });
}
