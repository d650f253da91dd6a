// The hardware's instruction rules, as data and as checks over instruction effects.
// Source: Broadcom, "VideoCore IV 3D Architecture Reference Guide" (2013), "Summary of
// Instruction Restrictions" (p. 37) and the pages each rule cites; vc4asm's
// doc/VideoCoreIV-addendum.html for behaviour found by testing real chips.
// The static validator (validate.ts) applies these checks along every path of a program; the
// emulator's strict mode applies the same checks to the instructions it actually executes.

import type { Effects } from './effects.ts';
import { touchesReg14 } from './effects.ts';
import { MUX_R3, MUX_R5 } from './tables.ts';

export type Severity = 'error' | 'warning';

export interface RuleInfo {
  readonly severity: Severity;
  readonly summary: string;
  readonly source: string;
}

/**
 * Requests a QPU may have outstanding on one TMU. The guide's request FIFO holds 8 direct
 * lookups (p. 39), but vc4asm's addendum found more than 4 unreliable on real chips, Mesa
 * never queues more than 4, and QPULib's README says 4. qpu-ts uses 4 everywhere: the
 * validator, the emulator, the compiler and the language's `gather`.
 */
export const TMU_FIFO_DEPTH = 4;

export const RULES = {
  'regfile-read-after-write': {
    severity: 'error',
    summary: 'an instruction reads a regfile A or B location written by the previous instruction',
    source: 'Guide p. 17 and p. 37',
  },
  'r4-after-sfu': {
    severity: 'error',
    summary: 'r4 is read or written (SFU, ldtmu, TLB load) in the two instructions after an SFU write',
    source: 'Guide p. 23 and p. 37',
  },
  'one-peripheral': {
    severity: 'error',
    summary: 'more than one of TMU write, TMU read, TLB write, TLB read, SFU write, mutex acquire, semaphore in one instruction',
    source: 'Guide p. 25 and p. 37',
  },
  'double-write': {
    severity: 'error',
    summary: 'both ALUs write the same accumulator or I/O register (undefined), except r0-r3 under opposite conditions (zs/zc, ns/nc, cs/cc), where each lane takes one write',
    source: "Guide p. 19; vc4asm (a double write only without inverse conditions) and Broadcom's FFT shaders for the exception",
  },
  'conditional-fifo-write': {
    severity: 'error',
    summary: 'a conditional write to the VPM or a TMU request register (the FIFO takes the write on every lane anyway)',
    source: "vc4asm's addendum, \"No conditional write to peripheral registers\"",
  },
  'rotate-after-r5-write': {
    severity: 'error',
    summary: 'a rotation by r5 immediately follows a write to r5',
    source: 'Guide p. 37',
  },
  'rotate-after-write': {
    severity: 'error',
    summary: 'a rotation immediately follows a write to the accumulator it rotates',
    source: 'Guide p. 37',
  },
  'rotate-within-quad': {
    severity: 'warning',
    summary: 'a rotation with a mul input other than r0-r3 rotates only within each quad',
    source: "Guide p. 20; vc4asm's addendum, \"Horizontal vector rotation\"",
  },
  'uniform-after-unif-addr': {
    severity: 'error',
    summary: 'a uniform is read within two instructions of a write to unif_addr',
    source: 'Guide p. 22',
  },
  'end-writes-regfile': {
    severity: 'error',
    summary: 'the program-end instruction writes a physical regfile A or B location',
    source: 'Guide p. 21 and p. 37',
  },
  'end-io': {
    severity: 'error',
    summary: 'program end or its two delay slots read uniforms or varyings or access the VPM, VCD or VDW',
    source: 'Guide p. 22 and p. 37',
  },
  'end-reg14': {
    severity: 'error',
    summary: 'program end or its two delay slots read or write address 14 of regfile A or B',
    source: 'Guide p. 21 and p. 37',
  },
  'end-tlb-z': {
    severity: 'error',
    summary: 'the last instruction (second delay slot of program end) writes the TLB Z',
    source: 'Guide p. 37',
  },
  'end-in-end-delay-slot': {
    severity: 'error',
    summary: 'a program end in the two delay slots of another program end',
    source: 'Guide p. 21 (two delay-slot instructions run after a program end, then the QPU is idle); what a second one there does is not documented',
  },
  'end-missing-delay-slots': {
    severity: 'error',
    summary: 'a program end is not followed by its two delay-slot instructions',
    source: 'Guide p. 21',
  },
  'falls-off-end': {
    severity: 'error',
    summary: 'execution can run past the last instruction without a program end',
    source: 'Guide p. 21 (programs end with a Program End signal)',
  },
  'branch-in-delay-slot': {
    severity: 'error',
    summary: 'a branch within two instructions of another branch',
    source: "vc4asm's addendum, \"Distance of branch instructions\" (the guide's 3 delay slots, p. 20)",
  },
  'branch-target-outside': {
    severity: 'error',
    summary: 'a relative branch lands outside the program or between instructions',
    source: 'Guide p. 34',
  },
  'branch-sets-flags': {
    severity: 'warning',
    summary: 'a branch with an odd raddr_a also sets the flags (bit 45 is the ALU set-flags bit)',
    source: "vc4asm's addendum, \"Branch Instruction - implicit set flags\"",
  },
  'branch-on-unset-flags': {
    severity: 'warning',
    summary: 'a conditional branch on flags that no instruction on any path to it sets (an ALU result sets them only with .setf)',
    source: 'Guide p. 28 ("Condition Codes": the flags are updated when the sf bit is set) and Table 11, p. 34',
  },
  'tmu-noswap-too-late': {
    severity: 'error',
    summary: 'a TMU write within two instructions of a write to tmu_noswap',
    source: 'Guide p. 23 and p. 37',
  },
  'tmu-fifo-overrun': {
    severity: 'error',
    summary: `more than ${TMU_FIFO_DEPTH} TMU requests outstanding on one TMU`,
    source: "Guide p. 39; vc4asm's addendum, \"TMU FIFO\"",
  },
  'tmu-read-empty': {
    severity: 'error',
    summary: 'an ldtmu signal with no TMU request outstanding (the QPU would wait forever)',
    source: 'Guide p. 39',
  },
  'vpm-read-too-early': {
    severity: 'warning',
    summary:
      'a VPM read within two instructions of a VPM read setup: the guide calls its data undefined, tests on chips found the read waits for it (the emulator stalls it)',
    source: "Guide p. 56 (reads less than three instructions after the setup); vc4asm's addendum, \"VPM read\" (a read of an empty FIFO stalls)",
  },
  'tlb-z-then-ms-flags': {
    severity: 'error',
    summary: 'the multisample mask is read within two instructions of a TLB Z write',
    source: 'Guide p. 37',
  },
  'reserved-encoding': {
    severity: 'error',
    summary: 'the instruction uses an opcode, mode or condition the guide reserves',
    source: 'Guide Tables 9, 11, 12 and Figure 5',
  },
  'nop-opcode-write': {
    severity: 'warning',
    summary:
      "an ALU whose opcode is nop writes a register: the mul ALU writes its last result of elements 12-15, the add ALU something undocumented; the emulator does not run it (but for an add nop that gives r0-r3 what it reads from it, py-videocore's nop, which changes nothing)",
    source: "vc4asm's addendum, \"Secret access to previous MUL ALU result\"",
  },
  'fragment-only': {
    severity: 'warning',
    summary: 'a tile-buffer, varyings, scoreboard or thread-switch access, which only fragment shaders can make',
    source: 'Guide pp. 20-24',
  },
  'unmapped-read': {
    severity: 'warning',
    summary: 'a read of an I/O address that has no register (it returns the element or QPU number)',
    source: 'Guide Table 14, p. 37, and p. 24 ("default unmapped I/O location read data")',
  },
} as const satisfies Record<string, RuleInfo>;

