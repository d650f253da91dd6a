// GPU memory: what the QPUs address. Allocations get bus addresses in the range a Raspberry Pi's
// VideoCore mailbox hands out for uncached GPU memory (the 0xC0000000 alias: Pi 2 and 3), each
// page-aligned with an unmapped guard page after it, so that a kernel that runs off the end of
// an array faults instead of reading its neighbour. Reads and writes outside an allocation are
// errors that name the address and what is near it.

/** The bus address of the first allocation (Pi 2/3 uncached alias of SDRAM, above the ARM's low memory). */
export const BUS_BASE = 0xc0100000;
export const PAGE = 4096;

export class MemoryFault extends Error {
  constructor(
    message: string,
    readonly address: number,
  ) {
    super(message);
    this.name = 'MemoryFault';
  }
}

export interface Allocation {
  readonly name: string;
  /** Bus address of the first byte. */
  readonly address: number;
  readonly bytes: number;
}

export class GpuMemory {
  /** Resizable, so that views the host holds (SharedArrays) stay valid as memory grows. */
  private readonly buffer: ArrayBuffer;
  /** The words of every allocation; index = (busAddress - BUS_BASE) / 4. */
  readonly words: Int32Array;
  readonly floats: Float32Array;
  /** Per page: 1 + index of the allocation owning it, or 0 when unmapped. */
  private pageOwner: Int32Array;
  private readonly allocs: Allocation[] = [];
  private readonly freed = new Set<Allocation>();
  private nextPage = 0;
  readonly maxBytes: number;

  constructor(maxBytes = 256 * 1024 * 1024) {
    this.maxBytes = maxBytes;
    this.buffer = new ArrayBuffer(1 << 20, { maxByteLength: maxBytes });
    this.words = new Int32Array(this.buffer);
    this.floats = new Float32Array(this.buffer);
    this.pageOwner = new Int32Array(this.buffer.byteLength / PAGE);
  }

  /** Allocates `bytes` (rounded up to whole words), zeroed. */
  alloc(bytes: number, name = `buffer${this.allocs.length}`): Allocation {
    if (!Number.isInteger(bytes) || bytes <= 0) throw new RangeError(`cannot allocate ${bytes} bytes for ${name}`);
    const pages = Math.ceil(bytes / PAGE);
    const first = this.nextPage;
    const end = (first + pages + 1) * PAGE; // one guard page
    if (end > this.maxBytes)
      throw new RangeError(`GPU memory is full: ${name} needs ${bytes} bytes, ${this.maxBytes - first * PAGE} are left`);
    this.grow(end);
    const a: Allocation = { name, address: (BUS_BASE + first * PAGE) >>> 0, bytes: Math.ceil(bytes / 4) * 4 };
    this.allocs.push(a);
    this.pageOwner.fill(this.allocs.length, first, first + pages);
    this.nextPage = first + pages + 1;
    return a;
  }

  private grow(bytes: number): void {
    if (bytes <= this.buffer.byteLength) return;
    let size = this.buffer.byteLength;
    while (size < bytes) size *= 2;
    this.buffer.resize(Math.min(size, this.maxBytes));
    const owners = new Int32Array(this.buffer.byteLength / PAGE);
    owners.set(this.pageOwner);
    this.pageOwner = owners;
  }

  /** An Int32Array or Float32Array over an allocation, for the host to read and write. */
  view<T extends Int32ArrayConstructor | Float32ArrayConstructor>(a: Allocation, type: T): InstanceType<T> {
    return new type(this.buffer, a.address - BUS_BASE, a.bytes / 4) as InstanceType<T>;
  }

  /** Unmaps an allocation: accesses to it fault from now on. Its pages are not reused. */
  free(a: Allocation): void {
    const i = this.allocs.indexOf(a);
    if (i < 0) return;
    const first = (a.address - BUS_BASE) / PAGE;
    for (let p = first; p < first + Math.ceil(a.bytes / PAGE); p++) if (this.pageOwner[p] === i + 1) this.pageOwner[p] = 0;
    this.freed.add(a);
  }

  get allocations(): readonly Allocation[] {
    return this.allocs;
  }

  /**
   * The word index of a bus address, or -1 when no allocation covers the word. The low two
   * bits are ignored, as the TMU ignores them (Guide p. 41).
   */
  index(address: number): number {
    const off = ((address >>> 0) - BUS_BASE) >>> 0;
    if (off >= this.buffer.byteLength) return -1;
    const owner = this.pageOwner[off >>> 12]!;
    if (owner === 0) return -1;
    const a = this.allocs[owner - 1]!;
    if (off - (a.address - BUS_BASE) >= a.bytes) return -1;
    return off >>> 2;
  }

  /** Like index(), but throws a MemoryFault that says which allocation is near. */
  check(address: number, what: string): number {
    const i = this.index(address);
    if (i < 0) throw new MemoryFault(`${what} at ${hex(address)}: ${this.describe(address)}`, address >>> 0);
    return i;
  }

  /** Where an address is, relative to the allocations, for error messages. */
  describe(address: number): string {
    const a = address >>> 0;
    let best: Allocation | undefined;
    for (const x of this.allocs) if (x.address <= a && (!best || x.address > best.address)) best = x;
    if (!best) return 'no GPU memory is allocated there';
    const off = a - best.address;
    if (off < best.bytes) return `inside ${best.name}${this.freed.has(best) ? ', which was freed' : ''}`;
    const past = off - best.bytes;
    return `${past === 0 ? 'just' : `${past} bytes`} past the end of ${best.name} (${hex(best.address)}, ${best.bytes} bytes)`;
  }

  readWord(address: number): number {
    return this.words[this.check(address, 'read')]!;
  }
  writeWord(address: number, value: number): void {
    this.words[this.check(address, 'write')] = value;
  }
}

export function hex(n: number): string {
  return '0x' + (n >>> 0).toString(16).padStart(8, '0');
}
