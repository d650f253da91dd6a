// The fuzz suite, emulator: random words and mutated example programs run on 1-12 QPUs, strict
// and not. Each run ends, within its step budget and the hang bound, either normally or with an
// EmulatorError that says where (QPU, pc and instruction; every waiting QPU for a deadlock);
// the program's code is never changed, and memory outside the allocations is never written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { Machine } from '../../src/emulator/machine.ts';
import { GpuMemory } from '../../src/common/memory.ts';
import { AsmError, assemble } from '../../src/vc4/asm/assembler.ts';
import { encodeProgram } from '../../src/vc4/codec.ts';
import { exampleLines, type Fuzz, fuzzLoop, mutate } from '../helpers/hostile.ts';

const NOP_END = ['nop.tend', 'nop', 'nop'];

/** Runs `words` on a fresh machine and checks what the run may do. */
function runHostile(f: Fuzz, words: Uint32Array, what: () => string): void {
  const memory = new GpuMemory(16 * 1024 * 1024);
  const m = new Machine(memory);
  const buf = memory.alloc(1024, 'buf');
  let prog;
  try {
    prog = m.load(words);
  } catch (e) {
    if (e instanceof EmulatorError) return; // a program the emulator refuses to load (empty, too large) says so
    throw e;
  }
  const code = Array.from(memory.view(prog.code, Int32Array));
  const qpus = f.pick([1, 1, 2, 4, 12]);
  const unifs = Array.from({ length: qpus }, (_, q) => {
    const u = memory.alloc(64, `uniforms ${q}`);
    for (let i = 0; i < 16; i++) memory.writeWord(u.address + 4 * i, f.pick([buf.address, buf.address + 4 * f.int(300), q, f.word(), 0]) | 0);
    return u.address;
  });
  try {
    m.run(prog, unifs, { strict: f.chance(0.5), maxSteps: 20_000 });
  } catch (e) {
    if (!(e instanceof EmulatorError)) assert.fail(`seed ${f.seed}: ${(e as Error)?.stack ?? String(e)}\n${what()}`);
    const located = e.kind === 'deadlock' ? (e.blocked?.length ?? 0) > 0 : e.where !== undefined && /^QPU \d+, pc \d+ \(/.test(e.message);
    assert.ok(located, `seed ${f.seed}: an error without a location: ${e.message}\n${what()}`);
  }
  assert.deepEqual(Array.from(memory.view(prog.code, Int32Array)), code, `seed ${f.seed}: the run changed its own code\n${what()}`);
}

test('fuzz: random words on the emulator', async () => {
  const n = await fuzzLoop(30_000, 1500, 20_000, (f) => {
    const count = 1 + f.int(24);
    const words = new Uint32Array(2 * count);
    for (let i = 0; i < 2 * count; i++) words[i] = f.word();
    // Half the programs end properly, so that more of them run past their first word.
    const end = f.chance(0.5) ? assemble(NOP_END.join('\n')).words : new Uint32Array(0);
    const all = new Uint32Array(words.length + end.length);
    all.set(words);
    all.set(end, words.length);
    runHostile(f, all, () => Array.from(all, (w) => w.toString(16)).join(' '));
  });
  assert.ok(n >= 100, `only ${n} inputs ran`);
});

test('fuzz: mutated example programs on the emulator', async () => {
  const lines = exampleLines();
  let ran = 0;
  const n = await fuzzLoop(40_000, 1500, 20_000, (f) => {
    const start = f.int(lines.length);
    const body = lines.slice(start, start + 4 + f.int(30)).map((l) => (f.chance(0.15) ? mutate(f, l) : l));
    const src = [...body, ...NOP_END].join('\n');
    let words: Uint32Array;
    try {
      words = assemble(src).words;
    } catch (e) {
      if (e instanceof AsmError) return; // the assembler's fuzz covers these
      throw e;
    }
    ran++;
    runHostile(f, words, () => src);
  });
  assert.ok(n >= 100 && ran >= 20, `only ${n} inputs, ${ran} of them assembled`);
});

test('fuzz: a program never writes memory outside the allocations, and its code stays as loaded', () => {
  // Directed: DMA stores at addresses around every allocation of a fresh machine.
  const memory = new GpuMemory(1 << 20);
  const m = new Machine(memory);
  const prog = m.load(encodeProgram(assemble(STORE).instrs));
  const buf = memory.alloc(64, 'buf');
  const before = Array.from(memory.words);
  for (const addr of [prog.code.address, prog.code.address + 8, buf.address + 64, buf.address - 64, buf.address + 4096, 0, 0xfffffff0]) {
    const u = memory.alloc(8, 'uniforms');
    memory.writeWord(u.address, addr);
    assert.throws(() => m.run(prog, [u.address]), (e: unknown) => e instanceof EmulatorError && e.kind === 'fault' && /DMA store at/.test(e.message));
  }
  const after = Array.from(memory.words);
  for (let i = 0; i < before.length; i++) if (before[i] !== after[i] && !inUniforms(memory, i)) assert.fail(`word ${i} changed`);
});

function inUniforms(memory: GpuMemory, index: number): boolean {
  return memory.allocations.some((a) => a.name === 'uniforms' && index >= memory.index(a.address) && index < memory.index(a.address) + a.bytes / 4);
}

const STORE = `
  ldi vw_setup, 0xa00
  mov vpm, elem_num
  ldi vw_setup, 0x88010000
  mov vw_addr, unif
  mov -, vw_wait
  nop.tend
  nop
  nop
`;
