// The seed examples compiled to machine code and run on the emulator give exactly what the
// reference interpreter gives, bit for bit, on 1, 2, 4 and 12 QPUs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SharedArray } from '../../src/index.ts';
import { gcd, gcdInputs, gcdUnrolled } from '../../examples/gcd.ts';
import { glibcRand } from '../../examples/lib/rand.ts';
import { heatGrid, step } from '../../examples/heat.ts';
import { rot3D_1, rot3D_2, rot3D_3, rot3DArrays } from '../../examples/rot3d.ts';

const QPUS = [1, 2, 4, 12];
const bits = (a: Float32Array | Int32Array) => Array.from(new Int32Array(a.slice().buffer));

test('gcd versions 1 and 2: emulator = interpreter on 1, 2, 4 and 12 QPUs', () => {
  for (const k of [gcd, gcdUnrolled])
    for (const qpus of QPUS) {
      const { a, b } = gcdInputs();
      const r1 = SharedArray.int32(16);
      const r2 = SharedArray.int32(16);
      k.setNumQPUs(qpus).interpretSync([a, b, r1]);
      k.emulateSync([a, b, r2]);
      assert.deepEqual(bits(r2), bits(r1), `${k.kernelName} on ${qpus} QPUs`);
    }
});

test('rot3D versions 1-3: emulator = interpreter (version 3 on 1, 2, 4 and 12 QPUs)', () => {
  const n = 960;
  const [c, s] = [Math.cos(3.14159), Math.sin(3.14159)];
  // Versions 1 and 2 are single-QPU kernels: on more QPUs every QPU rotates every vertex in
  // place, a race whose outcome depends on timing, so they are compared on one QPU.
  const runs: [typeof rot3D_1, number][] = [[rot3D_1, 1], [rot3D_2, 1], ...QPUS.map((q) => [rot3D_3, q] as [typeof rot3D_1, number])];
  for (const [k, qpus] of runs) {
    const want = rot3DArrays(n);
    const got = rot3DArrays(n);
    k.setNumQPUs(qpus).interpretSync([n, c, s, want.x, want.y]);
    k.emulateSync([n, c, s, got.x, got.y]);
    assert.deepEqual(bits(got.x), bits(want.x), `${k.kernelName} on ${qpus} QPUs: x`);
    assert.deepEqual(bits(got.y), bits(want.y), `${k.kernelName} on ${qpus} QPUs: y`);
  }
});

test('heat step: emulator = interpreter on 1, 2, 4 and 12 QPUs', () => {
  const width = 64;
  const height = 24;
  const pitch = width + 16;
  const grid = heatGrid(width, height, glibcRand(1), 40);
  for (const qpus of QPUS) {
    const want = SharedArray.float32(grid.length);
    const got = SharedArray.float32(grid.length);
    step.setNumQPUs(qpus).interpretSync([grid, want, pitch, width, height]);
    step.emulateSync([grid, got, pitch, width, height]);
    assert.deepEqual(bits(got), bits(want), `${qpus} QPUs`);
  }
});

test('k(...) runs on the emulator by default and reports cycles; k.code() gives words and assembly', async () => {
  const { a, b } = gcdInputs();
  const r = SharedArray.int32(16);
  const report = await gcd.setNumQPUs(1)(a, b, r);
  assert.equal(report.target, 'emulator');
  assert.ok(report.run!.cycles > 0 && report.run!.total.instructions > 0);
  const code = gcd.code();
  assert.equal(code.words.length, code.instrs.length * 2);
  assert.match(code.asm, /nop\.tend/);
  assert.equal(gcd.code(), code, 'compiled once per QPU count');
});
