// The seed kernels compiled and run on the emulator: static size, instructions executed per QPU
// (delay slots included), emulated cycles and the Pi time they stand for, compile time, and the
// emulator's own speed; beside each, QPULib's figures from docs/comparisons.md (for sha256, the
// SHA-256 series' hand-written kernel's).
// Then what bounds each run, as the profiler says it (one more run of each, profiled).
// Run: npm run bench            (a table)
//      npm run bench -- --json out.json   (also one record per kernel and QPU count)
import { writeFileSync } from 'node:fs';
import { sha256Unrolled } from '../examples/sha256.ts';
import { compile } from '../src/compiler/driver.ts';
import { formatSeconds } from '../src/emulator/report.ts';
import { emulatorTarget } from '../src/runtime/kernel.ts';
import { machineArgs, QPULIB, type SeedCase, SEED_CASES, strictFor } from './seeds.ts';
import { Profiler } from '../src/emulator/profile.ts';
import { kernelProfile } from '../src/runtime/profile.ts';

/** QPULib's emulator, built with -O2, on this kind of machine (docs/comparisons.md). */
const QPULIB_EMULATOR = '35-48 M/s';

export interface Record_ {
  kernel: string;
  qpus: number;
  static: number;
  /** At -O2 (the default); executedByLevel has every level. */
  executedPerQpu: number;
  executedByLevel: Record<number, number>;
  /** Stall cycles by cause, summed over the QPUs (emulator/qpu.ts). */
  stalls: Record<string, number>;
  cycles: number;
  estimatedPiSeconds: number;
  /** sha256's run with its code in the instruction caches, as a later job's of a batch or a later pass's in one launch (a host clears them before each launch). */
  warmPiSeconds?: number;
  /** Compile time once warm: the best and the median of COMPILES fresh compilations. */
  compileMs: number;
  compileMedianMs: number;
  /** The first run of the compiled code (translation and JIT warm-up included). */
  emulatorColdSeconds: number;
  emulatorWallSeconds: number;
  emulatorInstrPerSec: number;
  qpulibStatic?: number;
  qpulibExecutedPerQpu?: number;
  /** Measured on a Pi (QPULib's README), against our estimatedPiSeconds. */
  qpulibPiSeconds?: number;
  qpulibCompileMs?: number;
  /** What bounds the run, as the profiler's verdict says it (runtime/verdict.ts). */
  bound: string;
  boundText: string;
}

/** Compile-time samples per case, once warm: each the mean of a batch lasting BATCH_MS or more. */
const COMPILES = 11;
const WARM_COMPILES = 30;
const BATCH_MS = 20;
/** Issue 27's goal for compile time: microseconds an emitted instruction, once warm. */
const COMPILE_GOAL_US = 10;

/**
 * Compile time, sorted: once the JIT is warm, samples that each average a batch of fresh
 * compilations (one compilation of a millisecond is at the mercy of a garbage collection).
 * Every case's is measured before anything runs, so the emulator's heap weighs on none.
 */
function compileTimes(c: SeedCase): number[] {
  const w0 = performance.now();
  for (let i = 0; i < WARM_COMPILES; i++) compile(c.ast, { qpus: c.qpus });
  const batch = Math.max(1, Math.ceil(BATCH_MS / ((performance.now() - w0) / WARM_COMPILES)));
  const times: number[] = [];
  for (let i = 0; i < COMPILES; i++) {
    const t = performance.now();
    for (let j = 0; j < batch; j++) compile(c.ast, { qpus: c.qpus });
    times.push((performance.now() - t) / batch);
  }
  return times.sort((a, b) => a - b);
}

function measure(c: SeedCase, times: readonly number[]): Record_ {
  const compiled = compile(c.ast, { qpus: c.qpus });
  const target = emulatorTarget();
  // The first run translates the code and V8 compiles the translation as it runs: what a kernel
  // run once costs. Later runs reuse both.
  const cold0 = performance.now();
  const strict = strictFor(c);
  target.run(compiled, ...machineArgs(c.args()), { strict });
  const cold = (performance.now() - cold0) / 1000;
  const [args, arrays] = machineArgs(c.args());
  const t = performance.now();
  const r = target.run(compiled, args, arrays, { strict });
  const wall = (performance.now() - t) / 1000;
  // Only sha256's on 12 QPUs is set beside a rate over many passes of one launch (the series').
  const warm = c.kernel === 'sha256' && c.qpus === 12 ? target.run(compiled, ...machineArgs(c.args()), { strict, warmCode: true }) : undefined;
  const executed = Math.max(...r.qpus.map((q) => q.instructions));
  // The other optimization levels: instructions executed only.
  const executedByLevel: Record<number, number> = { 2: executed };
  for (const opt of [0, 1] as const) {
    const lower = target.run(compile(c.ast, { qpus: c.qpus, opt }), ...machineArgs(c.args()), { strict });
    executedByLevel[opt] = Math.max(...lower.qpus.map((q) => q.instructions));
  }
  // Once more with the profiler, for its verdict on what bounds the run.
  const profiler = new Profiler(compiled.instrs.length);
  const profiled = target.run(compiled, ...machineArgs(c.args()), { strict, profile: profiler, maxSteps: Infinity });
  const { verdict } = kernelProfile(c.ast, compiled, profiled);
  const q = QPULIB[c.kernel];
  return {
    bound: verdict.bound,
    boundText: verdict.text,
    kernel: c.kernel,
    qpus: c.qpus,
    static: compiled.instrs.length,
    executedPerQpu: executed,
    executedByLevel,
    stalls: { ...r.total.stalls },
    cycles: r.cycles,
    estimatedPiSeconds: r.seconds,
    warmPiSeconds: warm?.seconds,
    compileMs: Number(times[0]!.toFixed(3)),
    compileMedianMs: Number(times[COMPILES >> 1]!.toFixed(3)),
    emulatorColdSeconds: Number(cold.toFixed(4)),
    emulatorWallSeconds: Number(wall.toFixed(4)),
    emulatorInstrPerSec: Math.round(r.total.instructions / wall),
    qpulibStatic: q?.static,
    qpulibExecutedPerQpu: q?.executed[c.qpus],
    qpulibPiSeconds: q?.piSeconds?.[c.qpus],
    qpulibCompileMs: q?.compileMs,
  };
}

