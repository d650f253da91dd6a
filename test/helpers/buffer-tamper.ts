// A worker for the fuzz suite's buffer tampering (test/hostile/buffer-fuzz.test.ts): random
// sequences of allocations, frees, kernel runs on both targets and attempts to reach or break GPU
// memory through a SharedArray (its buffer, a subarray's, a byte view's; resize, transfer,
// structuredClone, DataView), checking every array against what it should hold. The last
// sequence goes around the guard (TypedArray.prototype's buffer getter) and detaches, shrinks or
// grows the buffer, at rest or from a run's onProgress: from then on every allocation and run
// must say GPU memory is lost (or, grown, go on as before). A worker has GPU memory of its own,
// so losing it harms nothing else. Posts {step} before each step (a hang is found by the test,
// which stops the worker), {fail} on a raw error or a wrong result, {done: what it did} at the end.
import { parentPort, workerData } from 'node:worker_threads';
import { For, Int, index, kernel, Ptr, SharedArray } from '../../src/index.ts';
import { GpuMemoryLost } from '../../src/common/memory.ts';
import { Fuzz } from './hostile.ts';

const { seed, sequences } = workerData as { seed: number; sequences: number };

const add = kernel([Ptr(Int), Int], function add(p, n) {
  p.store(p.load().add(n).add(index()));
});
/** Adds n + lane to p's first 16 elements, `times` times: long enough for onProgress. */
const spin = kernel([Ptr(Int), Int, Int], function spin(p, n, times) {
  const x = Int(p.load());
  const i = Int(0);
  For(i.lt(times), () => i.set(i.add(1)), () => x.set(x.add(n).add(index())));
  p.store(x);
});

interface Live {
  readonly a: Int32Array;
  readonly want: Int32Array;
}

const REFUSED = /^(a (subarray|Uint8Array view) of )*SharedArray \w+: its buffer is not handed out/;
const realBuffer = (v: ArrayBufferView) => Reflect.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype), 'buffer')!.get!.call(v) as ArrayBuffer;

class Failure extends Error {}
const fail = (why: string): never => {
  throw new Failure(why);
};

/** Runs `f`, which must throw an error that `ok` accepts; anything else fails. */
function mustThrow(what: string, f: () => unknown, ok: (e: unknown) => boolean): void {
  try {
    f();
  } catch (e) {
    if (ok(e)) return;
    fail(`${what}: threw ${(e as Error)?.stack ?? String(e)}`);
  }
  fail(`${what}: threw nothing`);
}

const refused = (e: unknown) => e instanceof TypeError && REFUSED.test(e.message);
const isLost = (e: unknown) => e instanceof GpuMemoryLost && /^GPU memory is lost/.test(e.message);

/** Adds n + lane to the first 16 of `want`, as the kernels do (32-bit wrap). */
function added(want: Int32Array, n: number, times = 1): void {
  for (let l = 0; l < 16; l++) want[l] = (want[l]! + Math.imul(times, n + l)) | 0;
}

function checkAll(live: readonly Live[], when: string): void {
  for (const x of live)
    for (let i = 0; i < x.want.length; i++) if (x.a[i] !== x.want[i]) fail(`${when}: element ${i} of an array of ${x.want.length} is ${x.a[i]}, not ${x.want[i]}`);
}

/** One attempt to reach or break GPU memory through a SharedArray's own properties: refused, nothing changes. */
function attempt(f: Fuzz, x: Live): string {
  const a = x.a;
  const sub = () => a.subarray(f.int(8), 8 + f.int(8));
  const attempts: [string, () => unknown][] = [
    ['a.buffer', () => a.buffer],
    ['a.buffer.resize(0)', () => (a.buffer as ArrayBuffer).resize(0)],
    ['a.buffer.resize(1 << 24)', () => (a.buffer as ArrayBuffer).resize(1 << 24)],
    ['a.subarray().buffer.resize(0)', () => (sub().buffer as ArrayBuffer).resize(0)],
    ['a.subarray().subarray().buffer', () => sub().subarray(1).buffer],
    ['structuredClone(a, { transfer: [a.buffer] })', () => structuredClone(a, { transfer: [a.buffer as ArrayBuffer] })],
    ['structuredClone(a.subarray(), { transfer })', () => structuredClone(a, { transfer: [sub().buffer as ArrayBuffer] })],
    ['new DataView(a.buffer)', () => new DataView(a.buffer).setInt32(0, 1)],
    ['new Int32Array(a.buffer, 0)', () => new Int32Array(a.buffer, 0)],
    ['SharedArray.bytes(a).buffer', () => SharedArray.bytes(a).buffer],
    ['postMessage transfer', () => new MessageChannel().port1.postMessage(a, [a.buffer as ArrayBuffer])],
  ];
  const [text, run] = f.pick(attempts);
  mustThrow(text, run, refused);
  return text;
}

