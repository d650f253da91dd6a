// Pass strength (strength.ts): in a loop, an address base + (i << k) read at least twice, where
// the loop adds a constant to i, becomes an induction variable of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reduceStrength } from '../../../src/compiler/strength.ts';
import { compile } from '../../../src/compiler/driver.ts';
import { Float, Int, Ptr, SharedArray } from '../../../src/index.ts';
import { emulatorTarget, hostArguments } from '../../../src/runtime/kernel.ts';
import { rot3D_1 } from '../../../examples/rot3d.ts';
import { assertPass, assertUnchanged } from './fixture.ts';

/** A loop that adds 3 to %1 an iteration, with %3 = %0 + (%1 << 2) read by `uses`. */
const loop = (uses: string) => `
    mov %0, unif
    mov %1, 0
    mov %5, unif
    max.setf nop, %5, %1
    brr.allnc -, end
    nop
    nop
    nop
    top:
    shl %2, %1, 2
    add %3, %0, %2
    ${uses}
    add %1, %1, 3
    max.setf nop, %5, %1
    brr.anyc -, top
    nop
    nop
    nop
    end:
    nop.tend`;

test('strength: an address base + (i << k) read twice becomes an induction variable of its own', () => {
  // The shift and the add go; %7 = %0 + (%1 << 2) is set before the loop and advanced by 3 << 2.
  assertPass(
    reduceStrength,
    loop('mov vr_addr, %3\nmov vw_addr, %3'),
    `
    mov %0, unif
    mov %1, 0
    mov %5, unif
    max.setf nop, %5, %1
    brr.allnc -, end
    nop
    nop
    nop
    shl %6, %1, 2
    add %7, %0, %6
    top:
    mov vr_addr, %7
    mov vw_addr, %7
    add %1, %1, 3
    add %7, %7, 12
    max.setf nop, %5, %1
    brr.anyc -, top
    nop
    nop
    nop
    end:
    nop.tend`,
  );
});

test('strength: an address read once, or with i written between, stays', () => {
  // Read once, the address is better written where it is read (pass direct).
  assertUnchanged(reduceStrength, loop('mov vw_addr, %3'));
  // i written between the add and a read of the address.
  assertUnchanged(reduceStrength, loop('mov vr_addr, %3\nadd %1, %1, 3\nmov vw_addr, %3').replace('add %1, %1, 3\n    max', 'max'));
});

test('strength on rot3D version 1 at -O1: one instruction fewer an iteration, the same results', () => {
  const run = (strength: boolean) => {
    const x = SharedArray.float32(160);
    const y = SharedArray.float32(160);
    for (let i = 0; i < 160; i++) [x[i], y[i]] = [i - 20.5, 3 * i];
    const c = compile(rot3D_1.ast, { qpus: 1, opt: 1, passes: { strength }, verify: true });
    assert.equal(/shl/.test(c.dump(strength ? 'strength' : 'hoist').split('loop0:')[1]!.split('endloop')[0]!), !strength);
    const want = [SharedArray.float32(160), SharedArray.float32(160)] as const;
    want[0].set(x);
    want[1].set(y);
    rot3D_1.setNumQPUs(1).interpretSync([160, 0.5, -0.25, want[0], want[1]]);
    const { values, arrays } = hostArguments(rot3D_1.ast, [Int, Float, Float, Ptr(Float), Ptr(Float)], [160, 0.5, -0.25, x, y]);
    const r = emulatorTarget().run(c, values, arrays);
    assert.deepEqual([Array.from(x), Array.from(y)], [Array.from(want[0]), Array.from(want[1])]);
    return r.total.instructions;
  };
  // 10 iterations save a shift each; the entry costs 4 (a shift, the step 64 by ldi, two adds).
  assert.equal(run(false) - run(true), 10 - 4);
});
