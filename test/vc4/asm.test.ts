import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AsmError, assemble } from '../../src/vc4/asm/assembler.ts';
import { encode, programToBytes } from '../../src/vc4/codec.ts';
import type { AluInstr, BranchInstr, Instr, LoadImmInstr } from '../../src/vc4/instr.ts';

const one = (text: string): Instr => assemble(text).instrs[0]!;
const alu = (text: string) => one(text) as AluInstr;
const hex = (text: string) => '0x' + encode(one(text)).toString(16).toUpperCase().padStart(16, '0');

test("the SHA-256 series' hello world assembles to 10 instructions, 80 bytes", () => {
  const p = assemble(readFileSync(new URL('../../examples/asm/hello.qasm', import.meta.url), 'utf8'));
  assert.equal(p.instrs.length, 10);
  assert.equal(programToBytes(p.words).length, 80);
  const [ldi0, ldi1, add, , or0, or1, or2, end] = p.instrs as [LoadImmInstr, LoadImmInstr, AluInstr, Instr, AluInstr, AluInstr, AluInstr, AluInstr];
  assert.equal(ldi0.imm, 0x1234);
  assert.equal(ldi0.waddrAdd, 1); // ra1
  // ldi rb49: the mul ALU writes regfile B address 49 (VPM write setup), as in the series' assembler
  assert.deepEqual([ldi1.ws, ldi1.waddrMul, ldi1.waddrAdd], [0, 49, 39]);
  // add rb48, ra1, rb32: the add ALU writes regfile B (ws = 1) address 48 (VPM), reads ra1 + uniform
  assert.deepEqual([add.opAdd, add.ws, add.waddrAdd, add.raddrA, add.raddrB, add.addA, add.addB], [12, 1, 48, 1, 32, 6, 7]);
  // or rb50, ra32, 0: small immediate 0 (signal 13)
  assert.deepEqual([or0.sig, or0.raddrB, or0.raddrA, or0.waddrAdd], [13, 0, 32, 50]);
  assert.deepEqual([or1.raddrB, or1.waddrAdd], [50, 39]); // DMA wait
  assert.deepEqual([or2.waddrAdd, or2.ws], [38, 1]); // host interrupt
  assert.equal(end.sig, 3);
});

test('canonical encodings', () => {
  assert.equal(hex('nop'), '0x100009E7009E7000');
  assert.equal(hex('nop.tend'), '0x300009E7009E7000');
  assert.equal(hex('nop.thrend'), '0x300009E7009E7000');
  assert.equal(hex('ldi r0, 1.0'), '0xE00248273F800000');
  assert.equal(hex('ldi r0, 0x3f800000'), '0xE00248273F800000');
});

test('registers by number and by name', () => {
  assert.deepEqual(pick(alu('mov r0, elem_num'), 'raddrA', 'addA'), [38, 6]);
  assert.deepEqual(pick(alu('mov r0, qpu_num'), 'raddrB', 'addA'), [38, 7]);
  assert.deepEqual(pick(alu('mov vw_setup, r1'), 'waddrAdd', 'ws'), [49, 1]);
  assert.deepEqual(pick(alu('mov vr_setup, r1'), 'waddrAdd', 'ws'), [49, 0]);
  assert.deepEqual(pick(alu('mov tmu0_s, r1'), 'waddrAdd'), [56]);
  assert.deepEqual(pick(alu('mov sfu_recip, r1'), 'waddrAdd'), [52]);
  assert.deepEqual(pick(alu('mov host_int, 1'), 'waddrAdd'), [38]);
  assert.deepEqual(pick(alu('mov mutex, 1'), 'waddrAdd'), [51]);
  assert.deepEqual(pick(alu('mov r0, mutex'), 'raddrA'), [51]);
  assert.deepEqual(pick(alu('mov unif_addr, r0'), 'waddrAdd'), [40]);
  assert.deepEqual(pick(alu('mov r5rep, r0'), 'waddrAdd', 'ws'), [37, 1]);
  assert.deepEqual(pick(alu('mov r5quad, r0'), 'waddrAdd', 'ws'), [37, 0]);
  assert.deepEqual(pick(alu('mov tmu_noswap, 1'), 'waddrAdd'), [36]);
  // A uniform read takes a free port: A first, then B.
  assert.deepEqual(pick(alu('add r0, unif, unif'), 'raddrA', 'raddrB', 'addA', 'addB'), [32, 39, 6, 6]);
  assert.deepEqual(pick(alu('add r0, ra3, unif'), 'raddrA', 'raddrB', 'addB'), [3, 32, 7]);
  assert.deepEqual(pick(alu('add rb3, ra1, rb2; fmul ra4, r0, r1'), 'ws', 'waddrAdd', 'waddrMul'), [1, 3, 4]);
});

