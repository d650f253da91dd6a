// Program size and the validator: a program of MAX_PROGRAM_INSTRUCTIONS, run through from start
// to end with branches on the way, validates in little time and memory; one instruction more,
// and an empty program, are refused with a ProgramSizeError. Words and decoded instructions give
// the same findings. The time bounds are generous (a hang or a quadratic blow-up, not
// performance); the memory bound is far below what the validator took before (3 GB at 1.25 M).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { encodeHiLo, encodeProgram, MAX_PROGRAM_INSTRUCTIONS, ProgramSizeError } from '../../src/vc4/codec.ts';
import { branchInstr, type Instr, nopInstr } from '../../src/vc4/instr.ts';
import { validate } from '../../src/vc4/validate.ts';

const MB = 1024 * 1024;

/**
 * `n` instructions that all run: nops, a few kinds of moves (one sets the flags), every 1000 instructions a
 * conditional branch over its delay slots, and a program end with its delay slots at the end.
 */
function runsThrough(n: number): Uint32Array {
  const program = assemble('mov.setf r0, 1\nmov r1, r0\nadd ra2, r0, r1\nmov r2, rb3\nnop').instrs;
  const branch = branchInstr({ rel: 1, cond: 0, imm: 8 * 2 });
  const words = new Uint32Array(2 * n);
  const put = (i: number, ins: Instr) => ([words[2 * i + 1], words[2 * i]] = encodeHiLo(ins));
  for (let i = 0; i < n - 3; i++) put(i, i % 1000 === 500 ? branch : program[i % program.length]!);
  put(n - 3, nopInstr(3));
  put(n - 2, nopInstr());
  put(n - 1, nopInstr());
  return words;
}

function sizeError(f: () => unknown): ProgramSizeError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof ProgramSizeError, String(e));
    return e;
  }
  assert.fail('expected a ProgramSizeError');
}

test('a program of MAX_PROGRAM_INSTRUCTIONS that runs through validates in little time and memory', () => {
  const words = runsThrough(MAX_PROGRAM_INSTRUCTIONS);
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const findings = validate(words);
  const ms = performance.now() - t0;
  const grew = process.memoryUsage().heapUsed - heap0;
  assert.ok(ms < 60_000, `validation took ${ms.toFixed(0)} ms`);
  assert.ok(grew < 200 * MB, `the heap grew by ${(grew / MB).toFixed(0)} MB`);
  // The branch's delay slots hold moves that are fine; nothing breaks a rule.
  assert.deepEqual(findings, []);
});

test('one instruction more than MAX_PROGRAM_INSTRUCTIONS is refused, as words and as instructions', () => {
  const message =
    'the program has 1048577 instructions (8388616 bytes); qpu-ts takes at most 1048576 (8 MiB, MAX_PROGRAM_INSTRUCTIONS), far more than any real QPU program';
  assert.equal(sizeError(() => validate(new Uint32Array(2 * (MAX_PROGRAM_INSTRUCTIONS + 1)))).message, message);
  assert.equal(sizeError(() => validate(new Array<Instr>(MAX_PROGRAM_INSTRUCTIONS + 1).fill(nopInstr()))).message, message);
});

test('an empty program is refused', () => {
  for (const program of [[], new Uint32Array(0), new Uint32Array(1)])
    assert.equal(sizeError(() => validate(program)).message, 'the program has no instructions');
});

test('words and decoded instructions give the same findings', () => {
  const dir = new URL('../../examples/asm/', import.meta.url);
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.qasm'))) {
    const instrs = assemble(readFileSync(new URL(f, dir), 'utf8')).instrs;
    assert.deepEqual(validate(encodeProgram(instrs)), validate(instrs), f);
  }
  const broken = assemble('mov ra1, 1\nadd r0, ra1, 1\nbrr -, 9\nnop\nmov sfu_recip, r0\nmov r1, r4\nnop.tend\nnop').instrs;
  assert.ok(validate(broken).length >= 4);
  assert.deepEqual(validate(encodeProgram(broken)), validate(broken));
});
