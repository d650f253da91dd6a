// Pass hoist (hoist.ts): constants and operations on values a loop does not change leave it,
// once, before its label or its entry test's branch; equal ones share a register.
import { test } from 'node:test';
import { hoistConstants } from '../../../src/compiler/hoist.ts';
import { assertPass, assertUnchanged } from './fixture.ts';

test('hoist: constants and invariant operations leave the loop once, equal ones shared', () => {
  assertPass(
    hoistConstants,
    `
    mov %0, unif
    mov %1, unif
    mov %5, 0
    loop0:
    ldi %2, 0x40
    add %0, %0, %2
    shl %3, %1, 2        # %1 does not change in the loop
    add %0, %0, %3
    ldi %4, 0x40         # the same as %2
    add %5, %5, %4
    max.setf nop, %1, %5
    brr.anyc -, loop0
    nop
    nop
    nop
    mov vpm, %0
    nop.tend`,
    `
    mov %0, unif
    mov %1, unif
    mov %5, 0
    ldi %2, 0x40
    shl %3, %1, 2
    loop0:
    add %0, %0, %2
    add %0, %0, %3
    add %5, %5, %2
    max.setf nop, %1, %5
    brr.anyc -, loop0
    nop
    nop
    nop
    mov vpm, %0
    nop.tend`,
  );
});

test("hoist: an inverted loop's constants go before its entry test's branch, whose delay slots they may fill", () => {
  assertPass(
    hoistConstants,
    `
    mov %0, unif
    mov %1, 0
    max.setf nop, %0, %1
    brr.allnc -, endloop1
    nop
    nop
    nop
    loop0:
    ldi %2, 0x10
    add %1, %1, %2
    max.setf nop, %0, %1
    brr.anyc -, loop0
    nop
    nop
    nop
    endloop1:
    mov vpm, %1
    nop.tend`,
    `
    mov %0, unif
    mov %1, 0
    max.setf nop, %0, %1
    ldi %2, 0x10
    brr.allnc -, endloop1
    nop
    nop
    nop
    loop0:
    add %1, %1, %2
    max.setf nop, %0, %1
    brr.anyc -, loop0
    nop
    nop
    nop
    endloop1:
    mov vpm, %1
    nop.tend`,
  );
});

test('hoist: what the loop changes, conditional writes, flags and uniform reads stay', () => {
  assertUnchanged(
    hoistConstants,
    `
    mov %0, unif
    mov %1, unif
    mov %4, 0
    loop0:
    shl %2, %0, 2        # %0 changes in the loop
    add %0, %0, %2
    ldi.zs %4, 0x40      # conditional
    sub.setf %3, %1, 1   # sets flags
    mov %5, unif         # reads the next uniform each time
    add %0, %0, %5
    max.setf nop, %1, %0
    brr.anyc -, loop0
    nop
    nop
    nop
    mov vpm, %0
    mov vpm, %3
    mov vpm, %4
    nop.tend`,
  );
});

test('hoist leaves unreachable code where it is (it may read a register nothing writes)', () => {
  assertUnchanged(
    hoistConstants,
    `
    mov %0, unif
    loop0:
    mov.setf nop, %0
    brr -, out
    nop
    nop
    nop
    add %2, %1, 5        # unreachable: nothing writes %1
    mov vpm, %2
    brr.anyz -, loop0
    nop
    nop
    nop
    out:
    nop.tend`,
  );
});
