// Runs assembly on the emulator for tests.
import assert from 'node:assert/strict';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { assemble, type AsmSyntax } from '../../src/vc4/asm/assembler.ts';
import { type MachineRunOptions, type RunResult, Machine } from '../../src/emulator/machine.ts';
import { GpuMemory } from '../../src/common/memory.ts';
import { PI_TIMING, type Timing } from '../../src/emulator/timing.ts';
import type { Qpu } from '../../src/emulator/qpu.ts';
import type { Allocation } from '../../src/common/memory.ts';

export interface EmuRun {
  result: RunResult;
  machine: Machine;
  /** A buffer's words after the run. */
  read(name: string): number[];
  readFloats(name: string): number[];
  qpu(i: number): Qpu;
  /** Lane values of an accumulator (0-5) or a regfile register ('ra3', 'rb7'). */
  reg(i: number, name: string): number[];
  buffers: Map<string, Allocation>;
}

export interface EmuOptions extends MachineRunOptions {
  /** The assembly's dialect (qpu-ts by default). */
  syntax?: AsmSyntax;
  qpus?: number;
  /** Buffers: a word count (zeroed) or initial words. */
  buffers?: Record<string, number | number[]>;
  /** Uniforms for every QPU (or a function of the QPU index): numbers or '@name' for a buffer's address. */
  uniforms?: (number | string)[] | ((q: number) => (number | string)[]);
  /** The cycle model's figures (default FETCH_FREE). */
  timing?: Timing;
}

/**
 * The default model without its instruction caches and uniforms caches (every fetch and uniform
 * read hits): the tests of the other units pin their cycles without the misses a cold cache adds
 * to each program's first pass (test/emulator/memory-system.test.ts tests those caches).
 */
export const FETCH_FREE: Timing = { ...PI_TIMING, instructionCacheBytes: 0, uniformsCacheBytes: 0 };

/** A program with the standard ending (program end and its two delay slots) appended. */
export const END = '\nnop.tend\nnop\nnop\n';

export function runAsm(src: string, opts: EmuOptions = {}): EmuRun {
  const m = new Machine(new GpuMemory(64 * 1024 * 1024), opts.timing ?? FETCH_FREE);
  const program = m.load(assemble(src, { syntax: opts.syntax }).words);
  const buffers = new Map<string, Allocation>();
  for (const [name, init] of Object.entries(opts.buffers ?? {})) {
    const words = typeof init === 'number' ? new Array<number>(init).fill(0) : init;
    const a = m.memory.alloc(Math.max(1, words.length) * 4, name);
    words.forEach((w, i) => m.memory.writeWord(a.address + 4 * i, w | 0));
    buffers.set(name, a);
  }
  const qpus = opts.qpus ?? 1;
  const addrs: number[] = [];
  for (let q = 0; q < qpus; q++) {
    const list = typeof opts.uniforms === 'function' ? opts.uniforms(q) : (opts.uniforms ?? []);
    const words = list.map((u) => (typeof u === 'string' ? buffers.get(u.slice(1))!.address | 0 : u | 0));
    const a = m.memory.alloc(Math.max(4, words.length * 4), `uniforms${q}`);
    words.forEach((w, i) => m.memory.writeWord(a.address + 4 * i, w));
    addrs.push(a.address);
  }
  const result = m.run(program, addrs, opts);
  const read = (name: string) => {
    const a = buffers.get(name)!;
    return Array.from({ length: a.bytes / 4 }, (_, i) => m.memory.readWord(a.address + 4 * i));
  };
  return {
    result,
    machine: m,
    buffers,
    read,
    readFloats: (name) => read(name).map((w) => new Float32Array(new Int32Array([w]).buffer)[0]!),
    qpu: (i) => m.lastRun[i]!,
    reg(i, name) {
      const q = m.lastRun[i]!;
      const base = /^r[0-5]$/.test(name) ? 1024 + 16 * Number(name[1]) : (name[1] === 'a' ? 0 : 512) + 16 * Number(name.slice(2));
      return Array.from(q.R.subarray(base, base + 16));
    },
  };
}

export const f32 = (x: number) => Math.fround(x);
export const bits = (x: number) => new Int32Array(new Float32Array([x]).buffer)[0]!;
export const float = (b: number) => new Float32Array(new Int32Array([b]).buffer)[0]!;
export const lanes = (f: (l: number) => number) => Array.from({ length: 16 }, (_, l) => f(l) | 0);

/** The EmulatorError `f` throws (failing the test if it throws nothing or something else). */
export function emulatorError(f: () => unknown): EmulatorError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof EmulatorError, String(e));
    return e;
  }
  assert.fail('expected an EmulatorError');
}
