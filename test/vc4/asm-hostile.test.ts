// Hostile input for the assembler (issue 9): whatever the text, assemble() returns a program or
// throws an AsmError whose every diagnostic is located and readable, in time linear in the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { AsmError, type AsmProgram, assemble } from '../../src/vc4/asm/assembler.ts';
import { disassemble } from '../../src/vc4/asm/disasm.ts';
import type { BranchInstr, LoadImmInstr } from '../../src/vc4/instr.ts';
import { MAX_PROGRAM_INSTRUCTIONS } from '../../src/vc4/codec.ts';

const MB = 1 << 20;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Assembles `text`: the program, or the AsmError's diagnostics, each checked to be located and printable. */
function outcome(text: string): AsmProgram | string[] {
  try {
    return assemble(text, { file: 'k.qasm' });
  } catch (e) {
    if (!(e instanceof AsmError)) throw new Error(`not an AsmError for ${JSON.stringify(text.slice(0, 80))}: ${String(e)}`);
    const lines = text.split(/\r\n|\n|\r/);
    for (const d of e.diagnostics) {
      assert.ok(d.line >= 1 && d.line <= lines.length, `line ${d.line} of ${lines.length}`);
      assert.ok(d.col >= 1 && d.col <= lines[d.line - 1]!.length + 1, `col ${d.col} on line ${d.line}`);
      assert.doesNotMatch(d.message, /[\u0000-\u001f\u007f-\u009f]/, d.message);
      assert.doesNotMatch(d.message, LONE_SURROGATE, d.message);
      assert.ok(d.message.length < 1000, `a ${d.message.length}-character message`);
    }
    return e.diagnostics.map((d) => `${d.line}:${d.col}: ${d.message}`);
  }
}

function errorsOf(text: string): string[] {
  const r = outcome(text);
  if (!Array.isArray(r)) assert.fail(`expected an error from ${JSON.stringify(text)}`);
  return r;
}

// ---------------------------------------------------------------- 1. no quadratic time

const LONG_LINES: [string, string][] = [
  ['spaces, then a comment', `nop.tend${' '.repeat(MB)}# end`],
  ['digits then e+', `${'1'.repeat(MB)}e+`],
  ['ldi of digits then e+', `ldi r0, ${'1'.repeat(MB)}e+`],
  ['tabs', `\t${'\t'.repeat(MB)}nop`],
  ['trailing tabs and spaces', `nop${' \t'.repeat(MB / 2)}`],
  ['decimal digits', `ldi r0, ${'9'.repeat(MB)}`],
  ['zero digits (a valid small immediate)', `add r0, r1, ${'0'.repeat(MB)}1`],
  ['float digits', `ldi r0, ${'1'.repeat(MB)}.5`],
  ['fraction digits', `ldi r0, 0.${'1'.repeat(MB)}`],
  ['exponent digits', `ldi r0, 1e${'1'.repeat(MB)}`],
  ['mantissa and exponent', `ldi r0, 1.${'2'.repeat(MB / 2)}e-${'3'.repeat(MB / 2)}`],
  ['hex digits', `ldi r0, 0x${'f'.repeat(MB)}`],
  ['leading hex zeros', `ldi r0, 0x${'0'.repeat(MB)}1`],
  ['_ in hex', `ldi r0, 0x${'_'.repeat(MB)}`],
  ['.dword hex', `.dword 0x${'0'.repeat(MB)}`],
  ['_ word', '_'.repeat(MB)],
  ['word as opcode', 'a'.repeat(MB)],
  ['word as register', `mov r0, ${'r'.repeat(MB)}`],
  ['word as destination', `mov ${'x'.repeat(MB)}, r0`],
  ['word as label reference', `brr -, ${'l'.repeat(MB)}`],
  ['word as label definition', `${'l'.repeat(MB)}: nop`],
  ['suffixes', `nop${'.tend'.repeat(MB / 5)}`],
  ['unknown suffixes', `nop${'.x'.repeat(MB / 2)}`],
  ['dots', `nop${'.'.repeat(MB)}`],
  ['commas', `mov r0${','.repeat(MB)}`],
  ['operands', `mov r0${', r0'.repeat(MB / 4)}`],
  ['branch links', `brr${' -,'.repeat(MB / 3)} 8`],
  ['semicolons', `nop${';'.repeat(MB)}`],
  ['reads', `nop${'; read r0'.repeat(MB / 9)}`],
  ['signal parts', `nop${'; ldtmu0'.repeat(MB / 8)}`],
  ['comment text', `nop # ${'x'.repeat(MB)}`],
  ['hashes', '#'.repeat(MB)],
  ['labels', `${'a:'.repeat(MB / 2)} nop`],
  ['distinct labels', `${Array.from({ length: MB / 8 }, (_, i) => `l${i}:`).join(' ')} nop`],
  ['colons', `nop${':'.repeat(MB)}`],
  ['>> operators', `mov r0, r1${' >>'.repeat(MB / 3)}`],
  ['<< operators', `mov r0, r1 ${'<<'.repeat(MB / 2)}`],
  ['minus signs', `mov r0, ${'-'.repeat(MB)}`],
  ['negative numbers', `ldi r0, ${'-1'.repeat(MB / 2)}`],
  ['brackets', `ldi r0, ${'['.repeat(MB)}`],
  ['per-element list', `ldi r0, [${'1,'.repeat(MB / 2)}1]`],
  ['unexpected characters', `nop ${'$'.repeat(MB)}`],
  ['NULs', '\u0000'.repeat(MB)],
  ['emoji', '😀'.repeat(MB / 2)],
  ['empty lines', '\n'.repeat(MB)],
  ['lone CRs', '\r'.repeat(MB)],
  ['bad lines', 'x\n'.repeat(MB / 2)],
  ['long similar labels and wrong references', longLabels()],
  // A quarter of a megabyte of instructions: each one costs more than a character.
  ['instructions ending in CRLF', 'nop\r\n'.repeat(MB / 20)],
  ['instructions', 'add r0, r1, 2\n'.repeat(MB / 60)],
];

