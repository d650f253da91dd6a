// GPU memory: what the QPUs address. Allocations get bus addresses in the range a Raspberry Pi's
// VideoCore mailbox hands out for uncached GPU memory (the 0xC0000000 alias: Pi 2 and 3), each
// page-aligned with an unmapped guard page after it, so that a kernel that runs off the end of
// an array faults instead of reading its neighbour. Reads and writes outside an allocation are
// errors that name the address and what is near it. Freed memory is handed out again (pages.ts:
// first fit, free neighbours merged); until then its pages fault, and an allocation always
// starts zeroed.
//
// Protection: each allocation has rights (a program's code is read-only: the emulator runs the
// words it loaded and does not model code that rewrites itself), and a run can be restricted to
// a few regions (a kernel reaches only the arrays it was given, its uniforms and its scratch
// memory). Rights are looked up per page owner, one typed-array read per access.
//
// The memory is one resizable ArrayBuffer, which every typed array over it (a SharedArray) can
// reach through TypedArray.prototype's buffer getter; SharedArrays hide it (shared-array.ts), but
// a buffer detached or shrunk anyway is detected (assertIntact) and reported as GpuMemoryLost at
// the next allocation or run, never an endless loop or a stray fault.

import { PageRuns } from './pages.ts';

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

/** GPU memory that is gone: its buffer was detached or shrunk from outside qpu-ts. Nothing in it can be used again. */
export class GpuMemoryLost extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GpuMemoryLost';
  }
}

