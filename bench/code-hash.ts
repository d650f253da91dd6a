// Identity of what the toolchain produces, for changes that must not change behaviour (a
// refactoring): the machine code of every example kernel and of generated kernels at each
// optimization level, the words of the example assembly programs, and what the emulator makes of
// generated kernels (their outputs, instructions and cycles). Prints one SHA-256 per part and
// one for all; with --json FILE writes every case's hash, and with --check FILE compares with
// such a file and names the cases that differ (exit 1). Not a timing.
// Run: npm run code-hash [-- --count N] [-- --json before.json] [-- --check before.json]
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compile, OPT_LEVELS } from '../src/compiler/driver.ts';
import { GpuMemory } from '../src/common/memory.ts';
import { EmulatorTarget } from '../src/runtime/emulate.ts';
import { generate } from '../src/source/generate.ts';
import { assemble } from '../src/vc4/asm/assembler.ts';
import type { KernelAst } from '../src/source/ast.ts';
import { lanesPassFor, plan, registersPassFor } from '../examples/fft.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '1000' }, json: { type: 'string' }, check: { type: 'string' } } });
const COUNT = Number(values.count);

const sha = (...parts: (string | ArrayBufferView)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(typeof p === 'string' ? p : new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
  return h.digest('hex');
};

const cases: Record<string, string> = {};

// The example assembly programs.
for (const name of ['hello', 'mandel', 'vadd']) cases[`asm/${name}`] = sha(assemble(readFileSync(new URL(`../examples/asm/${name}.qasm`, import.meta.url), 'utf8')).words);

// The example kernels, at every level and the QPU counts they run on.
const examples: [string, { ast: KernelAst }][] = [];
for (const file of ['gcd', 'rot3d', 'heat', 'mandelbrot', 'sha256', 'sgemm']) {
  const mod = (await import(`../examples/${file}.ts`)) as Record<string, unknown>;
  for (const [name, k] of Object.entries(mod)) if (typeof k === 'function' && 'ast' in k && 'kernelName' in k) examples.push([`${file}.${name}`, k as unknown as { ast: KernelAst }]);
}
// The FFT's passes are made per size: each lane pass, and the registers passes of 2^16 and 2^20 points.
for (const regs of [1, 2, 4, 8]) examples.push([`fft.lanes${regs}`, lanesPassFor(regs)]);
for (const log2n of [16, 20]) for (const p of plan(log2n)) if (p.kind === 'registers') examples.push([`fft.registers${p.r}.${p.p}`, registersPassFor(p.r, p.p)]);
for (const [name, k] of examples)
  for (const opt of OPT_LEVELS)
    for (const qpus of [1, 4, 12]) {
      const c = compile(k.ast, { qpus, opt });
      cases[`kernel/${name}/O${opt}/${qpus}`] = sha(c.words, JSON.stringify(c.statements.map((s) => s?.loc ?? '')));
    }

// Generated kernels at every level; at -O2 also run on the emulator: outputs, instructions, cycles.
const memory = new GpuMemory();
const target = new EmulatorTarget(memory);
for (let seed = 1; seed <= COUNT; seed++) {
  const p = generate(seed);
  for (const opt of OPT_LEVELS) {
    const c = compile(p.ast, { qpus: p.qpus, opt });
    cases[`gen/${seed}/O${opt}`] = sha(c.words);
    if (opt !== 2) continue;
    const inI = memory.alloc(p.inI.length * 4, 'inI');
    const inF = memory.alloc(p.inF.length * 4, 'inF');
    const outI = memory.alloc(p.qpus * p.slots * 64, 'outI');
    const outF = memory.alloc(p.qpus * p.slots * 64, 'outF');
    memory.view(inI, Int32Array).set(p.inI);
    memory.view(inF, Int32Array).set(p.inF);
    const regions = [inI, inF, outI, outF].map((x) => ({ name: x.name, address: x.address, bytes: x.bytes }));
    let outcome: string;
    try {
      const r = target.run(c, [inI.address, inF.address, outI.address, outF.address, p.n, p.xBits].map((x) => x | 0), regions, { maxSteps: 50_000_000 });
      outcome = JSON.stringify(r.qpus.map((q) => [q.instructions, q.cycles, q.stalls, q.tmuRequests, q.dmaLoadBytes, q.dmaStoreBytes]));
    } catch (e) {
      outcome = `error: ${(e as Error).message}`;
    }
    cases[`run/${seed}`] = sha(outcome, memory.view(outI, Int32Array), memory.view(outF, Int32Array));
    for (const a of [inI, inF, outI, outF]) memory.free(a);
  }
}

const parts = new Map<string, string[]>();
for (const [k, v] of Object.entries(cases)) {
  const part = k.split('/')[0]!;
  parts.set(part, [...(parts.get(part) ?? []), `${k} ${v}`]);
}
for (const [part, lines] of parts) console.log(`${part.padEnd(7)} ${String(lines.length).padStart(5)} cases  ${sha(lines.join('\n'))}`);
console.log(`all     ${String(Object.keys(cases).length).padStart(5)} cases  ${sha(Object.entries(cases).map(([k, v]) => `${k} ${v}`).join('\n'))}`);
if (values.json) writeFileSync(values.json, JSON.stringify(cases, null, 1) + '\n');
if (values.check) {
  const before = JSON.parse(readFileSync(values.check, 'utf8')) as Record<string, string>;
  const differ = Object.keys({ ...before, ...cases }).filter((k) => before[k] !== cases[k]);
  if (differ.length) {
    console.log(`${differ.length} cases differ from ${values.check}: ${differ.slice(0, 20).join(', ')}${differ.length > 20 ? ', ...' : ''}`);
    process.exitCode = 1;
  } else console.log(`identical to ${values.check}`);
}
