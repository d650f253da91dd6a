// The IR's text form (ir.ts printIr, ir-parse.ts): what --dump prints reads back, and the
// reader refuses what the ISA's tables do not have, naming the line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIr } from '../../src/compiler/ir-parse.ts';
import { printIr } from '../../src/compiler/ir.ts';
import { CompileError } from '../../src/compiler/driver.ts';
import { lines } from './passes/fixture.ts';

test('the IR text form reads back what printIr writes', () => {
  const src = 'mov %0, unif\nldi.zs %1, 0x40\nadd.cs.setf nop, %0, -3\nv8min %2, %1 >> 15, %1 >> 15\nmov %2, %1 >> r5\nx:\nbrr.anyc -, x\nnop\nnop\nnop\nsema up, 15\nread vw_wait\nldtmu0\nnop.tend';
  assert.deepEqual(lines(printIr(parseIr(src).code)), lines(src));
  assert.equal(parseIr(src).vregs, 3);
  assert.throws(() => parseIr('mov %0'), (e: unknown) => e instanceof CompileError && /IR line 1: cannot read 'mov %0'/.test(e.message));
  assert.throws(() => parseIr('nop\nadd.xx %0, %1, %2'), /IR line 2: cannot read suffix in 'add.xx'/);
  assert.throws(() => parseIr('v8min %0, %1 >> 16, %1 >> 16'), /cannot read rotation 16/);
  // Operations, registers, conditions and small immediates are the ISA tables' (typed in ir.ts).
  assert.throws(() => parseIr('fadd3 %0, %1, %2'), /IR line 1: cannot read operation 'fadd3'/);
  assert.throws(() => parseIr('mov tmu2_s, %1'), /cannot read register 'tmu2_s'/);
  assert.throws(() => parseIr('add %0, %1, 16'), /cannot read small immediate '16'/);
  assert.throws(() => parseIr('fmul %0, %1, 0.3'), /cannot read small immediate '0.3'/);
  assert.throws(() => parseIr('x:\nbrr.somez -, x'), /IR line 2: cannot read (suffix|branch condition)/);
  assert.deepEqual(lines(printIr(parseIr('fmul %0, %1, 0.125\nadd %2, %0, -16\nfadd %3, %2, 2.0').code)), ['fmul %0, %1, 0.125', 'add %2, %0, -16', 'fadd %3, %2, 2.0']);
});
