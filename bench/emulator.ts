// Emulator speed: emulated QPU instructions per second of wall time, on hand-written kernels
// (examples/asm), with strict mode (every hardware-rule check) on. Run: npm run bench:emu
import { readFileSync } from 'node:fs';
import { assemble } from '../src/vc4/asm/assembler.ts';
import { launch, parseUniforms } from '../src/emulator/launch.ts';
import { Machine } from '../src/emulator/machine.ts';
import { GpuMemory } from '../src/emulator/memory.ts';
import { formatSeconds } from '../src/emulator/report.ts';

const asm = (name: string) => assemble(readFileSync(new URL(`../examples/asm/${name}.qasm`, import.meta.url), 'utf8')).words;

interface Case {
  name: string;
  qpus: number;
  setup(m: Machine): { uniforms: string[]; buffers: Map<string, import('../src/emulator/memory.ts').Allocation> };
  program: Uint32Array;
}

const vectors = 20000;
const cases: Case[] = [];
for (const qpus of [1, 12]) {
  cases.push({
    name: `mandel (ALU only), ${qpus} QPU${qpus > 1 ? 's' : ''}`,
    qpus,
    program: asm('mandel'),
    setup(m) {
      const out = m.memory.alloc(64 * qpus, 'out');
      const uniforms = Array.from({ length: qpus }, (_, q) => `-2.0,0.1875,${(q / 12 - 0.5).toFixed(3)},${200000 / qpus | 0},${out.address + 64 * q},${q}`);
      return { uniforms, buffers: new Map([['out', out]]) };
    },
  });
  cases.push({
    name: `vadd (TMU, VPM, DMA), ${qpus} QPU${qpus > 1 ? 's' : ''}`,
    qpus,
    program: asm('vadd'),
    setup(m) {
      const per = Math.floor(vectors / qpus);
      const a = m.memory.alloc(vectors * 64, 'a');
      const b = m.memory.alloc(vectors * 64, 'b');
      const out = m.memory.alloc(vectors * 64, 'out');
      const uniforms = Array.from({ length: qpus }, (_, q) => [a, b, out].map((x) => x.address + q * per * 64).join(',') + `,${per},${q}`);
      return { uniforms, buffers: new Map([['a', a], ['b', b], ['out', out]]) };
    },
  });
}

const REPS = Number(process.env.REPS ?? 7);
console.log(`emulated QPU instructions per second, strict mode on; best and median of ${REPS} runs after the first`);
console.log(`(QPULib's emulator, built with -O2, runs its IR at about 15-19 million a second: ../shared/anchors.md)\n`);
console.log('kernel'.padEnd(34), 'instructions'.padStart(12), 'best wall'.padStart(10), 'M/s best'.padStart(9), 'M/s median'.padStart(11), 'Pi estimate'.padStart(12));
for (const c of cases) {
  let best = Infinity;
  const times: number[] = [];
  let instrs = 0;
  let seconds = 0;
  for (let rep = 0; rep <= REPS; rep++) {
    const m = new Machine(new GpuMemory());
    const program = m.load(c.program);
    const { uniforms, buffers } = c.setup(m);
    const t0 = performance.now();
    const r = launch(m, { program, qpus: c.qpus, uniforms: uniforms.map(parseUniforms), buffers });
    const dt = (performance.now() - t0) / 1000;
    if (rep === 0) continue; // the first run includes translating and JIT-compiling the blocks
    times.push(dt);
    best = Math.min(best, dt);
    instrs = r.total.instructions;
    seconds = r.seconds;
  }
  const median = times.sort((x, y) => x - y)[times.length >> 1]!;
  console.log(
    c.name.padEnd(34),
    String(instrs).padStart(12),
    formatSeconds(best).padStart(10),
    (instrs / best / 1e6).toFixed(1).padStart(9),
    (instrs / median / 1e6).toFixed(1).padStart(11),
    formatSeconds(seconds).padStart(12),
  );
}
