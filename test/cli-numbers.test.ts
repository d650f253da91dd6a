// Negative zero never reaches a message as "-0": a step budget of -0 (a program's own
// { maxSteps: -0 }, which JavaScript's >= 0 lets through) is a budget of 0, said as 0, on both
// targets and on the bare emulator; the command line refuses -0 wherever it wants a count, and
// reads -0 in a list of values as the integer 0 (the float -0.0 keeps its sign bit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Int, kernel, Ptr, SharedArray, While } from '../src/index.ts';
import { Machine } from '../src/emulator/machine.ts';
import { assemble } from '../src/vc4/asm/assembler.ts';
import { runQpu } from './helpers/cli.ts';

const spin = kernel([Ptr(Int)], function spin(p) {
  const x = Int(0);
  While(x.eq(0), () => p.store(x));
});

test('a step budget of -0 is a budget of 0, said as 0', async () => {
  for (const target of ['emulator', 'interpreter'] as const) {
    await assert.rejects(spin(SharedArray.int32(16), { maxSteps: -0, target }), (e: Error) => {
      assert.match(e.message, /the step budget of 0 (instructions|statements) ran out/, e.message);
      assert.doesNotMatch(e.message, /-0/);
      return true;
    });
  }
  const m = new Machine();
  const prog = m.load(assemble('nop.tend\nnop\nnop').words);
  const unif = m.memory.alloc(8, 'uniforms');
  assert.throws(() => m.run(prog, [unif.address], { maxSteps: -0 }), (e: Error) => /the step budget of 0 instructions ran out/.test(e.message) && !/-0/.test(e.message));
  // What progress reports say the budget is.
  const seen: number[] = [];
  await assert.rejects(spin(SharedArray.int32(16), { maxSteps: -0, onProgress: (p) => void seen.push(p.maxSteps) }));
  assert.ok(seen.length > 0 && seen.every((n) => Object.is(n, 0)), String(seen));
});

test('the command line refuses -0 as a count, and reads -0 among values as the integer 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-numbers-'));
  const end = join(dir, 'end.qasm');
  writeFileSync(end, 'nop.tend\nnop\nnop\n');
  for (const [option, value] of [['--max-steps', '-0'], ['--qpus', '-0'], ['--buffer', 'x:-0'], ['--qpus', '0']]) {
    const r = await runQpu('emu', end, option!, value!);
    assert.equal(r.code, 2, `${option} ${value}`);
    assert.match(r.err, /: expected a whole number from 1 to \d+, in decimal digits\n$/);
  }
  const r = await runQpu('emu', end, '--buffer', 'x:3=-0,-0.0,-0e0', '--dump', 'x');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /\n0x00000000 0x80000000 0x80000000\n$/);
});
