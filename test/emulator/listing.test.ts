// The JavaScript blocks.ts writes, as `qpu emu --dump-js` prints it, reads like the program: each
// group headed by its instructions' assembly, register words by name, status codes by name, and
// every local it declares read somewhere (checked with the TypeScript parser, scope by scope), on
// the example programs and one that uses every kind of statement, with SIMD off and always.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { listing } from '../../src/emulator/blocks.ts';
import { forgetTranslations, setSimd, translation } from '../../src/emulator/program.ts';
import { listings } from '../../src/emulator/wasm/encoder.ts';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { END, type EmuOptions, runAsm } from '../helpers/emu.ts';

const example = (name: string) => readFileSync(new URL(`../../examples/asm/${name}.qasm`, import.meta.url), 'utf8');

/** Semaphores, the mutex, SFU and TMU results in r4, rotations, links, the nop register, conditions, flags, uniforms as floats, VPM and DMA. */
const EVERYTHING = `
  mov r0, elem_num
  itof r2, r0; fmul r3, r2, unif
  ftoi ra2, r3
  not r3, r0; v8adds r1, r0, r0
  mov.setf r1, r0
  mov sfu_recip, r2
  nop
  nop
  mov r1, r4
  mov r1, r0 >> 3
  mov r5rep, 2
  nop
  mov r2, r0 >> r5
  fadd.ifn r1, r1, r2; fmul.ifz r3, r3, r3
  sema up, 1
  sema down, 1
  mov r0, mutex
  mov mutex, 1
  mov tmu0_s, unif
  brr ra1, over
  nop
  nop
  nop
over:
  mov r0, ra39; nop.ldtmu0
  add.setf r1, r4, ra1
  ldi vw_setup, 0xa00
  mov vpm, r1
  ldi vw_setup, 0x88010000
  mov vw_addr, unif
  read vw_wait
  brr.anyz -, done
  nop
  nop
  nop
done:${END}`;

const PROGRAMS: { name: string; src: string; opts: EmuOptions }[] = [
  { name: 'hello', src: example('hello'), opts: { buffers: { out: 16 }, uniforms: [100, '@out'] } },
  { name: 'mandel', src: example('mandel'), opts: { buffers: { out: 16 }, uniforms: [0xc0000000, 0x3e400000, 0x3dcccccd, 50, '@out', 0] } },
  { name: 'vadd', src: example('vadd'), opts: { buffers: { a: 64, b: 64, out: 64 }, uniforms: ['@a', '@b', '@out', 4, 0] } },
  { name: 'everything', src: EVERYTHING, opts: { strict: false, buffers: { x: 16, out: 16 }, uniforms: [0x3f800000, '@x', '@out'] } },
];

/** The JavaScript of every block and unit the program's runs made, with listings on. */
function blocksOf(src: string, opts: EmuOptions): string[] {
  listings.on = true;
  forgetTranslations();
  try {
    runAsm(src, opts);
    runAsm(src, { ...opts, trace: () => {} }); // units
  } finally {
    listings.on = false;
  }
  const t = translation(assemble(src).words);
  return [...t.blocks.strict, ...t.blocks.loose, ...t.blocks.units].filter((b) => b !== undefined).map((b) => b.toString());
}

/** Locals a function declares that nothing in their scope reads. */
function unusedLocals(source: string): string[] {
  const file = ts.createSourceFile('block.js', source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const unused: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
      const name = node.name.text;
      // The declaration's scope: the block or function body around its declaration list.
      let scope: ts.Node = node.parent.parent.parent;
      if (ts.isForStatement(node.parent.parent)) scope = node.parent.parent;
      let uses = 0;
      const count = (n: ts.Node) => {
        if (ts.isIdentifier(n) && n.text === name && n !== node.name) uses++;
        ts.forEachChild(n, count);
      };
      count(scope);
      if (uses === 0) unused.push(`${name} (${node.getText().slice(0, 60)})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return unused;
}

for (const mode of ['off', 'always'] as const)
  for (const p of PROGRAMS)
    test(`the JavaScript of ${p.name} (SIMD ${mode}) names its words and statuses, heads groups with assembly, and reads every local`, () => {
      setSimd(mode);
      try {
        const fns = blocksOf(p.src, p.opts);
        assert.ok(fns.length > 0);
        for (const fn of fns) {
          assert.doesNotMatch(fn, /[RFZNC]\[\d/, 'a register word by number');
          assert.doesNotMatch(fn, /return \d/, 'a status by number');
          assert.match(fn, /^\/\/ \d+: \S/m, 'a group without its assembly');
          assert.deepEqual(unusedLocals(`(${fn})`), [], fn.split('\n')[0]);
        }
      } finally {
        setSimd('hot');
      }
    });

test('with listings off, groups are headed by their instructions\' numbers only (assembling costs translation time)', () => {
  forgetTranslations();
  const { src, opts } = PROGRAMS[0]!;
  runAsm(src, opts);
  const js = listing(translation(assemble(src).words).blocks.strict, 'js');
  assert.match(js, /^\/\/ 0\nat = 0;$/m);
  assert.doesNotMatch(js, /^\/\/ \d+: /m);
});