export type RuleName = keyof typeof RULES;

/**
 * Misuse of the mutex, an error on both of qpu-ts's targets (emulator and interpreter), strict
 * or not. The guide (p. 24) defines only a read that "will stall until access to the mutex is
 * granted" and a write that releases it; what a chip does when the holder reads it again, or
 * when a QPU that does not hold it writes it, is neither documented nor measured (vc4asm's
 * addendum has no mutex tests; Mesa's kernel validator refuses any release write).
 */
export const MUTEX_MISUSE = {
  'mutex-relock':
    'this QPU locks the mutex it already holds: a mutex read waits until the mutex is free (Guide p. 24), so on a chip the QPU would wait for itself forever',
  'mutex-unlock-unheld':
    'this QPU unlocks the mutex without holding it: the guide (p. 24) defines only the holder\'s release; on a chip it may free the mutex while another QPU is inside',
} as const;

export interface Violation {
  readonly rule: RuleName;
  readonly message: string;
}

const v = (rule: RuleName, message: string): Violation => ({ rule, message });

/** Rules about one instruction on its own. */
export function instrViolations(e: Effects): Violation[] {
  const out: Violation[] = [];
  if (e.peripherals.length > 1)
    out.push(v('one-peripheral', `one instruction makes ${e.peripherals.length} peripheral accesses: ${e.peripherals.join(', ')}`));
  if (e.doubleWrite) out.push(v('double-write', e.doubleWrite));
  if (e.nopOpcodeWrite)
    out.push(v('nop-opcode-write', `${e.nopOpcodeWrite} has opcode nop but writes; what it writes is not an operation's result`));
  if (e.conditionalFifoWrite)
    out.push(v('conditional-fifo-write', `a conditional write to ${e.conditionalFifoWrite}: the FIFO takes it on every lane, with undefined data where the condition fails`));
  if (e.programEnd && e.waddrs.some((w) => w.info.unit === 'regfile'))
    out.push(v('end-writes-regfile', 'the program-end instruction writes a physical register, the slot the next thread\'s W and Z take'));
  if (e.rotation !== 0 && e.rotationMuxes.some((m) => m > MUX_R3))
    out.push(v('rotate-within-quad', 'this rotation reads a mul input other than r0-r3, so it only rotates within each quad'));
  return out;
}

