// The scheduling pass (src/compiler/schedule.ts): what it moves, what it never moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { disassembleInstr } from '../../src/vc4/asm/disasm.ts';
import { schedule, scheduleLines } from '../../src/compiler/schedule.ts';
import { pairInstrs } from '../../src/compiler/pair.ts';
import { instrsOf } from '../../src/compiler/emit.ts';
import { compile, PASS_LEVEL } from '../../src/compiler/driver.ts';
import { gcd } from '../../examples/gcd.ts';
import { step } from '../../examples/heat.ts';
import { sha256 } from '../../examples/sha256.ts';

/** The program's instructions in their scheduled order, as text (labels: lines `name:`). */
function scheduled(src: string): string[] {
  const p = assemble(src);
  const labelBefore = p.instrs.map((_, i) => [...p.labels.values()].includes(i));
  return schedule({ instrs: p.instrs, labelBefore }).map((s) => disassembleInstr(s.instr));
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
  // The label before `mov rb3, 2` keeps it out of the first run, which therefore has nothing
  // to put between the regfile write and its read but a nop; the delay slots and the end's
  // slots stay put.
  const src = 'mov ra1, 1\nadd rb2, ra1, 1\nx: mov rb3, 2\nbrr -, x\nmov r0, 1\nmov r1, 2\nmov r2, 3\nnop.tend\nmov r3, 1\nnop';
  assert.deepEqual(scheduled(src), ['mov ra1, 1', 'nop', 'add rb2, ra1, 1', 'mov rb3, 2', 'brr -40', 'mov r0, 1', 'mov r1, 2', 'mov r2, 3', 'nop.tend', 'mov r3, 1', 'nop']);
});

test('I/O keeps its order per unit: the TMU, the SFU, the VPM and its DMA, the uniforms; other units may pass', () => {
  const paired = (src: string) => {
    const p = assemble(src);
    return schedule({ instrs: p.instrs, labelBefore: p.instrs.map(() => false) }, true).map((s) => disassembleInstr(s.instr));
  };
  // A TMU load (ldtmu0) and a VPM write reach different units: they share a word.
  assert.deepEqual(paired('ldtmu0\nmov vw_setup, ra1'), ['mov.ldtmu0 vw_setup, ra1']);
  // A uniform read and a VPM setup too; two uniform reads, or two VPM writes, never.
  assert.deepEqual(paired('mov ra1, unif\nmov vw_setup, rb2'), ['mov ra1, unif; mov vw_setup, rb2']);
  assert.deepEqual(paired('mov ra1, unif\nmov rb2, unif'), ['mov ra1, unif', 'mov rb2, unif']);
  assert.deepEqual(paired('mov vw_setup, ra1\nmov vpm, rb2'), ['mov vw_setup, ra1', 'mov vpm, rb2']);
  // A TMU request stays in order with the VPM and its DMA (both reach memory).
  assert.deepEqual(paired('mov vw_addr, ra1\nmov tmu0_s, rb2'), ['mov vw_addr, ra1', 'mov tmu0_s, rb2']);
  // One peripheral access a word: an SFU write and a TMU load do not share one.
  assert.deepEqual(paired('mov sfu_recip, ra1\nldtmu0'), ['mov sfu_recip, ra1', 'nop.ldtmu0']);
});

test('-O2 (the default) schedules, -O0 does not: fewer nops, the same results', () => {
  for (const k of [gcd, step, sha256]) {
    const o0 = compile(k.ast, { qpus: 1, opt: 0 });
    const o2 = compile(k.ast, { qpus: 1 });
    assert.ok(o2.stats.nops < o0.stats.nops, `${k.kernelName}: ${o2.stats.nops} nops at -O2, ${o0.stats.nops} at -O0`);
    assert.match(o0.dump('schedule'), /scheduling is off/);
    const all = Object.fromEntries(Object.keys(PASS_LEVEL).map((x) => [x, true]));
    assert.equal(compile(k.ast, { qpus: 1, opt: 0, passes: all }).instrs.length, o2.instrs.length);
  }
  assert.throws(() => compile(gcd.ast, { qpus: 1, opt: 3 as never }), /optimization level 3: the levels are 0, 1, 2/);
  assert.throws(() => gcd.setOptLevel(7 as never), /setOptLevel\(7\): the levels are 0, 1, 2/);
});

