// The translated lane code against a direct model of one ALU instruction built from the ISA's
// arithmetic (src/vc4/arith.ts), on random instructions and register contents: every opcode,
// input mux, small immediate, condition, write swap, flag update, pack, unpack and rotation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as arith from '../../src/vc4/arith.ts';
import { encodeProgram } from '../../src/vc4/codec.ts';
import { type AluInstr, nopInstr } from '../../src/vc4/instr.ts';
import { ADD_OPS, smallImmValue } from '../../src/vc4/tables.ts';
import { Machine } from '../../src/emulator/machine.ts';
import { packA, packMul, unpackA, unpackR4 } from '../../src/emulator/pack.ts';
import { ACC, REG_A, REG_B } from '../../src/emulator/layout.ts';
import type { Qpu } from '../../src/emulator/qpu.ts';
import { setSimd } from '../../src/emulator/program.ts';

/** Every test runs with lane arithmetic as WebAssembly SIMD from the first run, and without it. */
const SIMD_MODES = ['always', 'off'] as const;

interface State {
  R: Int32Array;
  Z: Int32Array;
  N: Int32Array;
  C: Int32Array;
}

/** What one ALU instruction does, written directly from the guide's tables. */
function model(i: AluInstr, s: State): State {
  const out: State = { R: s.R.slice(), Z: s.Z.slice(), N: s.N.slice(), C: s.C.slice() };
  const small = i.sig === 13;
  const add = ADD_OPS[i.opAdd]!;
  const aFloat = (add.input === 'float' && (i.addA === 6 || i.addB === 6)) || (i.opMul === 1 && (i.mulA === 6 || i.mulB === 6));
  const input = (mux: number, l: number): number => {
    if (mux === 6) {
      const v = s.R[REG_A + 16 * i.raddrA + l]!;
      return i.pm === 0 && i.unpack ? unpackA(i.unpack, v, aFloat) : v;
    }
    if (mux === 7) return small ? smallImmValue(i.raddrB) : s.R[REG_B + 16 * i.raddrB + l]!;
    const v = s.R[ACC + 16 * mux + l]!;
    return mux === 4 && i.pm === 1 && i.unpack ? unpackR4(i.unpack, v) : v;
  };
  const cond = (c: number, l: number) => [false, true, !!s.Z[l], !s.Z[l], !!s.N[l], !s.N[l], !!s.C[l], !s.C[l]][c]!;
  const rot = small && i.raddrB >= 48 ? (i.raddrB === 48 ? s.R[ACC + 80]! & 15 : i.raddrB - 48) : 0;
  const full = i.mulA <= 3 && i.mulB <= 3;
  const ra: number[] = [];
  const rm: number[] = [];
  for (let l = 0; l < 16; l++) {
    if (i.opAdd) ra[l] = arith.ADD_FNS[i.opAdd]!(input(i.addA, l), input(i.addB, l));
    if (i.opMul) rm[l] = arith.MUL_FNS[i.opMul]!(input(i.mulA, l), input(i.mulB, l));
  }
  const write = (file: 'a' | 'b', addr: number, v: number, l: number, isMul: boolean, isFloat: boolean, ov = 0, carry = 0) => {
    if (addr === 39) return;
    const t = addr < 32 ? (file === 'a' ? REG_A : REG_B) + 16 * addr + l : ACC + 16 * (addr - 32) + l;
    if (i.pm === 1 && isMul && i.pack) v = packMul(i.pack, out.R[t]!, v);
    else if (i.pm === 0 && i.pack && file === 'a' && addr < 32) v = packA(i.pack, out.R[t]!, v, isFloat, ov, carry);
    out.R[t] = v;
  };
  const flags = (l: number, r: number, isFloat: boolean, c: number) => {
    void isFloat;
    out.Z[l] = arith.zeroFlag(r);
    out.N[l] = r >>> 31;
    out.C[l] = c;
  };
  for (let l = 0; l < 16; l++) {
    if (i.opAdd && cond(i.condAdd, l)) {
      const a = input(i.addA, l);
      const b = input(i.addB, l);
      const ov = arith.addOverflow(i.opAdd, a, b) ? 1 : 0;
      write(i.ws ? 'b' : 'a', i.waddrAdd, ra[l]!, l, false, arith.ADD_FLOAT_RESULT.has(i.opAdd), ov, arith.addCarry(i.opAdd, a, b, ra[l]!));
      if (i.sf) flags(l, ra[l]!, arith.ADD_FLOAT_RESULT.has(i.opAdd), arith.addCarry(i.opAdd, a, b, ra[l]!));
    }
  }
  for (let d = 0; d < 16; d++) {
    if (!i.opMul || !cond(i.condMul, d)) continue;
    const src = rot === 0 ? d : full ? (d - rot) & 15 : (d & 12) | ((d - rot) & 3);
    write(i.ws ? 'a' : 'b', i.waddrMul, rm[src]!, d, true, i.opMul === 1);
    if (i.sf && !i.opAdd) flags(d, rm[src]!, i.opMul === 1, arith.mulCarry(i.opMul, input(i.mulA, src), input(i.mulB, src)));
  }
  return out;
}

