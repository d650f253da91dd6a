// Pass scratch (scratch.ts lendScratch): once every value has its place, values that live only
// where emit.ts needs no copy in r0 move there from the register files, a loop's test's operands
// first. And the write lean (regalloc.ts copiedOut): a pointer a loop changes and copies to
// vw_addr goes to regfile A, so that the change and the copy share a word.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIr } from '../../../src/compiler/ir-parse.ts';
import { interference, liveness } from '../../../src/compiler/liveness.ts';
import { allocate, placeName } from '../../../src/compiler/regalloc.ts';
import { lendScratch } from '../../../src/compiler/scratch.ts';
import { compile } from '../../../src/compiler/driver.ts';
import { rot3D_2, rot3D_3 } from '../../../examples/rot3d.ts';

/** Each virtual register's place after allocation (no accumulators) and lendScratch, as `%n -> place`. */
function places(src: string): string[] {
  const p = parseIr(src);
  const live = liveness(p.code, p.vregs);
  const adj = interference(live);
  const r = allocate(p.code, adj, p.vregs, new Set());
  assert.ok(r.ok);
  lendScratch(p.code, live, adj, r.place);
  return r.place.flatMap((x, id) => (x ? [`%${id} -> ${placeName(x)}`] : []));
}

/** A loop counting %1 up to the bound %0; `body` goes inside it. */
const loop = (body: string, before = '') => `
  mov %0, unif
  mov %2, unif
  mov %3, unif
  ldi %1, 0
  ldi %4, 16
  ${before}
  loop0:
  ${body}
  add %1, %1, %4
  max.setf nop, %0, %1
  brr.anyc -, loop0
  nop
  nop
  nop
  mov vpm, %2
  nop.tend`;

test('scratch: the value a loop test reads the most goes to r0 when emit needs no copy there', () => {
  const got = places(loop('add vpm, %2, %3'));
  // %1 is read by the test and by its add, in the loop: it comes first. %0 lives at once with it.
  assert.ok(got.includes('%1 -> r0'), got.join(', '));
  assert.ok(!got.includes('%0 -> r0'), got.join(', '));
});

test('scratch: a value live where emit copies an operand to r0 stays in its file; an IR that names r0 leaves it alone', () => {
  // A rotation's input in a register file: emit.ts copies it to r0 first (only r0-r3 rotate
  // across all 16 lanes). %0 lives across it, %5 is written by it.
  const got = places(`
    mov %0, unif
    mov %4, unif
    fmul %5, %4 >> 3, %4 >> 3
    mov vpm, %5
    mov vpm, %0
    nop.tend`);
  for (const id of [0, 4, 5]) assert.ok(!got.includes(`%${id} -> r0`), got.join(', '));
  // r0 written and read by the IR itself: nothing goes there, in or out of a loop.
  const named = places(loop('add vpm, %2, %3', 'ldi r0, 7\nmov vpm, r0'));
  assert.ok(!named.some((x) => x.endsWith('r0')), named.join(', '));
});

test('scratch: values in r0 never interfere, and no value read where an unpack goes through r0', () => {
  const src = `
    mov %0, unif
    mov %1, unif
    mov %2, unif
    add vpm, %0, %1
    add vpm, %1, %2
    byte1 %3, %2
    mov vpm, %3
    mov vpm, %0
    nop.tend`;
  const got = places(src);
  const inR0 = got.filter((x) => x.endsWith('r0'));
  // %0, %1 and %2 all live at once: at most one of them; %2 is unpacked and stays in its file.
  assert.ok(inR0.filter((x) => /^%[012] /.test(x)).length <= 1, got.join(', '));
  assert.ok(!got.includes('%2 -> r0'), got.join(', '));
});

/** The instructions of a kernel's loop at -O2, passes as given. */
function loopOf(k: { ast: Parameters<typeof compile>[0] }, passes: Parameters<typeof compile>[1]['passes'] = {}): string[] {
  const asm = compile(k.ast, { qpus: 1, passes }).asm;
  return asm.split('loop0:\n')[1]!.split('endloop')[0]!.trim().split('\n');
}

test("scratch: rot3D v2's loop test reads r0 and shares a word, 17 instructions a pass instead of 18", () => {
  const on = loopOf(rot3D_2);
  const off = loopOf(rot3D_2, { scratch: false });
  assert.equal(on.length, 17, on.join('\n'));
  assert.equal(off.length, 18, off.join('\n'));
  assert.ok(on.some((l) => /max\.setf nop, r[ab]\d+, r0|max\.setf nop, r0/.test(l)), on.join('\n'));
});

test("write lean: rot3D v3's pointers change in regfile A beside their copies to vw_addr", () => {
  const on = loopOf(rot3D_3);
  assert.equal(on.length, 17, on.join('\n'));
  const shared = on.filter((l) => /^\s*add ra\d+, ra\d+, r[b0-3]\w*; mov vw_addr, ra\d+/.test(l));
  assert.equal(shared.length, 2, on.join('\n'));
});
