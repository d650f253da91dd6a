// The SFU's chip mode (vc4/sfu-model.ts): every result within the measured bounds of the exact
// one, the same on the interpreter and the emulator, chosen per run; and what it catches: a
// division by recip() alone, exact with the exact SFU, is off with the chip's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Float, Int, kernel, Ptr, SharedArray } from '../../src/index.ts';
import { sfu } from '../../src/vc4/arith.ts';
import { SFU_CHIP_ERROR, sfuChip } from '../../src/vc4/sfu-model.ts';
import { rng } from '../../src/source/generate.ts';

const f32 = (bits: number) => new Float32Array(new Int32Array([bits]).buffer)[0]!;

test('the chip model is off by at most the measured bound, deterministically, and leaves zeros, infinities and NaNs', () => {
  const r = rng(7);
  for (let fn = 0; fn < 4; fn++) {
    const { bound, relative } = SFU_CHIP_ERROR[fn]!;
    let most = 0;
    for (let i = 0; i < 20000; i++) {
      const bits = fn === 2 ? new Int32Array(new Float32Array([(r() / 2 ** 32) * 200 - 100]).buffer)[0]! : r() & 0x7fffffff;
      const exact = f32(sfu(fn, bits));
      const chip = f32(sfuChip(fn, bits));
      assert.equal(sfuChip(fn, bits), sfuChip(fn, bits));
      if (exact === 0 || !Number.isFinite(exact) || Number.isNaN(exact)) {
        assert.equal(sfuChip(fn, bits), sfu(fn, bits));
        continue;
      }
      const off = relative ? Math.abs(chip / exact - 1) : Math.abs(chip - exact);
      most = Math.max(most, off);
      assert.ok(off <= bound * (1 + 2 ** -10) + (relative ? 2 ** -23 : Math.abs(exact) * 2 ** -23), `fn ${fn} of ${f32(bits)}: ${chip} for ${exact}`);
    }
    assert.ok(most > bound / 2, `fn ${fn}: errors reach toward the bound (${most})`); // the model is not secretly exact
  }
});

const recipOf = kernel([Ptr(Float), Ptr(Float)], (xs, out) => {
  out.store(Float(xs.load()).recip());
  out.add(16).store(Float(xs.load()).nativeLog2());
});

test('sfu: \'chip\' runs the same on the interpreter and the emulator, and differs from the exact SFU', () => {
  const xs = Array.from({ length: 16 }, (_, l) => 1.5 + l * 0.37);
  const run = (how: 'interpretSync' | 'emulateSync', sfuMode?: 'chip') => {
    const out = SharedArray.float32(32);
    recipOf[how]([SharedArray.from<Float32Array>(new Float32Array(xs)), out], sfuMode ? { sfu: sfuMode } : undefined);
    return Array.from(SharedArray.view(out, Int32Array));
  };
  const chip = run('interpretSync', 'chip');
  assert.deepEqual(run('emulateSync', 'chip'), chip);
  assert.deepEqual(run('emulateSync'), run('interpretSync'));
  assert.notDeepEqual(chip, run('interpretSync'));
});

test('a quotient by recip() alone passes with the exact SFU and fails with the chip\'s; div does not', () => {
  const k = kernel([Ptr(Int), Ptr(Int)], (out, naive) => {
    const a = Int(out.load());
    const b = Int(out.add(16).load());
    naive.store(a.toFloat().mul(b.toFloat().recip()).toInt());
    out.store(a.div(b));
  });
  const as = Array.from({ length: 16 }, (_, l) => 3 * (l + 1) * 1000);
  const bs = as.map(() => 3);
  const wrong = (sfuMode?: 'chip') => {
    const io = SharedArray.from<Int32Array>([...as, ...bs]);
    const naive = SharedArray.int32(16);
    k.emulateSync([io, naive], sfuMode ? { sfu: sfuMode } : undefined);
    const want = as.map((a, l) => Math.trunc(a / bs[l]!));
    return { naive: Array.from(naive).filter((q, l) => q !== want[l]).length, div: Array.from(io.slice(0, 16)).filter((q, l) => q !== want[l]).length };
  };
  assert.deepEqual(wrong(), { naive: 0, div: 0 });
  const chip = wrong('chip');
  assert.equal(chip.div, 0);
  assert.ok(chip.naive > 0, 'the naive quotient is off somewhere with the chip\'s SFU');
});

test('sfu is checked: a mode that is not one, and the pi target, whose SFU is the chip\'s', () => {
  const out = SharedArray.float32(32);
  const xs = SharedArray.float32(16);
  assert.throws(() => recipOf.emulateSync([xs, out], { sfu: 'fast' } as never), /kernel .*: sfu must be 'exact' or 'chip', not the string "fast"/);
  assert.throws(() => recipOf.with({ target: 'pi', sfu: 'chip' }).sync(xs, out), /sfu is for the emulator and the interpreter: a Pi's SFU is the chip's own/);
});
