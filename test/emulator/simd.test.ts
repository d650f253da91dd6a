// The SIMD tier against the JavaScript one on cases a review found (their causes are in the
// commit that fixed them): large SIMD functions, failing I/O beside a rotation, the register
// slots of runs that fail before they start; and blocks that loop to themselves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Machine } from '../../src/emulator/machine.ts';
import { setSimd, type SimdMode } from '../../src/emulator/program.ts';
import { ACC, REG_A } from '../../src/emulator/layout.ts';
import { slotsInUse } from '../../src/emulator/wasm/slots.ts';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { encodeProgram } from '../../src/vc4/codec.ts';
import { type AluInstr, branchInstr, type Instr, ldiInstr, nopInstr } from '../../src/vc4/instr.ts';

const MODES: SimdMode[] = ['off', 'hot', 'always'];

test('a loop of 110 float instructions (a SIMD function of 200 KB) runs alike in every SIMD mode', () => {
  // ldi ra0, 40; loop: (fadd r0, r0, r1; fmul r2, r2, r3) x 55; sub.setf ra0, ra0, 1; brr.anynz loop; 3 nops; end
  const body: AluInstr = { ...nopInstr(), opAdd: 1, addA: 0, addB: 1, waddrAdd: 32, condAdd: 1, opMul: 1, mulA: 2, mulB: 3, waddrMul: 34, condMul: 1 };
  const dec: AluInstr = { ...nopInstr(), sig: 13, raddrB: 1, opAdd: 13, addA: 6, addB: 7, raddrA: 0, waddrAdd: 0, condAdd: 1, sf: 1 };
  const n = 55;
  const branchAt = n + 2;
  const prog: Instr[] = [
    ldiInstr(40, { waddrAdd: 0 }),
    ...Array<AluInstr>(n).fill(body),
    dec,
    branchInstr({ cond: 3, rel: 1, imm: (1 - (branchAt + 4)) * 8 }),
    ...[nopInstr(), nopInstr(), nopInstr(), nopInstr(3), nopInstr(), nopInstr()],
  ];
  const results = MODES.map((mode) => {
    setSimd(mode);
    const m = new Machine();
    m.run(m.load(encodeProgram(prog)), [m.memory.alloc(64, 'u').address], {
      init: (q) => {
        for (let l = 0; l < 64; l++) q.R[ACC + l] = 0x3f800000 + 4096 * l; // floats near 1
      },
    });
    const q = m.lastRun[0]!;
    return { count: q.count, r: [...q.R.slice(ACC, ACC + 64)] };
  });
  setSimd('hot');
  assert.equal(results[0]!.count, 1 + 40 * (n + 5) + 3);
  assert.deepEqual(results[1], results[0]);
  assert.deepEqual(results[2], results[0]);
});

test('a rotation beside a failing I/O write leaves the registers as the JavaScript tier does (the rotated write not done)', () => {
  // mov tmu0_s, r0; mov ra1, r1 >> 1 with r0 an address outside GPU memory
  const i: AluInstr = { ...nopInstr(), sig: 13, raddrB: 49, opAdd: 21, addA: 0, addB: 0, waddrAdd: 56, condAdd: 1, opMul: 4, mulA: 1, mulB: 1, waddrMul: 1, condMul: 1, ws: 1 };
  const seen = (['always', 'off'] as const).map((mode) => {
    setSimd(mode);
    const m = new Machine();
    const u = m.memory.alloc(64, 'u');
    assert.throws(
      () =>
        m.run(m.load(encodeProgram([i, nopInstr(3), nopInstr(), nopInstr()])), [u.address], {
          strict: false,
          init: (q) => {
            for (let l = 0; l < 16; l++) [q.R[ACC + l], q.R[ACC + 16 + l], q.R[REG_A + 16 + l]] = [0x10, 100 + l, -1];
          },
        }),
      /TMU0 lookup, lane 0, address 0x00000010/,
    );
    return [...m.lastRun[0]!.R.slice(REG_A + 16, REG_A + 32)];
  });
  setSimd('hot');
  assert.deepEqual(seen[0], seen[1]);
  assert.deepEqual(seen[0], new Array(16).fill(-1));
});

