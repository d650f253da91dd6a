// One QPU: its registers, flags, program counter, clock, FIFOs, and what its register-mapped
// I/O does. Translated instructions (translate.ts) call the methods here for everything beyond
// lane arithmetic. Facts are from Broadcom's reference guide (pages cited) unless noted.
// Needs: a host (the machine, machine.ts) for what the QPUs share: memory, the VPM, the DMA
// engines, the TMUs' schedule, semaphores and the mutex. Guarantees: each I/O method does what
// the register's write or read does, or throws an EmulatorError without a location (the run
// loop adds QPU, pc and instruction).

import { sfu } from '../vc4/arith.ts';
import * as chip from '../vc4/chip.ts';
import { BUS_BASE, hex, UNIFORMS } from '../common/memory.ts';
import { LINE_SHIFT } from './caches.ts';
import type { QpuHost } from './qpu-host.ts';
import { ioError } from './errors.ts';
import * as layout from './layout.ts';
import { FLAG_C, FLAG_N, FLAG_Z, R_WORDS, SLOT_WORDS } from './layout.ts';
import { newStats, type QpuStats, type StallCause } from './report.ts';
import { FIRST_LINE, gatherAfterStore, streamAfterStore } from './stored.ts';
import { CYCLES_PER_INSTR } from './timing.ts';
import { blockField, decodeBlockSetup, first32, step32, decodeVdrSetup, type VdrSetup, type VdwPlan, vdwPlan, type VpmBlock, VPM_READ_SETUP_INSTRS, type VpmWordSet } from './vpm.ts';
import { decodeVdrPitch, decodeVdwStride, dmaElementBytes as elementBytes, readSetupKind, vdrPitchExcess, writeSetupKind } from '../vc4/vpm-setup.ts';

/** What a QPU uses of its machine (qpu-host.ts). */
export type { QpuHost } from './qpu-host.ts';

// The numbers the I/O paths use in their loops, as constants of this module: V8 folds these into
// the code, but loads (and checks) an imported binding at every use.
const LANES = chip.LANES;
const TMU_FIFO_DEPTH = chip.TMU_FIFO_DEPTH;
const R4 = layout.R4;
const R5 = layout.R5;

/** The SFU's result is in r4 for the third instruction after the write (Guide p. 23). */
const SFU_INSTRUCTIONS = 3;

/** A TMU gather whose lanes span more bytes than this is checked for store races lane by lane. */
const RACE_SPAN = 1 << 16;

/** BUS_BASE as an int32, for word indices: (address - BUS_BASE_I32) >>> 2. */
const BUS_BASE_I32 = BUS_BASE | 0;

export { newStats, type QpuStats, STALL_CAUSES, type StallCause } from './report.ts';

/**
 * Results a QPU can have outstanding on one TMU: the guide's request FIFO holds 8 direct lookups
 * (p. 39). Strict runs stop at TMU_FIFO_DEPTH (rules.ts); others may use all 8.
 */
export const TMU_SLOTS = 8;

/** One TMU's requests in flight for one QPU: a ring of TMU_SLOTS 16-lane results. */
class TmuFifo {
  readonly data = new Int32Array(LANES * TMU_SLOTS);
  readonly readyAt = new Float64Array(TMU_SLOTS);
  head = 0;
  count = 0;
}

/**
 * An access at an address that is not a multiple of 4, in a run that faults there (aligned):
 * the interpreter's words for it. A DMA transfer's is lane 0's, as a kernel's load or store
 * starts at lane 0's address.
 */
const misaligned = (what: 'read' | 'write', lane: number, address: number): string => `a ${what} of lane ${lane} at ${hex(address)} is not a multiple of 4`;

/** A queued VPM read setup: its block, the vectors it still delivers, and when its first is ready. */
type VpmReader = VpmBlock & { left: number; readyAt: number };

export class Qpu {
  /**
   * The registers (R, and F: the same words as floats) and the flags (0 or 1 a lane): views of
   * one slot of SLOT_WORDS words, in the shared register memory while a run uses the QPU
   * (wasm/slots.ts), in an array of its own otherwise.
   */
  R!: Int32Array;
  F!: Float32Array;
  Z!: Int32Array;
  N!: Int32Array;
  C!: Int32Array;
  /** The slot's byte offset in the register memory, -1 when not in it. */
  base = -1;
  /** What reading the nop register returns: the last regfile-A/B read of lanes 12-15 (vc4asm's addendum). */
  readonly lastA = new Int32Array(4);
  readonly lastB = new Int32Array(4);