const VALID_ADD = [1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 30, 31];

const arbAlu: fc.Arbitrary<AluInstr> = fc
  .record({
    small: fc.boolean(),
    unpack: fc.integer({ min: 0, max: 7 }),
    pm: fc.integer({ min: 0, max: 1 }),
    pack: fc.integer({ min: 0, max: 15 }),
    condAdd: fc.integer({ min: 0, max: 7 }),
    condMul: fc.integer({ min: 0, max: 7 }),
    sf: fc.integer({ min: 0, max: 1 }),
    ws: fc.integer({ min: 0, max: 1 }),
    waddrAdd: fc.oneof(fc.integer({ min: 0, max: 35 }), fc.constant(39)),
    waddrMul: fc.oneof(fc.integer({ min: 0, max: 35 }), fc.constant(39)),
    opMul: fc.integer({ min: 0, max: 7 }),
    opAdd: fc.oneof(fc.constant(0), fc.constantFrom(...VALID_ADD)),
    raddrA: fc.integer({ min: 0, max: 31 }),
    raddrB: fc.integer({ min: 0, max: 63 }),
    addA: fc.integer({ min: 0, max: 7 }),
    addB: fc.integer({ min: 0, max: 7 }),
    mulA: fc.integer({ min: 0, max: 7 }),
    mulB: fc.integer({ min: 0, max: 7 }),
  })
  .map(({ small, ...r }) => {
    const i: AluInstr = { ...nopInstr(), ...r, sig: small ? 13 : 1, raddrB: small ? r.raddrB : r.raddrB & 31 };
    if (i.pm === 1 && (i.pack === 1 || i.pack === 2 || i.pack > 7)) i.pack = 0;
    // An ALU with opcode nop that writes is not run (rule nop-opcode-write): it writes nothing here.
    if (i.opAdd === 0 && i.condAdd !== 0) i.waddrAdd = 39;
    if (i.opMul === 0 && i.condMul !== 0) i.waddrMul = 39;
    // Both ALUs writing one accumulator is undefined (Guide p. 19): keep them apart.
    if (i.waddrAdd === i.waddrMul && i.waddrAdd >= 32 && i.waddrAdd !== 39) i.waddrMul = 39;
    return i;
  });

/** Interesting 32-bit patterns: small ints, floats, denormals, NaN, infinities, extremes. */
const arbWordValue = fc.oneof(
  fc.integer({ min: -20, max: 20 }),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.float({ noDefaultInfinity: false }).map((f) => new Int32Array(new Float32Array([f]).buffer)[0]!),
  fc.constantFrom(0x80000000 | 0, 0x7fffffff, 0x00000001, 0x807fffff | 0, 0x7f800000, 0xff800000 | 0, 0x7fc00000, 0xffc00001 | 0),
  // Around the smallest normal, where products round toward zero into the flushed range.
  fc.constantFrom(0x00800000, 0x00800001, 0x00ffffff, 0x3f7fffff, 0x3f7ffffe, 0xbf7fffff | 0),
);

