// The machine: 1 to 12 QPUs (3 slices of 4) sharing GPU memory, the VPM, the DMA engines, 16
// semaphores and a mutex (sync.ts), advancing together in time. Each QPU has its own clock; instructions
// that touch what other QPUs can see run in time order, so contention (one DMA at a time, the
// mutex, a slice's TMU) shows in the cycle counts, and results do not depend on how the host
// interleaves the QPUs (or, given a seed, in a random interleaving: common/interleave.ts). A run ends
// when every QPU has ended its program, or with an EmulatorError: a broken rule (strict mode), a
// fault, a deadlock, or the step budget. A caller's onProgress hears how far a long run has got,
// where the run reads the clock (common/budget.ts).

import { MAX_QPUS } from '../vc4/chip.ts';
import * as fields from '../vc4/fields.ts';
import { disassembleInstr } from '../vc4/asm/disasm.ts';
import { encodeProgram } from '../vc4/codec.ts';
import type { Instr } from '../vc4/instr.ts';
import { RULES, sequenceViolations, TMU_FIFO_DEPTH, type Violation } from '../vc4/rules.ts';
import { BLOCK, type BlockFn, CONTINUE, MAX_BLOCK, YIELD } from './blocks.ts';
import { HOT_CALLS, type Translation, translation } from './program.ts';
import { CLOCK_EVERY, count, counted, duration, EMULATOR_PROGRESS_EVERY, EMULATOR_STEPS, RAISE_WITH_EITHER, RunBudget } from '../common/budget.ts';
import { deadlockError, EmulatorError, ruleError } from './errors.ts';
import { drawRunning, Interleaving, interleaveSeed } from '../common/interleave.ts';
import { type SfuMode, sfuOf } from '../vc4/sfu-model.ts';
import { StoreRaces } from './store-race.ts';
import { StoredWords } from './stored.ts';
import { MUTEX, SyncUnits } from './sync.ts';
import { DmaEngines } from './dma.ts';
import { attach, detach } from './wasm/slots.ts';
import { type Allocation, GpuMemory, hex, MemoryFault, READ } from '../common/memory.ts';
import type { Profiler } from './profile.ts';
import { Qpu, type QpuHost, TMU_SLOTS } from './qpu.ts';
import { type RunResult, runResult } from './report.ts';
import { checkTiming, PI_TIMING, type Timing, timingFor } from './timing.ts';
import { DEFAULT_MODEL, isPiModel, piModel, type PiModelName } from './models.ts';
import { MemoryPath } from './memory-path.ts';
import { VPM_WORDS, VpmFormatError, VpmWordSet } from './vpm.ts';

export { MAX_QPUS } from '../vc4/chip.ts';

/**
 * How far (in cycles) a QPU may run past the earliest other running QPU before it yields at an
 * instruction that uses a shared unit (TMU, VPM, DMA, host interrupt). Those operations are
 * ordered in time to within this much; only the cycle counts' fine grain of contention depends
 * on it. Semaphore and mutex operations are ordered exactly (no slack). A few instructions' worth.
 * (An instruction that also reads a uniform waits for the uniforms cache after that check, so
 * its shared-unit step may come up to that wait later than SLACK allows.)
 */
export const SLACK = 32;

// Numbers of the chip that taken branches use, as constants of this module: V8 folds these into
// the code, but loads (and checks) an imported binding at every use.
const INSTRUCTION_BYTES = fields.INSTRUCTION_BYTES;

/** Iterations a block that loops to itself runs in one call at most: 64 of at most MAX_BLOCK instructions, CLOCK_EVERY. */
const LOOPS_PER_CALL = CLOCK_EVERY / MAX_BLOCK;

