// qpu asm --syntax series: the SHA-256 series' assembler, bit for bit. The expected words were
// made by that assembler (elorimer/rpi-playground, QPU/assembler, built locally) from these
// programs, which are our own; its four programs (helloworld and the SHA-256 parts) assemble
// to its words too (docs/asm.md says how that was checked).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { formatWord } from '../../src/vc4/codec.ts';
import { validate } from '../../src/vc4/validate.ts';
import { runAsm } from '../helpers/emu.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runQpu } from '../helpers/cli.ts';

const words = (src: string) => {
  const p = assemble(src, { syntax: 'series' });
  return Array.from({ length: p.words.length / 2 }, (_, i) => formatWord(p.words[2 * i + 1]!, p.words[2 * i]!));
};

/** One line each, and the word the series' assembler writes for it. */
const LINES: [string, string][] = [
  ['add ra3, ra1, rb2;   nop', '0x100260E7_0C042DF7'],
  ['sub rb7, rb4, ra5;   nop', '0x100271E7_0D144FBE'],
  ['fadd ra10, r0, r1;   nop', '0x100262A7_01000041'],
  ['itof rb11, r5, ra12; nop', '0x100272E7_08300BAE'],
  ['nop rb39, r0, r1;       mul24 ra6, r2, r3', '0x100259C6_40000053'],
  ['add ra1, ra2, rb3;   v8max rb4, r0, r1', '0x10026044_AC083DC1'],
  ['xor rb5, r2, r3;     v8adds ra6, ra7, rb8', '0x10027146_D61C84F7'],
  ['min ra9, r1, ra9;    v8muld rb10, r4, ra9;', '0x1002624A_722403A6'],
  ['or ra1, ra2, 0;   nop', '0xD0026067_15080DF7'],
  ['or ra4, r4, 0;    nop', '0xD0026127_150009E7'],
  ['or ra7, ra8, ra8; v8max rb9, ra8, ra8', '0x100261C9_B5200DB6'],
  ['ldi ra1, 0x1234;', '0xE0024067_00001234'],
  ['ldi rb2, 42', '0xE00249C2_0000002A'],
  ['ldi ra3, rb4, 0xdeadbeef;', '0xE00240C4_DEADBEEF'],
  ['ldi rb5, 1.5', '0xE00249C5_3FC00000'],
  ['ldi ra6, -1', '0xE00241A7_FFFFFFFF'],
  ['ldi ra8, 010   # comment', '0xE0024227_0000000A'],
  ['add ra1, ra2, 15;  nop', '0xD0026067_0C08FDF7'],
  ['shl rb3, r1, 0xf;  nop', '0xD00270E7_1100F3CF'],
  ['sub ra8, r0, 0.0;  nop', '0xD0026227_0D0001C7'],
  ['nop.tmu ra39, ra39, ra39;  nop', '0xA00249E7_009C0DB6'],
  ['add.tmu rb1, r4, ra2;      nop', '0xA0027067_0C0809A6'],
  ['nop.tend ra39, ra39, ra39; nop rb39, rb39, rb39', '0x300249E7_009E7DBF'],
  ['sema up, 0', '0xE80009E7_00000000'],
  ['sema down, 15', '0xE80009E7_0000001F'],
  ['sema acquire, 3', '0xE80009E7_00000013'],
  ['sema release, 0x7', '0xE80009E7_00000007'],
  ['add ra1, r0, r1;  nop', '0x10026067_0C000041'],
  ['nop ra39, r0, r1;  fmul rb4, ra5, rb6', '0x100249C4_20146077'],
  ['add ra32, ra1, rb2; nop', '0x10026827_0C042DF7'],
  ['add rb33, ra1, rb2; nop', '0x10027867_0C042DF7'],
  ['nop rb39, ra1, ra1; v8max ra2, r0, r0', '0x100259C2_A0040D80'],
  ['fsub ra1, r0, r1; nop', '0x10026067_02000041'],
  ['fmin ra1, r0, r1; nop', '0x10026067_03000041'],
  ['fmax ra1, r0, r1; nop', '0x10026067_04000041'],
  ['fminabs ra1, r0, r1; nop', '0x10026067_05000041'],
  ['fmaxabs ra1, r0, r1; nop', '0x10026067_06000041'],
  ['ftoi ra1, r0, r1; nop', '0x10026067_07000041'],
  ['shr ra1, r0, r1; nop', '0x10026067_0E000041'],
  ['asr ra1, r0, r1; nop', '0x10026067_0F000041'],
  ['max ra1, r0, r1; nop', '0x10026067_13000041'],
  ['and ra1, r0, r1; nop', '0x10026067_14000041'],
  ['not ra1, r0, r1; nop', '0x10026067_17000041'],
  ['clz ra1, r0, r1; nop', '0x10026067_18000041'],
  ['v8adds ra1, r0, r1; nop', '0x10026067_1E000041'],
  ['v8subs ra1, r0, r1; v8subs rb2, r2, r3', '0x10026042_FF000053'],
  ['ldi ra1, 0.5', '0xE0024067_3F000000'],
  ['ldi ra1, 1f', '0xE0024067_3F800000'],
  ['ldi ra1, 1.0e3', '0xE0024067_447A0000'],
  ['ldi ra1, 0xFFFFFFFF', '0xE0024067_FFFFFFFF'],
];

