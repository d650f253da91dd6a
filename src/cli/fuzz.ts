// `npm run fuzz -- --count N --seed S [--jobs J]`: differential testing from the command line.
// Program i is generated from seed S + i, run on the interpreter and (compiled) on the emulator;
// on the first disagreement the program is shrunk and printed with both results, and the exit
// status is 1. With --jobs, J worker threads share the seeds (worker k takes S + k, S + k + J, ...).

import { availableParallelism } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { DifferentialRunner, INTERLEAVE_EVERY, interleaveFor, shrink } from '../runtime/differential.ts';
import { generate, type GeneratorOptions } from '../source/generate.ts';
import { printKernel } from '../source/print.ts';
import { CliError, parseCount, sfuMode } from './io.ts';
import type { SfuMode } from '../vc4/sfu-model.ts';
import { type ProgressBar, progressBar } from '../runtime/progress.ts';
import type { OptLevel } from '../compiler/driver.ts';
import { setSimd, type SimdMode } from '../emulator/program.ts';

interface FuzzArgs {
  count: number;
  seed: number;
  quiet: boolean;
  jobs: number;
  /** Report every failing seed (without shrinking) instead of stopping at the first. */
  keepGoing?: boolean;
  /** What the programs are like (--vars, --qpus). */
  gen?: GeneratorOptions;
  /** The compiler's optimization level (-O, default 2). */
  opt?: OptLevel;
  /** When the emulator runs lane arithmetic as WebAssembly SIMD (--simd, default hot). */
  simd?: SimdMode;
  /** One program in this many runs its QPUs in random interleavings on both targets (--interleave; 0: none). */
  interleave?: number;
  /** Both targets' SFU mode (--sfu, default exact). */
  sfu?: SfuMode;
}

const USAGE = `usage: npm run fuzz -- [--count N] [--seed S] [--jobs J] [--keep-going] [--quiet]
                        [--vars V] [--qpus LIST] [-O LEVEL] [--simd MODE] [--interleave K]
                        [--sfu MODE]

Generates N random programs (default 1000) from seeds S, S+1, ... (default S = 1), runs each on
the reference interpreter and compiled on the emulator, and compares their memory bit for bit.
On a mismatch it prints the smallest failing program it can find and both results.
--jobs J runs J worker threads (default 1; 0 means one per CPU). --keep-going lists every
failing seed with its first difference instead of stopping to shrink the first.
--vars V gives each program V int and V float variables (default 4 to 9 of each; 20 and more
make the compiler spill), --qpus LIST the QPU counts to choose among (e.g. 1,2,4; default
1, 2, 3, 4 or 12), -O LEVEL the compiler's optimization level (0-2, default 2), --simd MODE
when the emulator runs lane arithmetic as WebAssembly SIMD: hot (the default: blocks entered 32
times), always, or off (docs/emulator.md), --interleave K: every K-th seed (those divisible
by K; default ${INTERLEAVE_EVERY}, 0 for none, 1 for all) runs its QPUs in a random interleaving
drawn from the seed, on both targets (docs/language.md, "Random interleavings"), --sfu MODE
both targets' SFU: exact (the default) or chip (off as a chip's is). The same seed
with the same options makes the same program. Numbers are
decimal digits only. Exit status: 0 all agree, 1 a disagreement, 2 a wrong command line.`;

function parse(argv: readonly string[]): FuzzArgs {
  const a: FuzzArgs = { count: 1000, seed: 1, quiet: false, jobs: 1 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new CliError(`${k} needs a value`);
      return v;
    };
    // Counts as every qpu subcommand takes them (io.ts): decimal digits only.
    const num = (max = Number.MAX_SAFE_INTEGER) => parseCount(value(), 0, 0, max, k);
    if (k === '--count' || k === '-n') a.count = num();
    else if (k === '--seed' || k === '-s') a.seed = num();
    else if (k === '--quiet' || k === '-q') a.quiet = true;
    else if (k === '--keep-going' || k === '-k') a.keepGoing = true;
    else if (k === '--jobs' || k === '-j') a.jobs = num(1024) || availableParallelism();
    else if (k === '--vars') a.gen = { ...a.gen, vars: num(10_000) };
    else if (k === '-O' || k === '--opt') a.opt = num(2) as OptLevel;
    else if (k === '--interleave') a.interleave = num(1_000_000);
    else if (k === '--sfu') a.sfu = sfuMode(value());
    else if (k === '--simd') {
      const m = value();
      if (m !== 'hot' && m !== 'always' && m !== 'off') throw new CliError(`--simd ${m}: expected hot, always or off`);
      a.simd = m;
    }
    else if (k === '--qpus') {
      const text = value();
      const list = text.split(',').map((q) => parseCount(q, 0, 1, 12, `--qpus ${text}: QPU count`));
      a.gen = { ...a.gen, qpus: list };
    } else if (k === '--help' || k === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new CliError(`unknown option '${k}'`);
  }
  return a;
}

/** Programs a worker runs between progress messages. */
const PROGRESS_EVERY = 10;

/**
 * A progress bar over the programs on a terminal (then the every-1000 lines are left out); none
 * with --keep-going, whose reports of failures would end it early.
 */
function fuzzBar(args: FuzzArgs): ProgressBar {
  return args.quiet || args.keepGoing ? { update() {}, stop() {}, shown: false } : progressBar('fuzz', args.count, { unit: 'programs agree' });
}

/**
 * Runs seeds seed, seed + stride, ... (count of them); returns 0, or 1 after printing a failure.
 * `bar` shows the progress (stopped before anything else is printed).
 */