function runOne(i: AluInstr, init: State): State {
  const m = new Machine();
  const end = nopInstr(3);
  const prog = m.load(encodeProgram([i, end, nopInstr(), nopInstr()]));
  const u = m.memory.alloc(4, 'u');
  m.run(prog, [u.address], {
    strict: false,
    init: (q: Qpu) => {
      q.R.set(init.R.subarray(0, ACC + 96));
      q.Z.set(init.Z);
      q.N.set(init.N);
      q.C.set(init.C);
    },
  });
  const q = m.lastRun[0]!;
  return { R: q.R.slice(0, ACC + 96), Z: q.Z.slice(), N: q.N.slice(), C: q.C.slice() };
}

for (const mode of SIMD_MODES)
  test(`translated ALU instructions compute what the model computes (SIMD ${mode})`, () => {
    setSimd(mode);
    fc.assert(
      fc.property(
        arbAlu,
        fc.array(arbWordValue, { minLength: ACC + 96, maxLength: ACC + 96 }),
        fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 16, maxLength: 16 }),
        (i, words, flagBits) => {
          const init: State = {
            R: Int32Array.from(words),
            Z: Int32Array.from(flagBits, (b) => b & 1),
            N: Int32Array.from(flagBits, (b) => (b >> 1) & 1),
            C: Int32Array.from(flagBits, (b) => (b >> 2) & 1),
          };
          const got = runOne(i, init);
          const want = model(i, init);
          assert.deepEqual(got, want);
        },
      ),
      { numRuns: 1500 },
    );
  });

for (const mode of SIMD_MODES)
  test(`a block of fused instructions leaves the same state as running them one at a time (SIMD ${mode})`, () => {
    setSimd(mode);
    fc.assert(
      fc.property(fc.array(arbAlu, { minLength: 2, maxLength: 12 }), fc.array(arbWordValue, { minLength: 96, maxLength: 96 }), (seq, accs) => {
        const run = (oneAtATime: boolean) => {
          const m = new Machine();
          const prog = m.load(encodeProgram([...seq, nopInstr(3), nopInstr(), nopInstr()]));
          const u = m.memory.alloc(4, 'u');
          m.run(prog, [u.address], {
            strict: false,
            trace: oneAtATime ? () => {} : undefined,
            init: (q) => q.R.set(Int32Array.from(accs), ACC),
          });
          const q = m.lastRun[0]!;
          return { R: q.R.slice(0, ACC + 96), Z: q.Z.slice(), N: q.N.slice(), C: q.C.slice(), time: q.time, count: q.count };
        };
        assert.deepEqual(run(false), run(true));
      }),
      { numRuns: 400 },
    );
  });

for (const mode of SIMD_MODES)
  test(`fmul: products just below the smallest normal give +0, as arith.fmul does (no rounding up to 2^-126) (SIMD ${mode})`, () => {
    setSimd(mode);
    // Round to nearest takes these exact products up to 2^-126; toward zero they are denormals.
    const cases: [number, number][] = [
      [0x3f7fffff, 0x00800000],
      [0x3f7ffffe, 0x00800001],
      [0x3f7fffff, 0x80800000 | 0],
      [0xbf7fffff | 0, 0x00800000],
      [0x3f800000, 0x00800000], // exactly 2^-126 stays
      [0x3f000001, 0x00ffffff], // just above 2^-126: toward zero it is 2^-126
      [0x3f7fffff, 0x00800001],
    ];
    const mul: AluInstr = { ...nopInstr(), opMul: 1, mulA: 0, mulB: 1, waddrMul: 34, condMul: 1 };
    for (const [a, b] of cases) {
      const init: State = { R: new Int32Array(ACC + 96), Z: new Int32Array(16), N: new Int32Array(16), C: new Int32Array(16) };
      init.R.fill(a, ACC, ACC + 16);
      init.R.fill(b, ACC + 16, ACC + 32);
      const got = runOne(mul, init).R[ACC + 32]!;
      assert.equal(got >>> 0, arith.fmul(a, b) >>> 0, `fmul(0x${(a >>> 0).toString(16)}, 0x${(b >>> 0).toString(16)})`);
    }
    assert.equal(arith.fmul(0x3f7fffff, 0x00800000), 0);
    assert.equal(arith.fmul(0x3f000001, 0x00ffffff), 0x00800000);
  });
