// What reading an operand does (compiler/ir.ts readKind): the one definition of a pure read,
// and the passes that ask it: dead (removes only values whose reads have no effect), cse and
// hoist (merge and move only reads of fixed values and of virtual registers, whose writes they
// see), direct (moves only operations whose reads have no effect).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIr } from '../../src/compiler/ir-parse.ts';
import { int, type IrInstr, p, printIr, readKind, v } from '../../src/compiler/ir.ts';
import { removeDeadCode } from '../../src/compiler/dead.ts';
import { eliminateCommon } from '../../src/compiler/cse.ts';
import { directWrites } from '../../src/compiler/direct.ts';
import { hoistConstants } from '../../src/compiler/hoist.ts';

const lines = (t: string) => t.split('\n').map((l) => l.trim()).filter(Boolean);
const pass = (f: (code: IrInstr[], vregs: number) => IrInstr[], input: string) => {
  const ir = parseIr(input);
  return lines(printIr(f(ir.code, ir.vregs)));
};

test('readKind: small immediates and the element and QPU numbers are fixed; registers are registers; I/O reads have effects', () => {
  assert.equal(readKind(int(3)), 'fixed');
  assert.equal(readKind(p('elem_num')), 'fixed');
  assert.equal(readKind(p('qpu_num')), 'fixed');
  assert.equal(readKind(v(0)), 'register');
  for (const r of ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'] as const) assert.equal(readKind(p(r)), 'register');
  for (const r of ['unif', 'vary', 'vpm', 'vr_wait', 'vw_wait', 'vr_busy', 'mutex'] as const) assert.equal(readKind(p(r)), 'effect', r);
});

test('dead: an unread value goes when its reads have no effect, and stays when one has', () => {
  const out = pass(removeDeadCode, 'add %0, elem_num, 1\nadd %1, r0, 1\nmov %2, unif\nmov %3, vpm\nnop.tend');
  assert.deepEqual(out, ['mov %2, unif', 'mov %3, vpm', 'nop.tend']);
});

test('cse: the same operation on a fixed value merges; on an accumulator, which the pass does not follow, it does not', () => {
  const src = 'add %0, elem_num, 1\nadd %1, elem_num, 1\nadd %2, r0, 1\nadd %3, r0, 1\nmov vpm, %1\nmov vpm, %3\nmov vpm, %0\nmov vpm, %2\nnop.tend';
  assert.deepEqual(pass(eliminateCommon, src), [
    'add %0, elem_num, 1',
    'add %2, r0, 1',
    'add %3, r0, 1',
    'mov vpm, %0',
    'mov vpm, %3',
    'mov vpm, %0',
    'mov vpm, %2',
    'nop.tend',
  ]);
});

test('hoist: an operation on a fixed value leaves the loop; one on an accumulator stays', () => {
  const src = 'mov %0, 0\nloop0:\nadd %1, elem_num, 1\nadd %2, r0, 1\nadd %0, %0, %1\nadd %0, %0, %2\nsub.setf nop, %0, 15\nbrr.anync -, loop0\nnop\nnop\nnop\nmov vpm, %0\nnop.tend';
  const out = pass(hoistConstants, src);
  assert.deepEqual(out.slice(0, 3), ['mov %0, 0', 'add %1, elem_num, 1', 'loop0:']);
  assert.ok(out.indexOf('add %2, r0, 1') > out.indexOf('loop0:'));
});

test('direct: an operation on registers read without effect writes its copy\'s place; one that reads the VPM stays', () => {
  assert.deepEqual(pass(directWrites, 'add %0, elem_num, r1\nmov tmu0_s, %0\nnop.tend'), ['add tmu0_s, elem_num, r1', 'nop.tend']);
  const io = 'add %0, vpm, 1\nmov tmu0_s, %0\nnop.tend';
  assert.deepEqual(pass(directWrites, io), lines(io));
});
