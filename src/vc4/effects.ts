// What one instruction does to the machine, as facts the hardware rules are stated in: which
// physical registers it reads and writes, whether it touches r4, the TMU, the SFU, the VPM,
// uniforms, the mutex. The validator, the emulator's strict mode and the compiler all ask
// these questions of the same function, so no rule has a second copy that can drift. The facts
// come from the rows of the register, signal and opcode tables (registers.ts, tables.ts).

import type { AluInstr, Instr } from './instr.ts';
import { packOnAdd } from './canonical.ts';
import {
  addWriteFile,
  mulWriteFile,
  R_MS_FLAGS,
  R_VARY,
  R_VPM,
  R_VPM_BUSY,
  R_MUTEX,
  R_VPM_WAIT,
  readAccess,
  type RegAccess,
  type RegFile,
  type RegInfo,
  THREAD_END_RESERVED_ADDR,
  type Unit,
  W_DMA_ADDR,
  W_ACC0,
  W_NOP,
  W_TLB_Z,
  W_TMU_NOSWAP,
  W_UNIF_ADDR,
  W_VPM,
  W_VPM_SETUP,
  writeAccess,
  writeInfo,
} from './registers.ts';

export type { RegAccess } from './registers.ts';
import {
  ADD_NOP,
  COND_ALWAYS,
  COND_NEVER,
  exclusiveConditions,
  MUL_NOP,
  MUX_A,
  MUX_B,
  MUX_R0,
  MUX_R3,
  MUX_R4,
  SIG_NONE,
  SIG_SMALL_IMM,
  SIGNAL_INFO,
  smallImmRotation,
} from './tables.ts';

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
  readonly waddrs: readonly RegAccess[];
  /** The addresses read (raddrs), each in its file with its row. */
  readonly readRegs: readonly RegAccess[];
  /** The input muxes of the ALUs whose opcode is not nop (Table 3), add ALU's first. */
  readonly muxes: readonly number[];
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
const isAccumulator = (info: RegInfo) => info.unit === 'acc';

/**
 * Both ALUs may write one of r0-r3 when no lane takes both writes. The guide (p. 19) calls a
 * write of both ALUs to one accumulator undefined without saying whether the write conditions
 * count; Broadcom's own FFT shaders write an accumulator from both ALUs under opposite
 * conditions, and vc4asm reports a double write only without inverse conditions, so qpu-ts
 * reads the rule per lane for r0-r3. Other registers keep the error: a peripheral takes its
 * write as a whole (a FIFO entry, an SFU or DMA start) whatever the lanes' conditions, and r5's
 * two write addresses replicate across lanes (per quad or to all), so lanes do not separate them.
 */
const exclusiveAccWrite = (info: RegInfo, condAdd: number, condMul: number) =>
  isAccumulator(info) && exclusiveConditions(condAdd, condMul);

/** The closely coupled peripheral access a write to a unit makes, for the one-access rule (p. 37). */
const WRITE_PERIPHERAL: Partial<Record<Unit, string>> = { sfu: 'SFU write', tmu: 'TMU write', tlb: 'TLB write' };

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

/** Effects as they are gathered, write by write and read by read (then returned as they are). */
type Draft = { -readonly [K in keyof Effects]: Effects[K] extends readonly (infer T)[] ? T[] : Effects[K] } & {
  tmuRequests: [number, number];
  tmuLoads: [number, number];
};

function computeEffects(i: Instr): Effects {
  // Every field in one literal, so that all effects share one shape.
  const d: Draft = {
    kind: i.kind,
    readsA: [],
    readsB: [],
    writesA: [],
    writesB: [],
    raddrs: [],
    waddrs: [],
    readRegs: [],
    muxes: [],
    accWrites: [],
    readsR4: false,
    writesR4: false,
    sfuWrites: 0,
    tmuRequests: [0, 0],
    tmuLoads: [0, 0],
    peripherals: [],
    readsUniform: false,
    writesUnifAddr: false,
    readsVarying: false,
    vpmRead: false,
    vpmWrite: false,
    vprSetup: false,
    vpmAny: false,
    writesTmuNoswap: false,
    writesTlbZ: false,
    readsMsFlags: false,
    rotation: 0,
    rotationMuxes: [],
    programEnd: false,
    isBranch: i.kind === 'branch',
    doubleWrite: undefined,
    nopOpcodeWrite: undefined,
    conditionalFifoWrite: undefined,
    signal: SIG_NONE,
  };
  // Writes: the add ALU to waddrAdd, the mul ALU to waddrMul, files chosen by ws.
  if (i.kind === 'branch') {
    recordWrite(d, addWriteFile(i.ws), i.waddrAdd, COND_ALWAYS);
    recordWrite(d, mulWriteFile(i.ws), i.waddrMul, COND_ALWAYS);
    if (i.reg) {
      d.readsA.push(i.raddrA);
      recordRead(d, 'a', i.raddrA);
    }
  } else {
    recordWrite(d, addWriteFile(i.ws), i.waddrAdd, i.condAdd);
    recordWrite(d, mulWriteFile(i.ws), i.waddrMul, i.condMul);
    irregularWrites(d, i);
  }
  if (i.kind === 'sema') d.peripherals.push('semaphore');
  if (i.kind === 'alu') aluReads(d, i);
  derived(d, i);
  return d;
}