test('pairing: an add-ALU and a mul-ALU operation share a word when their ports and files fit', () => {
  const one = (t: string) => assemble(t).instrs[0]!;
  const pair = (x: string, y: string) => {
    const m = pairInstrs(one(x), one(y));
    return m && disassembleInstr(m);
  };
  assert.equal(pair('fadd ra1, ra2, r0', 'fmul rb3, r1, r2'), 'fadd ra1, ra2, r0; fmul rb3, r1, r2');
  assert.equal(pair('fmul rb3, r1, r2', 'fadd ra1, ra2, r0'), 'fadd ra1, ra2, r0; fmul rb3, r1, r2');
  // A move goes to the mul ALU as v8min x, x (printed as mov), which copies x exactly.
  assert.equal(pair('add r0, ra1, rb2', 'mov r1, ra1'), 'add r0, ra1, rb2; mov r1, ra1');
  // Both regfile destinations in one file: the write swap puts the other ALU's in the other file.
  assert.equal(pair('add rb1, r0, r1', 'mov rb2, r2'), undefined);
  assert.equal(pair('add ra1, r0, r1', 'mov ra2, r2'), undefined);
  assert.equal(pair('add rb1, r0, r1', 'mov ra2, r2'), 'add rb1, r0, r1; mov ra2, r2');
  // Read ports: two different regfile-A reads, or a small immediate and a regfile-B read, do not fit.
  assert.equal(pair('add r0, ra1, r1', 'fmul r2, ra2, r3'), undefined);
  assert.equal(pair('add r0, r1, 1', 'fmul r2, rb2, r3'), undefined);
  // Two add operations (neither a move), a mul operation that sets flags, and the program end stay apart.
  assert.equal(pair('add r0, r1, r2', 'sub r3, r1, r2'), undefined);
  assert.equal(pair('add r0, r1, r2', 'fmul.setf r3, r1, r2'), undefined);
  assert.equal(pair('add r0, r1, r2', 'mov.setf r3, r1'), undefined);
  assert.equal(pair('add.tend r0, r1, r2', 'fmul r3, r1, r2'), undefined);
  // An I/O write pairs (the scheduler never pairs two I/O instructions); a move to one goes to the mul ALU.
  assert.equal(pair('add vpm, r1, r2', 'fmul r3, r1, r2'), 'add vpm, r1, r2; fmul r3, r1, r2');
  assert.equal(pair('add r3, r1, r2', 'mov tmu0_s, ra1'), 'add.ws r3, r1, r2; mov tmu0_s, ra1');
  // A word that only reads or signals lends the read to a free port and the signal to a word without one.
  assert.equal(pair('read vw_wait', 'add ra1, ra2, r0'), 'add ra1, ra2, r0; read vw_wait');
  assert.equal(pair('read vw_wait', 'add ra1, rb2, r0'), undefined);
  assert.equal(pair('ldtmu0', 'add ra1, rb2, r0'), 'add.ldtmu0 ra1, rb2, r0');
  assert.equal(pair('ldtmu0', 'add ra1, ra2, 1'), undefined);
  assert.equal(pair('ldtmu0', 'ldtmu0'), undefined);
  // A uniform is address 32 of either file: its read moves to the port the other half leaves free
  // (a stream's multiply beside the add of the step before: examples/sgemm.ts).
  assert.equal(pair('fadd ra5, ra5, r3', 'fmul r3, r1, unif'), 'fadd ra5, ra5, r3; fmul r3, r1, unif');
  assert.equal(pair('fadd rb5, rb5, r3', 'fmul r3, r1, unif'), 'fadd rb5, rb5, r3; fmul r3, r1, unif');
  assert.equal(pair('fadd ra5, ra5, rb3', 'fmul r3, r1, unif'), undefined);
  const m = pairInstrs(one('fadd ra5, ra5, r3'), one('fmul r3, r1, unif'));
  assert.ok(m?.kind === 'alu' && m.raddrA === 5 && m.raddrB === 32, 'the uniform read through regfile B');
});

test('the scheduler pairs independent operations, and branches are aimed again after the run shrinks', () => {
  const p = assemble('fadd ra1, ra2, r0\nfmul rb3, r1, r2\nbrr -, x\nnop\nnop\nnop\nx: nop.tend\nnop\nnop');
  const lines = p.instrs.map((instr, i) => ({ instr, target: i === 2 ? 'x' : undefined }));
  const withLabel = [...lines.slice(0, 6), { label: 'x' }, ...lines.slice(6)];
  const r = instrsOf(scheduleLines(withLabel, true));
  assert.equal(r.length, 8);
  assert.equal(disassembleInstr(r[0]!), 'fadd ra1, ra2, r0; fmul rb3, r1, r2');
  const b = r[1]!;
  assert.ok(b.kind === 'branch' && b.imm === (5 - (1 + 4)) * 8, 'the branch reaches x, now instruction 5');
});

