// Emulator speed: emulated QPU instructions per second of wall time, strict mode on, on three
// hand-written kernels (examples/asm: mandel, ALU only; vadd, TMU/VPM/DMA; bench/packs.qasm,
// the pack and unpack paths) and on the seed
// kernels compiled at -O2, beside QPULib's emulator on the same kernels (docs/comparisons.md).
// Each case: its first run (translation and JIT included), then REPS warm runs (short ones repeat
// for half a second in all), best and median.
// Run: npm run bench:emu [-- --json out.json] [-- --only NAME]     (REPS=7 by default)
import { readFileSync, writeFileSync } from 'node:fs';
import { compile } from '../src/compiler/driver.ts';
import { launch, parseUniforms } from '../src/emulator/launch.ts';
import { Machine } from '../src/emulator/machine.ts';
import { type Allocation, GpuMemory } from '../src/common/memory.ts';
import { formatSeconds } from '../src/emulator/report.ts';
import { emulatorTarget } from '../src/runtime/kernel.ts';
import { assemble } from '../src/vc4/asm/assembler.ts';
import { machineArgs, QPULIB, SEED_CASES, strictFor } from './seeds.ts';

const asm = (name: string) => assemble(readFileSync(new URL(`../examples/asm/${name}.qasm`, import.meta.url), 'utf8')).words;

interface Case {
  name: string;
  qpus: number;
  /** Prepares a run and returns it: calling it runs the kernel once, giving instructions executed and emulated cycles. */
  prepare(): () => { instructions: number; cycles: number };
  qpulib?: { opsPerSec: number; runSeconds: number };
}

interface Record_ {
  name: string;
  qpus: number;
  instructions: number;
  cycles: number;
  coldSeconds: number;
  bestSeconds: number;
  medianSeconds: number;
  /** Emulated instructions (all QPUs) a second of wall time, at the best and the median run. */
  best: number;
  median: number;
  qpulibOpsPerSec?: number;
  qpulibRunSeconds?: number;
}

/** A hand-written program run through launch(), as `qpu emu` runs it. */
function asmCase(name: string, qpus: number, words: Uint32Array, setup: (m: Machine) => { uniforms: string[]; buffers: Map<string, Allocation> }): Case {
  return {
    name: `${name}, ${qpus} QPU${qpus > 1 ? 's' : ''}`,
    qpus,
    prepare() {
      const m = new Machine(new GpuMemory());
      const program = m.load(words);
      const { uniforms, buffers } = setup(m);
      return () => {
        const r = launch(m, { program, qpus, uniforms: uniforms.map(parseUniforms), buffers });
        return { instructions: r.total.instructions, cycles: r.cycles };
      };
    },
  };
}

const vectors = 20000;
const cases: Case[] = [];
for (const qpus of [1, 12]) {
  cases.push(
    asmCase('mandel (ALU only)', qpus, asm('mandel'), (m) => {
      const out = m.memory.alloc(64 * qpus, 'out');
      const uniforms = Array.from({ length: qpus }, (_, q) => `-2.0,0.1875,${(q / 12 - 0.5).toFixed(3)},${(200000 / qpus) | 0},${out.address + 64 * q},${q}`);
      return { uniforms, buffers: new Map([['out', out]]) };
    }),
  );
  cases.push(
    asmCase('vadd (TMU, VPM, DMA)', qpus, asm('vadd'), (m) => {
      const per = Math.floor(vectors / qpus);
      const [a, b, out] = ['a', 'b', 'out'].map((n) => m.memory.alloc(vectors * 64, n));
      const uniforms = Array.from({ length: qpus }, (_, q) => [a!, b!, out!].map((x) => x.address + q * per * 64).join(',') + `,${per},${q}`);
      return { uniforms, buffers: new Map([['a', a!], ['b', b!], ['out', out!]]) };
    }),
  );
}
// Packs and unpacks (bench/packs.qasm): under tsx a closure made at each pack cost 200 times.
cases.push(
  asmCase('packs and unpacks', 1, assemble(readFileSync(new URL('./packs.qasm', import.meta.url), 'utf8')).words, () => ({
    uniforms: [''],
    buffers: new Map(),
  })),
);
// The seed kernels, run as a user runs them (the emulator target: argument set-up, isolation).
// rot3D v1/v2 on several QPUs race by design and run without strict checks; they are left out.
for (const c of SEED_CASES.filter(strictFor)) {
  cases.push({
    name: `${c.kernel}, ${c.qpus} QPU${c.qpus > 1 ? 's' : ''}`,
    qpus: c.qpus,
    qpulib: QPULIB[c.kernel]?.emulator?.[c.qpus],
    prepare() {
      const compiled = compile(c.ast, { qpus: c.qpus });
      const target = emulatorTarget();
      const [args, arrays] = machineArgs(c.args());
      return () => {
        const r = target.run(compiled, args, arrays);
        return { instructions: r.total.instructions, cycles: r.cycles };
      };
    },
  });
}

