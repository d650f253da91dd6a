// bench/v3dlib.ts's plumbing: V3DLib's kernels themselves are not part of qpu-ts (bench/v3dlib/
// dump.cpp writes them from a V3DLib tree), so a stand-in that ends at once shows that a launch
// runs and that a result the kernel did not compute is caught, in one line that says where.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { Machine } from '../../src/emulator/machine.ts';
import { floatBits } from '../../src/vc4/tables.ts';
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

test("each QPU's uniforms are V3DLib's: its index, the QPU count, the kernel's arguments in declaration order, then 0", () =>
  withKernels((dir) => {
    const seen: number[][] = [];
    const run = Machine.prototype.run;
    Machine.prototype.run = function (this: Machine, ...args: Parameters<Machine['run']>) {
      const [, starts] = args;
      for (const at of starts as readonly number[]) seen.push(Array.from({ length: 8 }, (_, i) => this.memory.readWord(at + 4 * i)));
      return run.apply(this, args);
    };
    try {
      assert.throws(() => rot3D(dir, 2, 3), WrongResult);
    } finally {
      Machine.prototype.run = run;
    }
    const [cos, sin] = [floatBits(Math.fround(Math.cos(Math.fround(3.14159)))), floatBits(Math.fround(Math.sin(Math.fround(3.14159))))];
    assert.equal(seen.length, 3);
    seen.forEach((u, q) => {
      assert.deepEqual(u.slice(0, 5), [q, 3, 192_000, cos | 0, sin | 0]);
      assert.equal(u[6]! - u[5]!, 4 * 192_000); // y right after x in V3DLib's heap
      assert.equal(u[7], 0);
    });
  }));
