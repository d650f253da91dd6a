// Pass cse (cse.ts): an operation computed again in a block, its operands unchanged, reads the
// first result; nothing is shared across a label, a write of an operand, or a side effect.
import { test } from 'node:test';
import { eliminateCommon } from '../../../src/compiler/cse.ts';
import { assertPass, assertUnchanged } from './fixture.ts';

test('cse: an operation computed again reads the first result, until an operand is written', () => {
  assertPass(
    eliminateCommon,
    `
    mov %0, unif
    shl %1, %0, 2
    shl %2, %0, 2        # the same as %1
    add %3, %1, %2
    mov %0, unif         # %0 written: its shift is made again
    shl %4, %0, 2
    mov vpm, %4
    mov vpm, %3
    nop.tend`,
    `
    mov %0, unif
    shl %1, %0, 2
    add %3, %1, %1
    mov %0, unif
    shl %4, %0, 2
    mov vpm, %4
    mov vpm, %3
    nop.tend`,
  );
});

test('cse: equal load immediates and operations on the element number are made once', () => {
  assertPass(
    eliminateCommon,
    `
    ldi %0, 0x40
    ldi %1, 0x40
    shl %2, elem_num, 2
    shl %3, elem_num, 2
    add %4, %0, %2
    add %5, %1, %3       # the same as %4 once its operands are renamed
    mov vpm, %4
    mov vpm, %5
    nop.tend`,
    `
    ldi %0, 0x40
    shl %2, elem_num, 2
    add %4, %0, %2
    mov vpm, %4
    mov vpm, %4
    nop.tend`,
  );
});

test('cse: not across a label, nor for reads with a side effect, conditions, flags or registers written twice', () => {
  // Another path may reach the label.
  assertUnchanged(eliminateCommon, 'mov %0, unif\nshl %1, %0, 2\nx:\nshl %2, %0, 2\nmov vpm, %2\nmov vpm, %1\nnop.tend');
  assertUnchanged(
    eliminateCommon,
    `
    mov %0, unif
    mov %1, unif         # each reads the next uniform
    mov %2, vpm
    mov %3, vpm          # each reads the next VPM word
    sub.setf %4, %0, %1
    sub.setf %5, %0, %1  # sets the flags again
    mov %6, 0
    mov %7, 0
    add.zs %6, %0, 1
    add.zs %7, %0, 1     # conditional (and so written twice)
    add %8, %0, %1
    mov %8, 0            # %8 is defined twice
    add %9, %0, %1
    mov vpm, %2
    mov vpm, %3
    mov vpm, %4
    mov vpm, %5
    mov vpm, %6
    mov vpm, %7
    mov vpm, %8
    mov vpm, %9
    nop.tend`,
  );
});