export class GpuMemory {
  /** Resizable, so that views the host holds (SharedArrays) stay valid as memory grows. */
  private readonly buffer: ArrayBuffer;
  /** The words of every allocation; index = (busAddress - BUS_BASE) / 4. */
  readonly words: Int32Array;
  readonly floats: Float32Array;
  /** The same memory as bytes; index = busAddress - BUS_BASE (8- and 16-bit data). */
  readonly bytes: Uint8Array;
  /** The bytes the buffer has as this memory sized it (a buffer of another size was tampered with). */
  private limit: number;
  /** Per page: the allocation owning it (its slot + 1), or 0 when unmapped. */
  private pageOwner: Int32Array;
  /** Live allocations by slot (an owner number is slot + 1); freed slots are reused. */
  private readonly slots: (Allocation | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  /**
   * Per owner: the offset (from BUS_BASE) one past the last byte that can be reached: its end, or
   * under restrict() the end of the bytes granted (an array of 5 bytes has an allocation of 8, and
   * a kernel given it reaches 5). A typed array: index() reads it on every access.
   */
  private reachEnd = new Float64Array(64);
  /** Per owner: its own rights, and the rights in force (less under restrict()). */
  private rights = new Uint8Array(64);
  private allowed = new Uint8Array(64);
  /** While restricted: the regions granted, and what is running, for messages. */
  private grants: readonly Grant[] | undefined;
  private restrictedTo = '';
  /** Freed allocations whose pages have not been handed out again, by first page: for messages ("which was freed"). */
  private readonly freed = new Map<number, Allocation>();
  private readonly pages: PageRuns;
  private made = 0;
  /** Why the memory is gone, once its buffer was found detached or shrunk. */
  private lost: string | undefined;
  readonly maxBytes: number;

  constructor(maxBytes = 256 * 1024 * 1024) {
    if (!Number.isInteger(maxBytes) || maxBytes < 2 * PAGE || maxBytes % PAGE !== 0 || maxBytes > 2 ** 32 - BUS_BASE)
      throw new RangeError(`GPU memory is a whole number of ${PAGE}-byte pages, at least 2 and at most ${hex(2 ** 32 - BUS_BASE)} bytes, not ${maxBytes}`);
    this.maxBytes = maxBytes;
    this.limit = Math.min(1 << 20, maxBytes);
    this.buffer = new ArrayBuffer(this.limit, { maxByteLength: maxBytes });
    this.words = new Int32Array(this.buffer);
    this.floats = new Float32Array(this.buffer);
    this.bytes = new Uint8Array(this.buffer);
    this.pageOwner = new Int32Array(this.limit / PAGE);
    this.pages = new PageRuns(maxBytes / PAGE);
  }

  /** Allocates `bytes` (rounded up to whole words), zeroed, with these rights (READ, WRITE, UNIFORMS). */
  alloc(bytes: number, name = `buffer${this.made}`, access = READ_WRITE): Allocation {
    this.assertIntact();
    if (!Number.isInteger(bytes) || bytes <= 0) throw new RangeError(`cannot allocate ${bytes} bytes for ${name}`);
    const pages = Math.ceil(bytes / PAGE);
    // Its pages and a guard page, which stays unmapped.
    const first = bytes > this.maxBytes ? -1 : this.pages.take(pages + 1);
    if (first < 0) {
      const free = this.pages.free();
      throw new GpuMemoryFull(
        `GPU memory is full: ${name} needs ${bytes} bytes (${footprint(bytes)} with its guard page), and of the ${this.maxBytes} bytes ` +
          `${free.pages * PAGE} are free, at most ${free.longest * PAGE} of them in a row`,
      );
    }
    this.grow((first + pages + 1) * PAGE);
    for (let p = first; p <= first + pages; p++) this.freed.delete(p);
    const a: Allocation = { name, address: (BUS_BASE + first * PAGE) >>> 0, bytes: Math.ceil(bytes / 4) * 4 };
    this.made++;
    const owner = this.freeSlots.pop() ?? this.slots.length + 1;
    this.slots[owner - 1] = a;
    if (owner >= this.rights.length) {
      this.rights = grown(this.rights, owner);
      this.allowed = grown(this.allowed, owner);
      this.reachEnd = grown(this.reachEnd, owner);
    }
    this.rights[owner] = access;
    this.allowed[owner] = this.grants ? 0 : access;
    this.reachEnd[owner] = endOf(a, a.bytes);
    this.pageOwner.fill(owner, first, first + pages);
    // Freed memory is handed out again: whatever it held goes.
    this.words.fill(0, first * (PAGE / 4), first * (PAGE / 4) + a.bytes / 4);
    return a;
  }

  private grow(bytes: number): void {
    if (bytes <= this.limit) return;
    let size = this.limit;
    while (size < bytes) size *= 2;
    size = Math.min(size, this.maxBytes);
    this.buffer.resize(size);
    this.limit = size;
    const owners = new Int32Array(size / PAGE);
    owners.set(this.pageOwner);
    this.pageOwner = owners;
  }

  /**
   * Whether the buffer is as this memory left it. Its own bytes can be reached only through
   * TypedArray.prototype's buffer getter on an array over it (SharedArrays hide theirs): a
   * buffer grown that way is taken as it is; one detached (transferred) or shrunk has lost what
   * was in it, and so has this memory, for good.
   */
  intact(): boolean {
    if (this.lost) return false;
    const now = this.buffer.byteLength;
    if (now >= this.limit) {
      if (now >= this.limit + PAGE) this.adopt(now);
      return true;
    }
    this.lost =
      `GPU memory is lost: its ArrayBuffer was ${now === 0 ? 'detached (transferred) or resized to 0 bytes' : `resized from ${this.limit} to ${now} bytes`} from outside qpu-ts, ` +
      `through TypedArray.prototype's buffer getter on an array over it (a SharedArray's own buffer refuses). ` +
      `Every array and program in it is gone, and it cannot be used again: start the process again, and leave the buffer alone`;
    return false;
  }

  /** Throws GpuMemoryLost when the buffer was detached or shrunk (intact()). */
  assertIntact(): void {
    if (!this.intact()) throw new GpuMemoryLost(this.lost!);
  }

  /** A buffer grown from outside: its pages become ordinary unmapped pages. */
  private adopt(bytes: number): void {
    const pages = Math.floor(bytes / PAGE);
    const owners = new Int32Array(pages);
    owners.set(this.pageOwner);
    this.pageOwner = owners;
    this.limit = pages * PAGE;
  }

  /** An Int32Array or Float32Array over an allocation, for the host to read and write. */
  view<T extends Int32ArrayConstructor | Float32ArrayConstructor>(a: Allocation, type: T): InstanceType<T> {
    this.assertIntact();
    if (!this.live(a)) throw new RangeError(`${a.name} at ${hex(a.address)} is not live memory of this GPU memory (freed, or from another memory)`);
    return new type(this.buffer, a.address - BUS_BASE, a.bytes / 4) as InstanceType<T>;
  }

  /** Whether `a` is an allocation of this memory that has not been freed. */
  live(a: Allocation): boolean {
    return this.slots[this.ownerOf(a.address) - 1] === a;
  }

  /**
   * Unmaps an allocation: accesses to it fault from now on, and its pages (and its guard page)
   * are handed out again later, zeroed. Freeing what is not live does nothing.
   */
  free(a: Allocation): void {
    if (!this.live(a)) return;
    const owner = this.ownerOf(a.address);
    const first = (a.address - BUS_BASE) / PAGE;
    const pages = Math.ceil(a.bytes / PAGE);
    this.pageOwner.fill(0, first, first + pages);
    this.slots[owner - 1] = undefined;
    this.freeSlots.push(owner);
    this.rights[owner] = this.allowed[owner] = 0;
    this.pages.give(first, pages + 1);
    this.freed.set(first, a);
  }

  /** The live allocations, by address. */
  get allocations(): readonly Allocation[] {
    return this.slots.filter((a) => a !== undefined).sort((x, y) => x.address - y.address);
  }

  /** How far allocations have reached, in bytes from BUS_BASE: now (`top`), and ever (`highWater`). */
  get use(): { top: number; highWater: number; live: number } {
    return { top: this.pages.top * PAGE, highWater: this.pages.highWater * PAGE, live: this.slots.length - this.freeSlots.length };
  }

  /**
   * Until unrestrict(), only these regions can be reached, each with at most its allocation's
   * own rights; `who` names what runs (for messages: "kernel gcd"). Every grant must be a whole
   * allocation.
   */
  restrict(grants: readonly Grant[], who: string): void {
    const owners = grants.map((g) => {
      const owner = this.ownerOf(g.address);
      const a = this.slots[owner - 1];
      if (!a || a.address !== g.address) throw new RangeError(`${g.name} at ${hex(g.address)} is not an allocation of this GPU memory`);
      return owner;
    });
    this.allowed.fill(0);
    grants.forEach((g, i) => {
      const o = owners[i]!;
      this.allowed[o]! |= this.rights[o]! & g.access;
      const a = this.slots[o - 1]!;
      this.reachEnd[o] = endOf(a, Math.min(a.bytes, Math.ceil(g.bytes)));
    });
    this.grants = grants;
    this.restrictedTo = who;
  }

  /** Lifts restrict(): every allocation can be reached with its own rights again. */
  unrestrict(): void {
    this.allowed.set(this.rights);
    this.slots.forEach((a, i) => a && (this.reachEnd[i + 1] = endOf(a, a.bytes)));
    this.grants = undefined;
  }

  /** The owner (slot + 1) of the allocation whose pages hold an address, or 0. */
  private ownerOf(address: number): number {
    const off = ((address >>> 0) - BUS_BASE) >>> 0;
    return off < this.limit ? this.pageOwner[off >>> 12]! : 0;
  }

  /**
   * The word index of a bus address, or -1 when no allocation covers the word or the access
   * `need` (READ, WRITE or UNIFORMS) is not allowed there. The low two bits are ignored, as the TMU
   * ignores them (Guide p. 41).
   */
  index(address: number, need = READ): number {
    const off = ((address >>> 0) - BUS_BASE) >>> 0;
    if (off >= this.limit) return -1;
    const owner = this.pageOwner[off >>> 12]!;
    if (owner === 0 || (this.allowed[owner]! & need) === 0) return -1;
    if (off >= this.reachEnd[owner]!) return -1;
    return off >>> 2;
  }

  /** The byte index of a bus address (into `bytes`), or -1 as index() says. */
  byteIndex(address: number, need = READ): number {
    return this.index(address, need) < 0 ? -1 : ((address >>> 0) - BUS_BASE) >>> 0;
  }

  /** Like byteIndex(), but throws a MemoryFault as check() does. */
  checkByte(address: number, what: string, need = READ): number {
    this.check(address, what, need);
    return ((address >>> 0) - BUS_BASE) >>> 0;
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
    for (const x of [...this.slots, ...this.freed.values()]) if (x && x.address <= a && (!best || x.address > best.address)) best = x;
    const grant = best && this.grants?.find((g) => g.address === best.address);
    let where: string;
    if (!best) where = 'no GPU memory is allocated there';
    else if (a - best.address >= best.bytes) {
      const past = a - best.address - best.bytes;
      where = `${past === 0 ? 'just' : `${past} bytes`} past the end of ${grant ? grant.name : `${best.name} (${hex(best.address)}, ${best.bytes} bytes)`}`;
    } else if (!this.live(best)) where = `inside ${best.name}, which was freed`;
    else if (this.grants && !grant) where = `inside ${best.name}`;
    else if ((this.rights[this.ownerOf(best.address)]! & need) === 0)
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

function grown<T extends Uint8Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(a: T, index: number): T {
  const out = new (a.constructor as new (n: number) => T)(Math.max(2 * a.length, index + 1));
  out.set(a);
  return out;
}

/** The offset from BUS_BASE one past the first `bytes` of an allocation. */
function endOf(a: Allocation, bytes: number): number {
  return a.address - BUS_BASE + bytes;
}

export function hex(n: number): string {
  return '0x' + (n >>> 0).toString(16).padStart(8, '0');
}
