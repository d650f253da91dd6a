// The WebAssembly SIMD float arithmetic (src/emulator/wasm/float.ts) against src/vc4/arith.ts,
// bit for bit: structured inputs where rounding toward zero, flushing and overflow decide the
// result, and random ones. Lanes the SIMD code marks rare are those the translation recomputes
// with arith; the test checks every other lane, and that rare lanes stay rare.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as arith from '../../src/vc4/arith.ts';
import { encodeModule, FunctionBuilder, listings } from '../../src/emulator/wasm/encoder.ts';
import { emitFaddSub, emitFmul, emitFtoi, emitItof } from '../../src/emulator/wasm/float.ts';

type Op = 'fadd' | 'fsub' | 'fmul' | 'itof' | 'ftoi';
const OPS: Op[] = ['fadd', 'fsub', 'fmul', 'itof', 'ftoi'];

/** One function per op: a at ptr, b at ptr + 16; the result to ptr + 32, the rare lanes to ptr + 48. */
function build(): { exports: Record<Op, (ptr: number) => void>; mem: Int32Array; text: string } {
  const funcs = OPS.map((op) => {
    const f = new FunctionBuilder(op, [{ name: 'ptr', type: 'i32' }]);
    const [a, b, out, rare] = ['a', 'b', 'out', 'rare'].map((n) => f.local('v128', n)) as [number, number, number, number];
    f.get(0).load(0).set(a);
    f.get(0).load(16).set(b);
    if (op === 'fadd' || op === 'fsub') emitFaddSub(f, a, b, op === 'fsub', out, rare);
    else if (op === 'fmul') emitFmul(f, a, b, out, rare);
    else if (op === 'itof') emitItof(f, a, out);
    else emitFtoi(f, a, out);
    f.get(0).get(out).store(32);
    f.get(0).get(rare).store(48);
    return f;
  });
  const memory = new WebAssembly.Memory({ initial: 1 });
  const instance = new WebAssembly.Instance(new WebAssembly.Module(encodeModule([], funcs)), { js: { memory } });
  return { exports: instance.exports as unknown as Record<Op, (ptr: number) => void>, mem: new Int32Array(memory.buffer), text: funcs.map((f) => f.text()).join('\n') };
}

listings.on = true;
const { exports, mem, text } = build();
const REF: Record<Op, (a: number, b: number) => number> = {
  fadd: arith.fadd,
  fsub: arith.fsub,
  fmul: arith.fmul,
  itof: (a) => arith.itof(a),
  ftoi: (a) => arith.ftoi(a),
};

/** Runs `op` on pairs, four lanes a call; returns the lanes that differ from arith (at most 5) and how many were rare. */
function check(op: Op, pairs: Int32Array): { wrong: string[]; rare: number } {
  const wrong: string[] = [];
  let rare = 0;
  for (let i = 0; i + 8 <= pairs.length; i += 8) {
    for (let l = 0; l < 4; l++) [mem[l], mem[4 + l]] = [pairs[i + 2 * l]!, pairs[i + 2 * l + 1]!];
    mem.fill(0, 12, 16);
    exports[op](0);
    for (let l = 0; l < 4; l++) {
      const [a, b] = [pairs[i + 2 * l]!, pairs[i + 2 * l + 1]!];
      if (mem[12 + l] !== 0) {
        assert.equal(mem[12 + l], -1, 'a rare lane is all ones');
        rare++;
        continue;
      }
      const want = REF[op](a, b) | 0;
      if (mem[8 + l] !== want && wrong.length < 5) wrong.push(`${op}(0x${(a >>> 0).toString(16)}, 0x${(b >>> 0).toString(16)}) = 0x${(mem[8 + l]! >>> 0).toString(16)}, arith 0x${(want >>> 0).toString(16)}`);
    }
  }
  return { wrong, rare };
}

/** A deterministic generator (xorshift32). */
function rng(seed: number): () => number {
  let s = seed | 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s | 0;
  };
}