  pc = 0;
  /** Cycles since the run started. */
  time = 0;
  state: 'idle' | 'running' | 'blocked' | 'done' = 'idle';
  /** What a blocked QPU waits for, for deadlock reports. */
  waitingFor = '';
  /** Index to jump to when branchCountdown reaches 0; -1 for none. */
  branchTarget = -1;
  branchCountdown = 0;
  /** A second branch, taken in the last delay slot of the first. */
  branchTarget2 = -1;
  branchCountdown2 = 0;
  /** Instructions left after a program end (its two delay slots). */
  endCountdown = -1;
  /** The last two instructions executed (for the rules between instructions); -1 at the start. */
  prev0 = -1;
  prev1 = -1;
  /** What a blocked QPU waits on: a semaphore (0-15) or the mutex (16); -1 for nothing. */
  waitingOn = -1;
  /** How many more times a block that loops to itself may run in the current call (the machine sets it). */
  loops = 0;
  /** Instructions executed; the SFU's result lands in r4 three instructions after the write. */
  count = 0;
  stats: QpuStats = newStats();

  unifAddr = 0;
  noSwap = false;
  private readonly tmu = [new TmuFifo(), new TmuFifo()];
  /** TMU results requested and not yet read (ldtmu), on TMU0 and TMU1: the debugger shows them. */
  get tmuQueued(): [number, number] { return [this.tmu[0]!.count, this.tmu[1]!.count]; }
  private readonly tmuLines = new Int32Array(LANES);
  /** Strict runs stop at the rules' TMU depth; other runs at the hardware's. */
  tmuLimit = TMU_FIFO_DEPTH;
  private sfuResult: Int32Array | undefined;
  /** The SFU's function of a pattern: arith.sfu, or the chip model (a run's `sfu` mode, set by Machine.run). */
  sfuFn: (fn: number, bits: number) => number = sfu;
  private sfuDueAt = 0;
  private vpmWriteBlock: VpmBlock | undefined;
  /** Queued VPM read setups with the vectors each still has to deliver, oldest at vpmReadHead. */
  private readonly vpmReads: VpmReader[] = [];
  private vpmReadHead = 0;
  private vdr: VdrSetup | undefined;
  private vdrPitch = 0;
  private vdw: VdwPlan | undefined;
  private vdwStride = 0;
  /** Cycle at which this QPU's last DMA load / store completes. */
  dmaLoadDone = 0;
  dmaStoreDone = 0;
  /**
   * Strict runs: the VPM words this QPU's last DMA load writes and its last DMA store reads. The
   * emulator moves the data when a transfer starts; a chip moves it until the transfer is done,
   * so touching those words before `vr_wait` / `vw_wait` (or before the clock passes the
   * transfer's end) is a race the emulator would not show. Null in other runs.
   */
  dmaWords: { load: VpmWordSet; store: VpmWordSet } | null = null;

  constructor(
    readonly id: number,
    readonly m: QpuHost<Qpu>,
  ) {
    this.moveTo(this.home, 0, false);
  }

  /** The QPU's own words, where its state lives outside a run. */
  private readonly home = new ArrayBuffer(SLOT_WORDS * 4);

  /** Copies the state back into the QPU's own words and points the views there. */
  moveHome(): void {
    this.moveTo(this.home, 0, true);
  }

  /** Points the views at SLOT_WORDS words of `buffer` from `byteOffset`, first copying the state there when `copy`. */
  moveTo(buffer: ArrayBuffer, byteOffset: number, copy: boolean): void {
    const words = new Int32Array(buffer, byteOffset, SLOT_WORDS);
    if (copy) words.set(new Int32Array(this.R.buffer, this.R.byteOffset, SLOT_WORDS));
    this.R = words.subarray(0, R_WORDS);
    this.F = new Float32Array(buffer, byteOffset, R_WORDS);
    this.Z = words.subarray(FLAG_Z, FLAG_Z + LANES);
    this.N = words.subarray(FLAG_N, FLAG_N + LANES);
    this.C = words.subarray(FLAG_C, FLAG_C + LANES);
  }

