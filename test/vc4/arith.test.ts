// The QPU's arithmetic against results measured on real chips: doe300/VC4C's test tables
// (test/opcode_test.h, opcode_pack_test.h, unpack_test.h, "auto generated from code run on the
// actual hardware"), as collected in docs/emulator.md. Each case cites the table it comes from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as a from '../../src/vc4/arith.ts';
import { floatBitsToHalf, halfToFloatBits, packA, unpackA } from '../../src/emulator/pack.ts';

const hex = (v: number) => '0x' + (v >>> 0).toString(16).padStart(8, '0');
const eq = (got: number, want: number, what: string) => assert.equal(hex(got), hex(want), what);

test('fadd, fsub and itof round toward zero (opcode_test.h)', () => {
  eq(a.fadd(0x3f800000, 0x90000000 | 0), 0x3f7fffff, '1.0 + -2.52e-29');
  eq(a.fadd(0x70000000, 0xbf800000 | 0), 0x6fffffff, '0x70000000 + -1.0');
  eq(a.fadd(0x40000000, 0x90000000 | 0), 0x3fffffff, '2.0 + -2.52e-29');
  eq(a.fsub(0x3f800000, 0x10000000), 0x3f7fffff, '1.0 - 2.52e-29');
  eq(a.itof(0x7fffffff), 0x4effffff, 'itof(2^31 - 1)');
  eq(a.itof(-0x7fffffff), 0xceffffff | 0, 'itof(-(2^31 - 1))');
  eq(a.itof(16777217), 0x4b800000, 'itof(2^24 + 1) truncates');
});

test('zeros and denormals: inputs read as +0, zero results are +0', () => {
  eq(a.fadd(0x80000000 | 0, 0x80000000 | 0), 0, '-0 + -0');
  eq(a.fadd(0x3f800000, 0xbf800000 | 0), 0, '1 + -1');
  eq(a.fadd(0x00000001, 0), 0, 'a denormal reads as +0');
  eq(a.fmul(0x80000000 | 0, 0x3f800000), 0, '-0 * 1');
  eq(a.fmul(0x90000000 | 0, 0x90000000 | 0), 0, 'underflow to +0');
  eq(a.fmul(0x0000ffff, 0x7fc00000), 0, 'a zero or denormal input wins over NaN');
});

test('NaN inputs give infinities; overflow gives infinity', () => {
  eq(a.fadd(0x3f800000, 0x7fffffff), 0x7f800000, 'x + NaN: +Inf');
  eq(a.fadd(0x3f800000, 0xffffffff | 0), 0xff800000 | 0, 'x + -NaN: -Inf');
  eq(a.fadd(0xffffffff | 0, 0x3f800000), 0xff800000 | 0, '-NaN + x: -Inf');
  eq(a.fsub(0x3f800000, 0x7fffffff), 0xff800000 | 0, 'x - NaN: the sign inverted');
  eq(a.fmul(0x7fffffff, 0xbf800000 | 0), 0xff800000 | 0, 'NaN * -1: -Inf');
  eq(a.fmul(0x70000000, 0x70000000), 0x7f800000, '0x70000000 squared');
});

test('fmin and fmax compare sign-magnitude patterns and pass them through', () => {
  eq(a.fmin(0x80000000 | 0, 0x80000000 | 0), 0x80000000 | 0, 'fmin(-0, -0)');
  eq(a.fmax(0, 0x80000000 | 0), 0x80000000 | 0, 'fmax(+0, -0) = -0');
  eq(a.fmin(0x80000000 | 0, 0), 0x80000000 | 0, 'fmin(-0, +0) = -0');
  eq(a.fmaxabs(0x3f800000, 0xffffffff | 0), 0x7fffffff, 'fmaxabs(x, -NaN)');
  eq(a.fmax(0x7fffffff, 0x7f800000), 0x7fffffff, 'NaN 0x7fffffff is above everything');
  eq(a.fmin(0xffffffff | 0, 0xff800000 | 0), 0xffffffff | 0, 'NaN 0xffffffff is below everything');
  eq(a.fmin(0x00000001, 0), 0, 'denormals pass through, compared by their bits');
  eq(a.fmax(0x00000001, 0), 0x00000001, 'denormals pass through, compared by their bits');
});

