// QPULib's three README examples, written in the language, on the reference interpreter; and
// SHA-256 on both targets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SharedArray } from '../../src/index.ts';
import { gcd, gcdInputs, gcdUnrolled } from '../../examples/gcd.ts';
import { glibcRand } from '../../examples/lib/rand.ts';
import { heatGrid, step, stepScalar } from '../../examples/heat.ts';
import { rot3D_1, rot3D_2, rot3D_3, rot3DArrays, rot3DScalar } from '../../examples/rot3d.ts';
import { hashOf, roundConstants, sampleMessages, sha256, sha256Inputs, sha256Unrolled } from '../../examples/sha256.ts';

const README = `gcd(183, 186) = 3
gcd(177, 115) = 1
gcd(193, 135) = 1
gcd(186, 192) = 6
gcd(149, 121) = 1
gcd(162, 127) = 1
gcd(190, 159) = 1
gcd(163, 126) = 1
gcd(140, 126) = 14
gcd(172, 136) = 4
gcd(111, 168) = 3
gcd(167, 129) = 1
gcd(182, 130) = 26
gcd(162, 123) = 3
gcd(167, 135) = 1
gcd(129, 102) = 3`;

test("gcd versions 1 and 2 print exactly the 16 lines of QPULib's README", async () => {
  for (const k of [gcd, gcdUnrolled]) {
    const { a, b } = gcdInputs();
    const r = SharedArray.int32(16);
    await k(a, b, r);
    const lines = Array.from({ length: 16 }, (_, i) => `gcd(${a[i]}, ${b[i]}) = ${r[i]}`);
    assert.equal(lines.join('\n'), README);
  }
});

test('rot3D versions 1, 2 and 3 equal the scalar version in float32 (QPU rounding), on 1, 2 and 4 QPUs', async () => {
  const n = 960;
  const theta = Math.fround(3.14159);
  const [c, s] = [Math.fround(Math.cos(theta)), Math.fround(Math.sin(theta))];
  const ref = rot3DArrays(n);
  rot3DScalar(n, c, s, ref.x, ref.y);
  const runs: [typeof rot3D_1, number][] = [
    [rot3D_1, 1],
    [rot3D_2, 1],
    [rot3D_3, 1],
    [rot3D_3, 2],
    [rot3D_3, 4],
  ];
  for (const [k, qpus] of runs) {
    const { x, y } = rot3DArrays(n);
    await k.setNumQPUs(qpus)(n, c, s, x, y);
    assert.deepEqual(x.slice(0, n), ref.x.slice(0, n), `${k.kernelName} on ${qpus} QPUs: x`);
    assert.deepEqual(y.slice(0, n), ref.y.slice(0, n), `${k.kernelName} on ${qpus} QPUs: y`);
  }
  // Against JavaScript's round-to-nearest float32 the results differ in the last place at most.
  const xs = ref.x;
  for (let i = 0; i < n; i++) {
    const nearest = Math.fround(Math.fround(i * c) - Math.fround(i * s));
    assert.ok(Math.abs(xs[i]! - nearest) <= Math.abs(nearest) * 2 ** -22 + 1e-30, `vertex ${i}`);
  }
});

test('the heat step with the Cursor class equals the scalar version, on 1, 2 and 4 QPUs', async () => {
  const width = 48;
  const height = 12;
  const pitch = width + 16;
  const input = heatGrid(width, height, glibcRand(0), 10);
  for (let i = 0; i < input.length; i++) if (input[i] === 0 && i % 7 === 3) input[i] = (i % 97) * 1.5; // more texture
  for (let i = (height + 2) * pitch; i < input.length; i++) input[i] = 0;
  for (let y = 0; y < height + 2; y++) for (let x = width; x < pitch; x++) input[y * pitch + x] = 0;
  for (let x = 0; x < pitch; x++) input[x] = input[(height + 1) * pitch + x] = 0;
  const expected = new Float32Array(input.length);
  stepScalar(input, expected, pitch, width, height);
  for (const qpus of [1, 2, 4]) {
    const out = SharedArray.float32(input.length);
    await step.setNumQPUs(qpus)(input, out, pitch, width, height);
    assert.deepEqual(Array.from(out), Array.from(expected), `${qpus} QPUs`);
  }
});

test('SHA-256, 16 messages a QPU, equals node:crypto on the interpreter and the emulator', () => {
  const messages = sampleMessages(32);
  const { blocks, expected } = sha256Inputs(messages);
  for (const run of ['interpretSync', 'emulateSync'] as const) {
    const hashes = SharedArray.int32(messages.length * 8);
    sha256.setNumQPUs(2)[run]([blocks, hashes, roundConstants()]);
    assert.deepEqual(messages.map((_, n) => hashOf(hashes, n)), expected, run);
    const unrolled = SharedArray.int32(messages.length * 8);
    sha256Unrolled.setNumQPUs(2)[run]([blocks, unrolled]);
    assert.deepEqual(messages.map((_, n) => hashOf(unrolled, n)), expected, `${run}, unrolled`);
  }
  assert.throws(() => sha256Inputs(sampleMessages(15)), /16 messages a QPU/);
  assert.throws(() => sha256Inputs([new Uint8Array(56), ...sampleMessages(15)]), /message 0 has 56 bytes; one block holds 55/);
});
