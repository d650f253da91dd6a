// vc4asm's hello_fft on the emulator, for bench:published (bench/published.ts): Marcel Müller's
// optimised GPU_FFT (maazl/vc4asm, sample/hello_fft, BSD-3, from Andrew Holme's release 3.0),
// whose shaders are 29-41% shorter than Broadcom's but at 2^12 points (11% longer: two radix-64
// passes), and whose host code prepares them its own way. Its machine code is assembled with vc4asm from the sample's qasm (the directory's hex/);
// what its host code does is written here anew from these facts of sample/hello_fft at vc4asm
// commit 6e64cfd (2015-09-20; gpu_fft.c, gpu_fft_twiddles.c, gpu_fft_base.c):
// - the passes and twiddle tables come from a list of stages per size, log2 of each pass's radix
//   (`stages` below): a base table of the first stage's radix at angle 0, a step table for each
//   later stage at an angle step of the product of the radices after it (the last: the QPU
//   count), and for each QPU a table of the last stage's radix at its angle q x 2 pi / N. Its
//   radix-64 tables add their angle as the others do (Broadcom's start at angle 0 alone).
// - QPU q's uniforms: the shared twiddles' address, its own twiddles' address, q, then for the
//   job each pass's source and destination (the first pass reads the data; with one buffer
//   beside it, as for a batch of 1, the passes go back and forth between the data and that
//   buffer), then 0.
// - Memory: a 4 KiB header, the buffer (N complex floats, to a multiple of 4 KiB), the data,
//   the code, the twiddles, the uniforms. GPU memory is mapped direct, past the VideoCore's
//   128 KiB system cache (GPU_FFT_USE_VC4_L2_CACHE 0), so the model runs without it.
// - The launch: the V3D's registers for a batch of up to 5 x 2^12 points, the mailbox for more,
//   as 3.0's (bench/published-gpu-fft.ts); its mailbox call asks the firmware to flush the caches.
import { Machine } from '../src/emulator/machine.ts';
import { footprint, GpuMemory } from '../src/common/memory.ts';
import { WORD_BYTES } from '../src/vc4/chip.ts';
import { PI_TIMING } from '../src/emulator/timing.ts';
import { BLOCK_COMPLEX, COMPLEX_BYTES, GPU_FFT_ALIGN, GPU_FFT_QPUS, type GpuFft, type Plan, type Radix, readShader, shaderFile, twiddles } from './gpu-fft.ts';
import { BadInput } from './cli.ts';

/** log2 of each pass's radix, by log2 N from 8 (gpu_fft_twiddles.c's `stages`). */
const STAGES: readonly (readonly number[])[] = [
  [4, 4], [5, 4], [5, 5], [6, 5], [6, 6], [5, 4, 4], [5, 5, 4], [5, 5, 5], [6, 5, 5], [6, 6, 5], [6, 6, 6], [5, 4, 5, 5], [5, 5, 5, 5], [6, 5, 5, 5], [6, 6, 5, 5],
];
const FIRST_LOG2N = 8;
/** gpu_fft.c's header before the buffers: a page. */
const HEADER_BYTES = GPU_FFT_ALIGN;

/** A size's plan, in bench/gpu-fft.ts's terms. */
export function vc4asmPlan(log2n: number): Plan {
  const stages = STAGES[log2n - FIRST_LOG2N];
  if (!stages) throw new BadInput(`vc4asm's hello_fft has shaders for 2^8 to 2^22 points, not 2^${log2n}`);
  const radix = (s: number) => (1 << s) as Radix;
  const steps = stages.slice(1).map((s, i, later) => [radix(s), i === later.length - 1 ? GPU_FFT_QPUS : later.slice(i + 1).reduce((p, t) => p << t, 1)] as const);
  return { passes: stages.length, base: radix(stages[0]!), steps, unique: radix(stages[stages.length - 1]!) };
}

/**
 * A job's uniforms with one buffer beside the data (a batch of 1): where the first pass reads,
 * each later pass's address twice (its source, the pass before's destination), and where the
 * last pass writes. The passes go back and forth: data -> buffer -> data -> ...
 */
export function jobUniforms(passes: number, data: number, buffer: number): number[] {
  const ends = Array.from({ length: passes + 1 }, (_, p) => (p % 2 ? buffer : data));
  return [data, ...ends.slice(1, -1).flatMap((a) => [a, a]), ends[passes]!];
}

/** One transform of 2^log2n points (a batch of 1), prepared as vc4asm's gpu_fft_prepare does. */
export function prepareVc4asmFft(dir: string, log2n: number): GpuFft {
  const plan = vc4asmPlan(log2n);
  const program = readShader(shaderFile(dir, log2n));
  const n = 2 ** log2n;
  const fftBytes = COMPLEX_BYTES * n;
  const tw = twiddles(log2n, false, plan, true);
  const bufferBytes = Math.ceil(fftBytes / GPU_FFT_ALIGN) * GPU_FFT_ALIGN;
  const unifWords = 4 + 2 * plan.passes;
  const bytes = [HEADER_BYTES + bufferBytes + fftBytes, program.length * WORD_BYTES, tw.data.length * WORD_BYTES, GPU_FFT_QPUS * unifWords * WORD_BYTES];
  const m = new Machine(new GpuMemory(bytes.reduce((s, b) => s + footprint(b), 0)), { ...PI_TIMING, systemCacheBytes: 0 });
  const area = m.memory.alloc(bytes[0]!, 'header, buffer and data');
  const loaded = m.load(program, `vc4asm's FFT ${n}`);
  const twid = m.memory.alloc(bytes[2]!, 'twiddles');
  m.memory.view(twid, Float32Array).set(tw.data);
  const [buffer, data] = [area.address + HEADER_BYTES, area.address + HEADER_BYTES + bufferBytes];
  const job = jobUniforms(plan.passes, data, buffer);
  const unif = m.memory.alloc(bytes[3]!, 'uniforms');
  const unifs = Array.from({ length: GPU_FFT_QPUS }, (_, q) => {
    const u = [twid.address, twid.address + COMPLEX_BYTES * BLOCK_COMPLEX * (tw.shared + q * tw.unique), q, ...job, 0];
    m.memory.view(unif, Int32Array).set(u, q * unifWords);
    return unif.address + WORD_BYTES * q * unifWords;
  });
  const floats = m.memory.view(area, Float32Array);
  const at = (address: number) => floats.subarray((address - area.address) / 4, (address - area.address) / 4 + 2 * n);
  return {
    log2n,
    input: at(data),
    output: at(job[job.length - 1]!),
    // Not strict, as Broadcom's (bench/gpu-fft.ts): a pass reads by TMU what the one before stored.
    execute: (warmCode = false) => m.run(loaded, unifs, { maxSteps: Infinity, strict: false, warmCode }),
  };
}
