// 8- and 16-bit data: Ptr(Uint8), Ptr(Int8), Ptr(Uint16), Ptr(Int16) and their SharedArrays.
// Loads widen to Ints (zero- or sign-extended), stores narrow (the low bits), at any element
// address, all 16 or the first k. On the interpreter and the emulator at -O0 and -O2 (onAll).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Float, For, gather, index, Int, Int16, Int8, kernel, packBytes, packHalves, Ptr, scatter, SharedArray, Uint16, Uint8, Where } from '../../src/index.ts';
import { onAll } from '../helpers/lang.ts';

const bytes = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));

test('loads widen: Uint8 and Uint16 zero-extended, Int8 and Int16 sign-extended, at any element offset', () => {
  const k = kernel([Ptr(Uint8), Ptr(Int8), Ptr(Uint16), Ptr(Int16), Ptr(Int)], (u8, i8, u16, i16, out) => {
    out.store(u8.add(3).load());
    out.add(16).store(i8.add(1).load());
    out.add(32).store(u16.add(1).load());
    out.add(48).store(i16.add(5).load());
  });
  const [, , , , out] = onAll(k, () => [
    SharedArray.from(bytes(20, (i) => (i * 37 + 200) & 255), 'uint8'),
    SharedArray.from(bytes(20, (i) => ((i * 29) & 255) - 128), 'int8'),
    SharedArray.from(bytes(20, (i) => (i * 4099 + 60000) & 65535), 'uint16'),
    SharedArray.from(bytes(24, (i) => ((i * 3001) & 65535) - 32768), 'int16'),
    SharedArray.int32(64),
  ]);
  assert.deepEqual(Array.from(out.slice(0, 16)), bytes(16, (i) => ((i + 3) * 37 + 200) & 255));
  assert.deepEqual(Array.from(out.slice(16, 32)), bytes(16, (i) => (((i + 1) * 29) & 255) - 128));
  assert.deepEqual(Array.from(out.slice(32, 48)), bytes(16, (i) => ((i + 1) * 4099 + 60000) & 65535));
  assert.deepEqual(Array.from(out.slice(48)), bytes(16, (i) => (((i + 5) * 3001) & 65535) - 32768));
});

test('stores narrow to the low bits and leave the neighbouring bytes alone; counts take the first k', () => {
  const k = kernel([Ptr(Uint8), Ptr(Int16), Int], (u8, i16, n) => {
    const i = Int(index());
    u8.add(5).store(i.mul(100).sub(7)); // 16 bytes from an odd address
    i16.add(3).store(i.mul(5000).sub(40000), n); // the first n half-words
  });
  for (const n of [0, 1, 7, 16, 30]) {
    const [u8, i16] = onAll(k, () => [SharedArray.from(bytes(24, () => 0xaa), 'uint8'), SharedArray.from(bytes(24, () => -1), 'int16'), n]);
    assert.deepEqual(Array.from(u8), bytes(24, (i) => (i >= 5 && i < 21 ? ((i - 5) * 100 - 7) & 255 : 0xaa)));
    const m = Math.min(Math.max(n, 0), 16);
    assert.deepEqual(Array.from(i16), bytes(24, (i) => (i >= 3 && i < 3 + m ? (((((i - 3) * 5000 - 40000) & 65535) << 16) >> 16) : -1)));
  }
});

test('a byte kernel over n elements, n no multiple of 16: a brightness change on exactly n bytes', () => {
  const k = kernel([Ptr(Uint8), Ptr(Uint8), Int], (src, dst, n) => {
    const i = Int(0);
    For(i.lt(n), () => i.set(i.add(16)), () => {
      const left = Int(n.sub(i));
      const v = Int(src.add(i).load(left));
      dst.add(i).store(v.add(40).min(255), left);
    });
  });
  for (const n of [1, 16, 45]) {
    const [, dst] = onAll(k, () => [SharedArray.from(bytes(n, (i) => (i * 11) & 255), 'uint8'), SharedArray.uint8(n), n]);
    assert.deepEqual(Array.from(dst), bytes(n, (i) => Math.min(((i * 11) & 255) + 40, 255)));
  }
});