/** Whether either of the two instructions before holds `f` (missing ones are the program start). */
const within2 = (p0: Effects | undefined, p1: Effects | undefined, f: (e: Effects) => boolean) =>
  (p0 !== undefined && f(p0)) || (p1 !== undefined && f(p1));
const sfuWrite = (e: Effects) => e.sfuWrites > 0;
const unifAddrWrite = (e: Effects) => e.writesUnifAddr;
const programEnd = (e: Effects) => e.programEnd;
const branch = (e: Effects) => e.isBranch;
const tmuNoswapWrite = (e: Effects) => e.writesTmuNoswap;
const vprSetup = (e: Effects) => e.vprSetup;
const tlbZWrite = (e: Effects) => e.writesTlbZ;

/** The first of `xs` that `ys` holds. (Plain loops: these run for every instruction checked.) */
function firstCommon(xs: readonly number[], ys: readonly number[]): number | undefined {
  for (const x of xs) if (ys.includes(x)) return x;
  return undefined;
}

/** The first accumulator a rotation reads (r0-r3, r5) that `p0` writes. */
function rotatedWrite(cur: Effects, p0: Effects): number | undefined {
  for (const m of cur.rotationMuxes) if ((m <= MUX_R3 || m === MUX_R5) && p0.accWrites.includes(m)) return m;
  return undefined;
}

/**
 * Rules about an instruction and the instructions executed just before it (prev[0] is the
 * previous one, prev[1] the one before). Missing entries are the program start.
 */
