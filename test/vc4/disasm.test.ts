import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { disassemble, disassembleInstr } from '../../src/vc4/asm/disasm.ts';
import { isCanonical } from '../../src/vc4/canonical.ts';
import { decodeHiLo, encodeHiLo, encodeProgram } from '../../src/vc4/codec.ts';
import { arbInstr, arbWord } from '../helpers/arbitrary.ts';

const hello = readFileSync(new URL('../../examples/asm/hello.qasm', import.meta.url), 'utf8');

test('every word disassembles to text that assembles back to it', () => {
  fc.assert(
    fc.property(arbWord, ([hi, lo]) => {
      const text = disassemble([decodeHiLo(hi, lo)]);
      assert.deepEqual([...assemble(text).words], [lo, hi]);
    }),
    { numRuns: 5000 },
  );
});

test('canonical instructions are spelled in the language, never as .dword', () => {
  fc.assert(
    fc.property(arbInstr(), (i) => {
      const text = disassembleInstr(i);
      if (isCanonical(i)) assert.doesNotMatch(text, /\.dword/, text);
      else assert.match(text, /^\.dword 0x[0-9A-F]{8}_[0-9A-F]{8}  # /);
      assert.deepEqual(encodeHiLo(assemble(text).instrs[0]!), encodeHiLo(i));
    }),
    { numRuns: 10000 },
  );
});

test('the same, in the numeric (SHA-256 series) style', () => {
  fc.assert(
    fc.property(arbInstr(['alu', 'ldi', 'branch']), (i) => {
      const text = disassembleInstr(i, { numeric: true });
      if (isCanonical(i)) assert.doesNotMatch(text, /\.dword|unif|vpm|elem_num/, text);
      assert.deepEqual(encodeHiLo(assemble(text).instrs[0]!), encodeHiLo(i));
    }),
    { numRuns: 3000 },
  );
});

test('hello world reads back in both styles', () => {
  const p = assemble(hello);
  assert.equal(
    disassemble(p.words),
    [
      'ldi ra1, 0x1234',
      'ldi vw_setup, 0xa00',
      'add.ws vpm, ra1, unif',
      'ldi vw_setup, 0x88010000',
      'or vw_addr, unif, 0',
      'or.ws nop, vw_wait, nop',
      'mov.ws host_int, nop',
      'nop.tend ra39, ra39, ra39; nop rb39, rb39, rb39',
      'nop ra39, ra39, ra39; nop rb39, rb39, rb39',
      'nop ra39, ra39, ra39; nop rb39, rb39, rb39',
    ]
      .map((l) => `    ${l}\n`)
      .join(''),
  );
  const numeric = disassemble(p.words, { numeric: true });
  assert.match(numeric, /add rb48, ra1, rb32/);
  assert.match(numeric, /or rb50, ra32, 0/);
  assert.deepEqual(assemble(numeric).words, p.words);
});

test('relative branches get labels; non-canonical words get .dword and a reason', () => {
  const src = 'loop: sub.setf r0, r0, 1\n brr.anynz -, loop\n nop\n nop\n nop\n nop.tend\n nop\n nop';
  const p = assemble(src);
  const text = disassemble(p.words);
  assert.match(text, /^L0:\n {4}sub\.setf r0, r0, 1\n {4}brr\.anynz L0\n/);
  const words = encodeProgram([decodeHiLo(0xf5f00000, 0x10)]);
  assert.match(disassemble(words), /\.dword 0xF5F00000_00000010 {2}# ignored bits set: unused/);
});

test('readable forms', () => {
  const cases: [string, string][] = [
    ['mov r0, elem_num', 'mov r0, elem_num'],
    ['or r1, ra5, ra5', 'mov r1, ra5'],
    ['fadd.zs.setf r0, r1, r2; fmul.zc r3, r1, 2.0', 'fadd.zs.setf r0, r1, r2; fmul.zc r3, r1, 2.0'],
    ['nop; fmul r1, r0, r0 >> 3', 'fmul r1, r0 >> 3, r0 >> 3'],
    ['ldi.u2 r0, [0,1,2,3, 0,1,2,3, 0,1,2,3, 0,1,2,3]', 'ldi.u2 r0, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]'],
    ['ldi r0, 1.0', 'ldi r0, 0x3f800000  # 1.0'],
    ['sema down, 7', 'sema down, 7'],
    ['add r0, r1, r2; read unif', 'add r0, r1, r2; read unif'],
    ['not r0, r1', 'not r0, r1'],
    ['fmul ra1.16a, r0, r1', 'fmul ra1.16a, r0, r1'],
  ];
  for (const [src, expected] of cases) assert.equal(disassembleInstr(assemble(src).instrs[0]!), expected, src);
});
