// The fuzz suite, instruction-set tools: random and mutated assembly into the assembler, random
// words into the disassembler and the validator. Each input either succeeds or ends in the
// tool's own error with a location; nothing else escapes, and nothing takes longer than a hang
// bound. Bounded in count and in time (docs/robustness.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AsmError, assemble } from '../../src/vc4/asm/assembler.ts';
import { disassemble } from '../../src/vc4/asm/disasm.ts';
import { decodeProgram } from '../../src/vc4/codec.ts';
import { validate } from '../../src/vc4/validate.ts';
import { exampleLines, expectLocated, type Fuzz, fuzzLoop, mutate, show, soupLine } from '../helpers/hostile.ts';

/** Every diagnostic names <input>:line:col, with a line that exists, and shows no raw control character. */
function asmLocated(src: string) {
  const lines = src.split(/\r\n|\r|\n/).length;
  return (e: Error): boolean =>
    e instanceof AsmError &&
    e.diagnostics.length > 0 &&
    e.diagnostics.every((d) => d.file === '<input>' && d.line >= 1 && d.line <= lines && d.col >= 1) &&
    // eslint-disable-next-line no-control-regex
    !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(e.message);
}

function tryAssemble(src: string): void {
  try {
    assemble(src);
  } catch (e) {
    expectLocated(e, [AsmError], asmLocated(src), () => show(src));
  }
}

test('fuzz: token soup into the assembler', async () => {
  const n = await fuzzLoop(1, 3000, 15_000, (f) => {
    const src = Array.from({ length: 1 + f.int(6) }, () => soupLine(f)).join(f.pick(['\n', '\r\n', '\r']));
    tryAssemble(src);
  });
  assert.ok(n >= 100, `only ${n} inputs ran`);
});

test('fuzz: mutated example programs into the assembler', async () => {
  const lines = exampleLines();
  const n = await fuzzLoop(10_000, 2000, 15_000, (f) => {
    const start = f.int(lines.length);
    const src = lines
      .slice(start, start + 1 + f.int(12))
      .map((l) => (f.chance(0.3) ? mutate(f, l) : l))
      .join('\n');
    tryAssemble(src);
  });
  assert.ok(n >= 100, `only ${n} inputs ran`);
});

/** Random 64-bit words, half of them nudged towards the encodings real programs use. */
function randomWords(f: Fuzz, count: number): Uint32Array {
  const w = new Uint32Array(2 * count);
  for (let i = 0; i < count; i++) {
    w[2 * i] = f.word();
    // The high word's top 4 bits are the signal; bias towards ordinary ALU ones (1, 3, 13) and load immediate (14).
    w[2 * i + 1] = f.chance(0.5) ? ((f.pick([1, 3, 13, 14, 15, 10]) << 28) | (f.word() & 0x0fffffff)) >>> 0 : f.word();
  }
  return w;
}

test('fuzz: random words into the disassembler and the validator', async () => {
  const n = await fuzzLoop(20_000, 1500, 15_000, (f) => {
    const words = randomWords(f, 1 + f.int(40));
    let text = '';
    try {
      text = disassemble(words);
      const findings = validate(decodeProgram(words));
      assert.ok(Array.isArray(findings));
    } catch (e) {
      assert.fail(`seed ${f.seed}: ${(e as Error).stack}`);
    }
    // What the disassembler prints assembles back to the same words.
    try {
      assert.deepEqual(Array.from(assemble(text).words), Array.from(words), `seed ${f.seed}: the disassembly does not reassemble to the words`);
    } catch (e) {
      if (e instanceof AsmError) assert.fail(`seed ${f.seed}: the disassembly does not assemble: ${e.message}\n${text}`);
      throw e;
    }
  });
  assert.ok(n >= 100, `only ${n} inputs ran`);
});
