// Pass dead (dead.ts): values no path reads go, with the values only they needed; what has a
// side effect or sets flags stays.
import { test } from 'node:test';
import { removeDeadCode } from '../../../src/compiler/dead.ts';
import { assertPass, assertUnchanged } from './fixture.ts';

test('dead: values no path reads go, with what only they needed; uniform reads stay', () => {
  assertPass(
    removeDeadCode,
    `
    mov %0, unif
    mov %1, 0          # the prologue's zero of a variable written before it is read
    mov %2, unif       # read by nothing, but reading a uniform moves the stream on
    add %3, %0, 1      # read by nothing
    mov %1, %0
    add %4, %1, %1
    mov vpm, %4
    nop.tend`,
    `
    mov %0, unif
    mov %2, unif
    mov %1, %0
    add %4, %1, %1
    mov vpm, %4
    nop.tend`,
  );
});

test('dead: a chain of dead values goes at once, load immediates and pure reads too', () => {
  assertPass(
    removeDeadCode,
    `
    mov %0, unif
    ldi %1, 0x12345
    add %2, %1, elem_num
    shl %3, %2, 2      # the chain's end: nothing reads %3
    mov %4, r4         # r4 is read without a side effect
    mov vpm, %0
    nop.tend`,
    `
    mov %0, unif
    mov vpm, %0
    nop.tend`,
  );
});

test('dead: flags, physical registers, reads with a side effect and values read on one path or around a loop stay', () => {
  assertUnchanged(
    removeDeadCode,
    `
    mov %0, unif
    sub.setf %1, %0, 1   # %1 is read by nothing, but the flags are
    mov %2, vpm          # a VPM read moves the VPM's read on
    mov %3, 0
    loop:
    add %3, %3, 1        # read by the next iteration
    mov.setf nop, %3
    brr.anyz -, skip
    nop
    nop
    nop
    mov vpm, %3
    skip:
    sub.setf nop, %3, %0
    brr.anync -, loop
    nop
    nop
    nop
    nop.tend`,
  );
});

test('dead: an If whose body went leaves no branch to the next instruction, nor its test when nothing else reads the flags', () => {
  assertPass(
    removeDeadCode,
    `
    mov %0, unif
    add %1, %0, 1
    max.setf nop, %1, 3    # the If's test
    brr.allnc -, else0     # over a body that dead code took away
    nop
    nop
    nop
    else0:
    mov.setf nop, %0       # flags set again before any read
    mov.zs vpm, %1
    nop.tend`,
    `
    mov %0, unif
    add %1, %0, 1
    else0:
    mov.setf nop, %0
    mov.zs vpm, %1
    nop.tend`,
  );
  // A test whose flags a later conditional write reads, or a branch that skips work, stays.
  assertUnchanged(
    removeDeadCode,
    `
    mov %0, unif
    max.setf nop, %0, 3
    brr.allnc -, else0
    nop
    nop
    nop
    mov vpm, %0
    else0:
    mov.nc vpm, %0
    nop.tend`,
  );
});

test('dead: a body that only a dead value made goes, and then the branch over it and its test (to the fixpoint in one call)', () => {
  assertPass(
    removeDeadCode,
    `
    mov %0, unif
    max.setf nop, %0, 3
    brr.allnc -, else0
    nop
    nop
    nop
    ldi %1, 5              # y = 5, never read: it goes first, then the branch, then the test
    else0:
    mov vpm, %0
    nop.tend`,
    `
    mov %0, unif
    else0:
    mov vpm, %0
    nop.tend`,
  );
});
