// The scheduling pass (src/compiler/schedule.ts): what it moves, what it never moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { disassembleInstr } from '../../src/vc4/asm/disasm.ts';
import { schedule } from '../../src/compiler/schedule.ts';
import { compile } from '../../src/compiler/compile.ts';
import { gcd } from '../../examples/gcd.ts';
import { step } from '../../examples/heat.ts';
import { sha256 } from '../../examples/sha256.ts';

/** The program's instructions in their scheduled order, as text (labels: lines `name:`). */
function scheduled(src: string): string[] {
  const p = assemble(src);
  const labelBefore = p.instrs.map((_, i) => [...p.labels.values()].includes(i));
  return schedule({ instrs: p.instrs, labelBefore }).map((i) => disassembleInstr(p.instrs[i]!));
}

test('independent work goes between a regfile write and its read, and between an SFU write and r4', () => {
  assert.deepEqual(scheduled('mov ra1, 1\nadd rb2, ra1, 1\nmov rb3, 2'), ['mov ra1, 1', 'mov rb3, 2', 'add rb2, ra1, 1']);
  assert.deepEqual(scheduled('mov sfu_recip, r0\nmov r1, r4\nmov ra2, 1\nmov rb3, 2'), [
    'mov sfu_recip, r0',
    'mov ra2, 1',
    'mov rb3, 2',
    'mov r1, r4',
  ]);
  // An accumulator can be read at once: nothing to gain, the order stays.
  assert.deepEqual(scheduled('mov r1, 1\nadd r2, r1, 1\nmov rb3, 2'), ['mov r1, 1', 'add r2, r1, 1', 'mov rb3, 2']);
});

test('dependencies hold: a register written twice, read then written, and the flags', () => {
  // A second write of ra1 stays after the first; a read of ra1 before a write stays before it.
  assert.deepEqual(scheduled('mov ra1, 1\nmov rb2, ra1\nmov ra1, 2\nmov rb3, 3'), ['mov ra1, 1', 'mov rb3, 3', 'mov rb2, ra1', 'mov ra1, 2']);
  assert.deepEqual(scheduled('add rb2, ra1, 1\nmov ra1, 5'), ['add rb2, ra1, 1', 'mov ra1, 5']);
  assert.deepEqual(scheduled('mov.setf r0, ra1\nmov.zs r1, 1\nmov.setf r2, rb2'), ['mov.setf r0, ra1', 'mov.zs r1, 1', 'mov.setf r2, rb2']);
});

test('I/O keeps its order; nothing crosses a label, a branch with its delay slots, or the end', () => {
  // Uniform reads, DMA and VPM writes in order, even with independent work around them.
  assert.deepEqual(scheduled('mov ra1, unif\nmov rb2, unif\nmov vpm, ra3\nmov r0, 1'), ['mov ra1, unif', 'mov rb2, unif', 'mov vpm, ra3', 'mov r0, 1']);
  // The label before `mov rb3, 2` keeps it out of the first run, which therefore keeps its
  // regfile read right after the write; the delay slots and the end's slots stay put.
  const src = 'mov ra1, 1\nadd rb2, ra1, 1\nx: mov rb3, 2\nbrr -, x\nmov r0, 1\nmov r1, 2\nmov r2, 3\nnop.tend\nmov r3, 1\nnop';
  assert.deepEqual(scheduled(src), ['mov ra1, 1', 'add rb2, ra1, 1', 'mov rb3, 2', 'brr -40', 'mov r0, 1', 'mov r1, 2', 'mov r2, 3', 'nop.tend', 'mov r3, 1', 'nop']);
});

test('-O2 (the default) schedules, -O0 does not: fewer nops, the same results', () => {
  for (const k of [gcd, step, sha256]) {
    const o0 = compile(k.ast, { qpus: 1, opt: 0 });
    const o2 = compile(k.ast, { qpus: 1 });
    assert.ok(o2.stats.nops < o0.stats.nops, `${k.kernelName}: ${o2.stats.nops} nops at -O2, ${o0.stats.nops} at -O0`);
    assert.match(o0.dump('schedule'), /scheduling is off/);
    assert.equal(compile(k.ast, { qpus: 1, opt: 0, passes: { schedule: true } }).stats.nops, o2.stats.nops);
  }
  assert.throws(() => compile(gcd.ast, { qpus: 1, opt: 3 as never }), /optimization level 3: the levels are 0, 1, 2/);
  assert.throws(() => gcd.setOptLevel(7 as never), /setOptLevel\(7\): the levels are 0, 1, 2/);
});
