// Golden tests of the IR passes, each on IR written as text (ir-parse.ts): the input, and the
// output the pass must print. And the IR verifier, on IR that breaks each of its rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIr } from '../../src/compiler/ir-parse.ts';
import { type IrInstr, printIr } from '../../src/compiler/ir.ts';
import { removeDeadCode } from '../../src/compiler/dead.ts';
import { eliminateCommon } from '../../src/compiler/cse.ts';
import { directWrites } from '../../src/compiler/direct.ts';
import { hoistConstants } from '../../src/compiler/hoist.ts';
import { reduceStrength } from '../../src/compiler/strength.ts';
import { foldConstants } from '../../src/compiler/fold.ts';
import { verifyIr } from '../../src/compiler/verify.ts';
import { compile, CompileError } from '../../src/compiler/driver.ts';
import { any, Break, Float, For, If, index, Int, kernel, Ptr, SharedArray, Where, While } from '../../src/index.ts';
import { emulatorTarget, hostArguments } from '../../src/runtime/kernel.ts';
import { interference, liveness } from '../../src/compiler/liveness.ts';
import { accumulatorValues } from '../../src/compiler/regalloc.ts';
import { rot3D_1 } from '../../examples/rot3d.ts';

/** Lines without their indentation and blank lines, for comparing. */
const lines = (t: string) => t.split('\n').map((l) => l.trim()).filter(Boolean);
const pass = (f: (code: IrInstr[], vregs: number) => IrInstr[], input: string) => {
  const p = parseIr(input);
  return lines(printIr(f(p.code, p.vregs)));
};

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

test('dead: values no path reads go, with what only they needed; uniform reads stay', () => {
  const out = pass(removeDeadCode, 'mov %0, unif\nmov %1, 0\nmov %2, unif\nadd %3, %0, 1\nmov %1, %0\nadd %4, %1, %1\nmov vpm, %4\nnop.tend');
  assert.deepEqual(out, ['mov %0, unif', 'mov %2, unif', 'mov %1, %0', 'add %4, %1, %1', 'mov vpm, %4', 'nop.tend']);
});

test('strength: an address base + (i << k) read twice becomes an induction variable of its own', () => {
  const loop = (uses: string) =>
    `mov %0, unif\nmov %1, 0\nmov %5, unif\nmax.setf nop, %5, %1\nbrr.allnc -, end\nnop\nnop\nnop\ntop:\nshl %2, %1, 2\nadd %3, %0, %2\n${uses}\nadd %1, %1, 3\nmax.setf nop, %5, %1\nbrr.anyc -, top\nnop\nnop\nnop\nend:\nnop.tend`;
  const reduced = (src: string) => {
    const p = parseIr(src);
    const r = reduceStrength(p.code, p.vregs);
    verifyIr(r.code, r.vregs, 'strength');
    return lines(printIr(r.code));
  };
  // The shift and the add go; %7 = %0 + (%1 << 2) is set before the loop and advanced by 3 << 2.
  assert.deepEqual(reduced(loop('mov vr_addr, %3\nmov vw_addr, %3')), [
    ...['mov %0, unif', 'mov %1, 0', 'mov %5, unif', 'max.setf nop, %5, %1', 'brr.allnc -, end', 'nop', 'nop', 'nop'],
    ...['shl %6, %1, 2', 'add %7, %0, %6', 'top:', 'mov vr_addr, %7', 'mov vw_addr, %7', 'add %1, %1, 3', 'add %7, %7, 12'],
    ...['max.setf nop, %5, %1', 'brr.anyc -, top', 'nop', 'nop', 'nop', 'end:', 'nop.tend'],
  ]);
  // Read once, the address is better written where it is read (pass direct): it stays.
  assert.deepEqual(reduced(loop('mov vw_addr, %3')), lines(loop('mov vw_addr, %3')));
  // i written between the add and a read of the address: it stays.
  const between = loop('mov vr_addr, %3\nadd %1, %1, 3\nmov vw_addr, %3').replace('add %1, %1, 3\nmax', 'max');
  assert.deepEqual(reduced(between), lines(between));
});

