// The pi target's whole path, with a test device instead of a Pi (test/helpers/pi-test-device.ts,
// which answers the firmware's messages and runs the QPU jobs on the emulator): QPUs enabled,
// GPU memory allocated, locked and mapped, code, uniforms and the job list written, the job
// run, results read, everything given back; SharedArrays living in the Pi's memory; failures
// that leave nothing behind.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { assert as kassertPi, atomicAdd, barrier, Break, Continue, Float, For, func, If, Int, Int16, index, kernel, me, packBytes, Ptr, scanQPUs, scatter, scatterAdd, select, SharedArray, sumQPUs, maxQPUs, Uint8, Where, While, print } from '../../src/index.ts';
import { gcd, gcdInputs } from '../../examples/gcd.ts';
import { heatGrid, step } from '../../examples/heat.ts';
import { glibcRand } from '../../examples/lib/rand.ts';
import { endPiSession, usePiDevice } from '../../src/pi/session.ts';
import { resetDefaultTarget } from '../../src/runtime/default-target.ts';
import { knownRun } from '../../src/runtime/report.ts';
import { TestPiDevice, type TestDeviceOptions } from '../helpers/pi-test-device.ts';

after(() => usePiDevice(undefined));

/** A fresh test device for the next session. */
function device(opts: TestDeviceOptions = {}): TestPiDevice {
  const d = new TestPiDevice(opts);
  usePiDevice(() => d);
  return d;
}

const bits = (a: Int32Array | Float32Array) => Array.from(new Int32Array(a.slice().buffer));

test('gcd on the pi target: the results of the emulator, and every firmware call in order, with everything given back', async () => {
  const d = device();
  const { a, b } = gcdInputs();
  const onPi = SharedArray.int32(16);
  const r = await gcd(a, b, onPi, { target: 'pi' });
  const onEmu = SharedArray.int32(16);
  await gcd(a, b, onEmu, { target: 'emulator' });
  assert.deepEqual(Array.from(onPi), Array.from(onEmu));
  assert.equal(r.target, 'pi');
  assert.ok(r.pi && r.pi.seconds > 0 && r.pi.qpus === 1);
  assert.equal(knownRun(r), undefined, 'no estimate before the report asks for one');
  assert.equal(r.seconds, r.pi!.seconds, 'the measured time');
  // The arrays live in the emulator's memory here (the default target is the emulator): copied in and out.
  const kinds = d.calls.map((c) => c.split(' ')[0]);
  assert.equal(kinds[0], 'enable');
  assert.ok(kinds.includes('execute'));
  const execute = kinds.indexOf('execute');
  // Before the run: per allocation allocate, lock, map (3 arrays; code, uniforms and the job list in one).
  assert.deepEqual(kinds.slice(1, 1 + 4 * 3), Array.from({ length: 4 }, () => ['allocate', 'lock', 'map']).flat());
  assert.equal(execute, 1 + 4 * 3);
  assert.match(d.calls[execute]!, /^execute 1 0x[0-9a-f]+ 0 900 -> 0$/);
  // Pages, page-aligned, with the board's flag (DIRECT on a BCM2837) and ZERO: 0x4 | 0x10.
  assert.ok(d.calls.filter((c) => c.startsWith('allocate')).every((c) => /^allocate \d+ 4096 20 -> \d+$/.test(c)), d.calls.join('\n'));
  // The ARM maps the physical address: the bus address without its alias bits.
  assert.ok(d.calls.filter((c) => c.startsWith('map')).every((c) => /^map 0x00[0-9a-f]{6} \d+$/.test(c)));
  // After: each unmapped, unlocked and released.
  assert.deepEqual(kinds.slice(execute + 1).sort(), Array.from({ length: 4 }, () => ['release', 'unlock', 'unmap']).flat().sort());
  assert.equal(d.held, 0);
  assert.deepEqual(endPiSession(), []);
  assert.deepEqual(d.calls.slice(-2), ['enable 0 -> 0', 'close']);
  assert.equal(d.enabled, false);
  // The cycle model's figures, when first read, come from the inputs as they were (the output was zeros).
  onEmu.fill(7);
  const emu = await gcd(a, b, onEmu, { target: 'emulator' });
  assert.equal(r.steps, emu.steps);
  assert.equal(r.run.cycles, emu.run.cycles);
  assert.deepEqual(r.stepsPerQpu, emu.stepsPerQpu);
});