const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}x` : '-');

/** Heat on more QPUs: emulated cycles against one QPU's, and where the QPUs wait. */
function scaling(records: readonly Record_[]): void {
  const heat = records.filter((r) => r.kernel === 'heat');
  const one = heat.find((r) => r.qpus === 1)!;
  console.log('\nheat: what stops the scaling (stall cycles per QPU, by cause)');
  for (const r of heat) {
    const stalls = Object.entries(r.stalls)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${Math.round(n / r.qpus).toLocaleString('en')}`)
      .join(', ');
    console.log(`  ${r.qpus} QPU${r.qpus > 1 ? 's' : ' '}: ${r.cycles.toLocaleString('en').padStart(10)} cycles, ${(r.cycles / one.cycles).toFixed(2)} of 1 QPU's; stalls: ${stalls || 'none'}`);
  }
  const four = heat.find((r) => r.qpus === 4)!;
  const dma = four.stalls.dma! / four.qpus;
  if (dma > four.cycles / 4)
    console.log(
      `  On 4 QPUs each QPU waits ${Math.round((100 * dma) / four.cycles)}% of its cycles for DMA: every output vector is its own DMA store, and the one\n` +
        '  VPM-to-memory engine that all QPUs share (emulator/timing.ts) does them one after another; the stores, not the\n' +
        '  QPUs, set the time from 4 QPUs up (QPULib measured 0.41 of 1 QPU\'s time on 4 QPUs on a Pi, for the same reason).',
    );
}

/** What bounds each kernel's run: the profiler's verdict (docs/debugging.md). */
function bounds(records: readonly Record_[]): void {
  console.log('\nwhat bounds each run (the profiler\'s verdict, `qpu run --profile`)');
  for (const r of records) console.log(`  ${`${r.kernel} on ${r.qpus}`.padEnd(14)} ${r.boundText.split('\n')[0]}`);
}

/** Issues 11's and 27's goals for the seed kernels, each with the figure measured here. */
function goals(records: readonly Record_[], long: LongCompile): void {
  const find = (k: string, q = 1) => records.find((r) => r.kernel === k && r.qpus === q)!;
  console.log('\ngoals (-O2)');
  for (const r of records)
    if (r.qpulibExecutedPerQpu && r.kernel !== 'sha256')
      console.log(`  ${`${r.kernel} on ${r.qpus}`.padEnd(14)} executes ${(r.executedPerQpu / r.qpulibExecutedPerQpu).toFixed(2)} of QPULib's instructions (goal 0.5, aim 0.35)`);
  const v1 = find('rot3D v1');
  const v2 = find('rot3D v2');
  console.log(`  rot3D v1 takes ${(v1.cycles / v2.cycles).toFixed(2)} of v2's cycles (goal: within 1.10)`);
  const sha = find('sha256');
  console.log(`  sha256 executes ${sha.executedPerQpu.toLocaleString('en')} instructions per 16 hashes, ${(sha.executedPerQpu / 3575).toFixed(2)} of the hand-written kernel's 3,575 (aim 0.7)`);
  const sha12 = find('sha256', 12);
  // The series' 61.9 us is a rate over many passes of one launch, its code long in the caches:
  // set beside it our run with the code cached too; from cold, a launch also fetches its code.
  console.log(`  sha256 on 12 QPUs: ${formatSeconds(sha12.warmPiSeconds!)} for 192 hashes with its code cached, ${(sha12.warmPiSeconds! / sha12.qpulibPiSeconds!).toFixed(2)} of the hand-written kernel's ${formatSeconds(sha12.qpulibPiSeconds!)} a pass, a rate over many passes (goal at most 1); from cold caches ${formatSeconds(sha12.estimatedPiSeconds)}`);
  console.log(`  heat on 4 QPUs takes ${(find('heat', 4).cycles / find('heat', 1).cycles).toFixed(2)} of 1 QPU's cycles (goal 0.3)`);
  const medians = records.filter((r) => r.qpus === 1).map((r) => `${r.kernel} ${r.compileMedianMs.toFixed(1)}`);
  console.log(`  compile, median ms once warm (goal under 2): ${medians.join(', ')}`);
  console.log(`  compile, sha256 with its 64 rounds unrolled on 12 QPUs (${long.static.toLocaleString('en')} instructions): ${long.best.toFixed(1)} us an instruction at best, ${long.median.toFixed(1)} median (goal at most ${COMPILE_GOAL_US})`);
}

