// Program size: a program of MAX_PROGRAM_INSTRUCTIONS loads in little time and memory, because
// only the instructions that run are translated; one instruction more, and an empty program, are
// refused when loaded. Translations are shared by equal words, and a program that runs through
// more code than CODE_BUDGET forgets its blocks on the way and computes the same.
// The time bounds are generous (a hang or a quadratic blow-up, not performance: bench/ measures
// that); the memory bounds are far below what eager translation took (2.4 GB at 1.25 M).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Machine } from '../../src/emulator/machine.ts';
import { GpuMemory } from '../../src/common/memory.ts';
import { CODE_BUDGET, translation } from '../../src/emulator/program.ts';
import { encodeHiLo, encodeProgram, MAX_PROGRAM_INSTRUCTIONS } from '../../src/vc4/codec.ts';
import { nopInstr } from '../../src/vc4/instr.ts';
import { emulatorError, END, runAsm } from '../helpers/emu.ts';

const MB = 1024 * 1024;

/** `n` nops with a program end at instruction 1: four instructions run, the rest never does. */
function endsEarly(n: number): Uint32Array {
  const words = new Uint32Array(2 * n);
  const [nopHi, nopLo] = encodeHiLo(nopInstr());
  const [endHi, endLo] = encodeHiLo(nopInstr(3));
  for (let i = 0; i < n; i++) [words[2 * i + 1], words[2 * i]] = i === 1 ? [endHi, endLo] : [nopHi, nopLo];
  return words;
}

const errorOf = emulatorError;

test('a program of MAX_PROGRAM_INSTRUCTIONS loads in little time and memory and runs', () => {
  const words = endsEarly(MAX_PROGRAM_INSTRUCTIONS);
  // A word that differs from every earlier test's, so that the translation is not cached.
  words[words.length - 2] = 0x1234;
  const m = new Machine(new GpuMemory());
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const p = m.load(words);
  const loadMs = performance.now() - t0;
  const grew = process.memoryUsage().heapUsed - heap0;
  assert.equal(p.length, MAX_PROGRAM_INSTRUCTIONS);
  assert.ok(loadMs < 20_000, `load took ${loadMs.toFixed(0)} ms`);
  assert.ok(grew < 64 * MB, `the heap grew by ${(grew / MB).toFixed(0)} MB`);
  const u = m.memory.alloc(64, 'uniforms');
  const r = m.run(p, [u.address]);
  assert.equal(r.total.instructions, 4);
  assert.equal(p.instr(MAX_PROGRAM_INSTRUCTIONS - 1)!.kind, 'alu');
  assert.equal(p.instrs.length, MAX_PROGRAM_INSTRUCTIONS);
});

test('one instruction more than MAX_PROGRAM_INSTRUCTIONS is refused when loaded, with the limit', () => {
  const e = errorOf(() => new Machine().load(endsEarly(MAX_PROGRAM_INSTRUCTIONS + 1)));
  assert.equal(e.kind, 'unsupported');
  assert.equal(
    e.message,
    'the program has 1048577 instructions (8388616 bytes); qpu-ts takes at most 1048576 (8 MiB, MAX_PROGRAM_INSTRUCTIONS), far more than any real QPU program',
  );
});

test('an empty program is refused when loaded, not a fault when run', () => {
  for (const program of [new Uint32Array(0), new Uint32Array(1), []]) {
    const e = errorOf(() => new Machine().load(program));
    assert.equal(e.kind, 'invalid');
    assert.equal(e.message, 'the program has no instructions');
  }
});

test('equal words share one translation, a copy of them; different words do not', () => {
  const words = encodeProgram([nopInstr(), nopInstr(3), nopInstr(), nopInstr()]);
  const t = translation(words);
  assert.equal(translation(words.slice()), t);
  words[0] = 1; // the caller's array changes: the translation keeps what it was given
  assert.equal(t.words[0], encodeProgram([nopInstr()])[0]);
  assert.notEqual(translation(words), t);
});

test('running through more code than CODE_BUDGET forgets blocks on the way and computes the same', () => {
  const body = CODE_BUDGET + 4000;
  // Twice through a loop longer than the budget: its blocks are forgotten and made again.
  const src = `ldi r0, 2\nloop:\nadd r1, r1, 1\n${'nop\n'.repeat(body)}sub.setf r0, r0, 1\nbrr.allnz -, loop\nnop\nnop\nnop${END}`;
  const t0 = performance.now();
  const r = runAsm(src);
  assert.ok(performance.now() - t0 < 60_000);
  assert.equal(r.result.total.instructions, 1 + 2 * (body + 6) + 3);
  assert.equal(r.result.total.nops, 2 * (body + 3) + 2);
  assert.deepEqual(r.reg(0, 'r1'), new Array(16).fill(2));
  assert.deepEqual(r.reg(0, 'r0'), new Array(16).fill(0));
});