  reset(pc: number, uniforms: number): void {
    this.R.fill(0);
    for (const f of [this.Z, this.N, this.C]) f.fill(0);
    this.lastA.fill(0);
    this.lastB.fill(0);
    Object.assign(this, { pc, time: 0, state: 'running', waitingFor: '', waitingOn: -1, branchTarget: -1, branchCountdown: 0, branchTarget2: -1, branchCountdown2: 0 });
    Object.assign(this, { endCountdown: -1, count: 0, stats: newStats(), unifAddr: uniforms, noSwap: false, prev0: -1, prev1: -1 });
    this.tmu[0]!.head = this.tmu[0]!.count = 0;
    this.tmu[1]!.head = this.tmu[1]!.count = 0;
    this.sfuResult = undefined;
    this.vpmWriteBlock = undefined;
    this.vpmReads.length = this.vpmReadHead = 0;
    this.vdr = this.vdw = undefined;
    this.vdrPitch = this.vdwStride = this.dmaLoadDone = this.dmaStoreDone = 0;
    this.m.uniform(this, this.unifAddr, true);
  }

  stall(until: number, cause: StallCause): void {
    if (until > this.time) {
      this.stats.stalls[cause] += until - this.time;
      this.time = until;
    }
  }

  // ---- uniforms (Guide p. 22)

  readUniform(): number {
    const i = this.m.memory.index(this.unifAddr, UNIFORMS);
    if (i < 0) throw ioError('fault', `uniform read at ${hex(this.unifAddr)}: ${this.m.memory.describe(this.unifAddr, UNIFORMS)}`);
    // Strict runs: a word a DMA store wrote in this run, which the uniforms cache may hold stale (rule stream-after-store).
    if (this.m.stored.any && this.m.stored.has(this.unifAddr)) throw ioError('rule', streamAfterStore(this.unifAddr), 'stream-after-store');
    this.m.uniform(this, this.unifAddr, false);
    this.unifAddr = (this.unifAddr + 4) >>> 0;
    this.stats.uniforms++;
    return this.m.memory.words[i]!;
  }

  /** Writing unif_addr restarts the uniform stream at element 0's value. */
  setUniformAddress(v: number): void {
    this.unifAddr = v >>> 0;
    this.m.uniform(this, this.unifAddr, true);
  }

  // ---- SFU (Guide p. 23): the result is in r4 for the third instruction after the write.

  sfu(fn: number, src: number, mask: number): void {
    const out = new Int32Array(LANES);
    const R = this.R;
    void mask; // the SFU computes every lane, as the FIFOs do for conditional writes (addendum)
    for (let l = 0; l < LANES; l++) out[l] = this.sfuFn(fn, R[src + l]!);
    this.syncR4();
    this.sfuResult = out;
    this.sfuDueAt = this.count + SFU_INSTRUCTIONS;
    this.stats.sfuOps++;
  }

  /**
   * Moves a due SFU result into r4. Called before anything reads or replaces r4, `ahead`
   * instructions after the last count update (a fused run of instructions counts at its end).
   */
  syncR4(ahead = 0): void {
    if (this.sfuResult && this.count + ahead >= this.sfuDueAt) {
      this.R.set(this.sfuResult, R4);
      this.sfuResult = undefined;
    }
  }

  // ---- TMU general-memory lookups (Guide pp. 39-41)

