// Pass direct (direct.ts): an operation whose result is only copied writes the copy's place
// itself, under the copy's condition; not when that would move it past a write of what it reads,
// across a label or branch, or further than MAX_DISTANCE.
import { test } from 'node:test';
import { directWrites, MAX_DISTANCE } from '../../../src/compiler/direct.ts';
import { assertPass, assertUnchanged } from './fixture.ts';
import type { IrPass } from '../../../src/compiler/driver.ts';
import type { Stmt } from '../../../src/source/ast.ts';

test("direct: an operation whose result is only copied writes the copy's place, under its condition", () => {
  assertPass(
    directWrites,
    `
    mov %0, unif
    mov %3, 0
    add %1, %0, 4
    read vw_wait
    mov tmu0_s, %1
    fsub %2, %0, %0
    sub.setf nop, elem_num, 15
    mov.zs %3, %2
    add %4, %0, 1
    mov %0, unif         # %0 is written between: the add stays, and so does its copy
    mov vpm, %4
    mov vpm, %3
    nop.tend`,
    `
    mov %0, unif
    mov %3, 0
    read vw_wait
    add tmu0_s, %0, 4
    sub.setf nop, elem_num, 15
    fsub.zs %3, %0, %0
    add %4, %0, 1
    mov %0, unif
    mov vpm, %4
    mov vpm, %3
    nop.tend`,
  );
});

test('direct: not for a value read twice, a rotated copy, or past a label, a branch or a write of r4 it reads', () => {
  assertUnchanged(
    directWrites,
    `
    mov %0, unif
    add %1, %0, 4
    mov vpm, %1
    mov vpm, %1          # %1 is read twice
    add %2, %0, 1
    mov %3, %2 >> 3      # the copy rotates
    add %4, %0, 2
    x:
    mov vpm, %4          # across a label
    add %5, %0, 3
    brr -, y
    nop
    nop
    nop
    y:
    mov vpm, %5          # across a branch
    mov tmu0_s, %0
    ldtmu0
    add %6, r4, 1
    ldtmu0               # writes r4, which the add reads
    mov vpm, %6
    mov vpm, %3
    nop.tend`,
  );
});

test(`direct: an operation moves at most ${MAX_DISTANCE} instructions down to its copy`, () => {
  const between = (n: number) => `mov %0, vpm\nadd %1, %0, 4\n${'read vw_wait\n'.repeat(n)}mov vpm, %1\nnop.tend`;
  assertPass(directWrites, between(MAX_DISTANCE - 1), `mov %0, vpm\n${'read vw_wait\n'.repeat(MAX_DISTANCE - 1)}add vpm, %0, 4\nnop.tend`);
  assertUnchanged(directWrites, between(MAX_DISTANCE));
});

test('direct: a uniform (a stream\'s next element) copied and read once is read in place, unless the stream moves between', () => {
  // The copies of uniforms as lowered from s.next() (the prologue's reads of the arguments are not: spill.ts counts them).
  const next: Stmt = { k: 'next', v: { k: 'var', id: 0, ty: 'float' }, stream: 0 };
  const streamed: IrPass = (code, n) => directWrites(code.map((i) => (i.op === 'alu' && i.code === 'mov' && i.a.k === 'p' && i.a.name === 'unif' ? { ...i, stmt: next } : i)), n);
  assertUnchanged(directWrites, `ldi %5, 0x3\nmov %0, unif\nfmul %2, %5, %0\nmov tmu0_s, %2\nmov vpm, %2\nnop.tend`);
  // The multiply takes its factor from the stream; the order of uniform reads stays.
  assertPass(streamed, `ldi %5, 0x3\nmov %0, unif\nfmul %2, %5, %0\nmov vpm, %2\nnop.tend`, `ldi %5, 0x3\nfmul vpm, %5, unif\nnop.tend`);
  // Another uniform read, or a write of unif_addr, between: the copy stays where it was read.
  assertPass(streamed, `mov %0, unif\nmov %1, unif\nfadd %2, %0, %1\nmov vpm, %2\nfmul %3, %1, %1\nmov vpm, %3\nnop.tend`, `mov %0, unif\nmov %1, unif\nfadd vpm, %0, %1\nfmul vpm, %1, %1\nnop.tend`);
  assertUnchanged(streamed, `ldi %5, 0x3\nmov %0, unif\nmov unif_addr, %5\nfmul %2, %0, %5\nmov vpm, %2\nfmul %3, %2, %2\nnop.tend`);
  // Past a DMA store (which may overwrite the word), a semaphore or another I/O access: it stays.
  assertUnchanged(streamed, `ldi %5, 0x3\nmov %0, unif\nmov vw_addr, %5\nfmul %2, %5, %0\nmov tmu0_s, %2\nmov vpm, %2\nnop.tend`);
  assertUnchanged(streamed, `ldi %5, 0x3\nmov %0, unif\nsema up, 1\nfmul %2, %5, %0\nmov tmu0_s, %2\nmov vpm, %2\nnop.tend`);
  // Read in both operands: one read of the stream would become two.
  assertPass(streamed, `mov %0, unif\nfmul %2, %0, %0\nmov vpm, %2\nnop.tend`, `mov %0, unif\nfmul vpm, %0, %0\nnop.tend`);
});