export function sequenceViolations(cur: Effects, prev: readonly (Effects | undefined)[]): Violation[] {
  const out: Violation[] = [];
  const p0 = prev[0];
  const p1 = prev[1];

  if (p0) {
    const a = firstCommon(cur.readsA, p0.writesA);
    const b = firstCommon(cur.readsB, p0.writesB);
    if (a !== undefined) out.push(v('regfile-read-after-write', `reads ra${a}, which the previous instruction writes`));
    if (b !== undefined) out.push(v('regfile-read-after-write', `reads rb${b}, which the previous instruction writes`));
  }
  if ((cur.readsR4 || cur.writesR4) && within2(p0, p1, sfuWrite))
    out.push(v('r4-after-sfu', `${cur.readsR4 ? 'reads' : 'writes'} r4 within two instructions of an SFU write`));
  if (cur.rotation === 'r5' && p0?.accWrites.includes(5))
    out.push(v('rotate-after-r5-write', 'rotates by r5 right after an instruction that writes r5'));
  if (cur.rotation !== 0 && p0) {
    const acc = rotatedWrite(cur, p0);
    if (acc !== undefined) out.push(v('rotate-after-write', `rotates r${acc}, which the previous instruction writes`));
  }
  if (cur.readsUniform && within2(p0, p1, unifAddrWrite))
    out.push(v('uniform-after-unif-addr', 'reads a uniform within two instructions of a write to unif_addr'));
  const inEnd = cur.programEnd || within2(p0, p1, programEnd);
  if (inEnd && (cur.readsUniform || cur.readsVarying || cur.vpmAny))
    out.push(
      v('end-io', `${cur.programEnd ? 'the program-end instruction' : 'a program-end delay slot'} reads uniforms or varyings or accesses the VPM`),
    );
  if (inEnd && touchesReg14(cur))
    out.push(v('end-reg14', `${cur.programEnd ? 'the program-end instruction' : 'a program-end delay slot'} touches regfile address 14`));
  if (cur.programEnd && within2(p0, p1, programEnd))
    out.push(v('end-in-end-delay-slot', 'a program end in a delay slot of another program end'));
  if (p1?.programEnd && cur.writesTlbZ) out.push(v('end-tlb-z', 'the last instruction writes the TLB Z'));
  if (cur.isBranch && within2(p0, p1, branch))
    out.push(v('branch-in-delay-slot', 'a branch within two instructions of another branch'));
  if (cur.peripherals.includes('TMU write') && within2(p0, p1, tmuNoswapWrite))
    out.push(v('tmu-noswap-too-late', 'writes the TMU within two instructions of a write to tmu_noswap'));
  if (cur.vpmRead && within2(p0, p1, vprSetup))
    out.push(v('vpm-read-too-early', 'reads the VPM within two instructions of a VPM read setup: the guide leaves the data undefined, chips stall until it arrives'));
  if (cur.readsMsFlags && within2(p0, p1, tlbZWrite))
    out.push(v('tlb-z-then-ms-flags', 'reads the multisample mask within two instructions of a TLB Z write'));
  return out;
}

/**
 * The rule's message, the same on both targets: the interpreter adds what to do instead in the
 * language's terms, and so does the emulator for a compiled kernel (runtime/kernel.ts).
 */
export function gatherAfterStore(lane: number, address: number): string {
  return `a gather of lane ${lane} at 0x${(address >>> 0).toString(16).padStart(8, '0')}, which this run has already stored to: on a Pi it may return the old value from the texture unit's cache`;
}

/**
 * Rule stream-after-store: a uniform read of a word this run has stored to. The uniforms cache,
 * like the TMUs', is cleared before a run (V3D_SLCACTL's UCCS) and not updated by DMA stores
 * (Guide pp. 13-14: the slice's caches read memory through the L2; only the host clears them).
 */
export function streamAfterStore(address: number): string {
  return `a stream's read at 0x${(address >>> 0).toString(16).padStart(8, '0')}, which this run has already stored to: on a Pi it may return the old value from the uniforms cache`;
}

/** What a kernel does instead (stream-after-store), in the language's terms. */
export const STREAM_AFTER_STORE_HINT = '; a stream may only read what the kernel does not store in the same run (docs/language.md, "Broadcast streams")';

/** What a kernel does instead, in the language's terms (the interpreter's message, and a compiled kernel's). */
export const GATHER_AFTER_STORE_HINT = '; load it with a blocking load instead (docs/language.md, "Memory")';