/**
 * One ALU's write of `addr` in `file` under condition `cond`. With condition never it writes no
 * register; the access to a unit counts all the same, for the rules about units.
 */
function recordWrite(d: Draft, file: RegFile, addr: number, cond: number): void {
  const access = writeAccess(file, addr);
  const info = access.info;
  if (info.unit === 'nop') return;
  d.waddrs.push(access);
  if (cond !== COND_ALWAYS && info.fifo) d.conditionalFifoWrite = info.name;
  if (info.unit === 'regfile') {
    if (cond !== COND_NEVER) (file === 'a' ? d.writesA : d.writesB).push(addr);
    return;
  }
  if (cond !== COND_NEVER && info.acc !== undefined) d.accWrites.push(info.acc);
  if (info.unit === 'sfu') d.sfuWrites++;
  const peripheral = WRITE_PERIPHERAL[info.unit];
  if (peripheral) d.peripherals.push(peripheral);
  if (info.unit === 'tmu') {
    if (info.fifo) d.tmuRequests[info.tmu!]++;
    if (info.readsUniform) d.readsUniform = true;
  }
}

/** The raw read of `addr` in `file`. */
function recordRead(d: Draft, file: RegFile, addr: number): RegInfo {
  const access = readAccess(file, addr);
  d.raddrs.push(addr);
  d.readRegs.push(access);
  return access.info;
}

/**
 * Writes the hardware does not define or the assembler would not write: both ALUs writing one
 * register, and an ALU writing with opcode nop. The writes are recorded all the same: the
 * hardware makes them (vc4asm's addendum).
 */
function irregularWrites(d: Draft, i: Exclude<Instr, { kind: 'branch' }>): void {
  const a = i.waddrAdd;
  const add = writeInfo(addWriteFile(i.ws), a);
  const mul = writeInfo(mulWriteFile(i.ws), i.waddrMul);
  // The same register in both files: accumulators (r5 replicated either way) and I/O but quad_x/y,
  // ms/rev flags and the VPM read/write setups and addresses, which differ between A and B.
  const same = a === i.waddrMul && add.unit !== 'nop' && (add.both || (add.acc !== undefined && add.acc === mul.acc));
  if (same && i.condAdd !== COND_NEVER && i.condMul !== COND_NEVER && !exclusiveAccWrite(add, i.condAdd, i.condMul))
    d.doubleWrite = `both ALUs write ${writeInfo('a', a).name}${isAccumulator(add) ? ' under conditions that can both hold' : ''}`;
  if (i.kind !== 'alu') return;
  if (i.opAdd === ADD_NOP && i.waddrAdd !== W_NOP && i.condAdd !== COND_NEVER && !addNopKeepsAccumulator(i)) d.nopOpcodeWrite = `the add ALU (write address ${i.waddrAdd})`;
  else if (i.opMul === MUL_NOP && i.waddrMul !== W_NOP && i.condMul !== COND_NEVER) d.nopOpcodeWrite = `the mul ALU (write address ${i.waddrMul})`;
}

/**
 * An add-ALU nop that writes an accumulator r0-r3 and reads only that accumulator, as
 * py-videocore's `nop()` does (its encoding.py gives nop the operands r0, r0, r0, and its
 * assembler.py the condition always). What an add nop writes is not documented; three readings
 * come to mind: nothing, its operand (here the accumulator's own value), or, as the mul ALU's nop
 * does (vc4asm's addendum), its last result of elements 12-15 in each quad. py-videocore's own
 * tests, which run only on a Pi and which its author publishes as passing, rule out the third
 * for this form: tests/test_alu.py's vector_rotation loads 16 random words into r0, puts a nop
 * between that and each of 32 rotations of r0, and checks every rotation against numpy, which
 * elements 12-15 in every quad would fail. No one here has run them on a chip. Its SGEMM also
 * counts its threads down in r0 across one (`sema down; nop; add.setf r0, r0, -1`). Under the
 * other two readings this form changes nothing, so the emulator runs it as writing nothing.
 */
