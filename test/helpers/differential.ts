// Runs seeded random programs on the interpreter and the emulator and fails with the smallest
// disagreeing program (src/runtime/differential.ts) when they differ.
import assert from 'node:assert/strict';
import { DifferentialRunner, interleaveFor, shrink } from '../../src/runtime/differential.ts';
import { generate, type GeneratorOptions } from '../../src/source/generate.ts';
import type { OptLevel } from '../../src/compiler/driver.ts';
import { printKernel } from '../../src/source/print.ts';

/** Seeds [first, first + count) agree, compiled at optimization level `opt` (default 2). */
export function differential(first: number, count: number, opts?: GeneratorOptions, opt: OptLevel = 2): void {
  const runner = new DifferentialRunner(opt);
  for (let seed = first; seed < first + count; seed++) {
    const p = generate(seed, opts);
    // Every fifth seed runs its QPUs in random interleavings, on both targets.
    const interleave = interleaveFor(seed);
    const r = runner.run(p, p.ast, interleave);
    if (r.kind === 'invalid') assert.fail(`seed ${seed}: the generator made an invalid program: ${r.error}\n${printKernel(p.ast)}`);
    if (r.kind === 'mismatch') {
      const small = shrink(p.ast, (k) => runner.run(p, k, interleave).kind === 'mismatch', { keep: p.prologue, maxTries: 1500 });
      const again = runner.run(p, small, interleave);
      const order = interleave === undefined ? '' : `, interleaving ${interleave}`;
      assert.fail(`seed ${seed} (${p.qpus} QPUs, -O${opt}${order}): interpreter and emulator disagree\n${printKernel(small)}\n${again.kind === 'mismatch' ? again.detail : r.detail}`);
    }
  }
}