test('bad narrow accesses: past the end by a byte, a half-word at an odd address, gathers and scatters of bytes', () => {
  const over = kernel([Ptr(Uint8), Ptr(Int)], (b, out) => out.store(b.add(1).load()));
  for (const run of [() => over.interpretSync([SharedArray.uint8(16), SharedArray.int32(16)]), () => over.emulateSync([SharedArray.uint8(16), SharedArray.int32(16)])])
    assert.throws(run, /outside|past the end/);
  // 16 bytes exactly: fine, though the allocation is rounded up to words.
  over.emulateSync([SharedArray.uint8(17), SharedArray.int32(16)]);
  assert.throws(() => kernel([Ptr(Uint8)], (b) => gather(b)), /gather moves one 32-bit word a lane, and a Ptr\(Uint8\) points to 8-bit elements/);
  assert.throws(() => kernel([Ptr(Int16)], (b) => scatter(b, Int(1))), /scatter moves one 32-bit word a lane/);
  assert.throws(() => kernel([Ptr(Int8)], (b) => b.store(1.5 as never)), /not a 32-bit integer/);
  assert.throws(() => SharedArray.from([1, 256], 'uint8'), /element 1 is 256, not a uint8 \(0 to 255\)/);
  assert.throws(() => SharedArray.from([-129], 'int8'), /not an int8/);
  assert.throws(() => over.interpretSync([SharedArray.int32(4) as never, SharedArray.int32(16)]), /expected a SharedArray of uint8 \(SharedArray\.uint8\)/);
  assert.throws(() => over.interpretSync([new Uint8Array(16) as never, SharedArray.int32(16)]), /not in GPU memory: make it with SharedArray\.uint8/);
});

test('bytes and half-words of words: Int.byte(k), Int.half(k), packBytes, packHalves', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], (src, out) => {
    const x = Int(src.load());
    out.store(packBytes(x.byte(3), x.byte(2).add(1), x.byte(1), x.byte(0)));
    out.add(16).store(x.half(0).add(x.half(1, true)));
    out.add(32).store(packHalves(x.half(1), x.half(0)).xor(x.byte(0).mul(x.byte(3))));
  });
  const words = bytes(16, (i) => Math.imul(i + 1, 0x9e3779b9) | 0);
  const [, out] = onAll(k, () => [SharedArray.from(words, 'int32'), SharedArray.int32(48)]);
  const b = (x: number, j: number) => (x >>> (8 * j)) & 255;
  assert.deepEqual(Array.from(out.slice(0, 16)), words.map((x) => (b(x, 3) | (((b(x, 2) + 1) & 255) << 8) | (b(x, 1) << 16) | (b(x, 0) << 24)) | 0));
  assert.deepEqual(Array.from(out.slice(16, 32)), words.map((x) => (((x << 16) >> 16) + (x >>> 16)) | 0));
  assert.deepEqual(Array.from(out.slice(32)), words.map((x) => (((x >>> 16) | (x << 16)) ^ Math.imul(b(x, 0), b(x, 3))) | 0));
  assert.throws(() => kernel([Ptr(Int)], (p) => void p.load().byte(4)), /Int\.byte\(4\): a word has bytes 0 to 3/);
  assert.throws(() => kernel([Ptr(Int)], (p) => void p.load().half(2)), /Int\.half\(2\)/);
});

