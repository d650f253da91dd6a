// Registers, rotation, load immediate, branches, uniforms, program end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { END, lanes, runAsm } from '../helpers/emu.ts';

test('load immediate: 32-bit and per-element (signed, unsigned), two destinations', () => {
  const r = runAsm(`ldi r0, -5\nldi r1, [0,1,2,3, 3,2,1,0, 0,0,0,0, 1,1,1,1]\nldi.i2 r2, [0,-1,-2,1, 0,0,0,0, 0,0,0,0, 0,0,0,0]\nldi ra1, rb1, 0x12345678\nnop\nmov r3, ra1; mov r5rep, rb1${END}`);
  assert.deepEqual(r.reg(0, 'r0'), lanes(() => -5));
  assert.deepEqual(r.reg(0, 'r1'), [0, 1, 2, 3, 3, 2, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
  assert.deepEqual(r.reg(0, 'r2'), [0, -1, -2, 1, ...new Array(12).fill(0)]);
  assert.deepEqual(r.reg(0, 'r3'), lanes(() => 0x12345678));
});

test('r5: regfile-A address replicates element 0 of each quad, regfile-B address element 0 to all', () => {
  const quad = runAsm(`add r0, elem_num, 10\nmov r5quad, r0\nnop\nmov r1, r5${END}`);
  assert.deepEqual(quad.reg(0, 'r1'), lanes((l) => 10 + (l & 12)));
  const rep = runAsm(`add r0, elem_num, 10\nmov r5rep, r0\nnop\nmov r1, r5${END}`);
  assert.deepEqual(rep.reg(0, 'r1'), lanes(() => 10));
});

test('rotation: full across 16 lanes from r0-r3, within quads otherwise, by r5', () => {
  const full = runAsm(`mov r0, elem_num\nnop\nmov r1, r0 >> 3${END}`);
  assert.deepEqual(full.reg(0, 'r1'), lanes((l) => (l - 3) & 15));
  const left = runAsm(`mov r0, elem_num\nnop\nmov r1, r0 << 1${END}`);
  assert.deepEqual(left.reg(0, 'r1'), lanes((l) => (l + 1) & 15));
  const quad = runAsm(`mov ra2, elem_num\nnop\nmov r1, ra2 >> 1${END}`, { strict: false });
  assert.deepEqual(quad.reg(0, 'r1'), lanes((l) => (l & 12) | ((l - 1) & 3)));
  const byR5 = runAsm(`mov r0, elem_num\nmov r5rep, 6\nnop\nmov r1, r0 >> r5${END}`);
  assert.deepEqual(byR5.reg(0, 'r1'), lanes((l) => (l - 6) & 15));
  // The rotation's small-immediate code reads as -16 + n on the B input.
  const both = runAsm(`mov r0, elem_num\nnop\nadd r2, r0, -13; mov r1, r0 >> 3${END}`);
  assert.deepEqual(both.reg(0, 'r2'), lanes((l) => l - 13));
});

test('a rotation by r5 uses r5 from before the instruction, not what its own add ALU writes to r5', () => {
  const src = `ldi r5quad, 1\nldi r2, 3\nmov r0, elem_num\nnop\nmov r5quad, r2 ; mov r1, r0 >> r5${END}`;
  for (const trace of [undefined, () => {}]) {
    const r = runAsm(src, { trace });
    assert.deepEqual(r.reg(0, 'r1'), lanes((l) => (l - 1) & 15));
    assert.deepEqual(r.reg(0, 'r5'), lanes(() => 3));
  }
});

test('a branch whose link and target are one register jumps to the register as it was (bra ra0, ZERO, ra0)', () => {
  const src = `
    nop
    nop
    bra ra0, ZERO, ra0 # 2: to instruction 9; the link (6) goes to ra0
    nop
    nop
    nop
    nop.tend           # 6: the link; not run
    nop
    nop
    mov r0, 11         # 9: the target${END}`;
  for (const trace of [undefined, () => {}]) {
    const r = runAsm(src, { trace, init: (q) => q.R.fill(q.m.codeBase + 9 * 8, 0, 16) });
    assert.deepEqual(r.reg(0, 'r0'), lanes(() => 11));
    assert.deepEqual(r.reg(0, 'ra0'), lanes(() => r.machine.codeBase + 6 * 8));
    assert.equal(r.result.total.instructions, 10);
  }
});

test('branches execute three delay slots, link PC + 4, and take conditions over all lanes', () => {
  const src = `
    mov r0, 0
    brr ra1, over      # pc 1
    add r0, r0, 1      # delay slots run
    add r0, r0, 2
    add r0, r0, 4
    add r0, r0, 8      # skipped
  over:
    mov r1, elem_num
    sub.setf nop, r1, 3
    brr.anyz -, hit    # some lane is 3
    nop
    nop
    nop
    mov r2, 9
  hit:
    brr.allz -, miss   # not all lanes are 3
    nop
    nop
    nop
    mov r3, 7
  miss:
    nop${END}`;
  const r = runAsm(src);
  assert.deepEqual(r.reg(0, 'r0'), lanes(() => 7));
  assert.deepEqual(r.reg(0, 'r2'), lanes(() => 0));
  assert.deepEqual(r.reg(0, 'r3'), lanes(() => 7));
  const code = r.result && r.machine.codeBase;
  assert.deepEqual(r.reg(0, 'ra1'), lanes(() => (code + 5 * 8) | 0));
});

test('a subroutine: branch and link, return through a register (bra with ZERO and ra)', () => {
  const src = `
    mov r0, 1
    brr ra5, sub
    nop
    nop
    nop
    add r0, r0, 10     # after return
    brr -, done
    nop
    nop
    nop
  sub:
    shl r0, r0, 2
    bra -, ZERO, ra5
    nop
    nop
    nop
  done:
    nop${END}`;
  assert.deepEqual(runAsm(src).reg(0, 'r0'), lanes(() => 14));
});

test('a branch in the last delay slot of another waits for it, then jumps (vc4asm addendum)', () => {
  const src = `
    mov r0, 0
    brr -, a
    nop
    nop
    brr -, b           # last delay slot of the first branch
  a:
    add r0, r0, 1      # the first branch lands here; these are the second's delay slots
    add r0, r0, 2
    add r0, r0, 4
    add r0, r0, 8      # skipped by the second branch
  b:
    add r0, r0, 15${END}`;
  assert.deepEqual(runAsm(src).reg(0, 'r0'), lanes(() => 22));
});

test('a loop: the counter and the branch back', () => {
  const src = `
    mov r0, 0
    mov r1, 10
  loop:
    add r0, r0, 3
    sub.setf r1, r1, 1
    brr.anynz -, loop
    nop
    nop
    nop${END}`;
  const r = runAsm(src);
  assert.deepEqual(r.reg(0, 'r0'), lanes(() => 30));
  assert.equal(r.result.total.instructions, 2 + 10 * 6 + 3);
});

test('uniforms stream per QPU; writing unif_addr restarts the stream', () => {
  const src = `
    mov r0, unif
    mov r1, unif
    mov unif_addr, r0
    nop
    nop
    mov r2, unif${END}`;
  const r = runAsm(src, { qpus: 3, buffers: { again: [77, 78] }, uniforms: (q) => ['@again', 40 + q] });
  for (let q = 0; q < 3; q++) {
    assert.deepEqual(r.reg(q, 'r1'), lanes(() => 40 + q));
    assert.deepEqual(r.reg(q, 'r2'), lanes(() => 77));
  }
  assert.equal(r.result.total.uniforms, 9);
});

test('element and QPU numbers; the nop register returns the last read of lanes 12-15 (addendum)', () => {
  const r = runAsm(`mov r0, elem_num\nmov r1, qpu_num\nmov r2, ra39${END}`, { qpus: 2 });
  assert.deepEqual(r.reg(0, 'r0'), lanes((l) => l));
  assert.deepEqual(r.reg(1, 'r1'), lanes(() => 1));
  assert.deepEqual(r.reg(0, 'r2'), lanes((l) => 12 + (l & 3)));
});

test('program end: two delay slots run, then the QPU stops', () => {
  const r = runAsm('mov r0, 1\nnop.tend\nmov r0, 2\nmov r1, 3\nmov r0, 9\n');
  assert.deepEqual(r.reg(0, 'r0'), lanes(() => 2));
  assert.deepEqual(r.reg(0, 'r1'), lanes(() => 3));
  assert.equal(r.result.total.instructions, 4);
});

test('a program end in the delay slots of another: a broken rule; the QPU stops after the first one\'s two', () => {
  const src = 'mov r0, 1\nnop.tend\nnop.tend\nnop\nmov r0, 9\nnop';
  for (const trace of [undefined, () => {}]) {
    const r = runAsm(src, { strict: false, trace });
    assert.deepEqual(r.reg(0, 'r0'), lanes(() => 1));
    assert.equal(r.result.total.instructions, 4);
  }
  assert.throws(() => runAsm(src), /pc 2 \(nop\.tend\): \[end-in-end-delay-slot\]/);
});