test('strength on rot3D version 1 at -O1: one instruction fewer an iteration, the same results', () => {
  const run = (strength: boolean) => {
    const x = SharedArray.float32(160);
    const y = SharedArray.float32(160);
    for (let i = 0; i < 160; i++) [x[i], y[i]] = [i - 20.5, 3 * i];
    const c = compile(rot3D_1.ast, { qpus: 1, opt: 1, passes: { strength }, verify: true });
    assert.equal(/shl/.test(c.dump(strength ? 'strength' : 'hoist').split('loop0:')[1]!.split('endloop')[0]!), !strength);
    const want = [SharedArray.float32(160), SharedArray.float32(160)] as const;
    want[0].set(x);
    want[1].set(y);
    rot3D_1.setNumQPUs(1).interpretSync([160, 0.5, -0.25, want[0], want[1]]);
    const { values, arrays } = hostArguments(rot3D_1.ast, [Int, Float, Float, Ptr(Float), Ptr(Float)], [160, 0.5, -0.25, x, y]);
    const r = emulatorTarget().run(c, values, arrays);
    assert.deepEqual([Array.from(x), Array.from(y)], [Array.from(want[0]), Array.from(want[1])]);
    return r.total.instructions;
  };
  // 10 iterations save a shift each; the entry costs 4 (a shift, the step 64 by ldi, two adds).
  assert.equal(run(false) - run(true), 10 - 4);
});

test('fold: operations on constants are computed with the chip\'s arithmetic, bit for bit', () => {
  const src = [
    ...['ldi %0, 0x1000001', 'mov %1, 3', 'mul24 %2, %0, %1'], // mul24 reads 24 bits: 1 * 3
    'add %3, %1, 4',
    ...['mov %9, unif', 'add %4, %9, %1'], // a uniform is no constant
    ...['ldi %6, 0x800000', 'fmul %7, %6, 0.5'], // the smallest normal float halved: flushed to 0
    ...['mov %8, unif', 'add.zs %8, %1, 1'], // conditional: folded, still conditional
    'add.setf nop, %1, 1', // its flags are wanted: it stays
    ...['mov vpm, %2', 'mov vpm, %3', 'mov vpm, %4', 'mov vpm, %7', 'mov vpm, %8', 'nop.tend'],
  ].join('\n');
  assert.deepEqual(pass(foldConstants, src), [
    ...['mov %1, 3', 'mov %2, 3', 'mov %3, 7', 'mov %9, unif', 'add %4, %9, %1', 'mov %7, 0', 'mov %8, unif', 'mov.zs %8, 4'],
    ...['add.setf nop, %1, 1', 'mov vpm, %2', 'mov vpm, %3', 'mov vpm, %4', 'mov vpm, %7', 'mov vpm, %8', 'nop.tend'],
  ]);
  // A result that is no small immediate is loaded whole; a register written twice is no constant.
  assert.deepEqual(pass(foldConstants, 'mov %0, 15\nshl %1, %0, 8\nmov %2, 1\nmov %2, unif\nadd %3, %2, 1\nmov vpm, %1\nmov vpm, %3\nnop.tend'), [
    'ldi %1, 0xf00',
    'mov %2, unif', // (the first write, which nothing reads, goes with the dead sweep)
    'add %3, %2, 1',
    'mov vpm, %1',
    'mov vpm, %3',
    'nop.tend',
  ]);
});

test('coalesce: a copy whose two values do not interfere shares one register and goes', () => {
  const k = kernel([Int, Ptr(Int)], function copies(n, p) {
    const a = Int(index());
    const b = Int(0);
    const i = Int(0);
    For(i.lt(n), () => i.set(i.add(1)), () => {
      b.set(a); // a's old value dies here, and b dies in a's new one
      a.set(b.mul(b).add(i));
    });
    p.store(a);
  });
  const loop = (coalesce: boolean) => {
    const c = compile(k.ast, { qpus: 1, opt: 1, passes: { coalesce, acc: false } });
    return c.asm.split('loop0:')[1]!.split('endloop')[0]!;
  };
  assert.match(loop(false), /mov r[ab]\d+, r[ab]\d+/);
  assert.doesNotMatch(loop(true), /mov r[ab]\d+, r[ab]\d+/);
  const want = SharedArray.int32(16);
  const got = SharedArray.int32(16);
  k.interpretSync([5, want]);
  k.setOptLevel(1).emulateSync([5, got]);
  k.setOptLevel(2);
  assert.deepEqual(Array.from(got), Array.from(want));
});