export interface MachineRunOptions {
  /** Stop at the first broken hardware rule (default true). */
  readonly strict?: boolean;
  /** Instructions all QPUs may execute in total before the run stops (default 200 million). */
  readonly maxSteps?: number;
  /** Called for every executed instruction (runs one instruction at a time). */
  readonly trace?: (qpu: number, pc: number, instr: Instr) => void;
  /** Fills this profile: each instruction's runs, cycles and stalls on each QPU (runs one instruction at a time; profile.ts). */
  readonly profile?: Profiler;
  /** Called with each QPU after reset, before it runs (tests set registers here). */
  readonly init?: (q: Qpu) => void;
  /**
   * Called about every EMULATOR_PROGRESS_EVERY instructions with the instructions all QPUs have
   * run and the cycle model's clock (the furthest QPU's), and once at the end (done), also when
   * the run stops at an error; not again after it throws. Costs nothing when not given.
   */
  readonly onProgress?: (instructions: number, cycles: number, done: boolean) => void;
  /** How the budget's messages say to allow more (default "maxSteps (or --max-steps)"). */
  readonly raiseWith?: string;
  /** A seed: the QPUs in a random interleaving drawn from it, not in time order (common/interleave.ts); the same costs. */
  readonly interleave?: number;
  /** The SFU's results: correctly rounded (default), or off as a chip's are (vc4/sfu-model.ts). */
  readonly sfu?: SfuMode;
  /** The Pi model whose figures this run's cycle model uses (models.ts; default: the machine's Timing, the Pi 1's unless it was given another). */
  readonly model?: PiModelName;
  /** A TMU lane or DMA transfer at an address not a multiple of 4 faults (kernels' strict runs); by default, as on a chip, the low two bits are ignored (Guide p. 41). */
  readonly aligned?: boolean;
  /** The slices' instruction caches as the last run on this machine left them, as for a batch's later jobs (the same code on other data); default: cold, as after the host clears them. */
  readonly warmCode?: boolean;
}

export type { RunResult };

/** A program ready to run: its words in GPU memory and its translation. */
export interface LoadedProgram extends Translation {
  readonly code: Allocation;
}

export class Machine implements QpuHost<Qpu> {
  readonly vpm = new Int32Array(VPM_WORDS);
  codeBase = 0;
  /**
   * The running QPU's limits: a shared-unit step runs only while its clock is at most `horizon`
   * (the earliest other running QPU's clock plus SLACK), a semaphore or mutex step only while it
   * is before `syncHorizon` (that clock itself), or at it if no QPU numbered lower is there
   * (`syncTie` is the lowest number there; see syncLate). Waking a QPU lowers them.
   */
  horizon = Infinity;
  private syncHorizon = Infinity;
  private syncTie = MAX_QPUS;
  /** The semaphores and the mutex. */
  readonly sync = new SyncUnits();
  private qpus: Qpu[] = [];
  /** The QPUs, made on first use and reused by every run, and their strict runs' VPM word sets. */
  private readonly pool: Qpu[] = [];
  private readonly wordSets: { load: VpmWordSet; store: VpmWordSet }[] = [];
  private program: LoadedProgram | undefined;
  /** The TMUs' timing, the caches, the instruction caches and the SDRAM (memory-path.ts), cold at the start of each run. */
  private readonly path = new MemoryPath(this);
  /** The SDRAM behind the caches and the DMA engines (sdram.ts), shared by every unit. */
  readonly sdram = this.path.sdram;
  /** The DMA engines between the VPM and memory, shared by the QPUs. */
  readonly dma: DmaEngines = new DmaEngines(this);
  /** The run in progress: its random interleaving (undefined: time order); whether it wants aligned addresses. */
  private turns: Interleaving | undefined;
  aligned = false;
  /** Strict runs: the DMA stores that may still be writing memory (rule dma-store-race). */
  readonly races: StoreRaces;
  /** Strict runs: the words DMA stores have written in this run (rule gather-after-store). */
  readonly stored: StoredWords;

  /** The cycle model's figures for the run in progress (or the last): the machine's, or those of the model the run names. */
  timing: Timing;
  /** The model `timing` is of: the default's for PI_TIMING, undefined for a Timing of the caller's own. */
  private model: PiModelName | undefined;

