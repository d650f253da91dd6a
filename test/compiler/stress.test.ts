// Programs that stress the compiler: more live values than registers (spilling to the VPM, and
// to memory when its rows run out), deep nesting, long straight-line code. Each must agree with
// the interpreter and pass the validator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { any, Float, For, If, Int, index, kernel, me, numQPUs, Ptr, SharedArray, Where, While, type IntVar } from '../../src/index.ts';
import { validate } from '../../src/vc4/validate.ts';

/** Runs k on both targets with a fresh output array per run and checks they agree. */
function agree(k: ReturnType<typeof pressure>, qpus: number, words: number): Int32Array {
  const a = SharedArray.int32(words);
  const b = SharedArray.int32(words);
  k.setNumQPUs(qpus).interpretSync([a]);
  k.emulateSync([b]);
  assert.deepEqual(Array.from(b), Array.from(a), `${k.kernelName} on ${qpus} QPUs`);
  assert.deepEqual(validate(k.code().instrs), [], 'the validator finds nothing');
  return a;
}

/** n values live at once, all combined at the end. */
function pressure(n: number) {
  return kernel([Ptr(Int)], function pressure(out) {
    const vs: IntVar[] = [];
    for (let i = 0; i < n; i++) vs.push(Int(index().mul(i + 1).add(me().mul(1000))));
    // Each is updated in a loop so that all stay live across it.
    const i = Int(0);
    While(any(i.lt(3)), () => {
      for (let j = 0; j < n; j++) vs[j]!.set(vs[j]!.add(vs[(j + 1) % n]!));
      i.set(i.add(1));
    });
    let sum = vs[0]!.add(0);
    for (let j = 1; j < n; j++) sum = sum.xor(vs[j]!.shl(j % 7));
    Ptr(Int)(out.add(me().shl(4))).store(sum);
  });
}

test('register pressure: 40 values fit the 64 registers; 80 and 100 spill to the VPM and still agree', () => {
  const small = pressure(40);
  agree(small, 1, 16);
  assert.equal(small.code().stats.spilled, 0);
  const big = pressure(80);
  for (const qpus of [1, 2]) agree(big, qpus, 16 * qpus);
  assert.ok(big.setNumQPUs(1).code().stats.spilled > 0, 'some values were spilled');
  agree(pressure(100), 1, 16);
});

test('when the VPM rows run out, registers spill to scratch memory: 150 live values on 12 QPUs agree', () => {
  // On 12 QPUs each has 3 spare VPM rows for spills; the rest go to memory the runtime provides.
  const k = pressure(150).setNumQPUs(12);
  const c = k.code();
  assert.ok(c.stats.spilledToMemory > 0, 'some values live in memory');
  assert.equal(c.uniformsBeforeArgs, 3, 'the scratch address comes after the QPU count');
  assert.equal(c.scratchBytes, c.stats.spilledToMemory * 12 * 64);
  agree(k, 12, 16 * 12);
});

test('deep nesting: 12 nested Ifs, 6 nested loops and 8 nested Wheres agree with the interpreter', () => {
  const k = kernel([Ptr(Int)], function nested(out) {
    const x = Int(index());
    const acc = Int(0);
    const ifs = (d: number): void => {
      if (d === 0) {
        acc.set(acc.add(x));
        return;
      }
      If(any(x.gt(d - 1)), () => {
        acc.set(acc.add(d));
        ifs(d - 1);
      }).Else(() => acc.set(acc.sub(1)));
    };
    ifs(12);
    const loops = (d: number): void => {
      if (d === 0) {
        acc.set(acc.add(1));
        return;
      }
      const c = Int(0);
      For(any(c.lt(2)), () => c.set(c.add(1)), () => loops(d - 1));
    };
    loops(6);
    const wheres = (d: number): void => {
      if (d === 0) return;
      Where(x.gt(d), () => {
        acc.set(acc.mul(3).add(d));
        wheres(d - 1);
      }).Else(() => acc.set(acc.sub(d)));
    };
    wheres(8);
    Ptr(Int)(out.add(me().shl(4))).store(acc);
  });
  for (const qpus of [1, 4]) agree(k as never, qpus, 16 * qpus);
});

test('long straight-line code: 3,000 statements agree with the interpreter', () => {
  const k = kernel([Ptr(Int)], function long(out) {
    const a = Int(index());
    const b = Int(7);
    for (let i = 0; i < 1500; i++) {
      a.set(a.add(b).xor(i));
      b.set(b.sub(a.shr(3)));
    }
    Ptr(Int)(out.add(me().shl(4))).store(a.add(b));
  });
  agree(k as never, 2, 32);
  assert.ok(k.code().instrs.length > 3000);
});

test('130,000 straight-line statements compile at -O2 (no call spreads a whole run into its arguments) and agree', () => {
  const N = 130_000;
  const long = kernel([Ptr(Int)], function long(out) {
    const x = Int(index());
    for (let i = 0; i < N; i++) x.set(x.add(i & 7));
    out.store(x);
  });
  const code = long.setOptLevel(2).code();
  assert.ok(code.instrs.length > N / 2, `${code.instrs.length} instructions`);
  const out = SharedArray.int32(16);
  long.emulateSync([out]);
  const sum = Array.from({ length: N }, (_, i) => i & 7).reduce((a, b) => a + b, 0);
  assert.deepEqual(Array.from(out), Array.from({ length: 16 }, (_, l) => l + sum));
});

test('spilled constants are loaded again where read, stored nowhere: a 48-tap filter on 12 QPUs agrees, and only its other values take memory', () => {
  const TAPS = Array.from({ length: 48 }, (_, k) => Math.fround(1 / (k + 2)));
  const fir = kernel([Ptr(Float), Ptr(Float), Int], function fir(input, out, n) {
    const i = Int(me().mul(16));
    For(i.lt(n), () => i.set(i.add(numQPUs().mul(16))), () => {
      const x = TAPS.map((_, k) => Float(input.add(i).add(k).load()));
      const sum = Float(0);
      TAPS.forEach((w, k) => sum.set(sum.add(x[k]!.mul(w))));
      out.add(i).store(sum);
    });
  }).setNumQPUs(12);
  const c = fir.code();
  const constants = c.explanation.spills.filter((s) => s.to === 'constant');
  assert.ok(constants.length > 0, 'hoisted address offsets spilled as constants');
  assert.equal(c.scratchBytes, c.stats.spilledToMemory * 12 * 64, 'constants take no scratch memory');
  assert.match(c.dump('alloc'), /-> the constant 0x[0-9a-f]+, loaded where it is read/);
  const n = 16 * 24;
  const args = () => [SharedArray.from(Array.from({ length: n + 64 }, (_, j) => Math.sin(j / 10)), 'float32'), SharedArray.float32(n), n] as [Float32Array, Float32Array, number];
  const [want, got] = [args(), args()];
  fir.interpretSync(want);
  fir.emulateSync(got);
  assert.deepEqual(Array.from(SharedArray.view(got[1], Int32Array)), Array.from(SharedArray.view(want[1], Int32Array)));
});
