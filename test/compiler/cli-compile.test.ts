// `qpu compile`: a kernel from a TypeScript module to assembly, any stage's dump, machine code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QPU_PROCESS, runQpu } from '../helpers/cli.ts';
import { gcd } from '../../examples/gcd.ts';
import { compile } from '../../src/compiler/driver.ts';
import { disassemble } from '../../src/vc4/asm/disasm.ts';
import { bytesToProgram } from '../../src/vc4/codec.ts';

test('qpu compile prints the assembly, each stage with --dump, and writes machine code with -o', async () => {
  const asm = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd');
  assert.equal(asm.code, 0, asm.err);
  assert.equal(asm.out, gcd.setNumQPUs(1).code().asm);
  for (const [stage, re] of [
    ['ast', /while any\(a != b\)/],
    ['ir', /# %0: p\n/],
    ['liveness', /# live: %/],
    ['alloc', /%\d+ -> r[ab]\d+/],
    ['emit', /mov r[ab]\d+, unif/],
    ['schedule', /mov r[ab]\d+, unif/],
    ['code', /0x[0-9A-F]{8}_[0-9A-F]{8}/],
  ] as const) {
    const r = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '--dump', stage);
    assert.equal(r.code, 0, `${stage}: ${r.err}`);
    assert.match(r.out, re, stage);
  }
  const c = compile(gcd.ast, { qpus: 1, opt: 0 });
  assert.ok(c.dump('emit').split('\n').length < c.dump('asm').split('\n').length, 'emit comes before the spacing nops');
  const file = join(mkdtempSync(join(tmpdir(), 'qpu-')), 'gcd.bin');
  const w = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcdUnrolled', '--qpus', '4', '-o', file);
  assert.equal(w.code, 0, w.err);
  assert.equal(w.out, '', 'with -o, only a --dump asked for is printed');
  const both = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '--dump', 'ir', '-o', file);
  assert.match(both.out, /# %0: p\n/);
  const words = bytesToProgram(readFileSync(file));
  assert.ok(disassemble(words).includes('nop.tend'));
  // -O0 compiles without the passes: the schedule dump says so, and the code is other.
  const o0 = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '-O0', '--dump', 'schedule');
  assert.equal(o0.code, 0, o0.err);
  assert.match(o0.out, /scheduling is off/);
  const plain = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '-O', '0');
  assert.equal(plain.out, gcd.setNumQPUs(1).setOptLevel(0).code().asm);
  gcd.setOptLevel(2);
  const bad = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '-O3');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /-O 3: expected a whole number from 0 to 2/);
  // --passes switches single passes on or off whatever the level.
  const noFlags = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '--passes', 'no-flags,no-invert', '--dump', 'ir');
  assert.equal(noFlags.code, 0, noFlags.err);
  assert.equal(noFlags.out, compile(gcd.ast, { qpus: 1, passes: { flags: false, invert: false } }).dump('ir'));
  const onlySchedule = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '-O0', '--passes=schedule,-hoist');
  assert.equal(onlySchedule.out, compile(gcd.ast, { qpus: 1, opt: 0, passes: { schedule: true, hoist: false } }).asm);
  const unknownPass = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '--passes', 'fast');
  assert.equal(unknownPass.code, 2);
  assert.match(unknownPass.err, /--passes: unknown pass 'fast': the passes are pipeline, induction, invert, flags, ranges, rows, dead, fold, cse, direct, hoist, strength, acc, coalesce, scratch, schedule, pair/);
});

test('qpu compile explains what is wrong: several kernels, unknown kernel, bad stage or QPU count, no module', async () => {
  const several = await runQpu('compile', 'examples/gcd.ts');
  assert.equal(several.code, 2);
  assert.match(several.err, /exports 2 kernels \(gcd, gcdUnrolled\): choose one with --kernel/);
  const unknown = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'nope');
  assert.match(unknown.err, /--kernel nope: examples\/gcd\.ts has no such kernel; it exports: gcd, gcdUnrolled/);
  assert.match((await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '--dump', 'x')).err, /the stages are ast, pipeline, induction, ir, dead, fold, cse, direct, hoist, strength, liveness/);
  for (const q of ['13', '0', '0x4', '2.5', '', '1e1', '+2', ' 2'])
    assert.match((await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '--qpus', q)).err, /--qpus .*: expected a whole number from 1 to 12, in decimal digits\n$/);
  // The exit statuses of qpu emu, qpu asm and the rest (test/cli-exit.test.ts): a file that cannot be
  // read or written, or a name on the command line that names nothing, is 2; a module that does
  // not load is 1.
  assert.equal(unknown.code, 2);
  const unwritable = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '-o', '/nonexistent-dir/x.bin');
  assert.equal(unwritable.code, 2);
  assert.equal(unwritable.err, 'qpu compile: cannot write /nonexistent-dir/x.bin: no such file or directory (ENOENT)\n');
  const missing = await runQpu('compile', 'examples/none.ts');
  assert.equal(missing.code, 2);
  assert.equal(missing.err, 'qpu compile: cannot read examples/none.ts: no such file or directory (ENOENT)\n');
});

test('a module whose top-level await never settles is reported, not a silent exit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-tla-'));
  const mod = join(dir, 'never.mts');
  writeFileSync(mod, 'await new Promise(() => {});\nexport const x = 1;\n');
  const [node, ...qpu] = QPU_PROCESS as [string, ...string[]];
  const r = spawnSync(node, [...qpu, 'compile', mod], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stderr, `qpu compile: cannot load ${mod}: it never finished loading (a top-level await that never settles)\n`);
});