  constructor(
    readonly memory: GpuMemory = new GpuMemory(),
    private readonly baseTiming: Timing = PI_TIMING,
  ) {
    this.timing = checkTiming(baseTiming);
    this.model = baseTiming === PI_TIMING ? DEFAULT_MODEL : undefined;
    this.races = new StoreRaces(memory.maxBytes);
    this.stored = new StoredWords(memory.maxBytes);
  }

  /** The QPUs of the last run, with their registers as the run left them (until the next run). */
  get lastRun(): readonly Qpu[] {
    return this.qpus;
  }

  /** Copies a program into GPU memory; its translation is shared by every machine that loads it. */
  load(program: Uint32Array | readonly Instr[], name = 'code'): LoadedProgram {
    const words = program instanceof Uint32Array ? program : encodeProgram(program);
    const t = translation(words);
    const code = this.memory.alloc(t.length * INSTRUCTION_BYTES, name, READ);
    this.memory.words.set(new Int32Array(words.buffer, words.byteOffset, words.length), this.memory.index(code.address));
    return { code, ...t };
  }

  /**
   * Runs `program` on one QPU per entry of `uniforms` (the bus address of each QPU's uniform
   * stream), all starting at the first instruction, until every one has ended.
   */
  run(program: LoadedProgram, uniforms: readonly number[], opts: MachineRunOptions = {}): RunResult {
    const n = uniforms.length;
    if (n < 1 || n > MAX_QPUS) throw new RangeError(`a run uses 1 to ${MAX_QPUS} QPUs, not ${n}`);
    this.memory.assertIntact();
    if (opts.model !== undefined && !isPiModel(opts.model)) piModel(String(opts.model));
    this.timing = opts.model === undefined ? this.baseTiming : timingFor(opts.model);
    this.model = opts.model ?? (this.baseTiming === PI_TIMING ? DEFAULT_MODEL : undefined);
    this.program = program;
    this.codeBase = program.code.address;
    // Every run starts from the same state, whatever ran before (on a Pi the VPM keeps what the
    // last user left: a program must not read VPM it did not write; docs/emulator.md).
    this.vpm.fill(0);
    this.sync.reset();
    this.dma.reset();
    this.path.reset(opts.warmCode ?? false);
    this.races.reset();
    program.calls.fill(0);
    const seed = interleaveSeed(opts.interleave);
    if (typeof seed === 'object') throw new RangeError(seed.error);
    this.turns = seed === undefined ? undefined : new Interleaving(seed);
    const strict = opts.strict ?? true;
    this.stored.reset(strict);
    this.aligned = opts.aligned ?? false;
    const budget = new RunBudget(opts.maxSteps, EMULATOR_STEPS, 'emulator', EMULATOR_PROGRESS_EVERY, !!opts.onProgress, opts.raiseWith ?? RAISE_WITH_EITHER);
    this.qpus = [];
    let failed = false;
    try {
      for (const [id, u] of uniforms.entries()) {
        // The machine's QPUs are made once and reset for each run (lastRun is the last run's until the next).
        const q = (this.pool[id] ??= new Qpu(id, this));
        attach(q);
        this.qpus.push(q);
        q.reset(0, u);
        q.tmuLimit = strict ? TMU_FIFO_DEPTH : TMU_SLOTS;
        q.sfuFn = sfuOf(opts.sfu);
        q.dmaWords = strict ? (this.wordSets[id] ??= { load: new VpmWordSet(), store: new VpmWordSet() }) : null;
        opts.init?.(q);
      }
      opts.profile?.start(n, program.length);
      for (;;) {
        const q = this.turns ? this.nextTurn(this.turns) : this.next();
        if (!q) {
          if (this.qpus.every((x) => x.state === 'done')) break;
          throw deadlockError(this.qpus);
        }
        this.runQpu(q, strict, budget, opts);
      }
      // Memory taken from under the run (by a callback) leaves nothing it did to trust.
      this.memory.assertIntact();
    } catch (e) {
      failed = true;
      this.memory.assertIntact();
      throw e;
    } finally {
      // Also after an error, each QPU's figures are where it got to (lastRun).
      for (const x of this.qpus) {
        x.stats.instructions = x.count;
        x.stats.cycles = x.time;
        detach(x);
      }
      if (opts.onProgress) this.reportProgress(budget, opts.onProgress, true, failed);
    }
    const result = runResult(this.qpus.map((x) => x.stats), this.timing.clockHz, this.model);
    return opts.profile ? { ...result, profile: opts.profile.result(), dmaBusy: { load: this.dma.loadBusy, store: this.dma.storeBusy } } : result;
  }

