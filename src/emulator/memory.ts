// GPU memory: what the QPUs address. Allocations get bus addresses in the range a Raspberry Pi's
// VideoCore mailbox hands out for uncached GPU memory (the 0xC0000000 alias: Pi 2 and 3), each
// page-aligned with an unmapped guard page after it, so that a kernel that runs off the end of
// an array faults instead of reading its neighbour. Reads and writes outside an allocation are
// errors that name the address and what is near it.
//
// Protection: each allocation has rights (a program's code is read-only: the emulator runs the
// words it loaded and does not model code that rewrites itself), and a run can be restricted to
// a few regions (a kernel reaches only the arrays it was given, its uniforms and its scratch
// memory). Rights are looked up per page owner, one typed-array read per access.

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

/** An allocation that does not fit in what is left of GPU memory (a RangeError, as for a typed array too large). */
export class GpuMemoryFull extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'GpuMemoryFull';
  }
}

/** Bytes an allocation of `bytes` takes in GPU memory: whole pages and the guard page after them. */
export function footprint(bytes: number): number {
  return (Math.ceil(Math.max(bytes, 1) / PAGE) + 1) * PAGE;
}

export interface Allocation {
  readonly name: string;
  /** Bus address of the first byte. */
  readonly address: number;
  readonly bytes: number;
}

/** Access rights, a bit mask: reads by the TMU or a DMA load, writes by a DMA store, and reads as a uniform stream. */
export const READ = 1;
export const WRITE = 2;
export const UNIFORMS = 4;
export const READ_WRITE = READ | WRITE | UNIFORMS;

/** A region a restricted run may reach: an allocation's address, a name for messages, its rights. */
export interface Grant {
  readonly name: string;
  readonly address: number;
  readonly bytes: number;
  readonly access: number;
  /** Memory the code itself needs (uniforms, scratch): not listed in messages about the user's arrays. */
  readonly internal?: boolean;
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
  /** Per allocation (1 + its index): its own rights, and the rights in force (less under restrict()). */
  private rights = new Uint8Array(64);
  private allowed = new Uint8Array(64);
  /** While restricted: the regions granted, and what is running, for messages. */
  private grants: readonly Grant[] | undefined;
  private restrictedTo = '';
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