test('small immediates: integers, floats, rotations', () => {
  for (let v = -16; v <= 15; v++) assert.equal(alu(`add r0, r0, ${v}`).raddrB, v < 0 ? v + 32 : v);
  assert.equal(alu('fmul r0, r0, 1.0').raddrB, 32);
  assert.equal(alu('fmul r0, r0, 128.0').raddrB, 39);
  assert.equal(alu('fmul r0, r0, 0.00390625').raddrB, 40);
  assert.equal(alu('fmul r0, r0, 0.5').raddrB, 47);
  const rot = alu('nop; fmul r2, r0, r1 >> 3');
  assert.deepEqual(pick(rot, 'sig', 'raddrB', 'mulA', 'mulB'), [13, 51, 0, 1]);
  assert.equal(alu('mov r1, r0 >> r5').raddrB, 48);
  assert.equal(alu('mov r1, r0 << 1').raddrB, 48 + 15);
  // A rotation leaves the value -16 + n for a B input (vc4asm's addendum).
  assert.equal(alu('add r3, r2, -13; v8min r1, r0, r0 >> 3').raddrB, 51);
});

test('signals, conditions, set flags', () => {
  assert.equal(alu('nop.tmu').sig, 10);
  assert.equal(alu('mov r0, r1; ldtmu1').sig, 11);
  assert.equal(alu('ldtmu0').sig, 10);
  assert.deepEqual(pick(alu('add.zs.setf r0, r1, r2'), 'condAdd', 'sf'), [2, 1]);
  assert.deepEqual(pick(alu('add.ifnc r0, r1, r2; fmul.never r1, r1, r1'), 'condAdd', 'condMul'), [7, 0]);
  assert.equal(alu('nop.bkpt').sig, 0);
});

test('pack and unpack', () => {
  assert.deepEqual(pick(alu('fadd ra1.16a, r0, r1'), 'pm', 'pack'), [0, 1]);
  assert.deepEqual(pick(alu('add ra1.8as, r0, r1'), 'pm', 'pack'), [0, 12]);
  assert.deepEqual(pick(alu('nop; fmul r0.8888c, r1, r2'), 'pm', 'pack'), [1, 3]);
  assert.deepEqual(pick(alu('fadd r0, ra1.16b, r1'), 'pm', 'unpack'), [0, 2]);
  assert.deepEqual(pick(alu('fadd r0, r4.8a, r1'), 'pm', 'unpack'), [1, 4]);
});

test('load immediate: 32-bit, floats, per-element, two destinations', () => {
  const l = one('ldi ra1, rb2, -1') as LoadImmInstr;
  assert.deepEqual([l.waddrAdd, l.waddrMul, l.imm], [1, 2, 0xffffffff]);
  assert.equal((one('ldi r0, -2.5') as LoadImmInstr).imm, 0xc0200000);
  const u = one('ldi r0, [0,1,2,3, 0,1,2,3, 0,1,2,3, 0,1,2,3]') as LoadImmInstr;
  assert.deepEqual([u.mode, u.imm], [3, 0xcccc_aaaa]);
  const s = one('ldi r0, [0,-1,-2,1, 0,0,0,0, 0,0,0,0, 0,0,0,0]') as LoadImmInstr;
  assert.deepEqual([s.mode, s.imm], [1, 0x0006_000a]);
  assert.equal((one('ldi.i2 r0, [0,1,0,1, 0,1,0,1, 0,1,0,1, 0,1,0,1]') as LoadImmInstr).mode, 1);
});

test('branches: relative to PC + 4 instructions, absolute, links, conditions', () => {
  const p = assemble('top: nop\n brr.anyz ra1, top\n nop\n nop\n nop\n bra ra39, ZERO, ra0\n nop\n nop\n nop\n brr.zs -, later\nlater:');
  const b = p.instrs[1] as BranchInstr;
  assert.deepEqual([b.cond, b.rel, b.imm, b.waddrAdd], [2, 1, -40, 1]); // (0 - (1 + 4)) * 8
  const abs = p.instrs[5] as BranchInstr;
  assert.deepEqual([abs.rel, abs.reg, abs.raddrA, abs.imm], [0, 1, 0, 0]);
  const fwd = p.instrs[9] as BranchInstr;
  assert.deepEqual([fwd.cond, fwd.imm], [2, (10 - 13) * 8]);
  assert.equal((one('brr rb5, 64') as BranchInstr).waddrMul, 5);
});

test('semaphores', () => {
  assert.equal(hex('sema up, 3'), '0xE80009E700000003');
  assert.equal(hex('sema down, 15'), '0xE80009E70000001F');
  assert.equal(hex('sacq 15'), hex('sema acquire, 15'));
});

function errorsOf(text: string): string[] {
  try {
    assemble(text, { file: 'k.qasm' });
  } catch (e) {
    assert.ok(e instanceof AsmError);
    return e.diagnostics.map((d) => `${d.file}:${d.line}:${d.col}: ${d.message}`);
  }
  assert.fail('expected an error');
}