test('the heat step on 4 QPUs on the pi target gives the emulator\'s floats, with the cycle model\'s estimate when asked', async () => {
  device();
  const grid = heatGrid(64, 32, glibcRand(0), 3);
  const [outPi, outEmu] = [SharedArray.float32(grid.length), SharedArray.float32(grid.length)];
  const args = [80, 64, 32] as const;
  const r = await step(grid, outPi, ...args, { target: 'pi', qpus: 4, estimate: true });
  await step(grid, outEmu, ...args, { target: 'emulator', qpus: 4 });
  assert.deepEqual(bits(outPi), bits(outEmu));
  assert.ok(r.run && r.run.seconds > 0 && r.run.qpus.length === 4, 'the estimate');
  assert.ok(r.pi!.seconds > 0);
  assert.deepEqual(endPiSession(), []);
});

test('on a Pi SharedArrays live in its GPU memory (no copies), and other targets copy them in and back', async () => {
  const d = device();
  const was = process.env.QPU_TARGET;
  process.env.QPU_TARGET = 'pi';
  resetDefaultTarget();
  try {
    const { a: pa, b: pb } = gcdInputs(); // SharedArrays, so in the Pi's memory now
    const pr = SharedArray.int32(16);
    assert.equal(d.held, 3, 'three firmware allocations');
    const before = d.calls.filter((c) => c.startsWith('allocate')).length;
    const r = await gcd(pa, pb, pr); // the default target: pi
    assert.equal(r.target, 'pi');
    assert.equal(d.calls.filter((c) => c.startsWith('allocate')).length - before, 1, 'code, uniforms and the job list, in one allocation');
    const want = Array.from(pr);
    pr.fill(0);
    await gcd(pa, pb, pr, { target: 'interpreter' });
    assert.deepEqual(Array.from(pr), want, 'the interpreter ran on copies and wrote back');
    pr.fill(0);
    await gcd.on('emulator')(pa, pb, pr);
    assert.deepEqual(Array.from(pr), want);
    for (const x of [pa, pb, pr]) SharedArray.free(x);
    assert.equal(d.held, 0);
  } finally {
    if (was === undefined) delete process.env.QPU_TARGET;
    else process.env.QPU_TARGET = was;
    resetDefaultTarget();
    endPiSession();
  }
});

test('failures are clear and leave nothing allocated or enabled', async () => {
  const { a, b } = gcdInputs();
  const r = SharedArray.int32(16);
  for (const [opts, message] of [
    [{ failAllocationAt: 2 }, /out of GPU memory|gpu_mem/],
    [{ executeStatus: 0x80000000 }, /did not finish within 900 ms/],
    [{ executeThrows: 'ETIMEDOUT' }, /1 s/],
  ] as const) {
    const d = device(opts);
    await assert.rejects(gcd(a, b, r, { target: 'pi' }), message, JSON.stringify(opts));
    assert.equal(d.held, 0, `${JSON.stringify(opts)}: memory given back`);
    assert.equal(d.mapped, 0);
    endPiSession();
    assert.equal(d.enabled, false);
  }
  device({ enableFails: true });
  await assert.rejects(gcd(a, b, r, { target: 'pi' }), /vc4-kms-v3d|KMS/);
  usePiDevice(undefined);
});