const bits = (x: number) => new Int32Array(new Float32Array([x]).buffer)[0]!;
const SPECIAL = [
  0, 0x80000000, 1, 0x007fffff, 0x80000001, 0x00800000, 0x00800001, 0x80800000, 0x00ffffff, 0x01000000, 0x7f7fffff, 0xff7fffff, 0x7f7ffffe,
  0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, bits(1), bits(-1), bits(2), bits(0.5), bits(1 + 2 ** -23), bits(1 - 2 ** -24),
  bits(3), bits(-3), 0x3f800001, 0x3fffffff, 0x4b000000, 0x4b7fffff, 0xcf000000, 0x4f000000, 0x4effffff, 0xcf000001, 0x7effffff, 0x1f800000,
  0x20000000, 0x1fffffff, 0x20800000, 0x5f800000, 0x5f7fffff,
  // A fuzzer's find: x + -max with the sum near -2.7e38 overflowed inside TwoSum (s - a).
  0x7e530000, 0x7e52e3a0, 0x7f000000, 0xfeffffff,
].map((x) => x | 0);

/** Pairs from several generators: every pair of specials, near exponents, products near the ends of the range, and random patterns. */
function inputs(seed: number, op: Op): Int32Array {
  const r = rng(seed);
  const out: number[] = [];
  for (const a of SPECIAL) for (const b of SPECIAL) out.push(a, b);
  for (let i = 0; i < 60000; i++) {
    const a = r();
    // b with an exponent near a's (sums that round), or chosen so the product lands near 2^-126 or 2^128.
    const ea = (a >>> 23) & 0xff;
    const kind = i % 5;
    let eb: number;
    if (kind === 0) eb = ea + ((r() >>> 0) % 61) - 30;
    else if (kind === 1) eb = 127 + (1 - ea) + ((r() >>> 0) % 5) - 2; // product near 2^-126: ea + eb - 254 ~ -126
    else if (kind === 2) eb = 127 + (127 - ea) + ((r() >>> 0) % 5) - 2; // product near 2^127-2^128
    else if (kind === 3) eb = (r() >>> 23) & 0xff;
    else eb = 254 - ((r() >>> 0) % 3); // sums near the largest single, where TwoSum's steps can overflow
    eb = Math.max(0, Math.min(255, eb));
    const b = (r() & 0x807fffff) | (eb << 23);
    // Mantissas with long runs of ones or zeros, where rounding goes both ways.
    const m = i % 3 === 0 ? 0x007fffff : i % 3 === 1 ? 0 : -1;
    if (kind === 4 && (op === 'fadd' || op === 'fsub')) {
      // Both near the largest single, of opposite signs: TwoSum's s - a can overflow.
      const big = (r() & 0x007fffff) | ((250 + ((r() >>> 0) % 5)) << 23);
      const near = i % 2 ? b & 0x7fffffff : (b & 0x7f800000) | 0x007fffff; // often the largest mantissa
      out.push(big, near | (~big & 0x80000000), big | 0x80000000, near);
    }
    out.push(m === -1 ? a : (a & 0xff800000) | m, b);
  }
  if (op === 'itof') for (let k = -40; k <= 40; k++) for (const base of [0, 1 << 24, -(1 << 24), 0x7fffffff, -0x80000000, 1 << 25, 0x7fffff80]) out.push((base + k) | 0, 0);
  while (out.length % 8) out.push(0);
  return new Int32Array(out);
}

for (const op of OPS)
  test(`wasm SIMD ${op} agrees with arith.${op} bit for bit, rounding toward zero and flushing (structured and random inputs)`, () => {
    let rare = 0;
    let lanes = 0;
    for (const seed of [1, 2, 3]) {
      const pairs = inputs(seed * 7919, op);
      const res = check(op, pairs);
      assert.deepEqual(res.wrong, [], res.wrong.join('\n'));
      rare += res.rare;
      lanes += pairs.length / 2;
    }
    // Only lanes with infinities, NaNs or overflow go to the slow path.
    assert.ok(rare < lanes / 4, `${rare} of ${lanes} lanes were rare`);
  });

test('the SIMD float code reads as text, an operation a line', () => {
  assert.match(text, /\(func \$fadd \(param \$ptr i32\)/);
  assert.match(text, /f32x4\.add/);
  assert.match(text, /;; fmul: the exact binary64 product, narrowed toward zero/);
});
