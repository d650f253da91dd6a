// qpu-ts's language against what experts wrote by hand (issue 27's anchors), in the cycle model:
// - the matrix multiply of examples/sgemm.ts at 1024x1024 on 12 QPUs, in GFLOPS, against
//   py-videocore's hand-written SGEMM (about 8 GFLOPS on a Pi, docs/comparisons.md), with what
//   bounds it (the profiler's verdict, at 256x256: profiling goes one instruction at a time);
// - the FFT of examples/fft.ts at 2^8 to 2^16 points against Broadcom's GPU_FFT, whose shaders
//   are read from where the user put them (GPU_FFT_DIR, the hello_fft directory, as
//   bench:gpu-fft's --gpu-fft); without it, our figures alone;
// - how long compiling takes an emitted instruction (sha256 on 12 QPUs, the largest seed kernel),
//   against the goal of 10 us.
// SHA-256 against the series' hand-written kernel, and the seed kernels against QPULib, are in
// bench/kernels.ts's table, printed before this.
// Run: npm run bench (all of it), or npx tsx bench/experts.ts [--json out.json]
import { writeFileSync } from 'node:fs';
import { matrix, sgemm } from '../examples/sgemm.ts';
import { runFft } from '../examples/fft.ts';
import { sha256 } from '../examples/sha256.ts';
import { compile } from '../src/compiler/driver.ts';
import { SharedArray } from '../src/index.ts';
import { runGpuFft } from './gpu-fft.ts';

/** py-videocore's hand-written SGEMM on a Pi (its README: "8 GFLOPS"; its author's article 8.32). */
const SGEMM_ANCHOR_GFLOPS = 8;
const SGEMM_SIZE = 1024;
const PROFILED_SIZE = 256;
const FFT_SIZES = [8, 10, 12, 14, 16];
const QPUS = 12;
/** The compile-time goal, microseconds an emitted instruction once warm. */
const COMPILE_GOAL_US = 10;
const COMPILES = 21;

/** C = A B for size x size matrices on QPUS QPUs: GFLOPS in the cycle model, and the profiler's verdict if asked. */
async function sgemmRun(size: number, profile: boolean): Promise<{ gflops: number; seconds: number; bound?: string }> {
  const [a, b, c] = [matrix(size, size, 1, 'A'), matrix(size, size, 2, 'B'), SharedArray.float32(size * size, 'C')];
  try {
    const r = await sgemm.setNumQPUs(QPUS)(a, b, c, size, size, size, { maxSteps: Infinity, profile });
    return { gflops: (2 * size ** 3) / r.seconds / 1e9, seconds: r.seconds, bound: r.profile?.verdict.text.split('\n')[0] };
  } finally {
    for (const x of [a, b, c]) SharedArray.free(x);
  }
}

/** The median of COMPILES compilations of sha256 for 12 QPUs once warm, in microseconds an instruction. */
function compileSpeed(): { usPerInstr: number; instrs: number; medianMs: number } {
  const ast = sha256.ast;
  for (let i = 0; i < 5; i++) compile(ast, { qpus: QPUS });
  const times: number[] = [];
  let instrs = 0;
  for (let i = 0; i < COMPILES; i++) {
    const t0 = performance.now();
    instrs = compile(ast, { qpus: QPUS }).instrs.length;
    times.push(performance.now() - t0);
  }
  const medianMs = times.sort((x, y) => x - y)[COMPILES >> 1]!;
  return { usPerInstr: (medianMs * 1000) / instrs, instrs, medianMs };
}

async function main(argv: string[]): Promise<void> {
  const j = argv.indexOf('--json');
  const jsonFile = j >= 0 ? argv[j + 1] : undefined;
  const dir = process.env.GPU_FFT_DIR;
  console.log('\nagainst experts\' hand-written code (cycle model, 12 QPUs)');
  const big = await sgemmRun(SGEMM_SIZE, false);
  const small = await sgemmRun(PROFILED_SIZE, true);
  console.log(`  sgemm ${SGEMM_SIZE}x${SGEMM_SIZE}: ${big.gflops.toFixed(2)} GFLOPS (${(big.seconds * 1e3).toFixed(0)} ms; py-videocore's hand-written: about ${SGEMM_ANCHOR_GFLOPS}, goal at least that)`);
  console.log(`    at ${PROFILED_SIZE}x${PROFILED_SIZE}, ${small.gflops.toFixed(2)} GFLOPS, ${small.bound}`);
  const fft: { log2n: number; seconds: number; gpuFft?: number; error: number; gpuFftError?: number }[] = [];
  for (const log2n of FFT_SIZES) {
    const ours = await runFft(log2n, QPUS);
    const theirs = dir ? runGpuFft(dir, log2n) : undefined;
    fft.push({ log2n, seconds: ours.piSeconds, error: ours.helloRms, gpuFft: theirs?.piSeconds, gpuFftError: theirs?.relRms });
  }
  console.log(`  fft, 2^${FFT_SIZES.join(', 2^')} points: ${fft.map((f) => `${(f.seconds * 1e6).toFixed(1)} us`).join(', ')} (hello_fft's error ${fft.map((f) => f.error.toExponential(1)).join(', ')})`);
  if (dir)
    console.log(
      `    GPU_FFT (8 QPUs): ${fft.map((f) => `${(f.gpuFft! * 1e6).toFixed(1)} us`).join(', ')}; ours / GPU_FFT ${fft.map((f) => (f.seconds / f.gpuFft!).toFixed(2)).join(', ')} (goal at most 1 at every size); its error ${fft.map((f) => f.gpuFftError!.toExponential(1)).join(', ')}`,
    );
  else console.log('    GPU_FFT: set GPU_FFT_DIR to hello_fft\'s directory to run its shaders beside (npm run bench:fft has every size)');
  const speed = compileSpeed();
  console.log(`  compile: sha256 on 12 QPUs, ${speed.instrs.toLocaleString('en')} instructions in ${speed.medianMs.toFixed(1)} ms (median of ${COMPILES} once warm), ${speed.usPerInstr.toFixed(1)} us an instruction (goal at most ${COMPILE_GOAL_US})`);
  if (jsonFile) writeFileSync(jsonFile, JSON.stringify({ sgemm: { size: SGEMM_SIZE, ...big, profiled: small }, fft, compile: speed }, null, 2) + '\n');
}

await main(process.argv.slice(2));