  /**
   * The QPU to run next: the earliest running one (the lowest-numbered at equal clocks), with
   * the horizons set by the earliest of the others. One pass over the QPUs, no allocation.
   */
  private next(): Qpu | undefined {
    let q: Qpu | undefined;
    let otherTime = Infinity;
    let otherId = MAX_QPUS;
    const qpus = this.qpus;
    for (let i = 0; i < qpus.length; i++) {
      const x = qpus[i]!;
      if (x.state !== 'running') continue;
      let other = x;
      if (!q || x.time < q.time) {
        other = q ?? x;
        q = x;
      }
      if (other === q) continue;
      if (other.time < otherTime || (other.time === otherTime && other.id < otherId)) {
        otherTime = other.time;
        otherId = other.id;
      }
    }
    this.syncHorizon = otherTime;
    this.syncTie = otherId;
    this.horizon = otherTime + SLACK;
    return q;
  }

  /** A running QPU drawn at random, whose turn ends at its first shared-unit step past a random number of cycles (never its first step). */
  private nextTurn(turns: Interleaving): Qpu | undefined {
    const q = drawRunning(this.qpus, turns);
    if (q) this.horizon = this.syncHorizon = q.time + turns.turnCycles();
    this.syncTie = MAX_QPUS;
    return q;
  }

  /** Runs one QPU until it ends, blocks, or reaches a shared instruction beyond its horizon. */
  private runQpu(q: Qpu, strict: boolean, budget: RunBudget, opts: MachineRunOptions): void {
    const p = this.program!;
    const trace = opts.trace;
    const profile = opts.profile;
    const blocks = strict ? p.blocks.strict : p.blocks.loose;
    for (;;) {
      const pc = q.pc;
      if (pc < 0 || pc >= p.length)
        throw this.locate(q, pc, new EmulatorError('fault', `the program counter left the program (${p.length} instructions)`));
      let fn: BlockFn;
      // Blocks need no branch or program end pending; units handle everything one at a time.
      if (trace || profile || q.branchCountdown > 0 || q.endCountdown > 0 || budget.left < MAX_BLOCK) {
        if (budget.left <= 0)
          throw this.locate(q, pc, new EmulatorError('budget', budget.spent('instruction', this.progress())));
        if (strict) this.checkEntry(q, pc, q.prev0, q.prev1);
        if (trace) trace(q.id, pc, p.step(pc).instr);
        fn = p.blocks.units[pc] ?? p.unit(pc);
      } else {
        if (strict) this.checkEntry(q, pc, q.prev0, q.prev1);
        // The second instruction's rules depend on the one before the block, known only now. When
        // it breaks one, the first instruction runs on its own and the check comes before the
        // second, where it belongs: a fault or a wait in the first is reported, not the rule.
        if (strict && p.blockEnd(pc) > pc && this.entryViolation(pc + 1, pc, q.prev0))
          fn = p.blocks.units[pc] ?? p.unit(pc);
        else {
          const hot = ++p.calls[pc]! > this.qpus.length && ++p.repeats[pc]! === HOT_CALLS;
          fn = hot || !blocks[pc] ? p.block(pc, strict) : blocks[pc]!;
        }
      }
      const before = q.count;
      // A block that loops to itself runs at most this many times a call, within the budget and
      // often enough back here to read the clock (CLOCK_EVERY).
      q.loops = Math.min(LOOPS_PER_CALL, Math.floor(budget.left / MAX_BLOCK));
      let status: number;
      try {
        if (profile) {
          profile.enter(q);
          status = fn(q);
          profile.leave(q, pc);
        } else status = fn(q);
      } catch (e) {
        throw this.locate(q, q.pc, e); // a block leaves pc at the instruction that failed
      }
      budget.left -= q.count - before;
      if (budget.watch && (budget.clock += q.count - before + 1) >= CLOCK_EVERY) this.readClock(q, budget, opts);
      if (status === CONTINUE) continue;
      if (status === YIELD) return;
      if (status === BLOCK) {
        q.state = 'blocked';
        return;
      }
      q.state = 'done';
      q.syncR4(Infinity); // an SFU result still on its way lands in r4, for whoever inspects the QPU
      return;
    }
  }