  tmuRequest(t: number, src: number, mask: number): void {
    const fifo = this.tmu[t]!;
    if (fifo.count >= this.tmuLimit)
      throw fifo.count >= TMU_SLOTS
        ? ioError('fault', `a TMU${t} request with ${fifo.count} outstanding: the FIFO is full and the QPU would wait forever`)
        : ioError('rule', `a TMU${t} request with ${fifo.count} already outstanding (the limit is ${TMU_FIFO_DEPTH})`, 'tmu-fifo-overrun');
    const slot = (fifo.head + fifo.count) % TMU_SLOTS;
    const mem = this.m.memory;
    const R = this.R;
    const data = fifo.data;
    const base = LANES * slot;
    // The distinct cache lines the lanes touch, for the cycle model (most requests touch one),
    // and the lowest and highest address.
    const lines = this.tmuLines;
    let nLines = 0;
    let lo = 0xffffffff;
    let hi = 0;
    let low = 0; // the lanes' low two bits, or'ed
    for (let l = 0; l < LANES; l++) {
      if (!(mask & (1 << l))) continue;
      const addr = R[src + l]! >>> 0;
      if (addr < lo) lo = addr;
      if (addr > hi) hi = addr;
      low |= addr;
      const line = addr >>> LINE_SHIFT;
      if (nLines === 0 || lines[nLines - 1] !== line) {
        let k = 0;
        while (k < nLines && lines[k] !== line) k++;
        if (k === nLines) lines[nLines++] = line;
      }
    }
    // Strict runs, while a DMA store may be unfinished: a lane reading what another QPU's store
    // is still writing is rule dma-store-race (one page-table read a lane finds the candidates).
    const racing = this.dmaWords !== null && this.m.races.until > this.time;
    // Strict runs, once a DMA store has written memory: a lane reading a word it wrote is rule
    // gather-after-store (stored.ts: a mask per line, so the request's lines tell).
    let stale = false;
    if (this.m.stored.any) {
      const marks = this.m.stored.lines;
      for (let i = 0; i < nLines; i++) if (marks[lines[i]! - FIRST_LINE] !== 0) stale = true;
    }
    if (mask === 0xffff && !stale && ((low & 3) === 0 || !this.m.aligned) && mem.spans(lo, hi) && (!racing || (hi - lo < RACE_SPAN && this.m.races.clear(this.id, this.time, (lo & ~3) >>> 0, ((hi & ~3) >>> 0) + 4)))) {
      // Every lane inside one readable allocation that no store has written or is still writing: no check per lane.
      const words = mem.words;
      for (let l = 0; l < LANES; l++) data[base + l] = words[(R[src + l]! - BUS_BASE_I32) >>> 2]!;
    } else this.tmuGatherChecked(t, src, mask, data, base, racing, stale);
    fifo.readyAt[slot] = this.m.tmuSchedule(this, t, this.time, lines, nLines);
    fifo.count++;
    this.stats.tmuRequests++;
  }

  /**
   * A TMU gather lane by lane, each lane's address checked: raced against other QPUs' unfinished
   * DMA stores when `racing`, against the words stored in this run when `stale`; a run that wants
   * aligned addresses faults at one not a multiple of 4.
   */
  private tmuGatherChecked(t: number, src: number, mask: number, data: Int32Array, base: number, racing: boolean, stale: boolean): void {
    const aligned = this.m.aligned;
    const stored = this.m.stored;
    const mem = this.m.memory;
    const storeEnds = this.m.races.pageEnd;
    for (let l = 0; l < LANES; l++) {
      if (!(mask & (1 << l))) {
        data[base + l] = 0;
        continue;
      }
      const addr = this.R[src + l]! >>> 0;
      if (aligned && addr & 3) throw ioError('fault', misaligned('read', l, addr));
      if (racing && storeEnds[((addr - BUS_BASE) >>> 0) >>> 12]! > this.time)
        this.m.races.check(this, (addr & ~3) >>> 0, ((addr & ~3) >>> 0) + 4, `TMU${t} lookup, lane ${l},`);
      if (stale && stored.has(addr)) throw ioError('rule', gatherAfterStore(l, addr), 'gather-after-store');
      const i = mem.index(addr);
      if (i < 0) throw ioError('fault', `TMU${t} lookup, lane ${l}, address ${hex(addr)}: ${mem.describe(addr)}`);
      data[base + l] = mem.words[i]!;
    }
  }

  /** The ldtmu signal: the oldest result goes to r4 at the end of the instruction. */
  tmuLoad(t: number): void {
    const fifo = this.tmu[t]!;
    if (fifo.count === 0) throw ioError('rule', `ldtmu${t} with no TMU${t} request outstanding: the QPU would wait forever`, 'tmu-read-empty');
    const slot = fifo.head;
    this.stall(fifo.readyAt[slot]!, 'tmu');
    this.syncR4();
    const R = this.R;
    const data = fifo.data;
    for (let l = 0, from = LANES * slot; l < LANES; l++) R[R4 + l] = data[from + l]!;
    fifo.head = (slot + 1) % TMU_SLOTS;
    fifo.count--;
    this.stats.tmuLoads++;
  }

