// `npm run fuzz -- --count N --seed S`: differential testing from the command line. Program i
// is generated from seed S + i, run on the interpreter and (compiled) on the emulator; on the
// first disagreement the program is shrunk and printed with both results. Exit status 1 then.

import { DifferentialRunner, shrink } from '../runtime/differential.ts';
import { generate } from '../source/generate.ts';
import { printKernel } from '../source/print.ts';

interface FuzzArgs {
  count: number;
  seed: number;
  quiet: boolean;
}

const USAGE = `usage: npm run fuzz -- [--count N] [--seed S] [--quiet]

Generates N random programs (default 1000) from seeds S, S+1, ... (default S = 1), runs each on
the reference interpreter and compiled on the emulator, and compares their memory bit for bit.
On a mismatch it prints the smallest failing program it can find and both results.`;

function parse(argv: readonly string[]): FuzzArgs {
  const a: FuzzArgs = { count: 1000, seed: 1, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${k} needs a whole number, not '${argv[i] ?? ''}'\n${USAGE}`);
      return v;
    };
    if (k === '--count' || k === '-n') a.count = num();
    else if (k === '--seed' || k === '-s') a.seed = num();
    else if (k === '--quiet' || k === '-q') a.quiet = true;
    else if (k === '--help' || k === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown option '${k}'\n${USAGE}`);
  }
  return a;
}

export function fuzz(args: FuzzArgs, log: (s: string) => void = console.log): number {
  const runner = new DifferentialRunner();
  const t0 = performance.now();
  for (let i = 0; i < args.count; i++) {
    const seed = args.seed + i;
    const p = generate(seed);
    const r = runner.run(p);
    if (r.kind === 'agree') {
      if (!args.quiet && (i + 1) % 1000 === 0) log(`${i + 1} programs agree (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      continue;
    }
    if (r.kind === 'invalid') {
      log(`seed ${seed}: the generator made a program the interpreter rejects (a generator bug):\n${r.error}\n\n${printKernel(p.ast)}`);
      return 1;
    }
    log(`seed ${seed}: interpreter and emulator disagree (${p.qpus} QPU${p.qpus > 1 ? 's' : ''}); shrinking...`);
    const small = shrink(p.ast, (k) => runner.run(p, k).kind === 'mismatch', { keep: p.prologue });
    const again = runner.run(p, small);
    log(`\nsmallest failing program (seed ${seed}, ${p.qpus} QPUs, n = ${p.n}, x bits = 0x${(p.xBits >>> 0).toString(16)}):\n`);
    log(printKernel(small));
    log(again.kind === 'mismatch' ? again.detail : r.detail);
    return 1;
  }
  log(`${args.count} programs from seed ${args.seed}: interpreter and emulator agree on all (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = fuzz(parse(process.argv.slice(2)));
  } catch (e) {
    console.error((e as Error).message);
    process.exitCode = 2;
  }
}