test('each form assembles to the series assembler\'s word', () => {
  for (const [src, word] of LINES) assert.deepEqual(words(src), [word], src);
});

test('branches: conditions, links, an added register, offsets in bytes from PC + 4', () => {
  const src = `start:
add ra1, ra1, 1;  nop
brr.zf ra39, start
brr.ze ra39, fwd
brr.zs rb5, start
brr.zc ra4, fwd
brr ra39, fwd, ra3
nop ra39, ra39, ra39;  nop rb39, rb39, rb39
fwd:
brr.* ra39, start
brr.nf ra39, fwd
brr.ne ra39, fwd
brr.ns ra39, fwd
brr.nc ra39, fwd
brr.cf ra39, fwd
brr.ce ra39, fwd
brr.cs ra39, fwd
brr.cc ra39, fwd`;
  assert.deepEqual(words(src), ['0xd0026067_0c041df7', '0xf00809e7_ffffffd8', '0xf01809e7_00000008', '0xf02809c5_ffffffc8', '0xf0380127_fffffff8', '0xf0fc69e7_fffffff0', '0x100249e7_009e7dbf', '0xf0f809e7_ffffffa8', '0xf04809e7_ffffffd8', '0xf05809e7_ffffffd0', '0xf06809e7_ffffffc8', '0xf07809e7_ffffffc0', '0xf08809e7_ffffffb8', '0xf09809e7_ffffffb0', '0xf0a809e7_ffffffa8', '0xf0b809e7_ffffffa0'].map((w) => w.toUpperCase().replace('0X', '0x')));
  assert.deepEqual(words('bra ra39, ZERO, ra0;'), ['0xF0F409E7_00000000']);
});

// The series' count-down loop: `sub` sets the flags there, so `brr.ze` ("all lanes nonzero") ends it.
const LOOP = [
  'ldi ra1, 5',
  'nop ra39, ra39, ra39;  nop rb39, rb39, rb39',
  'loop:',
  'sub ra1, ra1, 1;   nop',
  'nop ra39, ra39, ra39;  nop rb39, rb39, rb39',
  'brr.ze ra39, loop',
  ...Array<string>(3).fill('nop ra39, ra39, ra39;  nop rb39, rb39, rb39'),
  'or ra32, ra1, 0;  nop',
  'nop.tend ra39, ra39, ra39;  nop rb39, rb39, rb39',
  ...Array<string>(2).fill('nop ra39, ra39, ra39;  nop rb39, rb39, rb39'),
].join('\n');