export function fuzz(args: FuzzArgs, out: (s: string) => void = console.log, stride = 1, runner = new DifferentialRunner(args.opt, args.sfu), bar?: ProgressBar): number {
  const t0 = performance.now();
  let failures = 0;
  const log = (text: string) => (bar?.stop(), out(text));
  for (let i = 0; i < args.count; i++) {
    const seed = args.seed + i * stride;
    const p = generate(seed, args.gen);
    const interleave = interleaveFor(seed, args.interleave);
    const r = runner.run(p, p.ast, interleave);
    if (r.kind === 'agree') {
      bar?.update(i + 1);
      if (!args.quiet && !bar?.shown && (i + 1) % 1000 === 0) log(`${i + 1} programs agree (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      continue;
    }
    if (args.keepGoing) {
      failures++;
      log(`seed ${seed} (${p.qpus} QPUs${interleave === undefined ? '' : ', interleaved'}): ${r.kind === 'invalid' ? `invalid program: ${r.error}` : r.detail.split('\n').slice(0, 2).join(' ')}`);
      continue;
    }
    if (r.kind === 'invalid') {
      log(`seed ${seed}: the generator made a program the interpreter rejects (a generator bug):\n${r.error}\n\n${printKernel(p.ast)}`);
      return 1;
    }
    const order = interleave === undefined ? '' : `, QPUs in a random interleaving from seed ${interleave}`;
    log(`seed ${seed}: interpreter and emulator disagree (${p.qpus} QPU${p.qpus > 1 ? 's' : ''}${order}); shrinking...`);
    const small = shrink(p.ast, (k) => runner.run(p, k, interleave).kind === 'mismatch', { keep: p.prologue });
    const again = runner.run(p, small, interleave);
    log(`\nsmallest failing program (seed ${seed}, ${p.qpus} QPUs${order}, n = ${p.n}, x bits = 0x${(p.xBits >>> 0).toString(16)}):\n`);
    log(printKernel(small));
    log(again.kind === 'mismatch' ? again.detail : r.detail);
    return 1;
  }
  bar?.stop();
  if (failures) {
    log(`${failures} of ${args.count} programs from seed ${args.seed} failed`);
    return 1;
  }
  if (!args.quiet) log(`${args.count} programs from seed ${args.seed}: interpreter and emulator agree on all (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return 0;
}

/** Shares the seeds among worker threads; the first failure stops them all. */
async function fuzzParallel(args: FuzzArgs): Promise<number> {
  const t0 = performance.now();
  let done = 0;
  let failed = false;
  const bar = fuzzBar(args);
  const workers = Array.from({ length: args.jobs }, (_, k) => {
    const count = Math.floor(args.count / args.jobs) + (k < args.count % args.jobs ? 1 : 0);
    // From the sources a worker registers tsx first (tsx-worker.mjs); built, it runs this file.
    const entry = import.meta.url.endsWith('.ts') ? new URL('./tsx-worker.mjs', import.meta.url) : new URL(import.meta.url);
    return new Worker(entry, {
      workerData: { module: import.meta.url, seed: args.seed + k, count, stride: args.jobs, keepGoing: args.keepGoing ?? false, gen: args.gen, opt: args.opt, simd: args.simd, interleave: args.interleave, sfu: args.sfu },
    });
  });
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          w.on('message', (m: { kind: 'progress' } | { kind: 'log'; text: string } | { kind: 'done'; status: number }) => {
            if (m.kind === 'progress') {
              done += PROGRESS_EVERY;
              bar.update(done);
              if (!args.quiet && !bar.shown && done % 1000 === 0) console.log(`${done} programs agree (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
            } else if (m.kind === 'log') (bar.stop(), console.log(m.text));
            else {
              if (m.status !== 0 && !failed) {
                failed = true;
                if (!args.keepGoing) for (const o of workers) if (o !== w) void o.terminate();
              }
              resolve();
            }
          });
          w.on('error', (e) => {
            console.error(e);
            failed = true;
            resolve();
          });
          w.on('exit', () => resolve());
        }),
    ),
  );
  bar.stop();
  if (failed) return 1;
  console.log(`${args.count} programs from seed ${args.seed} on ${args.jobs} threads: interpreter and emulator agree on all (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return 0;
}

if (!isMainThread && parentPort && workerData) {
  const { seed, count, stride, keepGoing, gen, opt, simd, interleave, sfu } = workerData as {
    seed: number;
    count: number;
    stride: number;
    keepGoing: boolean;
    gen?: GeneratorOptions;
    opt?: OptLevel;
    simd?: SimdMode;
    interleave?: number;
    sfu?: SfuMode;
  };
  const port = parentPort;
  if (simd) setSimd(simd);
  const runner = new DifferentialRunner(opt, sfu);
  let status = 0;
  for (let i = 0; i < count && (status === 0 || keepGoing); i++) {
    const s = seed + i * stride;
    const log = (text: string) => port.postMessage({ kind: 'log', text });
    if (fuzz({ count: 1, seed: s, quiet: true, jobs: 1, keepGoing, gen, interleave }, (t) => !t.includes(' of 1 programs') && log(t), 1, runner) !== 0) status = 1;
    if ((i + 1) % PROGRESS_EVERY === 0) port.postMessage({ kind: 'progress' });
  }
  port.postMessage({ kind: 'done', status });
} else if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const args = parse(process.argv.slice(2));
    if (args.simd) setSimd(args.simd);
    process.exitCode = args.jobs > 1 ? await fuzzParallel(args) : fuzz(args, console.log, 1, new DifferentialRunner(args.opt, args.sfu), fuzzBar(args));
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    console.error(`fuzz: ${e.message}\n\n${USAGE}`);
    process.exitCode = 2;
  }
}