  tmuOutstanding(t: number): number {
    return this.tmu[t]!.count;
  }

  // ---- VPM (Guide pp. 53-56)

  vpmReadSetup(v: number): void {
    // Queued setups: vc4asm's addendum found a second setup is only accepted once the first has
    // at most one vector left, so qpu-ts queues them in order.
    const b = decodeBlockSetup(v, true) as VpmReader;
    b.left = b.count;
    b.readyAt = this.time + VPM_READ_SETUP_INSTRS * CYCLES_PER_INSTR;
    this.vpmReads.push(b);
  }

  /** Reads the next vector of the oldest read setup into R[dst..dst+15]. */
  vpmRead(dst: number): void {
    const b = this.vpmReads[this.vpmReadHead];
    if (!b) throw ioError('rule', 'a VPM read with no VPM read setup outstanding: the QPU would wait forever', 'vpm-read-empty');
    // The setup's first vector reaches the FIFO three instructions after it (guide p. 56); a
    // read before then waits for it (rule vpm-read-too-early).
    if (b.readyAt > this.time) this.stall(b.readyAt, 'vpm');
    const vpm = this.m.vpm;
    const R = this.R;
    if (this.dmaWords && this.dmaLoadDone > this.time) this.dmaRace(b, this.dmaWords.load, this.dmaLoadDone, 'read of words its DMA load is still filling', 'vr_wait');
    if (b.size === 32) {
      const first = first32(b);
      const step = step32(b);
      for (let e = 0; e < LANES; e++) R[dst + e] = vpm[first + e * step]!;
    } else {
      // 8- and 16-bit elements read zero-extended (VC4C's emulator; unpack converts further).
      const mask = b.size === 16 ? 0xffff : 0xff;
      for (let e = 0; e < LANES; e++) {
        const f = blockField(b, e);
        R[dst + e] = (vpm[f.word]! >>> f.shift) & mask;
      }
    }
    b.addr = (b.addr + b.stride) & 0xff;
    if (--b.left === 0 && ++this.vpmReadHead === this.vpmReads.length) this.vpmReads.length = this.vpmReadHead = 0;
  }

  vpmReadsLeft(): number {
    let n = 0;
    for (let i = this.vpmReadHead; i < this.vpmReads.length; i++) n += this.vpmReads[i]!.left;
    return n;
  }

  vpmWriteSetup(v: number): void {
    this.vpmWriteBlock = decodeBlockSetup(v, false);
  }

  vpmWrite(src: number): void {
    const b = this.vpmWriteBlock;
    if (!b) throw ioError('rule', 'a VPM write before any VPM write setup', 'vpm-write-no-setup');
    const vpm = this.m.vpm;
    if (this.dmaWords && this.dmaStoreDone > this.time) this.dmaRace(b, this.dmaWords.store, this.dmaStoreDone, 'write to words its DMA store is still reading', 'vw_wait');
    if (b.size === 32) {
      const first = first32(b);
      const step = step32(b);
      const R = this.R;
      for (let e = 0; e < LANES; e++) vpm[first + e * step] = R[src + e]!;
    } else {
      // An 8- or 16-bit write stores the low bits of each element and keeps the rest of the word.
      const mask = b.size === 16 ? 0xffff : 0xff;
      for (let e = 0; e < LANES; e++) {
        const f = blockField(b, e);
        vpm[f.word] = (vpm[f.word]! & ~(mask << f.shift)) | ((this.R[src + e]! & mask) << f.shift);
      }
    }
    b.addr = (b.addr + b.stride) & 0xff;
  }

  /** Strict runs: a VPM access to words this QPU's DMA transfer still uses is a rule error. */
  private dmaRace(b: VpmBlock, busy: VpmWordSet, done: number, what: string, wait: string): void {
    for (let e = 0; e < LANES; e++)
      if (busy.has(blockField(b, e).word))
        throw ioError('rule', `a VPM ${what} (it ends at cycle ${done}, now ${this.time}): read ${wait} first`, 'vpm-dma-race');
  }

  // ---- DMA between the VPM and memory (Guide pp. 56-59)

