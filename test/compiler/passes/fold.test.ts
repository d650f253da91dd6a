// Pass fold (fold.ts): operations on constants computed at compile time with the chip's own
// arithmetic, bit for bit; what is not a constant everywhere stays.
import { test } from 'node:test';
import { foldConstants } from '../../../src/compiler/fold.ts';
import { assertPass, assertUnchanged } from './fixture.ts';

test("fold: operations on constants are computed with the chip's arithmetic, bit for bit", () => {
  assertPass(
    foldConstants,
    `
    ldi %0, 0x1000001
    mov %1, 3
    mul24 %2, %0, %1     # mul24 reads 24 bits: 1 * 3
    add %3, %1, 4
    mov %9, unif
    add %4, %9, %1       # a uniform is no constant
    ldi %6, 0x800000
    fmul %7, %6, 0.5     # the smallest normal float halved: flushed to 0
    mov %8, unif
    add.zs %8, %1, 1     # conditional: folded, still conditional
    add.setf nop, %1, 1  # its flags are wanted: it stays
    mov vpm, %2
    mov vpm, %3
    mov vpm, %4
    mov vpm, %7
    mov.zs vpm, %8       # reads the flags
    nop.tend`,
    `
    mov %1, 3
    mov %2, 3
    mov %3, 7
    mov %9, unif
    add %4, %9, %1
    mov %7, 0
    mov %8, unif
    mov.zs %8, 4
    add.setf nop, %1, 1
    mov vpm, %2
    mov vpm, %3
    mov vpm, %4
    mov vpm, %7
    mov.zs vpm, %8
    nop.tend`,
  );
});

test('fold: a chain folds through; a result that is no small immediate is loaded whole', () => {
  assertPass(
    foldConstants,
    `
    mov %0, 3
    add %1, %0, 4
    mul24 %2, %1, 5
    shl %3, %2, 2        # ((3 + 4) * 5) << 2 = 140
    ldi %4, 0x3fc00000   # 1.5
    fmul %5, %4, 2.0
    fadd %6, %5, 0.25    # 3.25
    mov vpm, %3
    mov vpm, %6
    nop.tend`,
    `
    ldi %3, 0x8c
    ldi %6, 0x40500000
    mov vpm, %3
    mov vpm, %6
    nop.tend`,
  );
});

test('fold: a register written twice, a rotation and a value computed in a loop from itself are no constants', () => {
  assertPass(
    foldConstants,
    `
    mov %0, 15
    shl %1, %0, 8
    mov %2, 1
    mov %2, unif
    add %3, %2, 1
    mov vpm, %1
    mov vpm, %3
    nop.tend`,
    `
    ldi %1, 0xf00
    mov %2, unif         # (the first write, which nothing reads, goes with the dead sweep)
    add %3, %2, 1
    mov vpm, %1
    mov vpm, %3
    nop.tend`,
  );
  assertUnchanged(
    foldConstants,
    `
    mov %0, 1
    mov %1, elem_num
    add %2, %0, %1       # the element number differs lane by lane
    v8min %3, %0 >> 3, %0 >> 3  # rotated: left alone
    mov %4, 0
    loop:
    add %4, %4, %0       # %4 is written twice
    sub.setf nop, %4, 15
    brr.anync -, loop
    nop
    nop
    nop
    mov vpm, %2
    mov vpm, %3
    mov vpm, %4
    nop.tend`,
  );
});