test('byte(k) and half(k) use regfile A\'s unpack where the value is there, two shifts elsewhere, with the same results', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], (src, out) => {
    const px = Int(src.load());
    out.store(packBytes(px.byte(2), px.byte(1), px.byte(0), px.byte(3)).add(px.half(1)));
    // index() is read in place (elem_num), a register no unpack reads: the shifts.
    out.add(16).store(index().mul(0x01020304).byte(1).add(index().half(0)));
  });
  const asm = k.code().asm;
  for (const mode of ['8a', '8b', '8c', '8d', '16b']) assert.match(asm, new RegExp(`mov (r\\d|r[ab]\\d+), ra\\d+\\.${mode}\\b`), mode);
  // packBytes: three movs through regfile A's pack into the register of its first byte.
  for (const mode of ['8b', '8c', '8d']) assert.match(asm, new RegExp(`mov ra\\d+\\.${mode}, `), `pack ${mode}`);
  const words = bytes(16, (i) => Math.imul(i + 7, 0x9e3779b9) | 0);
  const [, out] = onAll(k, () => [SharedArray.from(words, 'int32'), SharedArray.int32(32)]);
  const b = (x: number, j: number) => (x >>> (8 * j)) & 255;
  assert.deepEqual(Array.from(out.slice(0, 16)), words.map((x) => ((b(x, 2) | (b(x, 1) << 8) | (b(x, 0) << 16) | (b(x, 3) << 24)) + (x >> 16)) | 0));
  assert.deepEqual(Array.from(out.slice(16)), bytes(16, (i) => (((Math.imul(i, 0x01020304) >>> 8) & 255) + i) | 0));
});

test('setByte, setHalf (regfile A\'s pack) and colour (its unpack to float), in and out of Where', () => {
  const k = kernel([Ptr(Int), Ptr(Int), Ptr(Float)], (src, out, f) => {
    const x = Int(src.load());
    const y = Int(x.setByte(0, x.byte(3)).setHalf(1, x.mul(3)));
    out.store(y);
    const z = Int(x);
    Where(x.lt(0), () => z.set(z.setByte(2, 0xab).setHalf(0, -2)));
    out.add(16).store(z);
    out.add(32).store(x.setByte(3, x)); // the inserted value is the word itself
    f.store(x.colour(0).add(x.colour(1).mul(2)).add(x.colour(2).mul(4)).add(x.colour(3).mul(8)));
    f.add(16).store(Int(index().mul(17)).colour(0)); // 0, 17, ... 255: every step of 1/15
  });
  assert.match(k.code().asm, /fmax (r\d|r[ab]\d+), ra(\d+)\.8a, ra\2\.8a/);
  const words = bytes(16, (i) => Math.imul(i + 3, 0x9e3779b9) | 0);
  const [, out, f] = onAll(k, () => [SharedArray.from(words, 'int32'), SharedArray.int32(48), SharedArray.float32(32)]);
  const b = (x: number, j: number) => (x >>> (8 * j)) & 255;
  const colour = (c: number) => Math.fround(c / 255) > c / 255 ? nextDown(Math.fround(c / 255)) : Math.fround(c / 255);
  assert.deepEqual(Array.from(out.slice(0, 16)), words.map((x) => ((x & 0xff00) | b(x, 3) | (Math.imul(x, 3) << 16)) | 0));
  assert.deepEqual(Array.from(out.slice(16, 32)), words.map((x) => (x < 0 ? (x & 0xff000000) | 0xab0000 | 0xfffe : x) | 0));
  assert.deepEqual(Array.from(out.slice(32)), words.map((x) => ((x & 0xffffff) | (x << 24)) | 0));
  const sum = (x: number) => [0, 1, 2, 3].reduce((s, j) => Math.fround(s + Math.fround(colour(b(x, j)) * 2 ** j)), 0);
  words.forEach((x, i) => assert.ok(Math.abs(f[i]! - sum(x)) <= 4e-7 * sum(x) + 1e-30, `lane ${i}: ${f[i]} vs ${sum(x)}`));
  assert.deepEqual(Array.from(f.slice(16)), bytes(16, (i) => colour(i * 17)));
  assert.equal(colour(255), 1);
  assert.throws(() => kernel([Ptr(Int)], (p) => void p.load().setByte(4, 1)), /Int\.setByte\(4, \.\.\.\): a word has bytes 0 to 3/);
  assert.throws(() => kernel([Ptr(Int)], (p) => void p.load().setHalf(2, 1)), /Int\.setHalf\(2, \.\.\.\)/);
  assert.throws(() => kernel([Ptr(Int)], (p) => void p.load().colour(-1)), /Int\.colour\(-1\): a word has bytes 0 to 3/);
});

/** The float32 just below a positive float32. */
function nextDown(x: number): number {
  const f = new Float32Array([x]);
  new Int32Array(f.buffer)[0]! -= 1;
  return f[0]!;
}
