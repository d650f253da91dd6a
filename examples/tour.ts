// A tour of qpu-ts (`npm start`): runs every example in turn, QPULib's gcd, rot3D and heat, a
// Mandelbrot set and SHA-256, each compiled to VideoCore IV machine code, run on the emulator and
// checked against plain TypeScript; shows each result briefly with the Pi's estimated time (the
// cycle model) beside the emulator's wall time here, the pictures' paths, and a summary table.
// Run: npm start (or npx tsx examples/tour.ts [--quick])
import { main as edges } from './edges.ts';
import { main as gcd } from './gcd.ts';
import { main as heat } from './heat.ts';
import { type ExampleOptions, type ExampleResult, qpusText, runIfMain, seconds, SelfCheckError, since, table } from './lib/report.ts';
import { main as mandelbrot } from './mandelbrot.ts';
import { main as rot3d } from './rot3d.ts';
import { main as sha256 } from './sha256.ts';

interface Stop {
  readonly file: string;
  readonly title: string;
  readonly run: (opts: ExampleOptions) => Promise<ExampleResult>;
}

/** The tour's stops: normal sizes, or (quick) small ones that take a few seconds in all. */
export function stops(quick: boolean): Stop[] {
  return [
    { file: 'gcd.ts', title: "Euclid's algorithm on 16 pairs at once (QPULib's example 1, versions 1 and 2)", run: (o) => gcd(o) },
    {
      file: 'rot3d.ts',
      title: "A teapot turned about the z axis (QPULib's example 2, versions 1, 2 and 3)",
      run: (o) => rot3d({ ...o, ...(quick ? { vertices: 19_200 } : {}) }),
    },
    {
      file: 'heat.ts',
      title: "Heat spreading across a plate (QPULib's example 3)",
      run: (o) => heat({ ...o, ...(quick ? { size: 128, steps: 20 } : {}) }),
    },
    {
      file: 'mandelbrot.ts',
      title: 'The Mandelbrot set, rows dealt out to 1 to 12 QPUs',
      run: (o) => mandelbrot({ ...o, ...(quick ? { width: 256, height: 192, iterations: 64 } : {}) }),
    },
    {
      file: 'edges.ts',
      title: 'Edges in an 8-bit picture: luminance bytes, a histogram, equalisation, a Sobel filter',
      run: (o) => edges({ ...o, ...(quick ? { size: 128, qpus: [1, 12] } : {}) }),
    },
    { file: 'sha256.ts', title: 'SHA-256, one message a lane (the "Hacking The GPU" series\' job)', run: (o) => sha256(o) },
  ];
}

export interface TourOptions extends ExampleOptions {
  /** Small sizes (the tests'). */
  readonly quick?: boolean;
}

/** Runs every stop, prints each result and a summary; returns the results and the failed checks. */
export async function tour(opts: TourOptions = {}): Promise<{ results: ExampleResult[]; failures: string[] }> {
  const log = opts.log ?? console.log;
  const start = performance.now();
  const all = stops(opts.quick ?? false);
  log('qpu-ts: kernels in TypeScript, compiled to VideoCore IV machine code and run on an emulator of');
  log("the Raspberry Pi's 12 QPUs. Each example checks its results against plain TypeScript, bit for");
  log("bit, and gives the Pi's time as the cycle model estimates it beside the emulator's time here.");
  const results: ExampleResult[] = [];
  const failures: string[] = [];
  for (const [i, stop] of all.entries()) {
    log('');
    log(`[${i + 1}/${all.length}] ${stop.title}: examples/${stop.file}`);
    try {
      // Small pictures go beside the full-size ones, not over them.
      const outDir = opts.outDir ?? (opts.quick ? 'out/quick' : undefined);
      results.push(await stop.run({ ...opts, outDir, brief: true, log: (line) => log(`    ${line}`) }));
    } catch (e) {
      if (!(e instanceof SelfCheckError)) throw e;
      failures.push(`${stop.file}: ${e.message}`);
      log(`    self-check FAILED: ${e.message}`);
    }
  }
  log('');
  for (const line of summary(results)) log(line);
  log('');
  log(`The tour took ${seconds(since(start))}. ${failures.length ? `${failures.length} self-check(s) FAILED.` : 'Every self-check passed.'}`);
  log('Run one example on its own: npx tsx examples/<name>.ts --help (sizes, steps, QPU counts).');
  log('Read more: docs/tutorial.md (from a first kernel to 12 QPUs), docs/qpu.md (how the QPU works),');
  log('docs/language.md (the language), docs/compiler.md, docs/emulator.md, docs/timing.md (the cycle');
  log('model and how it compares with published Pi timings). Your own program: npm run qpu -- run FILE.ts');
  return { results, failures };
}

/** The summary: each example's result, its headline run's Pi time and emulator time, its pictures. */
function summary(results: readonly ExampleResult[]): string[] {
  const rows = results.map((r) => [
    r.name,
    r.summary,
    `${seconds(r.headline.piSeconds)} (${r.headline.kernel}, ${qpusText(r.headline.qpus)})`,
    seconds(r.headline.wallSeconds),
    seconds(r.wallSeconds),
  ]);
  const lines = table(['example', 'result (checked)', 'Pi time (cycle model)', 'emulator (wall)', 'example in all'], rows);
  const pictures = results.flatMap((r) => r.pictures);
  if (pictures.length) lines.push('', `Pictures: ${pictures.join(', ')}`);
  return lines;
}

await runIfMain(
  import.meta.url,
  'npx tsx examples/tour.ts [--quick]: every example in turn (npm start); --quick: small sizes',
  { quick: { type: 'boolean' } },
  async (v) => {
    const { failures } = await tour({ quick: v.quick === true });
    if (failures.length) throw new SelfCheckError(failures.join('; '));
  },
);