/** 1 MB of 60-character labels that differ in one character, and references to near misses. */
function longLabels(): string {
  const stem = 'l'.repeat(58);
  const lines: string[] = [];
  for (let i = 0; lines.length * 64 < MB; i++) lines.push(`${stem}${i % 36}${(i / 36) | 0}: nop`, `brr -, ${stem}zz`);
  return lines.join('\n');
}

for (const [name, text] of LONG_LINES)
  test(`a megabyte of ${name}: a program or a located error, within 2 s`, () => {
    const t0 = performance.now();
    outcome(text);
    const ms = performance.now() - t0;
    assert.ok(ms < 2000, `${name}: ${ms.toFixed(0)} ms`);
  });

// ---------------------------------------------------------------- 2. names of Object.prototype

const PROTO_NAMES = [...Object.getOwnPropertyNames(Object.prototype), '__proto__'].flatMap((n) => [n, n.toUpperCase()]);
const nowhere = ['X', 'X r0, r1, r2', 'nop; X', 'nop; X r0, r1, r2', 'X; nop', 'nop.X', 'add.X r0, r1, r2', 'fmul.X r0, r1, r2',
  'nop.tend.X', 'mov r0.X, r1', 'fadd r0, ra1.X, r1', 'fadd r0, r4.X, r1', 'ldi.X r0, 1', 'ldi.u2.X r0, [0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0]',
  'ldi X, 1', 'ldi r0, X, 1', 'ldi r0.X, 1', 'mov X, r0', 'mov r0, X', 'add r0, X, r1', 'add r0, r1, X', 'read X', 'nop; read X',
  'mov r1, r0 >> X', 'brr.X -, 8', 'bra.X -, 8', 'brr.anyz.X -, 8', 'brr -, X', 'brr X', 'bra -, X', 'brr -, 8, X', 'brr X, -, 8',
  'brr ra1, X, 8', '.X 0x0', '.X', 'sema X, 1', 'sema up, X', 'sacq X', 'srel X', 'sema.X up, 1'];

