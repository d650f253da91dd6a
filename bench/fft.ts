// The FFT in qpu-ts's language (examples/fft.ts) against Broadcom's hand-written GPU_FFT
// (bench/gpu-fft.ts runs its shaders, unchanged, from where the user put them): per size, both
// modelled times on the same cycle model, their ratio, and both errors as hello_fft measures
// them (its signal, 0.5 at points 1 and N - 1, against the exact cosine). The goal (issue 27):
// ours at most GPU_FFT's time at every size, with no larger error.
//
//   npm run bench:fft -- [--gpu-fft DIR] [--sizes 8,9,...] [--qpus 12] [--json out.json]
//
// Without --gpu-fft only our figures are printed. Ours run each pass as a kernel run (a pass
// reads the one before through the TMUs, which within one run the language forbids: its caches
// may hold what a store changed); the time is the passes' sum.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { oneQpuCount, runFft, sizeList } from '../examples/fft.ts';
import { BadInput, outputFile, runBenchMain } from './cli.ts';
import { checkGpuFftDir, GPU_FFT_QPUS, runGpuFft } from './gpu-fft.ts';

/** The sizes run unless --sizes says otherwise (log2 of the points). */
const DEFAULT_SIZES = '8,9,10,11,12,13,14,15,16';
const USAGE = `usage: npm run bench:fft -- [--gpu-fft DIR] [--sizes ${DEFAULT_SIZES}] [--qpus 12] [--json out.json]`;

interface Row {
  log2n: number;
  ours: { piSeconds: number; instructions: number; passes: number; helloRms: number; randomRms: number };
  gpuFft?: { piSeconds: number; instructions: number; relRms: number };
  /** Our time over GPU_FFT's (below 1: ours is faster). */
  ratio?: number;
}

function options(argv: string[]): { dir?: string; sizes: number[]; qpus: number; json?: string } {
  let v: { 'gpu-fft'?: string; sizes?: string; qpus?: string; json?: string };
  try {
    v = parseArgs({ args: argv, options: { 'gpu-fft': { type: 'string' }, sizes: { type: 'string' }, qpus: { type: 'string' }, json: { type: 'string' } } }).values;
  } catch (e) {
    throw new BadInput(`${(e as Error).message}; ${USAGE}`);
  }
  let sizes: number[];
  try {
    sizes = sizeList(v.sizes ?? DEFAULT_SIZES, '--sizes');
  } catch (e) {
    throw new BadInput((e as Error).message);
  }
  let qpus = 12;
  try {
    if (v.qpus !== undefined) qpus = oneQpuCount(v.qpus);
  } catch (e) {
    throw new BadInput((e as Error).message);
  }
  const dir = v['gpu-fft'];
  if (dir !== undefined) checkGpuFftDir(`--gpu-fft ${dir}`, dir, sizes);
  outputFile('--json', v.json);
  return { dir, sizes, qpus, json: v.json };
}

const time = (s: number) => (s < 1e-3 ? `${(s * 1e6).toFixed(1)} us` : `${(s * 1e3).toFixed(3)} ms`);
const sci = (x: number) => x.toExponential(2);

async function main(argv: string[]): Promise<void> {
  const { dir, sizes, qpus, json } = options(argv);
  console.log(`FFT of N complex float32 points in the cycle model: examples/fft.ts on ${qpus} QPUs, a kernel run a pass (host launches not counted)${dir ? `, against GPU_FFT on its ${GPU_FFT_QPUS} QPUs in one run` : ''}`);
  console.log(`| log2 N | passes | ours, ${qpus} QPUs | ${dir ? `GPU_FFT, ${GPU_FFT_QPUS} QPUs | ours / GPU_FFT | ` : ''}error, ours (hello_fft) | ${dir ? 'error, GPU_FFT | ' : ''}error, ours (random vs float64) |`);
  console.log(`|---:|---:|---:|${dir ? '---:|---:|' : ''}---:|${dir ? '---:|' : ''}---:|`);
  const rows: Row[] = [];
  for (const log2n of sizes) {
    const r = await runFft(log2n, qpus);
    const row: Row = { log2n, ours: { piSeconds: r.piSeconds, instructions: r.instructions, passes: r.passes.length, helloRms: r.helloRms, randomRms: r.randomRms } };
    if (dir) {
      const g = runGpuFft(dir, log2n);
      row.gpuFft = { piSeconds: g.piSeconds, instructions: g.instructions, relRms: g.relRms };
      row.ratio = r.piSeconds / g.piSeconds;
    }
    rows.push(row);
    const theirs = row.gpuFft ? `${time(row.gpuFft.piSeconds)} | ${row.ratio!.toFixed(2)} | ` : '';
    console.log(`| ${log2n} | ${row.ours.passes} | ${time(r.piSeconds)} | ${theirs}${sci(r.helloRms)} | ${row.gpuFft ? `${sci(row.gpuFft.relRms)} | ` : ''}${sci(r.randomRms)} |`);
  }
  if (!json) return;
  try {
    writeFileSync(json, JSON.stringify({ qpus, rows }, null, 2) + '\n');
  } catch (e) {
    throw new BadInput(`cannot write ${json}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

await runBenchMain(import.meta.url, main);