test('the series\' loops end: every ALU instruction whose add operation is not nop sets the flags', () => {
  const p = assemble(LOOP, { syntax: 'series' });
  assert.equal(p.instrs[2]!.kind === 'alu' && p.instrs[2]!.sf, 1);
  assert.equal(p.instrs[3]!.kind === 'alu' && p.instrs[3]!.sf, 0); // add nop
  assert.deepEqual(validate(p.words), []);
  const run = runAsm(LOOP, { syntax: 'series' });
  assert.equal(run.reg(0, 'r0')[0], 0);
  assert.equal(run.result.total.instructions, 2 + 6 * 5 + 4); // the loop's body and delay slots run 5 times
});

test('what the series\' assembler would silently drop or change is an error saying so', () => {
  const bad: [string, RegExp][] = [
    ['add.ze ra1, ra2, 1; nop', /1:5: error: the series' assembler ignores \.ze on an ALU operation/],
    ['add r0, ra1, 1; nop', /writes r0 as register address 0 \(ra0 or rb0\), not the accumulator: write ra0 for that, or ra32/],
    ['add ra1, ra2, ra3; nop', /ra2 and ra3 are both regfile A reads; an instruction has one \(the series' assembler would read ra2 for both\)/],
    ['or rb1, rb2, 0; nop', /rb2 and a small immediate both need the regfile-B read|a small immediate and rb2 both need/],
    ['add ra1, ra2, 16; nop', /the series' small immediates are 0-15, not 16/],
    ['add ra1, 5, ra3; nop', /1:10: error: the first source must be a register in the series' syntax/],
    ['nop ra39, ra39, ra39; fmul rb4, 3, r0', /the first source must be a register/],
    ['add ra1, ra2, rb3; nop ra39, r0, r1', /ra39 is in the same register file as the add's destination ra1; the mul ALU writes the other file: rb39/],
    ['add.tmu ra1, ra2, 1; nop', /a small immediate takes the signal field, so the series' assembler drops \.tmu/],
    ['add ra1, ra2, rb3', /expected ';' before the mul half/],
    ['fmul rb1, r0, r1', /the add half comes first/],
    ['mov ra1, ra2', /'mov' is not an instruction of the series' syntax/],
    ['ldi r0, 5', /writes r0 as register address 0/],
    ['ldi ra1, ra2, 5', /ldi writes one register of each file: ra1 and rb2/],
    ['ldi ra1, 5 junk', /unexpected 'junk' after the value/],
    ['ldi ra1, 1e3', /'1e3' is not a number the series' assembler reads as written/],
    ['x: brr ra39, x', /ignores the rest of a label's line/],
    ['x:\nbra ra39, x', /gives bra the relative offset of a label/],
    ['brr.xx ra39, ZERO', /unknown branch condition \.xx/],
    ['sema other, 1', /sema takes up, down, acquire or release, not 'other'/],
    ['sema up, 16', /there are 16 semaphores/],
    ['. odd line', /a line cannot start with '\.'/],
    [`add ra1, ra2, 1; nop${' '.repeat(120)}`, /a line of 140 characters: the series' assembler reads 127 at most/],
    ['ZERO:\nnop ra39, ra39, ra39; nop', /'ZERO' cannot be a label/],
  ];
  for (const [src, re] of bad) assert.throws(() => assemble(src, { syntax: 'series' }), (e: Error) => re.test(e.message), src);
});

test('qpu asm/validate/emu --syntax series', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-series-'));
  const file = join(dir, 'loop.m4out'); // any name: --syntax says it is assembly
  writeFileSync(file, LOOP);
  const asm = await runQpu('asm', file, '--syntax', 'series', '--hex');
  assert.equal(asm.code, 0);
  assert.equal(asm.out.split('\n')[2], '0xD0026067_0D041DF7');
  assert.equal((await runQpu('validate', file, '--syntax', 'series')).code, 0);
  assert.equal((await runQpu('emu', file, '--syntax', 'series')).code, 0);
  const bad = await runQpu('asm', file, '--syntax', 'vc4asm', '--hex');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--syntax vc4asm: the syntaxes are qpu-ts and series/);
  assert.throws(() => assemble('nop', { syntax: 'vc4asm' as never }), /syntax vc4asm: the syntaxes are qpu-ts and series/);
});