/** Short runs repeat until they have taken this long in all, so that V8 has compiled them as it would a kernel called often. */
const MIN_TOTAL_SECONDS = 0.5;
const MAX_REPS = 5000;

function measure(c: Case, reps: number): Record_ {
  const run = c.prepare();
  let t = performance.now();
  const first = run();
  const coldSeconds = (performance.now() - t) / 1000;
  const times: number[] = [];
  let total = 0;
  for (let rep = 0; rep < reps || (total < MIN_TOTAL_SECONDS && rep < MAX_REPS); rep++) {
    t = performance.now();
    const r = run();
    const dt = (performance.now() - t) / 1000;
    times.push(dt);
    total += dt;
    if (r.instructions !== first.instructions || r.cycles !== first.cycles) throw new Error(`${c.name}: a run differs from the first`);
  }
  times.sort((a, b) => a - b);
  const best = times[0]!;
  const median = times[times.length >> 1]!;
  return {
    name: c.name,
    qpus: c.qpus,
    instructions: first.instructions,
    cycles: first.cycles,
    coldSeconds,
    bestSeconds: best,
    medianSeconds: median,
    best: first.instructions / best,
    median: first.instructions / median,
    qpulibOpsPerSec: c.qpulib?.opsPerSec,
    qpulibRunSeconds: c.qpulib?.runSeconds,
  };
}

function main(argv: string[]): void {
  const reps = Number(process.env.REPS ?? 7);
  const opt = (name: string) => {
    const i = argv.indexOf(name);
    if (i >= 0 && !argv[i + 1]) throw new Error(`${name} needs a value`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const jsonFile = opt('--json');
  const only = opt('--only');
  console.log(`emulated QPU instructions per second (all QPUs), strict mode on: the first run, then best and median of ${reps} or more warm runs (half a second at least)`);
  console.log("QPULib: its emulator built with -O2 on this kind of machine, operations a second and whole warm run (docs/comparisons.md)\n");
  const head = ['kernel', 'instructions', 'first run', 'best', 'median', 'M/s best', 'M/s median', 'QPULib M/s', 'run vs QPULib'];
  const widths = [32, 12, 10, 10, 10, 9, 10, 10, 13];
  const row = (cells: string[]) => console.log(cells.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join(' '));
  row(head);
  const records: Record_[] = [];
  for (const c of cases) {
    if (only && !c.name.includes(only)) continue;
    const r = measure(c, reps);
    records.push(r);
    row([
      r.name,
      r.instructions.toLocaleString('en'),
      formatSeconds(r.coldSeconds),
      formatSeconds(r.bestSeconds),
      formatSeconds(r.medianSeconds),
      (r.best / 1e6).toFixed(1),
      (r.median / 1e6).toFixed(1),
      r.qpulibOpsPerSec ? (r.qpulibOpsPerSec / 1e6).toFixed(0) : '-',
      r.qpulibRunSeconds ? `${(r.bestSeconds / r.qpulibRunSeconds).toFixed(2)}x` : '-',
    ]);
  }
  console.log('\nrun vs QPULib: our best warm run over QPULib\'s whole warm run (below 1: faster).');
  if (jsonFile) {
    writeFileSync(jsonFile, JSON.stringify(records, null, 2) + '\n');
    console.log(`wrote ${records.length} records to ${jsonFile}`);
  }
}

main(process.argv.slice(2));
