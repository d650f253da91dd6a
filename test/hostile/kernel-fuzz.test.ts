// The fuzz suite, kernels: random kernels whose loads, gathers and stores use pointers that may
// point anywhere (inside the arrays, just past them, into a neighbour, far away, below them),
// (and into the emulator's uniforms buffer), on both targets. Each run ends normally or with an error naming the kernel (and, on the
// emulator, the QPU, pc and statement); the arrays the kernel was not given never change; the
// two targets agree on which accesses are outside, and on the results when both finish on 1 QPU.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Float, gather, index, Int, kernel, me, Ptr, receive, SharedArray, store } from '../../src/index.ts';
import type { FloatVar, IntVar, PtrVar } from '../../src/index.ts';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { InterpreterError } from '../../src/source/interpreter.ts';
import { gpuMemory } from '../../src/runtime/shared-array.ts';
import { type Fuzz, fuzzLoop } from '../helpers/hostile.ts';

const N = 64;
/** Offsets in elements from an array's start: inside, at and past the end, into a neighbour, far, below. */
const OFFSETS = [0, 16, 48, 49, 56, 64, 65, 1024, 2048, 4096, -16, -1, -2048, 1 << 20, -(1 << 28), 0x3fffffff];

/** `u` is the distance in words from p to the emulator's uniforms buffer, which holds other runs' arguments. */
type Op = (p: PtrVar<'int'>, q: PtrVar<'float'>, x: IntVar, y: FloatVar, u: IntVar) => void;

function randomOp(f: Fuzz): { op: Op; text: string } {
  const a = f.chance(0.7) ? f.pick([0, 16, 32, 48]) : f.pick(OFFSETS);
  const k = f.pick([0, 1, 4, 1000]);
  switch (f.int(7)) {
    case 6:
      return f.chance(0.5)
        ? { op: (p, _q, x, _y, u) => x.set(p.add(u).load()), text: 'x = *(p + u) (the uniforms)' }
        : {
            op: (p, _q, x, _y, u) => {
              gather(p.add(u.add(index())));
              receive(x);
            },
            text: 'gather(p + u + index()) (the uniforms); receive(x)',
          };
    case 0:
      return { op: (p, _q, x) => x.set(p.add(a).load()), text: `x = *(p + ${a})` };
    case 1:
      return { op: (p, _q, x) => p.add(a).store(x.add(index())), text: `*(p + ${a}) = x + index()` };
    case 2:
      return { op: (p) => store(index(), p.add(a)), text: `store(index(), p + ${a})` };
    case 3:
      return {
        op: (p, _q, x) => {
          gather(p.add(index().mul(k).add(a)));
          receive(x);
        },
        text: `gather(p + index()*${k} + ${a}); receive(x)`,
      };
    case 4:
      return { op: (_p, q, _x, y) => q.add(a).store(y.add(q.load())), text: `*(q + ${a}) = y + *q` };
    default:
      return { op: (p, _q, x) => p.add(me().mul(16).add(a)).store(x), text: `*(p + me()*16 + ${a}) = x` };
  }
}

/** Arrays laid out with neighbours (canaries) before, between and after the kernel's own. */
function layout() {
  const before = SharedArray.int32(N, 'before');
  const p = SharedArray.int32(N, 'p');
  const between = SharedArray.int32(N, 'between');
  const q = SharedArray.float32(N, 'q');
  const after = SharedArray.int32(N, 'after');
  p.set(Array.from({ length: N }, (_, i) => i * 7));
  q.set(Array.from({ length: N }, (_, i) => i / 4));
  for (const c of [before, between, after]) c.fill(0x5a5a5a5a);
  return { p, q, canaries: [before, between, after] };
}

/** `race`: QPUs reading what another's DMA store is still writing (strict rule dma-store-race): no one result. */
type Outcome = { ok: true; p: number[]; q: number[] } | { ok: false; outside: boolean; race: boolean; message: string };

function outcome(run: () => unknown, arrays: ReturnType<typeof layout>, name: string, target: 'interpreter' | 'emulator', ctx: string): Outcome {
  try {
    run();
  } catch (e) {
    const named = (e instanceof InterpreterError && target === 'interpreter') || (e instanceof EmulatorError && target === 'emulator');
    assert.ok(named, `${ctx}: the ${target} threw ${(e as Error)?.stack ?? String(e)}`);
    const m = (e as Error).message;
    assert.match(m, new RegExp(`^kernel ${name}\\b`), `${ctx}: the error does not name the kernel`);
    if (e instanceof EmulatorError && e.kind !== 'deadlock')
      assert.match(m, /: QPU \d+, pc \d+ \(/, `${ctx}: the emulator's error does not say where`);
    return { ok: false, outside: /outside the arrays/.test(m), race: e instanceof EmulatorError && e.rule === 'dma-store-race', message: m };
  } finally {
    for (const c of arrays.canaries) assert.ok(c.every((w) => w === 0x5a5a5a5a), `${ctx}: the ${target} wrote into an array the kernel was not given`);
  }
  return { ok: true, p: Array.from(arrays.p), q: Array.from(arrays.q) };
}

/** Words from p to the uniforms buffer the emulator target uses (made by the first emulated run). */
function uniformsFrom(p: Int32Array): number {
  const u = gpuMemory.allocations.findLast((a) => a.name === 'uniforms');
  return u ? (u.address - (p as unknown as { busAddress: number }).busAddress) / 4 : 0;
}

test('fuzz: kernels with wild pointers on both targets', async () => {
  const n = await fuzzLoop(50_000, 400, 30_000, (f) => {
    const ops = Array.from({ length: 1 + f.int(3) }, () => randomOp(f));
    const name = `wild${f.seed}`;
    const k = kernel(
      [Ptr(Int), Ptr(Float), Int],
      (p, q, u) => {
        const x = Int(index());
        const y = Float(1.5);
        for (const o of ops) o.op(p, q, x, y, u);
      },
      { name },
    );
    const qpus = f.pick([1, 1, 2, 4]);
    k.setNumQPUs(qpus);
    const ctx = `seed ${f.seed} on ${qpus} QPUs: ${ops.map((o) => o.text).join('; ')}`;
    const a = layout();
    const i = outcome(() => k.interpretSync([a.p, a.q, uniformsFrom(a.p)], { maxSteps: 100_000 }), a, name, 'interpreter', ctx);
    const b = layout();
    const e = outcome(() => k.emulateSync([b.p, b.q, uniformsFrom(b.p)], { maxSteps: 1_000_000 }), b, name, 'emulator', ctx);
    // The first access outside the arrays stops both; which one comes first may differ between
    // QPUs. QPUs racing on the same memory may stop the emulator first, which is right too.
    if (!e.ok && e.race) return;
    if (!i.ok && i.outside) assert.ok(!e.ok && e.outside, `${ctx}: the interpreter found an access outside the arrays (${i.message}), the emulator ${e.ok ? 'finished' : `said: ${e.message}`}`);
    if (!e.ok && e.outside) assert.ok(!i.ok, `${ctx}: the emulator found an access outside the arrays (${e.message}), the interpreter finished`);
    if (qpus === 1 && i.ok && e.ok) assert.deepEqual([e.p, e.q], [i.p, i.q], `${ctx}: the targets disagree`);
  });
  assert.ok(n >= 50, `only ${n} kernels ran`);
});
