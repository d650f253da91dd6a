// The IR verifier (verify.ts), on IR that breaks each of its rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIr } from '../../src/compiler/ir-parse.ts';
import { verifyIr } from '../../src/compiler/verify.ts';

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
