// Differential testing, part 1 of 2: random programs (src/source/generate.ts) on the
// interpreter and compiled on the emulator agree bit for bit, every fifth with the QPUs in
// random interleavings on both targets. Together the parts run 2,000 seeds;
// `npm run fuzz -- --count N --seed S` runs more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../src/source/generate.ts';
import { printKernel } from '../../src/source/print.ts';
import { compile } from '../../src/compiler/driver.ts';
import { differential } from '../helpers/differential.ts';
import { DifferentialRunner, interleaveFor } from '../../src/runtime/differential.ts';
import type { BoolExpr, Stmt } from '../../src/source/ast.ts';

test('random programs with seeds 1-1000: the emulator agrees with the interpreter', () => {
  differential(1, 1000);
});

test('the generator makes cross-QPU hand-offs: a store, a semaphore up, then another QPU loads it', () => {
  // Programs whose QPU 0 loads, after lowering semaphore 10-12, what another QPU stored for it.
  const handoffs = Array.from({ length: 400 }, (_, i) => printKernel(generate(i + 1).ast)).filter((t) => /semaDec\(1[0-2]\)/.test(t));
  assert.ok(handoffs.length >= 5, `${handoffs.length} hand-offs in 400 programs`);
  assert.ok(handoffs.every((t) => /outQ \+ (512|528|544)[,)]/.test(t)), "each stores to its hand-off slot");
  assert.ok(handoffs.every((t) => /\*\(outI \+ \d+\)/.test(t)), 'and QPU 0 loads it');
});

test('the generator makes barriers and operations across QPUs, at the top level, leaving semaphores 13 and 14 free', () => {
  const texts = Array.from({ length: 400 }, (_, i) => printKernel(generate(i + 1).ast));
  const count = (re: RegExp) => texts.filter((t) => re.test(t)).length;
  assert.ok(count(/^ {2}barrier\(\)$/m) >= 20, `${count(/barrier\(\)/)} programs with a barrier in 400`);
  for (const op of ['sumQPUs', 'minQPUs', 'maxQPUs', 'andQPUs', 'orQPUs', 'scanQPUs']) assert.ok(count(new RegExp(`^ {2}\\w+ = ${op}\\(`, 'm')) >= 1, op);
  assert.ok(count(/scanQPUs\(\w+, 'exclusive'\)/) >= 2, 'exclusive prefixes');
  assert.ok(!texts.some((t) => /^ {4,}(barrier\(\)|\w+ = (sum|min|max|and|or|scan)QPUs\()/m.test(t)), 'none nested');
  assert.ok(!texts.some((t) => /sema(Inc|Dec)\(1[34]\)/.test(t)), 'semaphores 13 and 14 stay free');
});

test('the generator makes parallel loops, one- and two-dimensional, with accumulators, some load-pipelined', () => {
  const programs = Array.from({ length: 300 }, (_, i) => generate(i + 1));
  const texts = programs.map((p) => printKernel(p.ast));
  const oneD = texts.filter((t) => /numQPUs\(\) << 4/.test(t)).length;
  const twoD = texts.filter((t) => /= 0\n\s+for all\(v\d+ < v\d+\)\n(.*\n)*\s+if all\(v\d+ < v\d+\)/.test(t) && /= v\d+ \+ numQPUs\(\)/.test(t)).length;
  const accumulated = texts.filter((t) => /= (sum|min|max|and|or)QPUs\(/.test(t) && /\.(sum|min|max|and|or)Lanes\(\)/.test(t)).length;
  assert.ok(oneD >= 25 && twoD >= 10 && accumulated >= 20, `${oneD} one-dimensional, ${twoD} two-dimensional, ${accumulated} accumulating in 300`);
  const piped = programs.filter((p) => /numQPUs\(\) << 4/.test(printKernel(p.ast)) && /loads pipelined in [1-9]/.test(compile(p.ast, { qpus: p.qpus }).dump('pipeline'))).length;
  assert.ok(piped >= 5, `${piped} with a loop pipelined`);
});

test('the generator makes assertions (some that fail) and prints, which both targets must report alike', () => {
  const texts = Array.from({ length: 300 }, (_, i) => printKernel(generate(i + 1).ast));
  const asserting = texts.filter((t) => t.includes('assert(')).length;
  const printing = texts.filter((t) => /^\s+print\("p\d+"/m.test(t)).length;
  assert.ok(asserting >= 20 && printing >= 20, `${asserting} programs assert, ${printing} print, in 300`);
  // Programs whose assertion fails on the interpreter: the differential runner then compares the failures.
  const runner = new DifferentialRunner();
  const outcomes = Array.from({ length: 200 }, (_, i) => generate(i + 1)).filter((p) => printKernel(p.ast).includes('assert(')).map((p) => runner.run(p));
  assert.ok(outcomes.every((o) => o.kind === 'agree'));
  const failed = outcomes.filter((o) => o.kind === 'agree' && o.assertionFailed).length;
  assert.ok(failed >= 3, `${failed} of ${outcomes.length} programs with assertions failed one`);
});

test('every fifth seed runs its QPUs in random interleavings on both targets, and a race shows there', () => {
  const interleaved = Array.from({ length: 200 }, (_, i) => i + 1).filter((s) => interleaveFor(s) !== undefined && generate(s).qpus > 1);
  assert.ok(interleaved.length >= 15, `${interleaved.length} interleaved programs on several QPUs in 200`);
  // A racy barrier put in front of a generated program on 2 QPUs (QPU 1 may take back its own
  // arrival): the interpreter's round robin always deadlocks (the program is invalid); random
  // interleavings, passed to both targets, sometimes run it through, and sometimes stop only one.
  // (A program without assertions: one that fails would stop the run on both targets first.)
  const p = [3, 4, 5, 6, 7, 8].map((seed) => generate(seed, { qpus: [2] })).find((g) => !printKernel(g.ast).includes('assert('))!;
  const me0: BoolExpr = { k: 'cmp', op: 'eq', ty: 'int', a: { k: 'special', ty: 'int', what: 'me' }, b: { k: 'lit', ty: 'int', bits: 0 } };
  const sema = (down: boolean): Stmt => ({ k: 'sema', down, n: 14 });
  const racy: Stmt = { k: 'if', c: { k: 'any', b: me0 }, then: [sema(true), sema(false)], else: [sema(false), sema(true)] };
  const ast = { ...p.ast, body: [racy, ...p.ast.body] };
  const runner = new DifferentialRunner();
  assert.equal(runner.run(p, ast).kind, 'invalid');
  const kinds = new Set(Array.from({ length: 64 }, (_, seed) => runner.run(p, ast, seed).kind));
  assert.ok(kinds.has('agree') && kinds.has('invalid') && kinds.has('mismatch'), [...kinds].join(' '));
});