  /** Strict mode: stops at a rule broken by instruction pc after the two executed before it. */
  private checkEntry(q: Qpu, pc: number, p0: number, p1: number): void {
    const bad = this.entryViolation(pc, p0, p1);
    if (bad) this.ruleBroken(q, pc, bad);
  }

  /** The first error-severity rule instruction pc breaks after p0 and p1 (-1: none), cached per program. */
  private entryViolation(pc: number, p0: number, p1: number): Violation | null {
    const p = this.program!;
    // One map per instruction, keyed by the pair of predecessors: exact for any program length.
    const cache = (p.entryChecks[pc] ??= new Map());
    const key = (p0 + 1) * (p.length + 1) + (p1 + 1);
    let bad = cache.get(key);
    if (bad === undefined) {
      const step = p.step(pc);
      const seq = sequenceViolations(step.effects, [p.effects(p0), p.effects(p1)]);
      bad = step.alone.find(isError) ?? seq.find(isError) ?? null;
      cache.set(key, bad);
    }
    return bad;
  }

  /** Strict mode: stops the run at a broken rule. */
  private ruleBroken(q: Qpu, pc: number, v: Violation): never {
    throw this.locate(q, pc, ruleError(v));
  }

  /** Adds the QPU, pc and instruction to an error raised while executing. */
  private locate(q: Qpu, pc: number, e: unknown): EmulatorError {
    const instr = this.program!.instr(pc);
    const where = { qpu: q.id, pc, instruction: instr ? disassembleInstr(instr) : '(outside the program)' };
    if (e instanceof EmulatorError) return e.where ? e : new EmulatorError(e.kind, e.message, where, e.rule);
    if (e instanceof VpmFormatError) return new EmulatorError('unsupported', e.message, where);
    if (e instanceof MemoryFault) return new EmulatorError('fault', e.message, where);
    throw e;
  }

  /** Instructions all QPUs have run, and the cycle model's clock: the furthest QPU's. */
  private reached(): { instructions: number; cycles: number } {
    let instructions = 0;
    let cycles = 0;
    for (const x of this.qpus) {
      instructions += x.count;
      cycles = Math.max(cycles, x.time);
    }
    return { instructions, cycles };
  }

  /** Every CLOCK_EVERY steps: the time limit, and progress (out of runQpu's loop, which stays small). */
  private readClock(q: Qpu, budget: RunBudget, opts: MachineRunOptions): void {
    budget.clock = 0;
    if (budget.timeUp()) throw this.locate(q, q.pc, new EmulatorError('budget', budget.timeSpent(this.progress())));
    if (opts.onProgress) this.reportProgress(budget, opts.onProgress, false);
  }

  /** Reports progress when the run has passed the next report's count (or at the end; `failed`: the run threw). */
  private reportProgress(budget: RunBudget, onProgress: NonNullable<MachineRunOptions['onProgress']>, done: boolean, failed = false): void {
    const { instructions, cycles } = this.reached();
    budget.progress(instructions, done, () => onProgress(instructions, cycles, done), failed);
  }

