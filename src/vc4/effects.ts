// What one instruction does to the machine, as facts the hardware rules are stated in: which
// physical registers it reads and writes, whether it touches r4, the TMU, the SFU, the VPM,
// uniforms, the mutex. The validator, the emulator's strict mode and the compiler all ask
// these questions of the same function, so no rule has a second copy that can drift.

import type { Instr } from './instr.ts';
import {
  addWriteFile,
  mulWriteFile,
  R_MUTEX,
  R_UNIF,
  R_VARY,
  R_VPM,
  R_VPM_BUSY,
  R_VPM_WAIT,
  THREAD_END_RESERVED_ADDR,
  W_ACC0,
  W_ACC5,
  W_DMA_ADDR,
  W_TLB_Z,
  W_TMU_NOSWAP,
  W_UNIF_ADDR,
  W_VPM,
  W_VPM_SETUP,
  writeInfo,
} from './registers.ts';
import { exclusiveConditions, MUX_A, MUX_B, MUX_R4, PROGRAM_END_SIGNALS, SIG_LOAD_TMU0, SIG_LOAD_TMU1, TLB_LOAD_SIGNALS } from './tables.ts';

export interface Effects {
  readonly kind: Instr['kind'];
  /** Physical regfile-A/B addresses (0-31) whose value an ALU or the branch uses. */
  readonly readsA: readonly number[];
  readonly readsB: readonly number[];
  /** Physical regfile addresses written (a write with condition `never` writes nothing). */
  readonly writesA: readonly number[];
  readonly writesB: readonly number[];
  /** Raw read and write addresses of either file (for address-14 and I/O rules). */
  readonly raddrs: readonly number[];
  readonly waddrs: readonly { file: 'a' | 'b'; addr: number }[];
  /** Accumulators written: 0-3 and 5. */
  readonly accWrites: readonly number[];
  readonly readsR4: boolean;
  /** SFU write, ldtmu signal or tile-buffer load: something puts a value in r4. */
  readonly writesR4: boolean;
  readonly sfuWrites: number;
  /** Requests queued on TMU0 and TMU1 (writes to tmuN_s), and results popped (ldtmuN). */
  readonly tmuRequests: readonly [number, number];
  readonly tmuLoads: readonly [number, number];
  /** Closely coupled peripheral accesses; the guide allows one per instruction (p. 37). */
  readonly peripherals: readonly string[];
  readonly readsUniform: boolean;
  readonly writesUnifAddr: boolean;
  readonly readsVarying: boolean;
  readonly vpmRead: boolean;
  readonly vpmWrite: boolean;
  readonly vprSetup: boolean;
  /** Any VPM, VCD or VDW access (the program-end rule forbids them). */
  readonly vpmAny: boolean;
  readonly writesTmuNoswap: boolean;
  readonly writesTlbZ: boolean;
  readonly readsMsFlags: boolean;
  /** Mul-output rotation: 0 none, 1-15 elements, 'r5' by r5; and the mul input muxes. */
  readonly rotation: number | 'r5';
  readonly rotationMuxes: readonly number[];
  readonly programEnd: boolean;
  readonly isBranch: boolean;
  /** Both ALUs write the same accumulator or I/O register. */
  readonly doubleWrite?: string;
  /** An ALU whose opcode is nop writes a register anyway (names it): see rule nop-opcode-write. */
  readonly nopOpcodeWrite?: string;
  /** A conditional write to the VPM or a TMU request register (names it). */
  readonly conditionalFifoWrite?: string;
  readonly signal: number;
}

/** Accumulators r0-r3: plain per-lane registers, with no side effect on a write. */
const isAccumulator = (addr: number) => addr >= W_ACC0 && addr <= W_ACC0 + 3;

