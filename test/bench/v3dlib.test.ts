// bench/v3dlib.ts's plumbing: V3DLib's kernels themselves are not part of qpu-ts (bench/v3dlib/
// dump.cpp writes them from a V3DLib tree), so a stand-in that ends at once shows that a launch
// runs and that a result the kernel did not compute is caught, in one line that says where.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { WrongResult } from '../../bench/cli.ts';
import { heatStep, rot3D, V3DLIB_FILES } from '../../bench/v3dlib.ts';

function withKernels(body: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'v3dlib-'));
  try {
    const words = assemble('nop; thrend\nnop\nnop').words;
    for (const file of V3DLIB_FILES) writeFileSync(join(dir, file), new Uint8Array(words.buffer, words.byteOffset, words.byteLength));
    body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a Rot3D kernel that leaves its vertices as they were is a wrong result, at the first vertex it should have moved', () =>
  withKernels((dir) => {
    for (const kernel of [1, 2] as const)
      assert.throws(() => rot3D(dir, kernel, 4), (e) => e instanceof WrongResult && new RegExp(`^V3DLib Rot3D kernel ${kernel} on 4 QPUs: vertex 1 is \\(1, 1\\), not \\(-1`).test(e.message));
  }));

test('a HeatMap step that writes nothing is a wrong result, at the first cell it should have written, either way between the maps', () =>
  withKernels((dir) => {
    for (const odd of [false, true]) assert.throws(() => heatStep(dir, 1, odd), (e) => e instanceof WrongResult && /^V3DLib HeatMap on 1 QPU: cell \(1, 1\) is 0, not \d/.test(e.message));
  }));