test('runs that fail in init, before they start, give their register slots back', () => {
  const before = slotsInUse();
  const prog = encodeProgram([nopInstr(3), nopInstr(), nopInstr()]);
  for (let k = 0; k < 20; k++) {
    const m = new Machine();
    const us = Array.from({ length: 12 }, () => m.memory.alloc(64, 'u').address);
    assert.throws(() =>
      m.run(m.load(prog), us, {
        init: (q) => {
          if (q.id === 11) throw new Error('init fails');
        },
      }),
    );
  }
  assert.equal(slotsInUse(), before);
});

test('a block that loops to itself runs many iterations a call, as one instruction at a time would: registers, flags, clock, counts', () => {
  const mandel = readFileSync(new URL('../../examples/asm/mandel.qasm', import.meta.url), 'utf8');
  const words = assemble(mandel).words;
  const run = (oneAtATime: boolean, strict: boolean) => {
    const m = new Machine();
    const out = m.memory.alloc(64, 'out');
    const u = m.memory.alloc(64, 'u');
    [bits(-2), bits(0.1875), bits(0.1), 300, out.address, 0].forEach((w, i) => m.memory.writeWord(u.address + 4 * i, w));
    const r = m.run(m.load(words), [u.address], { strict, trace: oneAtATime ? () => {} : undefined });
    const q = m.lastRun[0]!;
    // The register files and r0-r5 (the scratch words after them are each tier's own).
    return { R: [...q.R.slice(0, ACC + 96)], Z: [...q.Z], N: [...q.N], C: [...q.C], cycles: r.cycles, count: q.count, out: [...m.memory.view(out, Int32Array)] };
  };
  for (const strict of [true, false]) assert.deepEqual(run(false, strict), run(true, strict));
  // The step budget still stops such a loop at exactly its count.
  const m = new Machine();
  const u = m.memory.alloc(64, 'u');
  [bits(-2), bits(0.1875), bits(0.1), 100000, u.address, 0].forEach((w, i) => m.memory.writeWord(u.address + 4 * i, w));
  assert.throws(() => m.run(m.load(words), [u.address], { maxSteps: 5000 }), /the step budget of 5,000 instructions ran out after 5,000 instructions, /);
});

function bits(x: number): number {
  return new Int32Array(new Float32Array([x]).buffer)[0]!;
}

test('code a loop runs gets SIMD once hot; straight-line code stays JavaScript however many QPUs and runs run it', () => {
  setSimd('hot');
  const body: AluInstr = { ...nopInstr(), opAdd: 1, addA: 0, addB: 1, waddrAdd: 32, condAdd: 1 }; // fadd r0, r0, r1
  const dec: AluInstr = { ...nopInstr(), sig: 13, raddrB: 1, opAdd: 13, addA: 6, addB: 7, raddrA: 0, waddrAdd: 0, condAdd: 1, sf: 1 };
  const end = [nopInstr(3), nopInstr(), nopInstr()];
  const hasSimd = (fn: unknown) => String(fn).includes('W.lanes_');
  // 80 instructions a pass: two blocks, neither looping to itself; 40 passes.
  const n = 80;
  const branchAt = n + 2;
  const loop: Instr[] = [
    ldiInstr(40, { waddrAdd: 0 }),
    ...Array<AluInstr>(n).fill(body),
    dec,
    branchInstr({ cond: 3, rel: 1, imm: (1 - (branchAt + 4)) * 8 }),
    nopInstr(),
    nopInstr(),
    nopInstr(),
    ...end,
  ];
  const m = new Machine();
  const p = m.load(encodeProgram(loop));
  m.run(p, [m.memory.alloc(64, 'u').address]);
  assert.ok(hasSimd(p.blocks.strict[1]), 'the loop body has SIMD after one run');
  // Straight-line code on 12 QPUs, 10 runs: 120 calls of its block, none of them from a loop.
  const straight = m.load(encodeProgram([...Array<AluInstr>(20).fill(body), ...end]));
  const us = Array.from({ length: 12 }, () => m.memory.alloc(64, 'u').address);
  for (let k = 0; k < 10; k++) m.run(straight, us);
  assert.equal(straight.repeats[0], 0);
  assert.ok(straight.blocks.strict[0] && !hasSimd(straight.blocks.strict[0]), 'straight-line code stays JavaScript');
});
