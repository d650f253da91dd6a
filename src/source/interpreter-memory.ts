// The reference interpreter's memory (interpreter.ts): reads and writes of words and of 8- and
// 16-bit elements, each checked against the arrays the kernel was given, and the words stored
// in this run, which a gather may not read (its TMU caches do not see stores). Needs: the GPU
// memory and the arrays. Guarantees: an access outside them, or not aligned to its size, fails
// through the caller's `fail` (which names the QPU), never reaching other memory.

import { hex, READ, WRITE, type GpuMemory } from '../common/memory.ts';
import { GATHER_AFTER_STORE_HINT, gatherAfterStore, STREAM_AFTER_STORE_HINT, streamAfterStore } from '../vc4/rules.ts';

/** A region of GPU memory the kernel may read and write: one of its array arguments. */
export interface ArrayRegion {
  readonly name: string;
  readonly address: number;
  readonly bytes: number;
}

/** The interpreter's error for the QPU making an access (a rule's name with it, when one is broken). */
export type Fail = (message: string, rule?: string) => never;

export class CheckedMemory {
  /** Word addresses stored to in this run: gathering them is an error (read()). */
  private readonly stored = new Set<number>();

  constructor(
    private readonly memory: GpuMemory,
    private readonly arrays: readonly ArrayRegion[],
  ) {}

  /** A word; `gather` reads through the TMU, whose caches stores do not update. */
  read(address: number, lane: number, fail: Fail, gather = false): number {
    const addr = this.word('a read', address, lane, fail);
    if (gather && this.stored.has(addr)) fail(gatherAfterStore(lane, addr) + GATHER_AFTER_STORE_HINT, 'gather-after-store');
    return this.memory.words[this.memory.index(addr)]!;
  }

  /** A word read by a broadcast stream (streams.ts), through the uniforms cache, which stores do not update either. */
  readStream(address: number, fail: Fail): number {
    const addr = this.word("a stream's read", address, -1, fail);
    if (this.stored.has(addr)) fail(streamAfterStore(addr) + STREAM_AFTER_STORE_HINT, 'stream-after-store');
    return this.memory.words[this.memory.index(addr)]!;
  }

  /** An 8- or 16-bit element, widened (sign-extended when `signed`). */
  readNarrow(address: number, bytes: 1 | 2, signed: boolean, lane: number, fail: Fail): number {
    const i = this.narrowAt('a read', address, bytes, lane, fail);
    const m = this.memory.bytes;
    const v = bytes === 1 ? m[i]! : m[i]! | (m[i + 1]! << 8);
    const drop = 32 - 8 * bytes;
    return signed ? (v << drop) >> drop : v;
  }

  /** The first n of x's lanes to consecutive elements of `bytes` from `base`, narrowed to their low bits. */
  store(base: number, x: Int32Array, n: number, bytes: 1 | 2 | 4, fail: Fail): void {
    for (let e = 0; e < n; e++) {
      const addr = ((base >>> 0) + bytes * e) >>> 0;
      if (bytes === 4) {
        this.memory.words[this.memory.index(this.word('a write', addr, e, fail), WRITE)] = x[e]!;
        this.stored.add(addr);
        continue;
      }
      const i = this.narrowAt('a write', addr, bytes, e, fail);
      const m = this.memory.bytes;
      m[i] = x[e]! & 0xff;
      if (bytes === 2) m[i + 1] = (x[e]! >>> 8) & 0xff;
      this.stored.add((addr & ~3) >>> 0);
    }
  }

  /** One lane of a scatter: `value` written at `address`, or with `add` added to the word there. */
  scatter(address: number, value: number, add: ((a: number, b: number) => number) | undefined, lane: number, fail: Fail): void {
    const addr = this.word(add ? 'an add' : 'a write', address, lane, fail);
    const words = this.memory.words;
    const i = this.memory.index(addr, WRITE);
    words[i] = add ? add(words[i]!, value) : value;
    this.stored.add(addr);
  }

  /** A word's address, checked: a multiple of 4 inside the arrays. */
  private word(what: string, address: number, lane: number, fail: Fail): number {
    const addr = address >>> 0;
    if (addr % 4 !== 0 || !this.arrays.some((a) => addr >= a.address && addr + 4 <= a.address + a.bytes)) fail(this.outside(what, addr, 4, lane));
    return addr;
  }

  /** The byte index of an 8- or 16-bit element, checked: aligned to its size and inside the arrays. */
  private narrowAt(what: string, address: number, bytes: 1 | 2, lane: number, fail: Fail): number {
    const addr = address >>> 0;
    if (addr % bytes !== 0 || !this.arrays.some((r) => addr >= r.address && addr + bytes <= r.address + r.bytes)) fail(this.outside(what, addr, bytes, lane));
    return this.memory.checkByte(addr, what, what === 'a read' ? READ : WRITE);
  }

  /** The message for an access outside the arrays (`lane` -1: one made for the whole QPU, a stream's). */
  private outside(what: string, addr: number, size: number, lane: number): string {
    const arrays = this.arrays.map((a) => `${a.name} at ${hex(a.address)}, ${a.bytes} bytes`).join('; ');
    const why = addr % size !== 0 ? `is not a multiple of ${size}` : `is outside the arrays the kernel was given (${arrays || 'none'})`;
    return `${what}${lane >= 0 ? ` of lane ${lane}` : ''} at ${hex(addr)} ${why}`;
  }
}
