// Delay slots from a loop's head (compiler/loop-slots.ts, part of pass `pair`): a back branch's
// empty slots take the loop's first instructions, and the branch goes past them, when running
// them once more on the way out changes nothing a later instruction reads; I/O never goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { any, For, Int, kernel, Ptr, SharedArray, stream, Where, While } from '../../../src/index.ts';
import { compile } from '../../../src/compiler/driver.ts';
import { validate } from '../../../src/vc4/validate.ts';
import { assembleStatement } from '../../../src/vc4/asm/assembler.ts';
import { asmText, type AsmLine } from '../../../src/compiler/emit.ts';
import { slotsFromLoopHeads } from '../../../src/compiler/loop-slots.ts';
import { gcd } from '../../../examples/gcd.ts';
import { mandelbrot } from '../../../examples/mandelbrot.ts';

/** A loop's instructions from its label to its back branch's last delay slot, and that branch. */
function loopOf(asm: string, label: string): { body: string[]; branch: string } {
  const lines = asm.split('\n').map((l) => l.trim());
  const start = lines.indexOf(`${label}:`);
  const b = lines.findIndex((l, k) => k > start && new RegExp(`^brr\\S* -, ${label}(_\\d+)?$`).test(l));
  assert.ok(start >= 0 && b > start, asm);
  return { body: lines.slice(start + 1, b + 4).filter((l) => !l.endsWith(':')), branch: lines[b]! };
}

/** The kernel's result on the emulator at -O2 equals the interpreter's, and the validator finds nothing. */
function agrees(k: { interpretSync(a: unknown[]): void; emulateSync(a: unknown[]): void; code(): { instrs: never[] } }, args: () => unknown[], out: (a: unknown[]) => Int32Array): void {
  const [want, got] = [args(), args()];
  k.interpretSync(want);
  k.emulateSync(got);
  assert.deepEqual(Array.from(out(got)), Array.from(out(want)));
  assert.deepEqual(validate(k.code().instrs), []);
}

test("loop slots: gcd's test of a > b goes into a slot (flags nothing reads on the way out); a - b does not (a is stored)", () => {
  const asm = compile(gcd.ast, { qpus: 1 }).asm;
  const { body, branch } = loopOf(asm, 'loop0');
  assert.match(branch, /brr\.anynz -, loop0_1$/);
  assert.deepEqual(body.slice(-3), ['nop', 'nop', 'max.setf nop, r1, r3']);
  // Without pair (-O1) nothing moves.
  assert.doesNotMatch(compile(gcd.ast, { qpus: 1, opt: 1 }).asm, /loop0_1/);
  const a = SharedArray.int32(16);
  const b = SharedArray.int32(16);
  for (let i = 0; i < 16; i++) [a[i], b[i]] = [100 + 7 * i, 35 + 3 * i];
  agrees(gcd as never, () => [a, b, SharedArray.int32(16)], (x) => x[2] as Int32Array);
});

test("loop slots: Mandelbrot's inner loop fills all three slots from its head", () => {
  const asm = compile(mandelbrot.ast, { qpus: 1 }).asm;
  const { body, branch } = loopOf(asm, 'loop4');
  assert.match(branch, /loop4_3$/);
  assert.ok(!body.slice(-3).includes('nop'), body.join('\n'));
});

test('loop slots: a loop summing a stream runs as it did (its counter goes into the slots, the uniform read stays before the branch)', () => {
  const k = kernel([Ptr(Int), Ptr(Int), Int], function streamed(src, out, n) {
    const s = stream(src);
    const sum = Int(0);
    const i = Int(0);
    For(i.lt(n), () => i.set(i.add(1)), () => sum.set(sum.add(s.next())));
    out.store(sum);
  });
  const src = SharedArray.int32(64);
  src.forEach((_, j) => (src[j] = j * j));
  agrees(k as never, () => [src, SharedArray.int32(16), 40], (x) => x[1] as Int32Array);
});

