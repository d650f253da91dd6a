// SharedArrays (src/runtime/shared-array.ts, guarded.ts): an array does not hand out GPU memory's
// ArrayBuffer (resizing or transferring it would break every array and kernel), yet compares,
// prints, slices and views like any typed array; bad arguments to SharedArray's functions say
// what was wrong and where; a freed array is refused by kernels, with the reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect, isDeepStrictEqual } from 'node:util';
import { index, Int, kernel, Ptr, SharedArray } from '../../src/index.ts';
import { gpuMemory } from '../../src/runtime/shared-array.ts';


const add = kernel([Ptr(Int), Int], function add(p, n) {
  p.store(p.load().add(n).add(index()));
});

test('a SharedArray refuses its buffer, however it is asked for, and GPU memory goes on working', async () => {
  const a = SharedArray.int32(16, 'image');
  const refused = (e: unknown) => e instanceof TypeError && e.message.startsWith('SharedArray image: its buffer is not handed out') && /\.slice\(\)/.test(e.message) && /SharedArray\.bytes\(a\)/.test(e.message);
  assert.throws(() => a.buffer, refused);
  assert.throws(() => (a.buffer as ArrayBuffer).resize(0), refused);
  assert.throws(() => structuredClone(a, { transfer: [a.buffer as ArrayBuffer] }), refused);
  assert.throws(() => new DataView(a.buffer), refused);
  assert.throws(() => new Int32Array(a.buffer, a.byteOffset, 4), refused);
  const sub = a.subarray(4, 8);
  assert.throws(() => sub.buffer, (e: unknown) => e instanceof TypeError && e.message.startsWith('a subarray of SharedArray image: its buffer'));
  assert.throws(() => (sub.subarray(1).buffer as ArrayBuffer).resize(0), TypeError);
  assert.throws(() => delete (a as { buffer?: unknown }).buffer, TypeError);
  assert.throws(() => Object.defineProperty(a, 'buffer', { value: 1 }), TypeError);
  sub[0] = 9; // the subarray is the array's memory
  assert.equal(a[4], 9);
  // GPU memory is untouched: new arrays and runs work.
  const b = SharedArray.int32(16);
  b.fill(100);
  await add(b, 1);
  assert.deepEqual(Array.from(b), Array.from({ length: 16 }, (_, l) => 101 + l));
});

test('a SharedArray compares with deepStrictEqual, prints, slices and copies like any typed array', () => {
  const a = SharedArray.from([1, 2, 3]);
  const f = SharedArray.from([1.5, -0, Number.NaN], 'float32');
  assert.deepStrictEqual(a, Int32Array.from([1, 2, 3]));
  assert.deepStrictEqual(f, Float32Array.from([1.5, -0, Number.NaN]));
  assert.deepStrictEqual(a.subarray(1), Int32Array.from([2, 3]));
  assert.throws(() => assert.deepStrictEqual(a, Int32Array.from([1, 2, 4])), assert.AssertionError);
  assert.equal(isDeepStrictEqual(a, Int32Array.from([1, 2, 3])), true);
  assert.equal(inspect(a), 'Int32Array(3) [ 1, 2, 3 ]');
  assert.match(inspect(a, { showHidden: true }), /\[byteLength\]: 12/);
  assert.deepEqual(Array.from(new Int32Array(a.slice().buffer)), [1, 2, 3], "a copy's buffer is its own");
  assert.deepEqual([...a.map((x) => x * 2)], [2, 4, 6]);
});

test('SharedArray.bytes and SharedArray.view: the same memory as other elements, guarded the same way', () => {
  const f = SharedArray.from([1, -2], 'float32');
  const bits = SharedArray.view(f, Uint32Array);
  assert.deepEqual(Array.from(bits), [0x3f800000, 0xc0000000]);
  const bytes = SharedArray.bytes(f);
  assert.equal(bytes.length, 8);
  bytes[7] = 0x40; // the sign bit off: 2
  assert.equal(f[1], 2);
  assert.throws(() => bytes.buffer, /a Uint8Array view of SharedArray array\d+: its buffer is not handed out/);
  assert.throws(() => SharedArray.view(new Int32Array(4), Uint8Array), /SharedArray\.view\(a, type\): expected a SharedArray \(SharedArray\.int32, float32, uint8, \.\.\. or from\), got an Int32Array that is not one/);
  assert.throws(() => SharedArray.view(f, Float64Array as never), /the type is one of Int8Array, .*Float32Array, not a function/);
});

