import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { disassemble, disassembleInstr } from '../../src/vc4/asm/disasm.ts';
import { isCanonical, nonCanonicalReasons } from '../../src/vc4/canonical.ts';
import { decodeHiLo, encodeHiLo, encodeProgram } from '../../src/vc4/codec.ts';
import { arbInstr, arbWord } from '../helpers/arbitrary.ts';

const hello = readFileSync(new URL('../../examples/asm/hello.qasm', import.meta.url), 'utf8');

/** What may leave a word without a spelling: an encoding the guide reserves. */
const RESERVED = /reserved|not defined/;

test('every word disassembles to text that assembles back to it; .dword only for reserved encodings', () => {
  fc.assert(
    fc.property(arbWord, ([hi, lo]) => {
      const ins = decodeHiLo(hi, lo);
      const text = disassemble([ins]);
      assert.deepEqual([...assemble(text).words], [lo, hi]);
      if (text.includes('.dword')) for (const r of nonCanonicalReasons(ins)) assert.match(r, RESERVED, text);
    }),
    { numRuns: 5000 },
  );
});

test('the spellings of both ALUs\' write fields: load immediates, semaphores, orphan unpacks and pm', () => {
  const cases: [string, string][] = [
    // Broadcom's `mov rb30, 0x40`: the add ALU writes rb30, the mul ALU writes nowhere, never.
    ['.dword 0xE00217A7_00000040', 'ldi.ws rb30, nop.never, 64'],
    ['ldi.zs r0, ra1.zc, 5', 'ldi.zc ra1, r0.zs, 5'],
    ['ldi r0.zs, 5', 'ldi.zs r0, 5'],
    ['sema.setf up, 3, r0', 'sema.setf up, 3, r0, nop.never'],
    ['sema down, 5, ra1.zs, r1.never', 'sema down, 5, ra1.zs, r1.never'],
    ['.dword 0xE8000000_00000003', 'sema up, 3, ra0.never, rb0.never'],
    ['add r0, r1, r2; read ra3.16a', 'add r0, r1, r2; read ra3.16a'],
    ['add r0, r1, r2; read r4.8a', 'add r0, r1, r2; read r4.8a'],
    ['add.pm r0, r1, r2', 'add.pm r0, r1, r2'],
    ['ldi.pm r0, 1', 'ldi.pm r0, 1'],
    // Bits the hardware ignores: a branch's 59:56 and, without reg, raddr_a's 4:1; a semaphore's 31:5.
    ['.dword 0xF5F00000_00000010', 'bra ra0, rb0, 16; ignored 0x05000000_00000000'],
    ['brr -, 16; ignored 0x0003C000_00000000', 'brr 16; ignored 0x0003C000_00000000'],
    ['.dword 0xE80009E7_12345673', 'sema down, 3; ignored 0x00000000_12345660'],
  ];
  for (const [src, expected] of cases) {
    const ins = assemble(src).instrs[0]!;
    assert.equal(disassembleInstr(ins), expected, src);
    assert.deepEqual(encodeHiLo(assemble(expected).instrs[0]!), encodeHiLo(ins), expected);
  }
  // A semaphore writes its low 32 bits like a load immediate (Figure 6, p. 33).
  const bad: [string, RegExp][] = [
    ['mov r0.zs, r1', /1:7: error: a condition on a destination fits only ldi and sema; write it on the operation: mov\.zs/],
    ['brr r0.zs, 8', /a condition on a destination fits only ldi and sema; a taken branch writes its links on every lane/],
    ['sema.zs up, 3', /a condition on sema applies to its writes: name the destinations after the number/],
    ['sema up, 3, r0, r1, r2', /sema writes two destinations at most/],
    ['ldi r0.zs.zc, 1', /two conditions on r0/],
    ['add r0, r1, r2; read r1', /read r1 does nothing: accumulators are not read ports/],
    ['add.pm ra1.16a, r1, r2', /\.pm selects the r4 unpack and mul colour pack/],
    ['ldi r0, 1; ignored 0x1_0', /1:12: error: a load immediate has no ignored bits/],
    ['brr -, 16; ignored 0x10000000_00000000', /these bits are not ignored in this instruction: its ignored bits are 0x0F03C000_00000000/],
    ['sema up, 1; ignored 0x1', /its ignored bits are 0x00000000_FFFFFFE0/],
  ];
  for (const [src, re] of bad) assert.throws(() => assemble(src), (e: Error) => re.test(e.message), src);
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
  // A reserved add opcode (9) has no spelling.
  const words = encodeProgram([decodeHiLo(0x100009e7, 0x09000000)]);
  assert.match(disassemble(words), /\.dword 0x100009E7_09000000 {2}# add opcode 9 is reserved/);
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