/** Copies and views that are allowed: they must not change the array. */
function allowed(f: Fuzz, x: Live): string {
  const a = x.a;
  switch (f.int(3)) {
    case 0: {
      const copy = structuredClone(a);
      copy.fill(-1);
      return 'structuredClone(a).fill(-1)';
    }
    case 1: {
      const copy = a.slice();
      new DataView(copy.buffer).setInt32(0, 12345);
      return 'new DataView(a.slice().buffer).setInt32(...)';
    }
    default: {
      const bytes = SharedArray.bytes(a);
      const k = f.int(bytes.length);
      bytes[k] = f.int(256);
      x.want[k >> 2] = a[k >> 2]!;
      return `SharedArray.bytes(a)[${k}] = ...`;
    }
  }
}

function runKernel(f: Fuzz, x: Live): string {
  const n = f.int(1000) - 500;
  const target = f.pick(['interpreter', 'emulator'] as const);
  const r = target === 'interpreter' ? add.interpretSync([x.a, n]) : add.emulateSync([x.a, n]);
  if (r.target !== target) fail(`ran on ${r.target}`);
  added(x.want, n);
  return `add(a, ${n}) on the ${target}`;
}

function sequence(f: Fuzz, live: Live[], log: (s: string) => void): void {
  for (let step = 0; step < 12; step++) {
    const k = f.int(10);
    if (k < 2 || live.length === 0) {
      const n = 16 + f.int(f.chance(0.2) ? 300_000 : 2000);
      const a = SharedArray.int32(n);
      const x = { a, want: new Int32Array(n) };
      for (let i = 0; i < 16; i++) x.want[i] = a[i] = f.word() | 0;
      live.push(x);
      log(`SharedArray.int32(${n})`);
    } else if (k < 3) {
      const [x] = live.splice(f.int(live.length), 1);
      SharedArray.free(x!.a);
      log('SharedArray.free(a)');
    } else if (k < 6) log(runKernel(f, f.pick(live)));
    else if (k < 9) log(attempt(f, f.pick(live)));
    else log(allowed(f, f.pick(live)));
    checkAll(live, `after step ${step}`);
  }
}

/** Around the guard: the buffer detached, shrunk or grown; from then on every use says so, or (grown) goes on. */
function goAround(f: Fuzz, live: Live[], log: (s: string) => void): void {
  const x = live[0] ?? { a: SharedArray.int32(16), want: new Int32Array(16) };
  const buffer = () => realBuffer(x.a);
  const ways: [string, () => void, boolean][] = [
    ['transfer', () => structuredClone(buffer(), { transfer: [buffer()] }), true],
    ['resize(0)', () => buffer().resize(0), true],
    ['resize(4096)', () => buffer().resize(4096), true],
    ['resize(+1 MiB)', () => buffer().resize(buffer().byteLength + (1 << 20)), false],
  ];
  const [how, tamper, loses] = f.pick(ways);
  const during = f.pick(['at rest', 'interpreter', 'emulator'] as const);
  log(`TypedArray.prototype's buffer getter, then ${how}, ${during}`);
  if (during === 'at rest') tamper();
  else {
    const run = () => {
      let once = false;
      const onProgress = () => void (once || ((once = true), tamper()));
      const times = during === 'interpreter' ? 40_000 : 300_000;
      const r = during === 'interpreter' ? spin.interpretSync([x.a, 1, times], { onProgress }) : spin.emulateSync([x.a, 1, times], { onProgress });
      if (!once) fail(`onProgress was never called (${r.target})`);
      added(x.want, 1, times);
    };
    if (loses) mustThrow(`${how} during a run on the ${during}`, run, isLost);
    else run();
  }
  if (!loses) {
    sequence(f, live, log);
    return;
  }
  mustThrow('SharedArray.int32 after', () => SharedArray.int32(16), isLost);
  mustThrow('SharedArray.from after', () => SharedArray.from([1, 2]), isLost);
  mustThrow('the interpreter after', () => add.interpretSync([x.a, 1]), isLost);
  mustThrow('the emulator after', () => add.emulateSync([x.a, 1]), isLost);
  mustThrow('SharedArray.bytes after', () => SharedArray.bytes(x.a), isLost);
}

const steps: string[] = [];
let count = 0;
try {
  const live: Live[] = [];
  for (let s = 0; s < sequences; s++) {
    const f = new Fuzz(seed * 1000 + s);
    steps.length = 0;
    sequence(f, live, (text) => {
      steps.push(text);
      count++;
      parentPort!.postMessage({ step: `sequence ${s}: ${text}` });
    });
  }
  steps.length = 0;
  goAround(new Fuzz(seed * 1000 + sequences), live, (text) => {
    steps.push(text);
    parentPort!.postMessage({ step: `last sequence: ${text}` });
  });
  parentPort!.postMessage({ done: `${count} steps, then ${steps.join('; ')}` });
} catch (e) {
  const why = e instanceof Failure ? e.message : `a raw error: ${(e as Error)?.stack ?? String(e)}`;
  parentPort!.postMessage({ fail: `seed ${seed}: ${why}\nsteps: ${steps.join('; ')}` });
}