/** Compile time an instruction of a long kernel: SHA-256 with its rounds unrolled (examples/sha256.ts), on 12 QPUs. */
interface LongCompile {
  readonly static: number;
  /** Microseconds an instruction, the best and median sample. */
  readonly best: number;
  readonly median: number;
}

function longKernelCompile(): LongCompile {
  const c: SeedCase = { kernel: 'sha256 unrolled', qpus: 12, ast: sha256Unrolled.ast, args: () => [] };
  const times = compileTimes(c);
  const n = compile(c.ast, { qpus: c.qpus }).instrs.length;
  return { static: n, best: (times[0]! * 1000) / n, median: (times[COMPILES >> 1]! * 1000) / n };
}

function main(argv: string[]): void {
  const j = argv.indexOf('--json');
  const jsonFile = j >= 0 ? argv[j + 1] : undefined;
  if (j >= 0 && !jsonFile) throw new Error('--json needs a file name');
  console.log('seed kernels compiled by qpu-ts, run on the emulator (strict mode, except rot3D v1/v2 on several QPUs, whose QPUs race); QPULib figures from docs/comparisons.md');
  console.log('rot3D on 192,000 vertices (v1 and v2 are single-QPU kernels: on more QPUs each QPU does all the work);');
  console.log('heat: one step on the 496x504 grid, pitch 512. "vs QPULib" is ours divided by theirs (below 1 is better).\n');
  console.log('Pi time: ours estimated by the cycle model, QPULib\'s measured on a Pi (its README).');
  console.log('emu 1st: the first run (translation and JIT warm-up); emu wall and M/s: a later run.\n');
  console.log('executed -O0/-O1/-O2: instructions executed per QPU at each level (-O2, the default, is compared); compile: once warm, the best and median of 11 samples, each the mean of a batch of compilations lasting 20 ms or more.\n');
  const head = ['kernel', 'QPUs', 'static', 'QPULib', 'vs', 'exec -O0', 'exec -O1', 'exec -O2', 'QPULib', 'vs', 'cycles', 'Pi time', 'QPULib', 'vs', 'compile ms', 'QPULib', 'emu 1st', 'emu wall', 'emu M/s'];
  const widths = [9, 4, 6, 6, 6, 11, 11, 11, 10, 6, 10, 9, 9, 6, 11, 7, 8, 9, 7];
  const row = (cells: string[]) => console.log(cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' '));
  row(head);
  const records: Record_[] = [];
  // The compiler's code warms on every case first (the first case measured would pay for it).
  for (let i = 0; i < WARM_COMPILES; i++) for (const c of SEED_CASES) compile(c.ast, { qpus: c.qpus });
  const times = SEED_CASES.map(compileTimes);
  const long = longKernelCompile();
  for (const [k, c] of SEED_CASES.entries()) {
    const r = measure(c, times[k]!);
    records.push(r);
    row([
      r.kernel,
      String(r.qpus),
      String(r.static),
      r.qpulibStatic === undefined ? '-' : String(r.qpulibStatic),
      ratio(r.static, r.qpulibStatic),
      r.executedByLevel[0]!.toLocaleString('en'),
      r.executedByLevel[1]!.toLocaleString('en'),
      r.executedPerQpu.toLocaleString('en'),
      r.qpulibExecutedPerQpu === undefined ? '-' : r.qpulibExecutedPerQpu.toLocaleString('en'),
      ratio(r.executedPerQpu, r.qpulibExecutedPerQpu),
      r.cycles.toLocaleString('en'),
      formatSeconds(r.estimatedPiSeconds),
      r.qpulibPiSeconds === undefined ? '-' : formatSeconds(r.qpulibPiSeconds),
      ratio(r.estimatedPiSeconds, r.qpulibPiSeconds),
      `${r.compileMs.toFixed(1)}/${r.compileMedianMs.toFixed(1)}`,
      r.qpulibCompileMs === undefined ? '-' : `${r.qpulibCompileMs} ms`,
      `${(r.emulatorColdSeconds * 1000).toFixed(0)} ms`,
      `${(r.emulatorWallSeconds * 1000).toFixed(0)} ms`,
      (r.emulatorInstrPerSec / 1e6).toFixed(1),
    ]);
  }
  console.log(`\nQPULib's emulator, built with -O2, runs its IR at ${QPULIB_EMULATOR} on this kind of machine.`);
  scaling(records);
  bounds(records);
  goals(records, long);
  if (jsonFile) {
    writeFileSync(jsonFile, JSON.stringify(records, null, 2) + '\n');
    console.log(`\nwrote ${records.length} records to ${jsonFile}`);
  }
}

main(process.argv.slice(2));
