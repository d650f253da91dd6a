// What the seed-kernel pinning test runs (seed-cycles.test.ts): every seed kernel of bench/seeds.ts
// and the two hand-written bench programs, with a digest of everything a run reports that speed
// work must not change: each QPU's instructions, cycles and stalls, and the bytes of every
// array the kernel was given, after the run.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { compile } from '../../src/compiler/driver.ts';
import { launch, parseUniforms } from '../../src/emulator/launch.ts';
import { Machine, type RunResult } from '../../src/emulator/machine.ts';
import { GpuMemory } from '../../src/common/memory.ts';
import { emulatorTarget } from '../../src/runtime/kernel.ts';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { machineArgs, SEED_CASES, strictFor } from '../../bench/seeds.ts';

export interface SeedRun {
  name: string;
  /** Per QPU: instructions, cycles, and stall cycles by cause. */
  qpus: string[];
  /** sha256 of the arrays' bytes after the run, first 16 hex digits. */
  memory: string;
}

function summary(name: string, r: RunResult, arrays: Uint8Array[]): SeedRun {
  const h = createHash('sha256');
  for (const a of arrays) h.update(a);
  const qpus = r.qpus.map((s) => `${s.instructions} instr, ${s.cycles} cycles, stalls ${Object.values(s.stalls).join('/')}`);
  return { name, qpus, memory: h.digest('hex').slice(0, 16) };
}

export function* seedRuns(): Generator<SeedRun> {
  for (const c of SEED_CASES) {
    const args = c.args();
    const r = emulatorTarget().run(compile(c.ast, { qpus: c.qpus }), ...machineArgs(args), { strict: strictFor(c) });
    const arrays = args.filter((a) => typeof a !== 'number').map((a) => new Uint8Array(a.slice().buffer));
    yield summary(`${c.kernel}, ${c.qpus} QPU${c.qpus > 1 ? 's' : ''}`, r, arrays);
  }
  const asm = (name: string) => assemble(readFileSync(new URL(`../../examples/asm/${name}.qasm`, import.meta.url), 'utf8')).words;
  for (const qpus of [1, 12]) {
    let m = new Machine(new GpuMemory());
    const out = m.memory.alloc(64 * qpus, 'out');
    const mu = Array.from({ length: qpus }, (_, q) => `-2.0,0.1875,${(q / 12 - 0.5).toFixed(3)},${(20000 / qpus) | 0},${out.address + 64 * q},${q}`);
    const r = launch(m, { program: m.load(asm('mandel')), qpus, uniforms: mu.map(parseUniforms), buffers: new Map([['out', out]]) });
    yield summary(`mandel, ${qpus} QPU${qpus > 1 ? 's' : ''}`, r, [new Uint8Array(m.memory.view(out, Int32Array).slice().buffer)]);
    m = new Machine(new GpuMemory());
    const n = 2000;
    const per = Math.floor(n / qpus);
    const bufs = ['a', 'b', 'out'].map((name) => m.memory.alloc(n * 64, name));
    const ins = m.memory.view(bufs[0]!, Int32Array);
    const ins2 = m.memory.view(bufs[1]!, Int32Array);
    for (let i = 0; i < ins.length; i++) [ins[i], ins2[i]] = [i * 7, i * 13 + 1];
    const vu = Array.from({ length: qpus }, (_, q) => bufs.map((x) => x.address + q * per * 64).join(',') + `,${per},${q}`);
    const v = launch(m, { program: m.load(asm('vadd')), qpus, uniforms: vu.map(parseUniforms), buffers: new Map(bufs.map((b, i) => [['a', 'b', 'out'][i]!, b])) });
    yield summary(`vadd, ${qpus} QPU${qpus > 1 ? 's' : ''}`, v, [new Uint8Array(m.memory.view(bufs[2]!, Int32Array).slice().buffer)]);
  }
}

// Run directly, prints the table the test pins.
if (import.meta.url === `file://${process.argv[1]}`) for (const r of seedRuns()) console.log(JSON.stringify(r) + ',');