test('errors name file:line:col and say what would be right', () => {
  assert.match(errorsOf('nop\n  fadd r0, r1')[0]!, /^k.qasm:2:3: fadd takes three operands/);
  assert.match(errorsOf('fdd r0, r1, r2')[0]!, /^k.qasm:1:1: unknown operation 'fdd' \(did you mean fadd\?\)/);
  assert.match(errorsOf('add r0, r1, rx9')[0]!, /^k.qasm:1:13: unknown register 'rx9'/);
  assert.match(errorsOf('add r0, ra1, ra2')[0]!, /^k.qasm:1:14: two different regfile-A reads in one instruction \(ra1 and ra2\)/);
  assert.match(errorsOf('add r0, r1, 16')[0]!, /^k.qasm:1:13: 16 is not a small immediate.*-16 to 15/);
  assert.match(errorsOf('fmul r0, r1, 3.0')[0]!, /3.0 is not a small immediate/);
  assert.match(errorsOf('mov elem_num, r0')[0]!, /^k.qasm:1:5: elem_num is read-only/);
  assert.match(errorsOf('mov r4, r0')[0]!, /cannot write r4/);
  assert.match(errorsOf('mov r5, r0')[0]!, /say r5quad .* or r5rep/);
  assert.match(errorsOf('mov r0, tmu0_s')[0]!, /tmu0_s is write-only/);
  assert.match(errorsOf('brr -, nowhere')[0]!, /^k.qasm:1:8: unknown label 'nowhere'/);
  assert.match(errorsOf('add.tend r0, r1, 2')[0]!, /^k.qasm:1:4: the signal .tend clashes with the small immediate 2/);
  assert.match(errorsOf('add r0, rb1, 2')[0]!, /the small immediate 2 clashes with rb1/);
  assert.match(errorsOf('mov ra1, r0; fmul ra2, r0, r0')[0]!, /one instruction writes one register of each file/);
  assert.match(errorsOf('bra -, somewhere\nsomewhere:')[0]!, /bra is an absolute branch/);
  assert.match(errorsOf('sema up, 16')[0]!, /16 semaphores/);
  assert.match(errorsOf('ldi r0, 0x100000000')[0]!, /does not fit in 32 bits/);
  assert.match(errorsOf('add r0, r1, r2 $')[0]!, /unexpected character '\$'/);
  assert.match(errorsOf('x: nop\nx: nop')[0]!, /^k.qasm:2:1: label 'x' is defined twice/);
  assert.match(errorsOf('add r0, r1, r2 >> 2')[0]!, /only the mul ALU can rotate/);
});

test('every error in a file is reported, not just the first', () => {
  const errs = errorsOf('nop\nbogus r0\nadd r0, ra1, ra2\nnop\nmov r0, nothing');
  assert.deepEqual(errs.map((e) => e.split(':')[1]), ['2', '3', '5']);
});

function pick<T extends object>(o: T, ...keys: (keyof T)[]): unknown[] {
  return keys.map((k) => o[k]);
}

test('ALU placement: positional like the SHA-256 series, mul-only ops find the mul ALU', () => {
  assert.deepEqual(pick(alu('fmul r0, r1, r2'), 'opAdd', 'opMul'), [0, 1]);
  assert.deepEqual(pick(alu('fmul r0, r1, r2; add r3, r1, r2'), 'opAdd', 'opMul'), [12, 1]);
  assert.deepEqual(pick(alu('v8adds r0, r1, r2; v8adds r3, r1, r2'), 'opAdd', 'opMul'), [30, 6]);
  assert.match(errorsOf('add r0, r1, r2; sub r3, r1, r2')[0]!, /sub is an add ALU operation, and the add ALU already does add/);
  assert.match(errorsOf('fmul r0, r1, r2; mul24 r3, r1, r2')[0]!, /mul24 is a mul ALU operation, and the mul ALU already does fmul/);
});

test("a ';' may end ldi, branch and semaphore lines, as in the SHA-256 series' sources", () => {
  const lines = ['ldi ra1, 0x16', 'bra ra39, ZERO, ra0', 'brr -, 8', 'sema up, 3', 'ldi r0, [1, 0, -1, 0, 1, 0, -1, 0, 1, 0, -1, 0, 1, 0, -1, 0]'];
  for (const l of lines) {
    assert.deepEqual(Array.from(assemble(`${l};`).words), Array.from(assemble(l).words), l);
    assert.deepEqual(Array.from(assemble(`${l} ;;`).words), Array.from(assemble(l).words), l);
  }
  assert.throws(() => assemble('ldi r0, 1; nop'), /1:12: error: unexpected 'nop' after the operands of ldi/);
});
