// qpu-ts's language against what experts wrote by hand (issue 27's anchors), in the cycle model:
// - the matrix multiply of examples/sgemm.ts at 1024x1024 on 12 QPUs, in GFLOPS, against
//   py-videocore's hand-written SGEMM (about 8 GFLOPS measured on a Pi, docs/comparisons.md),
//   with what bounds it (the profiler's verdict, at 256x256: profiling goes an instruction at a
//   time);
// - the FFT of examples/fft.ts at 2^8 to 2^16 points against Broadcom's GPU_FFT, whose shaders
//   are read from where the user put them (GPU_FFT_DIR, the hello_fft directory, as bench:fft's
//   --gpu-fft, which has every size); without it, our figures alone. Then what bounds each of
//   its passes at 2^12 (the profiler's verdict).
// SHA-256 against the series' hand-written kernel, the seed kernels against QPULib and compile
// time are in bench/kernels.ts's table and goals, printed before this.
// Run: npm run bench (all of it), or npx tsx bench/experts.ts [--json out.json]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { matrix, packA, sgemm } from '../examples/sgemm.ts';
import { runFft } from '../examples/fft.ts';
import { SharedArray } from '../src/index.ts';
import { BadInput, outputFile, runBenchMain } from './cli.ts';
import { checkGpuFftDir, GPU_FFT_QPUS, runGpuFft } from './gpu-fft.ts';

/** py-videocore's hand-written SGEMM, measured on a Pi (its README: "8 GFLOPS"; its author's article 8.32). */
const SGEMM_ANCHOR_GFLOPS = 8;
const SGEMM_SIZE = 1024;
const PROFILED_SIZE = 256;
const FFT_SIZES = [8, 10, 12, 14, 16];
/** The FFT size whose passes are profiled for what bounds each (2^12: three passes, one of each kind). */
const FFT_PROFILED = 12;
const QPUS = 12;

/** The command line and GPU_FFT_DIR, checked before anything runs. */
function options(argv: string[]): { json?: string; dir?: string } {
  let json: string | undefined;
  try {
    json = parseArgs({ args: argv, options: { json: { type: 'string' } } }).values.json;
  } catch (e) {
    throw new BadInput(`${(e as Error).message}; usage: npx tsx bench/experts.ts [--json out.json]`);
  }
  outputFile('--json', json);
  const dir = process.env.GPU_FFT_DIR || undefined;
  if (dir !== undefined) checkGpuFftDir(`GPU_FFT_DIR=${dir}`, dir, FFT_SIZES);
  return { json, dir };
}

/** C = A B for size x size matrices on QPUS QPUs (A packed, then the product): GFLOPS in the cycle model, of both runs, and the profiler's verdict on the product if asked. */
async function sgemmRun(size: number, profile: boolean): Promise<{ gflops: number; seconds: number; packSeconds: number; bound?: string }> {
  const [a, b, c, ap] = [matrix(size, size, 1, 'A'), matrix(size, size, 2, 'B'), SharedArray.float32(size * size, 'C'), SharedArray.float32(size * size, 'A packed')];
  try {
    const pack = await packA.setNumQPUs(QPUS)(a, ap, size, size);
    const r = await sgemm.setNumQPUs(QPUS)(ap, b, c, size, size, size, { maxSteps: Infinity, profile });
    const seconds = pack.seconds + r.seconds;
    return { gflops: (2 * size ** 3) / seconds / 1e9, seconds, packSeconds: pack.seconds, bound: r.profile?.verdict.text.split('\n')[0] };
  } finally {
    for (const x of [a, b, c, ap]) SharedArray.free(x);
  }
}

const us = (s: number) => `${(s * 1e6).toFixed(1)} us`;

async function main(argv: string[]): Promise<void> {
  const { json, dir } = options(argv);
  console.log(`\nagainst experts' hand-written code (cycle model; ours on ${QPUS} QPUs)`);
  const big = await sgemmRun(SGEMM_SIZE, false);
  const small = await sgemmRun(PROFILED_SIZE, true);
  console.log(`  sgemm ${SGEMM_SIZE}x${SGEMM_SIZE}: ${big.gflops.toFixed(2)} GFLOPS (${(big.seconds * 1e3).toFixed(0)} ms, of which packing A ${(big.packSeconds * 1e3).toFixed(1)} ms); py-videocore's hand-written, on a Pi: about ${SGEMM_ANCHOR_GFLOPS} (goal at least that)`);
  console.log(`    at ${PROFILED_SIZE}x${PROFILED_SIZE}, ${small.gflops.toFixed(2)} GFLOPS, ${small.bound}`);
  const fft: { log2n: number; seconds: number; error: number; gpuFft?: number; gpuFftError?: number }[] = [];
  for (const log2n of FFT_SIZES) {
    const ours = await runFft(log2n, QPUS);
    const theirs = dir ? runGpuFft(dir, log2n) : undefined;
    fft.push({ log2n, seconds: ours.piSeconds, error: ours.helloRms, gpuFft: theirs?.piSeconds, gpuFftError: theirs?.relRms });
  }
  console.log(`  fft of 2^${FFT_SIZES.join(', 2^')} points, a kernel run a pass (host launches not counted): ${fft.map((f) => us(f.seconds)).join(', ')}; hello_fft's error ${fft.map((f) => f.error.toExponential(1)).join(', ')}`);
  if (dir)
    console.log(
      `    GPU_FFT on its ${GPU_FFT_QPUS} QPUs, one run: ${fft.map((f) => us(f.gpuFft!)).join(', ')}; ours / GPU_FFT ${fft.map((f) => (f.seconds / f.gpuFft!).toFixed(2)).join(', ')} (goal at most 1 at every size); its error ${fft.map((f) => f.gpuFftError!.toExponential(1)).join(', ')}`,
    );
  else console.log("    GPU_FFT: set GPU_FFT_DIR to hello_fft's directory to run its shaders beside");
  const profiled = await runFft(FFT_PROFILED, QPUS, true);
  console.log(`    at 2^${FFT_PROFILED}, what bounds each pass:`);
  for (const p of profiled.passes) console.log(`      ${p.kernel} (${us(p.piSeconds)}): ${p.bound!.split('\n')[0]}`);
  if (json) writeFileSync(json, JSON.stringify({ qpus: QPUS, sgemm: { size: SGEMM_SIZE, ...big, profiled: small }, fft, fftProfiled: { log2n: FFT_PROFILED, passes: profiled.passes } }, null, 2) + '\n');
}

await runBenchMain(import.meta.url, main);