test('cse: an operation computed again reads the first result, until an operand is written', () => {
  const out = pass(eliminateCommon, 'mov %0, unif\nshl %1, %0, 2\nshl %2, %0, 2\nadd %3, %1, %2\nmov %0, unif\nshl %4, %0, 2\nmov vpm, %4\nmov vpm, %3\nnop.tend');
  assert.deepEqual(out, ['mov %0, unif', 'shl %1, %0, 2', 'add %3, %1, %1', 'mov %0, unif', 'shl %4, %0, 2', 'mov vpm, %4', 'mov vpm, %3', 'nop.tend']);
  // Not across a label: another path may reach it.
  const across = 'mov %0, unif\nshl %1, %0, 2\nx:\nshl %2, %0, 2\nmov vpm, %2\nmov vpm, %1\nnop.tend';
  assert.deepEqual(pass(eliminateCommon, across), lines(across));
});

test('direct: an operation whose result is only copied writes the copy\'s place, under its condition', () => {
  const out = pass(directWrites, 'mov %0, unif\nadd %1, %0, 4\nread vw_wait\nmov tmu0_s, %1\nfsub %2, %0, %0\nsub.setf nop, elem_num, 15\nmov.zs %3, %2\nadd %4, %0, 1\nmov %0, unif\nmov vpm, %4\nnop.tend');
  assert.deepEqual(out, [
    'mov %0, unif',
    'read vw_wait',
    'add tmu0_s, %0, 4',
    'sub.setf nop, elem_num, 15',
    'fsub.zs %3, %0, %0',
    // %0 is written between: the add stays, and so does its copy.
    'add %4, %0, 1',
    'mov %0, unif',
    'mov vpm, %4',
    'nop.tend',
  ]);
});

test('hoist: constants and invariant operations leave the loop once, equal ones shared', () => {
  const src = 'mov %0, unif\nmov %1, unif\nmov %5, 0\nloop0:\nldi %2, 0x40\nadd %0, %0, %2\nshl %3, %1, 2\nadd %0, %0, %3\nldi %4, 0x40\nadd %5, %5, %4\nmax.setf nop, %1, %5\nbrr.anyc -, loop0\nnop\nnop\nnop\nmov vpm, %0\nnop.tend';
  assert.deepEqual(pass(hoistConstants, src), [
    'mov %0, unif',
    'mov %1, unif',
    'mov %5, 0',
    'ldi %2, 0x40',
    'shl %3, %1, 2',
    'loop0:',
    'add %0, %0, %2',
    'add %0, %0, %3',
    'add %5, %5, %2',
    'max.setf nop, %1, %5',
    'brr.anyc -, loop0',
    'nop',
    'nop',
    'nop',
    'mov vpm, %0',
    'nop.tend',
  ]);
  // An operation on a value the loop writes stays.
  assert.ok(pass(hoistConstants, src.replace('shl %3, %1, 2', 'shl %3, %0, 2')).includes('shl %3, %0, 2'));
});

const gcdLike = kernel([Ptr(Int), Ptr(Int)], function g(p, r) {
  const a = Int(p.load());
  const b = Int(p.add(16).load());
  While(any(a.ne(b)), () => {
    Where(a.gt(b), () => a.set(a.sub(b)));
    Where(a.lt(b), () => b.set(b.sub(a)));
  });
  r.store(a);
});