  /** A write to vr_setup: a VPM read setup, a DMA load setup or the load's extended pitch. */
  readSetup(v: number): void {
    const kind = readSetupKind(v);
    if (kind === 'pitch') this.vdrPitch = this.loadPitch(v);
    else if (kind === 'dma') this.vdr = decodeVdrSetup(v);
    else if (kind === 'vpm') this.vpmReadSetup(v);
    else throw ioError('unsupported', `vr_setup value ${hex(v)} is no setup format the guide defines (Tables 33, 36, 37)`);
  }

  /** An extended pitch word's pitch; strict runs (dmaWords set) refuse one past its 14 bits, which a chip drops (vpm-setup.ts). */
  private loadPitch(v: number): number {
    const excess = vdrPitchExcess(v);
    if (excess && this.dmaWords)
      throw ioError('rule', `DMA load pitch word ${hex(v)} sets bits ${hex(excess)} past its 14-bit pitch: a chip keeps only ${decodeVdrPitch(v)} bytes of it; load row by row past 16,383 bytes`, 'dma-pitch-width');
    return decodeVdrPitch(v);
  }

  /** A write to vw_setup: a VPM write setup, a DMA store setup or the store's stride. */
  writeSetup(v: number): void {
    const kind = writeSetupKind(v);
    if (kind === 'vpm') this.vpmWriteSetup(v);
    else if (kind === 'dma') this.vdw = vdwPlan(v);
    else if (kind === 'stride') this.vdwStride = decodeVdwStride(v); // 16 bits wide (vc4asm's addendum)
    else throw ioError('unsupported', `vw_setup value ${hex(v)} (ID 1) is not a format the emulator runs`);
  }

  dmaLoad(addr: number): void {
    if (!this.vdr) throw ioError('rule', 'a DMA load (vr_addr write) before any DMA load setup', 'dma-no-setup');
    if (addr & (elementBytes(this.vdr.modew) - 1) && this.m.aligned) throw ioError('fault', misaligned('read', 0, addr >>> 0));
    this.stall(this.dmaLoadDone, 'dma');
    this.dmaLoadDone = this.m.dma.load(this, this.vdr, this.vdrPitch, addr >>> 0, this.dmaWords?.load);
    this.stats.dmaLoadBytes += this.m.dma.bytes;
  }

  dmaStore(addr: number): void {
    if (!this.vdw) throw ioError('rule', 'a DMA store (vw_addr write) before any DMA store setup', 'dma-no-setup');
    if (addr & (elementBytes(this.vdw.modew) - 1) && this.m.aligned) throw ioError('fault', misaligned('write', 0, addr >>> 0));
    this.stall(this.dmaStoreDone, 'dma');
    this.dmaStoreDone = this.m.dma.store(this, this.vdw, this.vdwStride, addr >>> 0, this.dmaWords?.store);
    this.stats.dmaStoreBytes += this.m.dma.bytes;
  }

  /** Reading vr_wait / vw_wait stalls until this QPU's DMA completes. */
  dmaWait(store: boolean): number {
    this.stall(store ? this.dmaStoreDone : this.dmaLoadDone, 'dma');
    return 0;
  }

  dmaBusy(store: boolean): number {
    return (store ? this.dmaStoreDone : this.dmaLoadDone) > this.time ? 1 : 0;
  }

  // ---- r5, host interrupt, tmu_noswap

  /** r5 from regfile A's address replicates element 0 of each quad; from B's, element 0 (addendum). */
  writeR5(src: number, mask: number, perQuad: boolean): void {
    const R = this.R;
    for (let q = 0; q < 4; q++) {
      const from = perQuad ? q * 4 : 0;
      if (!(mask & (1 << from))) continue;
      const v = R[src + from]!;
      for (let j = 0; j < 4; j++) R[R5 + q * 4 + j] = v;
    }
  }

  /** Writing host_int interrupts the host when the value is non-zero (vc4asm's addendum). */
  hostInterrupt(src: number, mask: number): void {
    if (mask & 1 && this.R[src] !== 0) this.stats.hostInterrupts++;
  }

  setNoSwap(src: number, mask: number): void {
    if (mask & 1) this.noSwap = this.R[src] !== 0;
  }
}
