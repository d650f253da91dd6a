// The driver's one list of steps (PIPELINE in driver.ts): it drives the levels, the dumps,
// --passes and qpu compile --help.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, OPT_LEVELS, PASS_LEVEL, PASSES, PIPELINE, STAGES } from '../../src/compiler/driver.ts';
import { gcd } from '../../examples/gcd.ts';
import { runQpu } from '../helpers/cli.ts';

const IR_PASSES = PIPELINE.filter((r) => 'ir' in r).map((r) => r.name);

test('the passes and stages, in the order they run', () => {
  assert.deepEqual(Object.keys(PASS_LEVEL), ['pipeline', 'induction', 'invert', 'flags', 'ranges', 'rows', 'dead', 'fold', 'cse', 'direct', 'hoist', 'strength', 'acc', 'coalesce', 'scratch', 'schedule', 'pair']);
  assert.deepEqual(STAGES, ['pipeline', 'induction', 'ir', 'dead', 'fold', 'cse', 'direct', 'hoist', 'strength', 'liveness', 'alloc', 'emit', 'schedule', 'asm', 'code']);
  assert.deepEqual(IR_PASSES, ['dead', 'fold', 'cse', 'direct', 'hoist', 'strength']);
  assert.equal(new Set(PIPELINE.map((r) => r.name)).size, PIPELINE.length, 'one row a name');
});

test('every stage dumps, at every level', () => {
  for (const opt of OPT_LEVELS) {
    const c = compile(gcd.ast, { qpus: 2, opt });
    for (const stage of STAGES) assert.ok(c.dump(stage).trim().length > 0, `-O${opt} --dump ${stage}`);
    assert.equal(c.dump('asm'), c.asm);
  }
});

test('at -O0 the passes switched on are the only ones: each IR pass alone', () => {
  for (const name of IR_PASSES) {
    const c = compile(gcd.ast, { qpus: 1, opt: 0, passes: { [name]: true }, verify: true });
    for (const other of IR_PASSES) assert.equal(c.dump(other).startsWith(`# pass ${other} is off`), other !== name, `${name} alone: --dump ${other}`);
  }
  // A level's passes are the ones switched on from it: -O1 is -O0 with every level-1 pass on.
  const level1 = Object.fromEntries(PASSES.filter((p) => p.level === 1).map((p) => [p.name, true]));
  assert.equal(compile(gcd.ast, { qpus: 1, opt: 0, passes: level1 }).asm, compile(gcd.ast, { qpus: 1, opt: 1 }).asm);
});

test('qpu compile --help lists every pass with its level and every stage, from the one list', async () => {
  const help = (await runQpu('compile', '--help')).out;
  for (const p of PASSES) assert.match(help, new RegExp(`\\n {24}${p.name} +-O${p.level}  \\S`), p.name);
  for (const s of STAGES) assert.match(help, new RegExp(`\\n {24}${s} +\\S`), s);
  assert.match(help, /with -O0, only the passes listed run/);
  const only = await runQpu('compile', 'examples/gcd.ts', '--kernel', 'gcd', '-O0', '--passes', 'dead,cse,schedule');
  assert.equal(only.code, 0, only.err);
  assert.equal(only.out, compile(gcd.ast, { qpus: 1, opt: 0, passes: { dead: true, cse: true, schedule: true } }).asm);
});