test('invert and flags (in lowering): the loop tests at the bottom; a Where sets flags and writes under them', () => {
  const loop = (o: object) => {
    const ir = lines(compile(gcdLike.ast, { qpus: 1, passes: o }).dump('ir'));
    const top = ir.indexOf('loop0:');
    return ir.slice(top + 1, ir.findIndex((l, k) => k > top && l.startsWith('brr')) + 1);
  };
  // Where by flags: compare, then the subtraction under the condition; the test at the bottom.
  assert.deepEqual(loop({}).map((l) => l.replace(/%\d+/g, '%')), [
    'max.setf nop, %, %',
    'sub.cs %, %, %',
    'max.setf nop, %, %',
    'sub.cs %, %, %',
    'sub.setf nop, %, %',
    'brr.anynz -, loop0',
  ]);
  // Without them: a 0/1 mask tested again, and the test at the top branching out.
  const plain = loop({ invert: false, flags: false });
  assert.deepEqual(plain.map((l) => l.replace(/%\d+/g, '%')), ['sub.setf nop, %, %', 'brr.allz -, endloop1']);
  const masks = (o: object) => lines(compile(gcdLike.ast, { qpus: 1, passes: o }).dump('ir')).filter((l) => l.startsWith('or.setf')).length;
  assert.equal(masks({ flags: false }) - masks({}), 2);
});

test('hoist leaves unreachable code where it is (it may read a register nothing writes)', () => {
  const src = 'mov %0, unif\nloop0:\nmov.setf nop, %0\nbrr -, out\nnop\nnop\nnop\nadd %2, %1, 5\nmov vpm, %2\nbrr.anyz -, loop0\nnop\nnop\nnop\nout:\nnop.tend';
  assert.deepEqual(pass(hoistConstants, src), lines(src));
});

test('acc: no value lives in an accumulator across a write of it, read again or not', () => {
  for (const src of ['mov %0, unif\nldi r3, 5\nmov vpm, %0\nnop.tend', 'mov %0, unif\nldi r3, 5\nmov vpm, r3\nmov vpm, %0\nnop.tend']) {
    const p = parseIr(src);
    const live = liveness(p.code, p.vregs);
    assert.notEqual(accumulatorValues(live, interference(live)).get(0), 3, src);
  }
});

const breakInStep = kernel([Ptr(Int)], function breakInStep(r) {
  const j = Int(0);
  const s = Int(0);
  While(any(j.lt(3)), () => {
    const i = Int(0);
    For(any(i.lt(5)), () => (i.set(i.add(1)), If(any(i.eq(2)), () => Break())), () => s.set(s.add(1)));
    j.set(j.add(1));
  });
  r.store(s);
  r.add(16).store(j);
});

test('a Break in a For\'s step leaves that For, on both targets and at every level', () => {
  const want = [...Array(16).fill(6), ...Array(16).fill(3)];
  const r = SharedArray.int32(32);
  breakInStep.interpretSync([r]);
  assert.deepEqual(Array.from(r), want);
  for (const opt of [0, 1, 2] as const) {
    const e = SharedArray.int32(32);
    breakInStep.setOptLevel(opt).emulateSync([e]);
    assert.deepEqual(Array.from(e), want, `-O${opt}`);
  }
  breakInStep.setOptLevel(2);
});

test('the verifier names the pass, the instruction and the rule', () => {
  const v = (src: string) => () => {
    const p = parseIr(src);
    verifyIr(p.code, p.vregs, 'pass x');
  };
  v('mov %0, unif\nmov vpm, %0\nnop.tend')();
  assert.throws(v('mov vpm, %0\nnop.tend'), /the IR after pass x breaks a rule at instruction 0 \(mov vpm, %0\): %0 is read before it is written/);
  assert.throws(v('brr -, y\nnop\nnop\nnop\nnop.tend'), /target y is not defined/);
  assert.throws(v('x:\nbrr -, x\nnop\nmov %0, unif\nnop\nnop.tend'), /delay slot 2 is not a nop/);
  assert.throws(v('x:\nx:\nnop.tend'), /label x is defined twice/);
  assert.throws(v('add %0, 1, 2\nnop.tend'), /two different small immediates/);
  assert.throws(v('nop.tend\nnop'), /the program end is not the last instruction/);
  // A value read on one path before its write.
  assert.throws(v('mov.setf nop, unif\nbrr.anyz -, x\nnop\nnop\nnop\nmov %0, 1\nx:\nmov vpm, %0\nnop.tend'), /%0 is read before it is written/);
});