test("a broadcast multiply-add chain pairs two operations a word: each copy into r0 shares the previous rotation's word", () => {
  // sum_i += lane(x_i) * b, as SGEMM's inner step: a copy of x_i into r0 (only r0-r3 rotate
  // across all lanes), the rotation into r5rep, the multiply, the add. The copy overwrites the r0
  // the rotation before it reads, in the same word; nothing else is paired with a rotation,
  // whose amount takes the B read port.
  const steps = [1, 2, 3, 4].map((i) => `mov r0, ra${i}\nmov r5rep, r0 >> 3\nfmul r3, r5, rb9\nfadd ra${10 + i}, ra${10 + i}, r3`);
  const p = assemble(steps.join('\n'));
  const order = schedule({ instrs: p.instrs, labelBefore: p.instrs.map(() => false) }, true).map((s) => disassembleInstr(s.instr));
  // Two words a step, and three to start and end: the first rotation waits a word for its r0.
  assert.ok(order.length <= 2 * steps.length + 3, order.join('\n'));
  assert.ok(order.includes('fadd ra12, ra12, r3; fmul r3, r5, rb9'), order.join('\n'));
  assert.ok(order.includes('mov r0, ra2; mov r5rep, r0 >> 3'), order.join('\n'));
});

test('delay slots take the last instructions before a branch that the branch does not depend on', () => {
  const run = (src: string) => {
    const p = assemble(src);
    const labels = new Map([...p.labels].map(([name, i]) => [i, name]));
    const lines = p.instrs.flatMap((ins, i) => [
      ...(labels.has(i) ? [{ label: labels.get(i)! }] : []),
      { instr: ins, target: ins.kind === 'branch' ? 'x' : undefined },
    ]);
    return instrsOf(scheduleLines(lines, true)).map((i) => disassembleInstr(i));
  };
  const END = '\nx: nop.tend\nnop\nnop';
  // Two of the three moves fill slots (one stays before the branch); the third slot stays a nop.
  assert.deepEqual(run(`mov r0, 1\nmov r1, 2\nmov r2, 3\nbrr -, x\nnop\nnop\nnop${END}`), [
    'mov r0, 1',
    'brr 0',
    'mov r1, 2',
    'mov r2, 3',
    'nop',
    'nop.tend',
    'nop',
    'nop',
  ]);
  // The instruction that sets the flags a conditional branch tests stays before it, scheduled
  // first so that the rest can fill the slots.
  assert.deepEqual(run(`mov r0, 1\nmov.setf r1, 2\nbrr.anyz -, x\nnop\nnop\nnop${END}`).slice(0, 4), ['mov.setf r1, 2', 'brr.anyz 0', 'mov r0, 1', 'nop']);
  // The chain that computes the flags goes first, whatever the order written.
  assert.deepEqual(run(`add r0, r3, 1\nadd r1, r3, 2\nadd.setf r2, r1, 1\nbrr.anyz -, x\nnop\nnop\nnop${END}`).slice(0, 5), [
    'add r1, r3, 2',
    'add.setf r2, r1, 1',
    'brr.anyz 0',
    'add r0, r3, 1',
    'nop',
  ]);
  // A label on the branch: other paths reach it, so the run before it keeps its instructions.
  assert.deepEqual(run(`mov r0, 1\nmov r1, 2\nmov r2, 3\ny: brr -, x\nnop\nnop\nnop${END}`).slice(0, 5), [
    'mov r0, 1',
    'mov r1, 2',
    'mov r2, 3',
    'brr 0',
    'nop',
  ]);
  // A VPM read right after its setup would need spacing, which delay slots cannot have: it stays.
  assert.deepEqual(run(`mov r0, 1\nmov vr_setup, r0\nmov r1, vpm\nbrr -, x\nnop\nnop\nnop${END}`).slice(0, 5), [
    'mov r0, 1',
    'mov vr_setup, r0',
    'mov r1, vpm',
    'brr 0',
    'nop',
  ]);
});