test('every name of Object.prototype, in every position, is a located error, never a crash', () => {
  for (const name of PROTO_NAMES)
    for (const template of nowhere) {
      const text = template.replaceAll('X', name);
      const r = outcome(text);
      assert.ok(Array.isArray(r), `${text} assembled`);
      for (const m of r) assert.doesNotMatch(m, /function|\[object|native code|undefined/, `${text}: ${m}`);
    }
});

test('every name of Object.prototype works as a label', () => {
  for (const name of PROTO_NAMES) {
    const p = outcome(`nop\n${name}: nop\nbrr -, ${name}\nnop\nnop\nnop\nbrr.anyz ra0, ${name}, ra1`);
    assert.ok(!Array.isArray(p), `${name}: ${p}`);
    assert.equal(p.labels.get(name), 1);
    assert.equal((p.instrs[2] as BranchInstr).imm, (1 - (2 + 4)) * 8);
    assert.equal((p.instrs[6] as BranchInstr).imm, (1 - (6 + 4)) * 8);
  }
});

// ---------------------------------------------------------------- 3. line endings

test('lines end at \\r\\n, \\n or a lone \\r, and are counted as an editor counts them', () => {
  const p = assemble('nop # c\rldi r0, 5\rnop');
  assert.equal(p.instrs.length, 3);
  assert.deepEqual(p.lines, [1, 2, 3]);
  assert.equal((p.instrs[1] as LoadImmInstr).imm, 5);
  const mixed = assemble('nop\r\nnop\rnop\nnop\r\r\nnop');
  assert.deepEqual(mixed.lines, [1, 2, 3, 4, 6]);
  assert.deepEqual(errorsOf('nop\rnop\r\nnop\n  bogus\rnop'), ["4:3: unknown operation 'bogus'"]);
  assert.deepEqual(errorsOf('nop\r\r  frob'), ["3:3: unknown operation 'frob' (did you mean fsub?)"]);
});

test('a byte-order mark at the start of the file is not part of line 1', () => {
  assert.equal(assemble('\uFEFFnop\nnop').instrs.length, 2);
  assert.match(errorsOf('nop\n\uFEFFnop')[0]!, /^2:1: unexpected character '\\uFEFF' \(U\+FEFF\)/);
});

// ---------------------------------------------------------------- 4, 5. numbers

test('a float immediate that single precision cannot hold is an error, not infinity or zero', () => {
  assert.match(errorsOf('ldi r0, 3.5e38')[0]!, /^1:9: 3\.5e38 does not fit in a 32-bit float \(the largest is 3\.4028235e38\)/);
  assert.match(errorsOf('ldi r0, -3.5e38')[0]!, /^1:9: -3\.5e38 does not fit in a 32-bit float/);
  assert.match(errorsOf('ldi r0, 1e400')[0]!, /^1:9: 1e400 does not fit in a 32-bit float/);
  assert.match(errorsOf('ldi r0, 1e-50')[0]!, /^1:9: 1e-50 is too small for a 32-bit float: the QPU flushes .* to zero/);
  // Below even double precision: parsed as 0, but written nonzero.
  assert.match(errorsOf('ldi r0, 1e-400')[0]!, /^1:9: 1e-400 is too small for a 32-bit float/);
  assert.match(errorsOf('ldi r0, -1e-400')[0]!, /^1:9: -1e-400 is too small/);
  assert.match(errorsOf(`ldi r0, 0.${'0'.repeat(330)}1`)[0]!, /is too small for a 32-bit float/);
  assert.match(errorsOf('ldi r0, -1e-40')[0]!, /^1:9: -1e-40 is too small/); // a denormal
  assert.match(errorsOf('ldi r0, [0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,1e-50]')[0]!, /^1:43: 1e-50 is too small/);
  // Small immediates go through the same numbers.
  assert.match(errorsOf('fmul r0, r1, 1e39')[0]!, /^1:14: 1e39 does not fit in a 32-bit float/);
  assert.match(errorsOf('fmul r0, r1, 1e-50')[0]!, /^1:14: 1e-50 is too small/);
  const bits = (t: string) => (assemble(`ldi r0, ${t}`).instrs[0] as LoadImmInstr).imm;
  assert.equal(bits('3.4028235e38'), 0x7f7fffff);
  assert.equal(bits('-3.4028235e38'), 0xff7fffff);
  assert.equal(bits('1.1754944e-38'), 0x00800000);
  assert.equal(bits('0.0'), 0);
  assert.equal(bits('-0.0'), 0x80000000);
  assert.equal(bits('0e-99'), 0);
  assert.equal(bits('0x7F800000'), 0x7f800000); // infinity, by its bits
  assert.equal(bits('1.'), 0x3f800000);
  assert.equal(bits('.5'), 0x3f000000);
  assert.equal(bits('2f'), 0x40000000);
  assert.equal(bits('2.5E+1'), 0x41c80000);
});

test('a malformed number is "not a number", saying what was expected', () => {
  assert.match(errorsOf('ldi r0, 0x_')[0]!, /^1:9: '0x_' is not a number: hex digits \(0-9, a-f\) are expected after 0x$/);
  assert.match(errorsOf('ldi r0, 0x')[0]!, /^1:9: '0x' is not a number: hex digits/);
  assert.match(errorsOf('ldi r0, 0x1g')[0]!, /^1:9: '0x1g' is not a number: 'g' is not a hex digit/);
  assert.match(errorsOf('ldi r0, 12abc')[0]!, /^1:9: '12abc' is not a number: unexpected 'a'/);
  assert.match(errorsOf('ldi r0, 1e+')[0]!, /^1:9: '1e\+' is not a number: the exponent needs digits/);
  assert.match(errorsOf('ldi r0, 1.5.5')[0]!, /^1:9: '1\.5\.5' is not a number/);
  assert.match(errorsOf('.dword 0x_')[0]!, /^1:8: \.dword takes one 64-bit hex number/);
  assert.match(errorsOf('ldi r0, 0x1_0000_0000')[0]!, /does not fit in 32 bits/);
  assert.equal((assemble('ldi r0, 0x_ff_').instrs[0] as LoadImmInstr).imm, 0xff);
});

// ---------------------------------------------------------------- 6. unprintable characters

test('control characters, invisible ones and lone surrogates are escaped in messages; an emoji is one character', () => {
  assert.deepEqual(errorsOf('nop \u0000'), ["1:5: unexpected character '\\x00' (U+0000)"]);
  assert.deepEqual(errorsOf('nop \u0007'), ["1:5: unexpected character '\\x07' (U+0007)"]);
  assert.deepEqual(errorsOf('nop \u007f'), ["1:5: unexpected character '\\x7F' (U+007F)"]);
  assert.deepEqual(errorsOf('nop \u200b'), ["1:5: unexpected character '\\u200B' (U+200B)"]);
  assert.deepEqual(errorsOf('nop \u00a0'), ["1:5: unexpected character '\\xA0' (U+00A0)"]);
  assert.deepEqual(errorsOf('nop 😀 x'), ["1:5: unexpected character '😀' (U+1F600)"]);
  assert.deepEqual(errorsOf('nop \ud83d'), ["1:5: unexpected character '\\uD83D' (U+D83D)"]);
  assert.deepEqual(errorsOf('nop \ude00'), ["1:5: unexpected character '\\uDE00' (U+DE00)"]);
  assert.deepEqual(errorsOf('nop é'), ["1:5: unexpected character 'é' (U+00E9)"]);
  assert.deepEqual(errorsOf('nop $'), ["1:5: unexpected character '$'"]);
});

test('a long name is shortened in a message', () => {
  const [m] = errorsOf(`mov r0, ${'q'.repeat(5000)}`);
  assert.equal(m, `1:9: unknown register '${'q'.repeat(40)}... (5000 characters)'`);
});

// ---------------------------------------------------------------- 7. branches

test('a branch target error says bytes and instructions', () => {
  assert.deepEqual(errorsOf('brr -, 1.5'), [
    "1:8: brr's target is a byte offset from PC + 4 instructions: a whole number of bytes (8 per instruction), not 1.5",
  ]);
  assert.match(errorsOf('bra -, 2.0')[0]!, /^1:8: bra's target is a byte address: a whole number of bytes \(8 per instruction\), not 2\.0$/);
});

// ---------------------------------------------------------------- 8. empty programs

test('a program with no instructions is refused', () => {
  for (const text of ['', '\n\n', '# only a comment', 'start:\n  # nothing\nend:', '   \t  ', '\uFEFF'])
    assert.deepEqual(errorsOf(text), [
      '1:1: no instructions: the program is empty (only blank lines, comments and labels); a QPU program needs at least one instruction',
    ]);
  // Lines that fail to parse are reported for themselves, without "no instructions" on top.
  assert.deepEqual(errorsOf('$'), ["1:1: unexpected character '$'"]);
});

// ---------------------------------------------------------------- order, columns

test('errors come in line order, and "expected here" points just after the last token, not after a comment', () => {
  assert.deepEqual(
    errorsOf('bogus\nnop $').map((e) => e.split(':').slice(0, 2).join(':')),
    ['1:1', '2:5'],
  );
  assert.match(errorsOf('ldi r0,    # the value')[0]!, /^1:8: expected an operand/);
  assert.match(errorsOf('mov r0, r1 >>   ')[0]!, /^1:14: expected a rotation amount/);
});

// ---------------------------------------------------------------- random and mutated text

const examples = readdirSync(new URL('../../examples/asm/', import.meta.url))
  .filter((f) => f.endsWith('.qasm'))
  .flatMap((f) => readFileSync(new URL(`../../examples/asm/${f}`, import.meta.url), 'utf8').split('\n'));
const TOKENS = ['nop', 'ldi', 'brr', 'bra', 'sema', 'mov', 'fmul', 'read', 'r4', 'r5', 'ra1', 'rb2', 'unif', '-', 'ZERO', ',',
  ';', ':', '[', ']', '>>', '<<', '.tend', '.setf', '.ws', '.16a', '.8888c', '.i2', '.zs', '.anyz', '0', '-16', '16', '1.0',
  '1e-50', '3.5e38', '0x_', '0xFFFFFFFF', '.dword', 'up', 'lbl', 'lbl:', '#', '\t', '\r', '\n', '\u0000', '😀', '\ud800',
  'constructor', '__proto__', '2f', '.', 'e+', '>> r5'];
const token = fc.constantFrom(...TOKENS);
const soup = fc.array(token, { maxLength: 14 }).chain((ts) => fc.constantFrom(ts.join(' '), ts.join('')));
const mutated = fc
  .tuple(fc.constantFrom(...examples), fc.nat(), fc.oneof(token, fc.string({ unit: 'binary', maxLength: 3 })), fc.nat({ max: 3 }))
  .map(([line, at, insert, cut]) => {
    const i = at % (line.length + 1);
    return line.slice(0, i) + insert + line.slice(i + cut);
  });

test('random and mutated text: a program whose disassembly reads back, or located errors', () => {
  fc.assert(
    fc.property(fc.oneof(soup, mutated, fc.string({ unit: 'binary', maxLength: 40 })), (text) => {
      const r = outcome(text);
      if (!Array.isArray(r)) assert.deepEqual(assemble(disassemble(r.words)).words, r.words);
    }),
    { numRuns: 4000 },
  );
});

test('a source of more than MAX_PROGRAM_INSTRUCTIONS instructions is refused as soon as it passes the limit', () => {
  const t = performance.now();
  const e = errorsOf('nop\n'.repeat(MAX_PROGRAM_INSTRUCTIONS + 1000));
  assert.equal(e.length, 1);
  assert.match(e[0]!, new RegExp(`^${MAX_PROGRAM_INSTRUCTIONS + 2}:1: the program has ${MAX_PROGRAM_INSTRUCTIONS + 1} instructions .*at most ${MAX_PROGRAM_INSTRUCTIONS} .*the rest of the file is not read$`));
  assert.ok(performance.now() - t < 20_000, 'refused without assembling the rest');
});