test('ftoi: truncation; NaN and out of range give 0', () => {
  assert.deepEqual([0x3f800000, 0xbf800000 | 0, 0x40000000].map(a.ftoi), [1, -1, 2]);
  assert.deepEqual([0x7fffffff, 0xffffffff | 0, 0x70000000, 0xf0000000 | 0, 0x90000000 | 0].map(a.ftoi), [0, 0, 0, 0, 0]);
});

test('flags: Z means all 32 bits zero (-0.0 sets N, not Z); C per operation', () => {
  assert.equal(a.zeroFlag(0x80000000 | 0), 0);
  assert.equal(a.negFlag(0x80000000 | 0), 1);
  assert.equal(a.addCarry(13, 1, 2, -1), 1, 'sub: unsigned borrow');
  assert.equal(a.addCarry(13, -1, 2, -3), 0, 'sub: 0xffffffff is not below 2');
  assert.equal(a.addCarry(12, -1, 1, 0), 1, 'add: carry out');
  assert.equal(a.addCarry(8, 1, 0, 0x3f800000), 1, 'itof: result above zero');
  assert.equal(a.addCarry(17, 0x40000000, 2, 0), 1, 'shl: the last bit shifted out');
  assert.equal(a.addCarry(18, 5, -3, -3), 1, 'min: a > b, signed');
});

test('unpack (unpack_test.h): colour bytes as floats toward zero, half denormals unnormalised', () => {
  eq(unpackA(4, 1, true), 0x3b808080, 'colour 1');
  eq(unpackA(4, 127, true), 0x3efefefe, 'colour 127');
  eq(unpackA(4, 128, true), 0x3f008080, 'colour 128');
  eq(unpackA(4, 255, true), 0x3f800000, 'colour 255');
  eq(unpackA(5, 0x0000ff00, false), 255, '8b as an integer');
  eq(unpackA(1, 0x0000ffff, false), -1, '16a sign-extends');
  eq(halfToFloatBits(0x0001), 0x00002000, 'half denormal');
  eq(halfToFloatBits(0x7fff), 0x7fffe000, 'half NaN stays NaN');
  eq(unpackA(3, 0x80000000 | 0, false), 0x80808080 | 0, '8d replicated');
});

test('pack (opcode_pack_test.h): overflow saturation, sub inverted; float to half', () => {
  eq(packA(8, 0, 0x7fffffff, false, 1, 0), 0x7fffffff, 'add overflow, 32-bit saturated');
  eq(packA(8, 0, (0x80000000 - 1) | 0, false, 1, 0), 0x7fffffff, '0x80000000 - 1 (sub, no borrow)');
  eq(packA(8, 0, (0 - 0x80000000) | 0, false, 1, 1), 0x80000000 | 0, '0 - 0x80000000 (sub, borrow)');
  eq(packA(9, 0, 0x80000000 | 0, false, 1, 0), 0, '0x7fffffff + 1 with 16as gives 0');
  eq(packA(9, 0, -2, false, 1, 0), 0x7fff, '0x7fffffff + 0x7fffffff with 16as');
  eq(packA(9, 0, 40000, false), 0x7fff, 'no overflow: signed clamp');
  eq(packA(12, 0x11223344, 300, false), 0x112233ff, '8as into byte a, the rest kept');
  eq(floatBitsToHalf(0x3f7fffff), 0x3c00, 'to half');
  eq(floatBitsToHalf(0x3fffffff), 0x4000, 'to half');
  eq(floatBitsToHalf(0x46fffe00), 0x7800, '32767.0 to half');
  eq(floatBitsToHalf(0x90000000 | 0), 0, 'tiny to +0');
  eq(floatBitsToHalf(0x7fc00000), 0x7c00, 'NaN to Inf');
  eq(packA(1, 0xabcd0000 | 0, 0x3f800000, true), 0xabcd3c00 | 0, '16a of a float keeps the high half');
});