  /** How far the run got, for budget messages: "2,000 instructions (QPU 0 1,000, QPU 1 1,000), 8,120 cycles (32.5 µs on a Pi)". */
  private progress(): string {
    const { instructions, cycles } = this.reached();
    const each = this.qpus.length > 1 ? ` (${this.qpus.map((x) => `QPU ${x.id} ${count(x.count)}`).join(', ')})` : '';
    return `${counted(instructions, 'instruction')}${each}, ${count(cycles)} cycles (${duration(cycles / this.timing.clockHz)} on a Pi)`;
  }

  // ---- shared units

  tmuSchedule(q: Qpu, t: number, time: number, lines: Int32Array, nLines: number): number {
    return this.path.tmu(q, t, time, lines, nLines);
  }

  fetch(q: Qpu, line: number, after: number): void {
    this.path.fetch(q, line, after);
  }

  uniform(q: Qpu, addr: number, start: boolean): void {
    this.path.uniform(q, addr, start);
  }

  /** QPUs in the run. */
  get qpuCount(): number {
    return this.qpus.length;
  }

  /** The earliest clock of a QPU still running. */
  earliestClock(): number {
    let earliest = Infinity;
    for (const x of this.qpus) if (x.state !== 'done' && x.time < earliest) earliest = x.time;
    return earliest;
  }

  /** A semaphore instruction (sync.ts); QPUs waiting on the semaphore retry. */
  semaphore(q: Qpu, n: number, down: boolean): boolean {
    if (!this.sync.semaphore(q, n, down)) return false;
    this.wake(n);
    return true;
  }

  /** Reading the mutex register (sync.ts). */
  mutexAcquire(q: Qpu): boolean {
    return this.sync.mutexAcquire(q);
  }

  /** Writing the mutex register (sync.ts); QPUs waiting for it retry. */
  mutexRelease(q: Qpu): void {
    this.sync.mutexRelease(q);
    this.wake(MUTEX);
  }

  /**
   * Lets the QPUs blocked on `what` try again. Their clocks stay where they blocked: the retry
   * stalls until the unit it takes became available, and counts the wait as a stall of that
   * kind. The running QPU yields before its next semaphore or mutex step later than theirs, and
   * before its next other shared-unit step more than SLACK later.
   */
  private wake(what: number): void {
    for (const x of this.qpus) {
      if (x.state !== 'blocked' || x.waitingOn !== what) continue;
      x.state = 'running';
      x.waitingOn = -1;
      if (!this.turns) this.limitBy(x); // a random interleaving's turn ends as it was drawn
    }
  }

  /** Lowers the running QPU's horizons for another running QPU `x`. */
  private limitBy(x: Qpu): void {
    if (x.time < this.syncHorizon) {
      this.syncHorizon = x.time;
      this.syncTie = x.id;
    } else if (x.time === this.syncHorizon) this.syncTie = Math.min(this.syncTie, x.id);
    this.horizon = Math.min(this.horizon, x.time + SLACK);
  }

  /**
   * Whether running QPU `q` must let another QPU go first before a semaphore or mutex step:
   * those go in order of clock, then of QPU number.
   */
  syncLate(q: Qpu): boolean {
    return q.time > this.syncHorizon || (q.time === this.syncHorizon && q.id > this.syncTie);
  }

  /** The instruction index of an absolute branch target, or a fault. */
  branchIndex(addr: number): number {
    const off = addr - this.codeBase;
    const n = this.program!.length;
    if (off % INSTRUCTION_BYTES !== 0 || off < 0 || off / INSTRUCTION_BYTES >= n)
      throw new EmulatorError('fault', `branch to ${hex(addr)}, which is not an instruction of the program (${hex(this.codeBase)}, ${n} instructions)`);
    return off / INSTRUCTION_BYTES;
  }
}

const isError = (v: Violation) => RULES[v.rule].severity === 'error';
