// Arithmetic as the chip computes it, run through the emulator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bits, END, float, lanes, runAsm } from '../helpers/emu.ts';

/** Runs `body` with r1 = a, r2 = b per lane (from buffers via the TMU) and returns r0. */
function compute(body: string, a: number[], b: number[] = a): number[] {
  const src = `
    mov r3, unif
    shl r0, elem_num, 2
    add tmu0_s, r3, r0
    mov r3, unif
    add tmu0_s, r3, r0
    ldtmu0
    mov r1, r4; ldtmu0
    mov r2, r4
    ${body}
    ${END}`;
  const r = runAsm(src, { buffers: { a, b }, uniforms: ['@a', '@b'] });
  return r.reg(0, 'r0');
}

test('mul24 multiplies the low 24 bits, unsigned: -1 * 16 = 268435440', () => {
  const r = compute('mul24 r0, r1, r2', lanes(() => -1), lanes(() => 16));
  assert.deepEqual(r, lanes(() => 268435440));
  assert.deepEqual(compute('mul24 r0, r1, r2', lanes((l) => 0x1000000 + l), lanes(() => 3)), lanes((l) => 3 * l));
});

test('floats through the emulator: toward zero, +0 for zero and denormal results', () => {
  const tiny = bits(1e-40); // a denormal
  assert.deepEqual(compute('fadd r0, r1, r2', lanes(() => tiny), lanes(() => 0)), lanes(() => 0));
  assert.deepEqual(compute('fmul r0, r1, r2', lanes(() => bits(-1e-30)), lanes(() => bits(1e-10))), lanes(() => 0)); // +0
  const x = lanes((l) => bits(l * 0.1 + 1));
  const y = lanes((l) => bits(3.3 - l));
  const rtz = (v: number) => {
    const f = Math.fround(v);
    return Math.abs(f) > Math.abs(v) ? float(bits(f) - 1) : f;
  };
  assert.deepEqual(compute('fadd r0, r1, r2', x, y).map(float), x.map((v, l) => rtz(float(v) + float(y[l]!))).map((f) => (f === 0 ? 0 : f)));
  assert.deepEqual(compute('fmul r0, r1, r2', x, y).map(float), x.map((v, l) => rtz(float(v) * float(y[l]!))));
  assert.deepEqual(compute('fmin r0, r1, r2', x, y).map(float), x.map((v, l) => Math.min(float(v), float(y[l]!))));
});

test('ftoi truncates toward zero; out of range and NaN give 0; itof rounds toward zero', () => {
  const f = [2.9, -2.9, 0.5, -0.5, 1e10, -1e10, NaN, Infinity, 2147483520, -2147483648, 123456.7, -0, 1e-40, 7, 8.5, -8.5];
  assert.deepEqual(compute('ftoi r0, r1', f.map(bits)), [2, -2, 0, 0, 0, 0, 0, 0, 2147483520, -2147483648, 123456, 0, 0, 7, 8, -8]);
  const i = [16777217, -16777217, 1, -1, 2147483647, 0, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21];
  const expected = [16777216, -16777216, 1, -1, 2147483520, 0, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21];
  assert.deepEqual(compute('itof r0, r1', i).map(float), expected);
});

test('shifts use the low 5 bits of the amount; ror rotates right; asr keeps the sign', () => {
  const a = lanes(() => 0x80000001);
  assert.deepEqual(compute('shl r0, r1, r2', a, lanes((l) => 32 + l)), lanes((l) => 0x80000001 << l));
  assert.deepEqual(compute('shr r0, r1, r2', a, lanes((l) => 64 + l)), lanes((l) => 0x80000001 >>> l));
  assert.deepEqual(compute('asr r0, r1, r2', a, lanes((l) => l)), lanes((l) => 0x80000001 >> l));
  assert.deepEqual(compute('ror r0, r1, r2', a, lanes((l) => l)), lanes((l) => (0x80000001 >>> l) | (0x80000001 << (32 - l))));
});

test('integer min/max are signed; clz; not; 8-bit vector ops saturate per byte', () => {
  const a = lanes((l) => l - 8);
  const b = lanes((l) => 3 - l);
  assert.deepEqual(compute('min r0, r1, r2', a, b), a.map((v, l) => Math.min(v, b[l]!)));
  assert.deepEqual(compute('max r0, r1, r2', a, b), a.map((v, l) => Math.max(v, b[l]!)));
  assert.deepEqual(compute('clz r0, r1', lanes((l) => (l === 0 ? 0 : 1 << (l - 1)))), lanes((l) => (l === 0 ? 32 : 32 - l)));
  assert.deepEqual(compute('not r0, r1', a), a.map((v) => ~v));
  assert.deepEqual(compute('v8adds r0, r1, r2', lanes(() => 0x10f0ff01), lanes(() => 0x20200101)), lanes(() => 0x30ffff02));
  assert.deepEqual(compute('v8subs r0, r1, r2', lanes(() => 0x10f0ff01), lanes(() => 0x20200101)), lanes(() => 0x00d0fe00));
  assert.deepEqual(compute('nop; v8min r0, r1, r2', lanes(() => 0x10f0ff01), lanes(() => 0x20200101)), lanes(() => 0x10200101));
  assert.deepEqual(compute('nop; v8muld r0, r1, r2', lanes(() => 0xff80ff00 | 0), lanes(() => 0xff80807f | 0)), lanes(() => 0xff408000 | 0));
});

test('set flags and conditional writes, per lane', () => {
  const r = compute('sub.setf nop, r1, 8\nmov r0, 5\nmov.ns r0, 7\nmov.zs r0, 9', lanes((l) => l));
  assert.deepEqual(r, lanes((l) => (l < 8 ? 7 : l === 8 ? 9 : 5)));
  // Carry of an unsigned add; flags from the mul ALU when the add ALU does nop.
  assert.deepEqual(compute('add.setf nop, r1, r2\nmov r0, 0\nmov.cs r0, 1', lanes(() => -1), lanes((l) => l)), lanes((l) => (l > 0 ? 1 : 0)));
  assert.deepEqual(compute('nop; fmul.setf nop, r1, r2\nmov r0, 0\nmov.ns r0, 1', lanes((l) => bits(l - 7.5)), lanes(() => bits(1))), lanes((l) => (l < 8 ? 1 : 0)));
});

test('small immediates feed integers and floats to the regfile-B input', () => {
  assert.deepEqual(runAsm(`add r0, elem_num, -16\n${END}`).reg(0, 'r0'), lanes((l) => l - 16));
  assert.deepEqual(runAsm(`itof r1, elem_num\nfmul r0, r1, 0.125\n${END}`).reg(0, "r0").map(float), Array.from({ length: 16 }, (_, l) => l * 0.125));
});