/** Assembly as scheduled lines: labels, instructions, branches aimed at their labels. */
function linesOf(src: string): AsmLine[] {
  const rows = src.trim().split('\n').map((l) => l.trim()).filter(Boolean);
  const labels = new Map<string, number>();
  let pc = 0;
  for (const r of rows) if (r.endsWith(':')) labels.set(r.slice(0, -1), pc);
  else pc++;
  pc = 0;
  return rows.map((r) => {
    if (r.endsWith(':')) return { label: r.slice(0, -1) };
    const to = /^brr\S*\s+-,\s*(\w+)$/.exec(r)?.[1];
    const instr = assembleStatement(r, pc++, labels);
    return to ? { instr, target: to } : { instr };
  });
}

/** The loop's text after the step. */
const slotted = (src: string) => asmText(slotsFromLoopHeads(linesOf(src))).split('\n').map((l) => l.trim()).filter(Boolean);

/** A loop whose head is `head`, then `after` on the way out. */
const loop = (head: string, after: string) => `
  mov r1, unif
  loop:
  ${head}
  sub.setf nop, r1, 3
  brr.anynz -, loop
  nop
  nop
  nop
  ${after}
  nop.tend
  nop
  nop`;

test('loop slots: what goes and what stays, instruction by instruction', () => {
  // r2 is overwritten on the way out before any read, and nothing reads the flags: the whole
  // loop but its branch goes into the slots, and the branch goes to itself.
  const goes = slotted(loop('add r2, r1, 1', 'mov r2, 0\nmov vpm, r2'));
  assert.deepEqual(goes.slice(2, 9), ['add r2, r1, 1', 'sub.setf nop, r1, 3', 'loop_2:', 'brr.anynz -, loop_2', 'nop', 'add r2, r1, 1', 'sub.setf nop, r1, 3']);
  // The flags read on the way out: only the head's first instruction goes.
  const one = slotted(loop('add r2, r1, 1', 'mov r2, 0\nmov.zs vpm, r2'));
  assert.deepEqual(one.slice(2, 9), ['add r2, r1, 1', 'loop_1:', 'sub.setf nop, r1, 3', 'brr.anynz -, loop_1', 'nop', 'nop', 'add r2, r1, 1']);
  for (const [head, after, why] of [
    ['mov r2, unif', 'mov r2, 0', 'a uniform read is I/O'],
    ['add r2, r1, 1', 'mov vpm, r2', 'r2 is read on the way out'],
    ['add r2, r1, 1', 'mov.zs r2, 0\nmov vpm, r2', 'a conditional write keeps r2 where it fails'],
    ['sub.setf nop, r1, 1', 'mov.zs r3, 0', 'the way out reads the flags'],
    ['add r2, r1, 1', 'brr -, far\nnop\nnop\nnop\nfar:\nmov vpm, r2', 'a path through another branch reads r2'],
    ['mov tmu0_s, r1', 'mov r2, 0', 'a TMU request is I/O'],
    ['sub.setf nop, r1, 1', 'sub.never.setf nop, r1, 5\nmov.zs r3, 0', 'a test under condition never sets no flag: the way out reads the loop\'s'],
  ])
    assert.ok(!slotted(loop(head!, after!)).some((l) => /^loop_\d+:$/.test(l)), why);
  // A label on the branch: other paths reach its slots after other instructions.
  const labelled = loop('add r2, r1, 1', 'mov r2, 0').replace('brr.anynz -, loop', 'again:\n  brr.anynz -, loop');
  assert.ok(!slotted(labelled).some((l) => /^loop_\d+:$/.test(l)), labelled);
  // A path that overwrites r2 in a branch's delay slot: dead there.
  assert.ok(slotted(loop('add r2, r1, 1', 'brr -, far\nmov r2, 5\nnop\nnop\nfar:\nmov vpm, r2')).includes('loop_2:'));
});

test('loop slots: a test whose flags a Where after the loop reads stays out of the slots', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], function whereAfter(p, out) {
    const a = Int(p.load());
    const b = Int(3);
    While(any(a.gt(b)), () => {
      Where(a.gt(b), () => a.set(a.sub(b)));
    });
    // The flags of a.gt(b) as the loop left them are not read here: the Where sets its own.
    Where(a.lt(2), () => a.set(a.add(100)));
    out.store(a);
  });
  const p = SharedArray.int32(16);
  p.forEach((_, j) => (p[j] = 5 * j + 1));
  agrees(k as never, () => [p, SharedArray.int32(16)], (x) => x[1] as Int32Array);
});