test('every way out of the process gives the GPU memory back and disables the QPUs: exit, an uncaught error, SIGTERM, SIGINT', async () => {
  const { mkdirSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
  const { spawnSync } = await import('node:child_process');
  const { join } = await import('node:path');
  const root = new URL('../..', import.meta.url).pathname;
  const dir = join(root, 'test', `.tmp-pi-exit-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    for (const how of ['exit', 'throw', 'SIGTERM', 'SIGINT']) {
      const marker = join(dir, `${how}.json`);
      const child = join(dir, `${how}.ts`);
      writeFileSync(
        child,
        `import { writeFileSync } from 'node:fs';
import { Float, Int, index, kernel, Ptr, select, SharedArray } from '../../src/index.ts';
import { gcd, gcdInputs } from '../../examples/gcd.ts';
import { usePiDevice } from '../../src/pi/session.ts';
import { TestPiDevice } from '../helpers/pi-test-device.ts';
class Recorded extends TestPiDevice {
  override close() { super.close(); writeFileSync(${JSON.stringify(marker)}, JSON.stringify({ held: this.held, mapped: this.mapped, enabled: this.enabled, calls: this.calls.slice(-2) })); }
}
usePiDevice(() => new Recorded());
const { a, b } = gcdInputs();
const r = SharedArray.int32(16);
await gcd(a, b, r, { target: 'pi' });
const keep = SharedArray.int32(16); void keep;
${how === 'exit' ? 'process.exit(3);' : how === 'throw' ? "setTimeout(() => { throw new Error('boom'); });" : `process.kill(process.pid, '${how}'); setTimeout(() => {}, 5000);`}
`,
      );
      const run = spawnSync(process.execPath, ['--import', 'tsx', child], { cwd: root, encoding: 'utf8', timeout: 60_000 });
      const seen = JSON.parse(readFileSync(marker, 'utf8')) as { held: number; mapped: number; enabled: boolean; calls: string[] };
      assert.deepEqual(seen, { held: 0, mapped: 0, enabled: false, calls: ['enable 0 -> 0', 'close'] }, how);
      if (how === 'exit') assert.equal(run.status, 3);
      if (how === 'throw') assert.match(run.stderr, /boom/);
      if (how.startsWith('SIG')) assert.equal(run.signal, how, `${how}: the process still ends by the signal`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a run allowed more than the mailbox\'s 1 s goes through the V3D registers: caches cleared, jobs queued, completion counted', async () => {
  const d = device();
  const grid = heatGrid(64, 32, glibcRand(0), 3);
  const [outPi, outEmu] = [SharedArray.float32(grid.length), SharedArray.float32(grid.length)];
  const r = await step(grid, outPi, 80, 64, 32, { target: 'pi', qpus: 4, timeoutMs: 60_000 });
  await step(grid, outEmu, 80, 64, 32, { target: 'emulator', qpus: 4 });
  assert.deepEqual(bits(outPi), bits(outEmu));
  assert.ok(r.pi!.seconds > 0);
  assert.ok(!d.calls.some((c) => c.startsWith('execute')), 'not through the mailbox');
  const v3d = d.calls.slice(d.calls.indexOf('map V3D registers'));
  assert.deepEqual(v3d.slice(0, 6), ['map V3D registers', 'write V3D 0xe00 0x0', 'write V3D 0xe2c 0x0', 'write V3D 0xe30 0xffffffff', 'write V3D 0x20 0x4', 'write V3D 0x24 0xffffffff']);
  assert.ok(v3d.includes('direct 4') && v3d.includes('unmap V3D registers'));
  assert.equal(d.held, 0);
  endPiSession();

  // A job that never completes stops at its timeout, with everything given back.
  const hang = device({ directHangs: true });
  await assert.rejects(step(grid, outPi, 80, 64, 32, { target: 'pi', qpus: 4, timeoutMs: 1500 }), /did not finish within 1500 ms \(0 of 4 done\)/);
  assert.equal(hang.held, 0);
  assert.equal(hang.mapped, 0);
  endPiSession();
  await assert.rejects(step(grid, outPi, 80, 64, 32, { target: 'pi', timeoutMs: 600_001 }), /timeoutMs must be 1 to 600000/);
});

test('the estimate runs on copies of every array: a kernel that adds one runs once on the arrays', async () => {
  const { Int, kernel, Ptr } = await import('../../src/index.ts');
  const inc = kernel([Ptr(Int)], function inc(p) {
    p.store(p.load().add(1));
  });
  device();
  const a = SharedArray.int32(16);
  const r = await inc(a, { target: 'pi', estimate: true });
  assert.deepEqual(Array.from(a), new Array(16).fill(1));
  assert.ok(r.run && r.run.total.instructions > 0);
  assert.deepEqual(endPiSession(), []);
});

test('a clean-up step that fails hides neither the run\'s error nor the memory it could not give back', async () => {
  class Failing extends TestPiDevice {
    unlocks = 0;
    override property(m: Uint32Array): void {
      // After the execute fails (the kernel's 1 s passed), the next unlock fails too (the firmware's late answer).
      if (m[2] === 0x3000e && this.calls.some((c) => c.startsWith('execute')) && this.unlocks++ === 0)
        throw Object.assign(new Error('ioctl /dev/vcio: invalid argument (EINVAL)'), { code: 'EINVAL' });
      super.property(m);
    }
  }
  const d = new Failing({ executeThrows: 'ETIMEDOUT' });
  usePiDevice(() => d);
  const { a, b } = gcdInputs();
  await assert.rejects(gcd(a, b, SharedArray.int32(16), { target: 'pi' }), /ETIMEDOUT|1 s/, 'the timeout, not the unlock');
  assert.ok(d.calls.includes('enable 0 -> 0'), 'the QPUs were stopped before their memory was given back');
  // What could not be given back is kept, and the session's end tries again (here it works) and reports.
  assert.deepEqual(endPiSession(), []);
  assert.equal(d.held, 0);
});

test('the default target: pi where the board is usable and a session opens, else the emulator (said once), and QPU_TARGET wins', async () => {
  const { defaultTarget } = await import('../../src/runtime/default-target.ts');
  const was = process.env.QPU_TARGET;
  delete process.env.QPU_TARGET;
  const board = { model: 'Raspberry Pi 3 Model B', soc: 'BCM2837' as const, peripheralBase: 0x3f000000, memFlags: 4 };
  try {
    device();
    resetDefaultTarget(() => ({ ok: true, board }));
    assert.deepEqual(defaultTarget(), { target: 'pi', why: 'this is a Raspberry Pi 3 Model B whose QPUs this process can use' });
    endPiSession();
    device({ enableFails: true });
    resetDefaultTarget(() => ({ ok: true, board }));
    assert.equal(defaultTarget().target, 'emulator');
    assert.match(defaultTarget().why, /^the pi target could not start: .*KMS/);
    resetDefaultTarget(() => ({ ok: false, reason: 'this is not a Raspberry Pi' }));
    assert.deepEqual(defaultTarget(), { target: 'emulator', why: 'this is not a Raspberry Pi' });
    process.env.QPU_TARGET = 'interpreter';
    resetDefaultTarget(() => ({ ok: true, board }));
    assert.deepEqual(defaultTarget(), { target: 'interpreter', why: 'QPU_TARGET=interpreter' });
    process.env.QPU_TARGET = 'gpu';
    resetDefaultTarget();
    assert.throws(() => defaultTarget(), /QPU_TARGET=gpu: the targets are emulator, interpreter, pi/);
  } finally {
    if (was === undefined) delete process.env.QPU_TARGET;
    else process.env.QPU_TARGET = was;
    resetDefaultTarget();
    endPiSession();
  }
});

test('a program with its own SIGINT handler keeps it: the session stays until the program exits, then is cleaned up', async () => {
  const { mkdirSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
  const { spawnSync } = await import('node:child_process');
  const { join } = await import('node:path');
  const root = new URL('../..', import.meta.url).pathname;
  const dir = join(root, 'test', `.tmp-pi-sigint-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const marker = join(dir, 'closed.json');
    const child = join(dir, 'own.ts');
    writeFileSync(
      child,
      `import { writeFileSync } from 'node:fs';
import { Float, Int, index, kernel, Ptr, select, SharedArray } from '../../src/index.ts';
import { gcd, gcdInputs } from '../../examples/gcd.ts';
import { usePiDevice } from '../../src/pi/session.ts';
import { TestPiDevice } from '../helpers/pi-test-device.ts';
class Recorded extends TestPiDevice {
  override close() { super.close(); writeFileSync(${JSON.stringify(marker)}, JSON.stringify({ held: this.held, enabled: this.enabled })); }
}
usePiDevice(() => new Recorded());
const { a, b } = gcdInputs();
const r = SharedArray.int32(16);
process.on('SIGINT', async () => {
  await gcd(a, b, r, { target: 'pi' }); // the session is still open: the program goes on
  console.log('handled', r[0]);
  process.exit(0);
});
await gcd(a, b, r, { target: 'pi' });
process.kill(process.pid, 'SIGINT');
setTimeout(() => {}, 5000);
`,
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', child], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, 'handled 3\n');
    assert.deepEqual(JSON.parse(readFileSync(marker, 'utf8')), { held: 0, enabled: false });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the language\'s newer constructs on the pi target (multiply, division, select, lane, div, sqrt, the math library, scatters, counts, reductions and prefix sums, Continue and Break of an outer loop) give the emulator\'s results', async () => {
  device();
  const k = kernel([Ptr(Int), Ptr(Float)], function constructs(pi, pf) {
    const a = Int(pi.load());
    const b = Int(pi.add(16).load());
    const x = Float(pf.load());
    pi.store(a.mul(b).add(a.div(b)).sub(a.rem(b)).add(a.udiv(b.abs().add(1))));
    pi.add(16).store(select(a.lt(b), a.lane(3), b.lane(index())).add(a.mul24(7)));
    pf.store(x.div(x.add(2)).add(x.abs().sqrt()));
    pf.add(16).store(x.sin().add(x.cos()).add(x.mul(0.01).exp()).add(x.abs().add(1).log()));
    pf.add(32).store(x.atan2(x.add(1)).add(x.mul(0.1).tanh()).add(x.abs().add(1).pow(0.5)));
    // Scatters: a permutation, a histogram of lanes sharing addresses, an atomic add in a Where.
    scatter(pi.add(index().mul(7).and(15)), a);
    scatterAdd(pi.add(Int(16).add(b.and(7))), Int(1));
    Where(index().lt(5), () => atomicAdd(pf.add(index()), Float(0.5)));
    pi.store(pi.load().add(1), 9);
    // Across lanes: a reduction and a prefix sum of each type.
    pi.add(16).store(a.maxLanes().add(b.scanLanes('exclusive')));
    pf.add(32).store(x.sumLanes().add(x.scanLanes()));
    // Jumps: a Continue, and a Break out of two loops.
    const i = Int(0);
    const j = Int(0);
    const t = Int(0);
    For(i.lt(5), () => i.set(i.add(1)), (outer) => {
      If(i.eq(1), () => Continue());
      j.set(0);
      While(j.lt(4), () => {
        j.set(j.add(1));
        If(i.mul(j).eq(6), () => Break(outer));
        t.set(t.add(j));
      });
    });
    pi.add(16).store(t, 3);
  });
  const fill = () => ({
    ints: SharedArray.from<Int32Array>(Array.from({ length: 32 }, (_, i) => Math.imul(i * 2654435761, 7) | 0)),
    floats: SharedArray.from<Float32Array>(new Float32Array(Array.from({ length: 48 }, (_, i) => (i - 20) * 1.37))),
  });
  const onPi = fill();
  const r = await k(onPi.ints, onPi.floats, { target: 'pi' });
  assert.equal(r.target, 'pi');
  const onEmu = fill();
  await k(onEmu.ints, onEmu.floats, { target: 'emulator' });
  assert.deepEqual(bits(onPi.ints), bits(onEmu.ints));
  assert.deepEqual(bits(onPi.floats), bits(onEmu.floats));
});

test('barriers and operations across QPUs on the pi target (test device, 4 QPUs): the emulator\'s results', async () => {
  device();
  const k = kernel([Ptr(Int), Ptr(Float)], function meetings(pi, pf) {
    const x = Int(pi.add(me().shl(4)).load());
    const i = Int(0);
    For(i.lt(3), () => i.set(i.add(1)), () => {
      pi.add(me().shl(4)).store(x.add(i));
      barrier();
      x.set(x.add(pi.add(me().add(1).and(3).shl(4)).load()));
      barrier();
    });
    const at = pi.add(Int(64).add(me().mul(48)));
    at.store(sumQPUs(x));
    at.add(16).store(scanQPUs(x, 'exclusive'));
    at.add(32).store(maxQPUs(x.sub(index())));
    pf.add(me().shl(4)).store(sumQPUs(x.toFloat().mul(0.37)));
  });
  const fill = () => ({ ints: SharedArray.from(Array.from({ length: 256 }, (_, i) => Math.imul(i, 2654435761) >> 8), 'int32'), floats: SharedArray.float32(64) });
  const onPi = fill();
  const r = await k(onPi.ints, onPi.floats, { target: 'pi', qpus: 4 });
  assert.equal(r.target, 'pi');
  const onEmu = fill();
  await k(onEmu.ints, onEmu.floats, { target: 'emulator', qpus: 4 });
  assert.deepEqual(bits(onPi.ints), bits(onEmu.ints));
  assert.deepEqual(bits(onPi.floats), bits(onEmu.floats));
});

test('funcs on the pi target (test device): calls return through the link register to code at the GPU\'s addresses, as on the emulator', async () => {
  device();
  const cmpx = func([Int, Int], (a, b) => [a.min(b), a.max(b)]);
  const k = kernel([Ptr(Int)], function sorted4(p) {
    const v = [0, 1, 2, 3].map((j) => Int(p.add(me().shl(6)).add(j * 16).load()));
    for (const [a, b] of [[0, 1], [2, 3], [0, 2], [1, 3], [1, 2]] as const) {
      const [lo, hi] = cmpx(v[a]!, v[b]!);
      v[a]!.set(lo);
      v[b]!.set(hi);
    }
    v.forEach((x, j) => p.add(me().shl(6)).add(j * 16).store(x));
  });
  const fill = () => SharedArray.from(Array.from({ length: 128 }, (_, i) => Math.imul(i + 1, 2654435761) >> 12), 'int32');
  const onPi = fill();
  const r = await k(onPi, { target: 'pi', qpus: 2 });
  assert.equal(r.target, 'pi');
  const onEmu = fill();
  await k(onEmu, { target: 'emulator', qpus: 2 });
  assert.deepEqual(bits(onPi), bits(onEmu));
  for (let q = 0; q < 2; q++)
    for (let l = 0; l < 16; l++) {
      const col = [0, 1, 2, 3].map((j) => onPi[q * 64 + j * 16 + l]!);
      assert.deepEqual(col, [...col].sort((x, y) => x - y));
    }
});

test('assertions and prints on the pi target (test device): the emulator\'s prints, and a failed assertion reported from the records', async () => {
  device();
  const k = kernel([Int, Ptr(Int)], function checks(n, p) {
    const x = Int(p.add(me().shl(4)).load());
    print('x', { x, n });
    kassertPi(x.lt(n), 'x below n', { x });
    p.add(me().shl(4)).store(x.add(1));
  });
  const fill = () => SharedArray.from(Array.from({ length: 32 }, (_, i) => i), 'int32');
  const log = console.log;
  console.log = () => {};
  try {
    const onPi = fill();
    const r = await k(100, onPi, { target: 'pi', qpus: 2 });
    const onEmu = fill();
    const e = await k(100, onEmu, { target: 'emulator', qpus: 2 });
    assert.deepEqual(r.printed, e.printed);
    assert.equal(r.printed[1], 'QPU 1: x: x = 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31; n = 100 (every lane)');
    assert.deepEqual(Array.from(onPi), Array.from(onEmu));
    await assert.rejects(k(20, fill(), { target: 'pi', qpus: 2 }), /assertion failed .*: x below n\n {2}QPU 1, lanes 4 5 .* 15: x = 20 21 .* 31\nprinted before the run stopped:\n {2}QPU 0: x: /s);
  } finally {
    console.log = log;
  }
});

test('8- and 16-bit arrays and pixels on the pi target (test device): loads widen, stores narrow, packs and unpacks as on the emulator', async () => {
  device();
  const k = kernel([Ptr(Uint8), Ptr(Int16), Int], function narrow(px, h, n) {
    const v = Int(px.add(3).load(n));
    px.add(20).store(v.mul(3));
    h.add(1).store(h.load().sub(v.shl(8)));
    // A pixel from four bytes (regfile A's pack), its channels back (unpack, and to float).
    const w = Int(packBytes(v, v.add(1), v.mul(5), v.byte(0).xor(255)).setHalf(0, v.shl(3)));
    h.store(w.byte(1).add(w.half(1)).add(w.colour(2).mul(1000).toInt()));
  });
  const fill = () => ({ px: SharedArray.from(Array.from({ length: 40 }, (_, i) => (i * 53) & 255), 'uint8'), h: SharedArray.from(Array.from({ length: 20 }, (_, i) => i * 3000 - 30000), 'int16') });
  const onPi = fill();
  const r = await k(onPi.px, onPi.h, 13, { target: 'pi' });
  assert.equal(r.target, 'pi');
  const onEmu = fill();
  await k(onEmu.px, onEmu.h, 13, { target: 'emulator' });
  assert.deepEqual(Array.from(onPi.px), Array.from(onEmu.px));
  assert.deepEqual(Array.from(onPi.h), Array.from(onEmu.h));
});