test('SharedArray.from refuses unknown types and values that are not numbers, naming the element', () => {
  const from = SharedArray.from as (v: unknown, t?: unknown) => Int32Array;
  assert.throws(() => from([1], 'int64'), (e: unknown) => e instanceof TypeError && e.message === `SharedArray.from(values, type): the type is 'int32', 'float32', 'uint8', 'int8', 'uint16', 'int16', not the string "int64"`);
  assert.throws(() => from([1], 7), /the type is 'int32', 'float32', 'uint8', 'int8', 'uint16', 'int16', not 7/);
  assert.throws(() => from([1n]), (e: unknown) => e instanceof TypeError && e.message === `SharedArray.from(values, 'int32'): element 0 is the bigint 1n, not a number`);
  assert.throws(() => from([1, 2, '3']), /element 2 is the string "3", not a number/);
  assert.throws(() => from([1, , 3]), /element 1 is undefined, not a number/);
  assert.throws(() => from([0.5, null], 'float32'), /SharedArray\.from\(values, 'float32'\): element 1 is null, not a number/);
  assert.throws(() => from([1, 1.5]), (e: unknown) => e instanceof RangeError && /element 1 is 1\.5, not a 32-bit integer \(-2147483648 to 4294967295\)/.test(e.message));
  assert.throws(() => from([2 ** 32]), /element 0 is 4294967296, not a 32-bit integer/);
  assert.throws(() => from([Number.NaN], 'int32'), /element 0 is NaN, not a 32-bit integer/);
  assert.throws(() => from('123'), /values must be an array or a typed array of numbers, not the string "123"/);
  assert.throws(() => from(5), /not 5/);
  assert.throws(() => from(null), /not null/);
  assert.throws(() => from([]), /no values; a SharedArray has at least one element/);
  assert.deepEqual(Array.from(from([Number.NaN, Infinity, 1e40], 'float32')), [Number.NaN, Infinity, Infinity]);
  assert.deepEqual(Array.from(from([-(2 ** 31), 2 ** 32 - 1])), [-(2 ** 31), -1]);
  assert.ok(from(new Float32Array([1.5])) instanceof Float32Array);
});

test('SharedArray.int32 and float32 refuse counts and names that are not what they should be', () => {
  const int32 = SharedArray.int32 as (n: unknown, name?: unknown) => Int32Array;
  for (const [n, shown] of [
    [Number.NaN, 'NaN'],
    [1.5, '1.5'],
    ['3', 'the string "3"'],
    [0, '0'],
    [-1, '-1'],
    [Infinity, 'Infinity'],
    [3n, 'the bigint 3n'],
    [undefined, 'undefined'],
  ] as const)
    assert.throws(() => int32(n), (e: unknown) => e instanceof RangeError && e.message === `SharedArray.int32: a SharedArray has a whole number of elements above 0, not ${shown}`);
  assert.throws(() => SharedArray.float32(2 ** 40), (e: unknown) => e instanceof RangeError && /GPU memory is full: array\d+ needs 4398046511104 bytes/.test(e.message));
  assert.throws(() => int32(4, 5), /SharedArray\.int32: the name must be a string of one or more characters, not 5/);
  assert.throws(() => int32(4, ''), /not the string ""/);
});

test('a freed SharedArray is refused by kernels, saying it was freed; freeing it again does nothing; free refuses what is not a SharedArray', async () => {
  const a = SharedArray.int32(16);
  SharedArray.free(a);
  SharedArray.free(a);
  await assert.rejects(add(a, 1), /kernel add: argument 1 \(p\): this SharedArray was freed \(SharedArray\.free\)/);
  assert.throws(() => SharedArray.bytes(a), /this SharedArray was freed/);
  assert.throws(() => SharedArray.free(new Int32Array(4)), /SharedArray\.free: expected a SharedArray .*got an Int32Array that is not one/);
  assert.throws(() => SharedArray.free(SharedArray.int32(4).subarray(1)), /SharedArray\.free: expected a SharedArray/);
});


test('a 640x480 frame loop of SharedArrays, made and freed every frame, runs in the memory of its first frame', () => {
  const frames = 300; // without reuse, GPU memory ran out at frame 108
  const tops = new Set<number>();
  for (let frame = 0; frame < frames; frame++) {
    const image = SharedArray.float32(640 * 480, 'image');
    const out = SharedArray.int32(640 * 480, 'out');
    image[640 * 480 - 1] = frame;
    assert.equal(out[7], 0, 'zeroed');
    out[7] = frame;
    tops.add(gpuMemory.use.top);
    SharedArray.free(image);
    SharedArray.free(out);
  }
  assert.equal(tops.size, 1, `GPU memory in use after allocating: ${[...tops].join(', ')} bytes`);
});