  /** Allocates `bytes` (rounded up to whole words), zeroed, with these rights (READ, WRITE, UNIFORMS). */
  alloc(bytes: number, name = `buffer${this.allocs.length}`, access = READ_WRITE): Allocation {
    if (!Number.isInteger(bytes) || bytes <= 0) throw new RangeError(`cannot allocate ${bytes} bytes for ${name}`);
    const pages = Math.ceil(bytes / PAGE);
    const first = this.nextPage;
    const end = first * PAGE + footprint(bytes); // one guard page
    if (end > this.maxBytes)
      throw new GpuMemoryFull(`GPU memory is full: ${name} needs ${bytes} bytes, ${this.maxBytes - first * PAGE} are left`);
    this.grow(end);
    const a: Allocation = { name, address: (BUS_BASE + first * PAGE) >>> 0, bytes: Math.ceil(bytes / 4) * 4 };
    this.allocs.push(a);
    const owner = this.allocs.length;
    if (owner >= this.rights.length) {
      this.rights = grown(this.rights, owner);
      this.allowed = grown(this.allowed, owner);
    }
    this.rights[owner] = access;
    this.allowed[owner] = this.grants ? 0 : access;
    this.pageOwner.fill(owner, first, first + pages);
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
   * Until unrestrict(), only these regions can be reached, each with at most its allocation's
   * own rights; `who` names what runs (for messages: "kernel gcd"). Every grant must be a whole
   * allocation.
   */
  restrict(grants: readonly Grant[], who: string): void {
    const owners = grants.map((g) => {
      const owner = this.ownerOf(g.address);
      const a = this.allocs[owner - 1];
      if (!a || a.address !== g.address) throw new RangeError(`${g.name} at ${hex(g.address)} is not an allocation of this GPU memory`);
      return owner;
    });
    this.allowed.fill(0);
    grants.forEach((g, i) => (this.allowed[owners[i]!] |= this.rights[owners[i]!]! & g.access));
    this.grants = grants;
    this.restrictedTo = who;
  }

  /** Lifts restrict(): every allocation can be reached with its own rights again. */
  unrestrict(): void {
    this.allowed.set(this.rights);
    this.grants = undefined;
  }

  /** 1 + the index of the allocation whose pages hold an address, or 0. */
  private ownerOf(address: number): number {
    const off = ((address >>> 0) - BUS_BASE) >>> 0;
    return off < this.buffer.byteLength ? this.pageOwner[off >>> 12]! : 0;
  }

  /**
   * The word index of a bus address, or -1 when no allocation covers the word or the access
   * `need` (READ, WRITE or UNIFORMS) is not allowed there. The low two bits are ignored, as the TMU
   * ignores them (Guide p. 41).
   */
  index(address: number, need = READ): number {
    const off = ((address >>> 0) - BUS_BASE) >>> 0;
    if (off >= this.buffer.byteLength) return -1;
    const owner = this.pageOwner[off >>> 12]!;
    if (owner === 0 || (this.allowed[owner]! & need) === 0) return -1;
    const a = this.allocs[owner - 1]!;
    if (off - (a.address - BUS_BASE) >= a.bytes) return -1;
    return off >>> 2;
  }

  /**
   * Whether every address from `lo` to `hi` (unsigned, lo <= hi) lies in one allocation that
   * allows `need`: then each word between has index(address) = (address - BUS_BASE) >>> 2. One
   * check for a whole vector of addresses (an allocation's pages are contiguous and mapped
   * together).
   */
  spans(lo: number, hi: number, need = READ): boolean {
    return this.index(lo, need) >= 0 && this.index(hi, need) >= 0 && this.ownerOf(lo) === this.ownerOf(hi);
  }

  /** Like index(), but throws a MemoryFault that says which allocation is near. */
  check(address: number, what: string, need = READ): number {
    const i = this.index(address, need);
    if (i < 0) throw new MemoryFault(`${what} at ${hex(address)}: ${this.describe(address, need)}`, address >>> 0);
    return i;
  }

  /** Where an address is, relative to the allocations, and why `need` is refused there, for error messages. */
  describe(address: number, need = READ): string {
    const a = address >>> 0;
    let best: Allocation | undefined;
    for (const x of this.allocs) if (x.address <= a && (!best || x.address > best.address)) best = x;
    const grant = best && this.grants?.find((g) => g.address === best.address);
    let where: string;
    if (!best) where = 'no GPU memory is allocated there';
    else if (a - best.address >= best.bytes) {
      const past = a - best.address - best.bytes;
      where = `${past === 0 ? 'just' : `${past} bytes`} past the end of ${grant ? grant.name : `${best.name} (${hex(best.address)}, ${best.bytes} bytes)`}`;
    } else if (this.freed.has(best)) where = `inside ${best.name}, which was freed`;
    else if (this.grants && !grant) where = `inside ${best.name}`;
    else if ((this.rights[this.allocs.indexOf(best) + 1]! & need) === 0)
      return `inside ${best.name}, which is ${need === WRITE ? 'read-only' : 'not readable'}`;
    else if (grant) where = `inside ${grant.name}, which ${this.restrictedTo} may not ${need === WRITE ? 'write' : need === READ ? 'read' : 'read as uniforms'}`;
    else where = `inside ${best.name}`;
    if (!this.grants) return where;
    const given = this.grants.filter((g) => !g.internal).map((g) => `${g.name} at ${hex(g.address)}, ${g.bytes} bytes`);
    return `${where}, outside the arrays ${this.restrictedTo} was given (${given.join('; ') || 'none'})`;
  }

  readWord(address: number): number {
    return this.words[this.check(address, 'read')]!;
  }
  writeWord(address: number, value: number): void {
    this.words[this.check(address, 'write', WRITE)] = value;
  }
}

function grown(a: Uint8Array, index: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(Math.max(2 * a.length, index + 1));
  out.set(a);
  return out;
}

export function hex(n: number): string {
  return '0x' + (n >>> 0).toString(16).padStart(8, '0');
}