/**
 * Both ALUs may write one of r0-r3 when no lane takes both writes. The guide (p. 19) calls a
 * write of both ALUs to one accumulator undefined without saying whether the write conditions
 * count; Broadcom's own FFT shaders write an accumulator from both ALUs under opposite
 * conditions, and vc4asm reports a double write only without inverse conditions, so qpu-ts
 * reads the rule per lane for r0-r3. Other registers keep the error: a peripheral takes its
 * write as a whole (a FIFO entry, an SFU or DMA start) whatever the lanes' conditions, and r5's
 * two write addresses replicate across lanes (per quad or to all), so lanes do not separate them.
 */
const exclusiveAccWrite = (addr: number, condAdd: number, condMul: number) =>
  isAccumulator(addr) && exclusiveConditions(condAdd, condMul);

/**
 * Effects already worked out, by instruction object: the validator, the scheduler and the rule
 * checks ask again and again about the same instructions. An instruction is not changed once
 * built (a changed one is a new object), so an entry never goes stale.
 */
const known = new WeakMap<Instr, Effects>();

export function effectsOf(i: Instr): Effects {
  let e = known.get(i);
  if (!e) known.set(i, (e = computeEffects(i)));
  return e;
}

function computeEffects(i: Instr): Effects {
  const readsA: number[] = [];
  const readsB: number[] = [];
  const writesA: number[] = [];
  const writesB: number[] = [];
  const raddrs: number[] = [];
  const waddrs: { file: 'a' | 'b'; addr: number }[] = [];
  const accWrites: number[] = [];
  const peripherals: string[] = [];
  let readsR4 = false;
  let sfuWrites = 0;
  const tmuRequests: [number, number] = [0, 0];
  const tmuLoads: [number, number] = [0, 0];
  let readsUniform = false;
  let rotation: number | 'r5' = 0;
  let rotationMuxes: number[] = [];
  let signal = 1;
  let doubleWrite: string | undefined;
  let conditionalFifoWrite: string | undefined;
  let nopOpcodeWrite: string | undefined;

  // Writes: the add ALU to waddrAdd, the mul ALU to waddrMul, files chosen by ws.
  const write = (file: 'a' | 'b', addr: number, cond: number) => {
    if (addr === 39) return;
    waddrs.push({ file, addr });
    if (cond !== 1 && (addr === 48 || addr === 56 || addr === 60)) conditionalFifoWrite = addr === 48 ? 'vpm' : `tmu${addr === 60 ? 1 : 0}_s`;
    if (addr < 32) {
      if (cond !== 0) (file === 'a' ? writesA : writesB).push(addr);
      return;
    }
    if (cond !== 0 && ((addr >= W_ACC0 && addr <= W_ACC0 + 3) || addr === W_ACC5)) accWrites.push(addr === W_ACC5 ? 5 : addr - W_ACC0);
    if (addr >= 52 && addr <= 55) {
      sfuWrites++;
      peripherals.push('SFU write');
    }
    if (addr >= 56) {
      peripherals.push('TMU write');
      if (addr === 56) tmuRequests[0]++;
      else if (addr === 60) tmuRequests[1]++;
      else readsUniform = true; // t, r and b writes read a texture-setup uniform (p. 22)
    }
    if (addr >= 43 && addr <= 47) peripherals.push('TLB write');
  };

  if (i.kind === 'branch') {
    write(addWriteFile(i.ws), i.waddrAdd, 1);
    write(mulWriteFile(i.ws), i.waddrMul, 1);
    if (i.reg) {
      readsA.push(i.raddrA);
      raddrs.push(i.raddrA);
    }
  } else {
    write(addWriteFile(i.ws), i.waddrAdd, i.condAdd);
    write(mulWriteFile(i.ws), i.waddrMul, i.condMul);
    // The same register in both files: accumulators and I/O but quad_x/y, ms/rev flags and
    // the VPM read/write setups and addresses, which differ between A and B.
    const a = i.waddrAdd;
    const differs = a === 41 || a === 42 || a === 49 || a === 50;
    if (a === i.waddrMul && a >= 32 && a !== 39 && !differs && i.condAdd !== 0 && i.condMul !== 0 && !exclusiveAccWrite(a, i.condAdd, i.condMul))
      doubleWrite = `both ALUs write ${writeInfo('a', a).name}${isAccumulator(a) ? ' under conditions that can both hold' : ''}`;
    // The write is recorded above all the same: the hardware makes it (vc4asm's addendum).
    if (i.kind === 'alu') {
      if (i.opAdd === 0 && i.waddrAdd !== 39 && i.condAdd !== 0) nopOpcodeWrite = `the add ALU (write address ${i.waddrAdd})`;
      else if (i.opMul === 0 && i.waddrMul !== 39 && i.condMul !== 0) nopOpcodeWrite = `the mul ALU (write address ${i.waddrMul})`;
    }
  }

  if (i.kind === 'sema') peripherals.push('semaphore');

  if (i.kind === 'alu') {
    signal = i.sig;
    raddrs.push(i.raddrA);
    if (i.sig !== 13) raddrs.push(i.raddrB);
    const used: number[] = [];
    if (i.opAdd !== 0) used.push(i.addA, i.addB);
    if (i.opMul !== 0) used.push(i.mulA, i.mulB);
    if (used.includes(MUX_A) && i.raddrA < 32) readsA.push(i.raddrA);
    if (used.includes(MUX_B) && i.sig !== 13 && i.raddrB < 32) readsB.push(i.raddrB);
    readsR4 = used.includes(MUX_R4);
    if (i.raddrA === R_UNIF || (i.sig !== 13 && i.raddrB === R_UNIF)) readsUniform = true;
    if (i.raddrA === R_MUTEX || (i.sig !== 13 && i.raddrB === R_MUTEX)) peripherals.push('mutex acquire');
    if (i.sig === SIG_LOAD_TMU0 || i.sig === SIG_LOAD_TMU1) {
      tmuLoads[i.sig - SIG_LOAD_TMU0]++;
      peripherals.push('TMU read');
    }
    if (TLB_LOAD_SIGNALS.has(i.sig)) peripherals.push('TLB read');
    if (i.sig === 13 && i.raddrB >= 48) {
      rotation = i.raddrB === 48 ? 'r5' : i.raddrB - 48;
      rotationMuxes = [i.mulA, i.mulB];
    }
  }

  const rd = (addr: number) => raddrs.includes(addr);
  const wr = (file: 'a' | 'b' | 'any', addr: number) => waddrs.some((w) => w.addr === addr && (file === 'any' || w.file === file));
  const vpmRead = rd(R_VPM);
  const vpmWrite = wr('any', W_VPM);
  return {
    kind: i.kind,
    readsA,
    readsB,
    writesA,
    writesB,
    raddrs,
    waddrs,
    accWrites,
    readsR4,
    writesR4: sfuWrites > 0 || tmuLoads[0] + tmuLoads[1] > 0 || TLB_LOAD_SIGNALS.has(signal),
    sfuWrites,
    tmuRequests,
    tmuLoads,
    peripherals,
    readsUniform,
    writesUnifAddr: wr('any', W_UNIF_ADDR),
    readsVarying: rd(R_VARY),
    vpmRead,
    vpmWrite,
    vprSetup: wr('a', W_VPM_SETUP),
    vpmAny: vpmRead || vpmWrite || rd(R_VPM_BUSY) || rd(R_VPM_WAIT) || wr('any', W_VPM_SETUP) || wr('any', W_DMA_ADDR),
    writesTmuNoswap: wr('any', W_TMU_NOSWAP),
    writesTlbZ: wr('any', W_TLB_Z),
    readsMsFlags: i.kind === 'alu' && i.raddrA === 42,
    rotation,
    rotationMuxes,
    programEnd: i.kind === 'alu' && PROGRAM_END_SIGNALS.has(i.sig),
    isBranch: i.kind === 'branch',
    doubleWrite,
    nopOpcodeWrite,
    conditionalFifoWrite,
    signal,
  };
}

/** Touches regfile address 14 of either file (forbidden around program end, p. 21). */
export function touchesReg14(e: Effects): boolean {
  return e.raddrs.includes(THREAD_END_RESERVED_ADDR) || e.waddrs.some((w) => w.addr === THREAD_END_RESERVED_ADDR);
}