export function addNopKeepsAccumulator(i: AluInstr): boolean {
  const mux = i.waddrAdd - W_ACC0 + MUX_R0;
  return i.opAdd === ADD_NOP && mux >= MUX_R0 && mux <= MUX_R3 && i.addA === mux && i.addB === mux && !packOnAdd(i);
}

/** An ALU instruction's reads: its two read addresses (the second a small immediate with sig 13), the muxes its ALUs use, its signal. */
function aluReads(d: Draft, i: AluInstr): void {
  d.signal = i.sig;
  const smallImm = i.sig === SIG_SMALL_IMM;
  const a = recordRead(d, 'a', i.raddrA);
  const b = smallImm ? undefined : recordRead(d, 'b', i.raddrB);
  if (i.opAdd !== ADD_NOP) d.muxes.push(i.addA, i.addB);
  if (i.opMul !== MUL_NOP) d.muxes.push(i.mulA, i.mulB);
  if (d.muxes.includes(MUX_A) && a.unit === 'regfile') d.readsA.push(i.raddrA);
  if (d.muxes.includes(MUX_B) && b?.unit === 'regfile') d.readsB.push(i.raddrB);
  d.readsR4 = d.muxes.includes(MUX_R4);
  if (a.unit === 'uniform' || b?.unit === 'uniform') d.readsUniform = true;
  if (a.unit === 'mutex' || b?.unit === 'mutex') d.peripherals.push('mutex acquire');
  const sig = SIGNAL_INFO[i.sig]!;
  if (sig.tmuLoad !== undefined) {
    d.tmuLoads[sig.tmuLoad]++;
    d.peripherals.push('TMU read');
  }
  if (sig.tlbLoad) d.peripherals.push('TLB read');
  if (smallImm) {
    d.rotation = smallImmRotation(i.raddrB);
    if (d.rotation !== 0) d.rotationMuxes = [i.mulA, i.mulB];
  }
}

/** Whether the instruction reads `addr` of either file. */
const readsAddr = (d: Draft, addr: number) => d.raddrs.includes(addr);
/** Whether it writes `addr` of `file`, or of either file. */
const writesAddr = (d: Draft, file: RegFile | 'any', addr: number) => d.waddrs.some((w) => w.addr === addr && (file === 'any' || w.file === file));

/** The facts that follow from those gathered. */
function derived(d: Draft, i: Instr): void {
  const sig = SIGNAL_INFO[d.signal]!;
  d.writesR4 = d.sfuWrites > 0 || d.tmuLoads[0] + d.tmuLoads[1] > 0 || sig.tlbLoad === true;
  d.writesUnifAddr = writesAddr(d, 'any', W_UNIF_ADDR);
  d.readsVarying = readsAddr(d, R_VARY);
  d.vpmRead = readsAddr(d, R_VPM);
  d.vpmWrite = writesAddr(d, 'any', W_VPM);
  d.vprSetup = writesAddr(d, 'a', W_VPM_SETUP);
  d.vpmAny =
    d.vpmRead ||
    d.vpmWrite ||
    readsAddr(d, R_VPM_BUSY) ||
    readsAddr(d, R_VPM_WAIT) ||
    writesAddr(d, 'any', W_VPM_SETUP) ||
    writesAddr(d, 'any', W_DMA_ADDR);
  d.writesTmuNoswap = writesAddr(d, 'any', W_TMU_NOSWAP);
  d.writesTlbZ = writesAddr(d, 'any', W_TLB_Z);
  d.readsMsFlags = i.kind === 'alu' && i.raddrA === R_MS_FLAGS;
  d.programEnd = i.kind === 'alu' && sig.endsProgram === true;
}

/** Touches regfile address 14 of either file (forbidden around program end, p. 21). */
export function touchesReg14(e: Effects): boolean {
  return e.raddrs.includes(THREAD_END_RESERVED_ADDR) || e.waddrs.some((w) => w.addr === THREAD_END_RESERVED_ADDR);
}

/**
 * Whether the instruction can stall its QPU: it pops a TMU result (ldtmu), reads the VPM (its
 * FIFO may not be filled yet), reads vr_wait or vw_wait, starts a DMA transfer (which waits for
 * the QPU's last one of that direction), acquires the mutex, or is a semaphore instruction
 * (Guide pp. 37-38, 53-57; the emulator's qpu.ts and sync.ts stall at exactly these).
 */
export function mayStall(e: Effects): boolean {
  return (
    e.kind === 'sema' ||
    e.tmuLoads[0] + e.tmuLoads[1] > 0 ||
    e.vpmRead ||
    e.raddrs.includes(R_VPM_WAIT) ||
    e.raddrs.includes(R_MUTEX) ||
    e.waddrs.some((w) => w.addr === W_DMA_ADDR)
  );
}
