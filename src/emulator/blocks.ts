// Puts translated instructions together into functions that each run a straight stretch of the
// program: a block. A block runs from its first instruction to the first of: the third delay
// slot of a branch in it, the second delay slot of a program end in it, the end of the program,
// or MAX_BLOCK instructions. Consecutive instructions that only do lane arithmetic share one lane
// loop. Blocks are made lazily, one per starting instruction, and cached.
// Needs: the program's steps (made as they are asked for: program.ts), and for a block, a QPU
// with no branch or program end pending.
// Guarantees: the QPU's pc, clock, counts, registers, pending branch and program end afterwards
// are exactly as if its instructions had run one at a time, also when one of them fails (then as
// before that instruction, but for the uniform it read and the uniforms cache's wait for it, as
// one at a time too); strict-mode rule checks along the block's own fall-through are
// resolved when the block is made and run right before the instruction that breaks the rule.
//
// A "unit" is a block of one instruction that handles pending branches and program ends in
// general; the machine uses units for tracing, near the step budget, and inside delay slots.

import { disassembleInstr } from '../vc4/asm/disasm.ts';
import { LANES } from '../vc4/chip.ts';
import { fieldOf } from '../vc4/codec.ts';
import { SIG_BRANCH } from '../vc4/fields.ts';
import { RULES, sequenceViolations, type Violation } from '../vc4/rules.ts';
import { PROGRAM_END_SIGNALS, SIG_SMALL_IMM } from '../vc4/tables.ts';
import { R_UNIF } from '../vc4/registers.ts';
import { type Code, declareWords, type InstrCode, isSyncR4, isWait, print, type Ref, type Stmt, type View } from './code.ts';
import { ruleError } from './errors.ts';
import { wordName } from './layout.ts';
import type { Qpu } from './qpu.ts';
import type { Step } from './step.ts';
import { INSTRS_PER_LINE, LOG2_INSTRS_PER_LINE } from './icache.ts';
import { CYCLES_PER_INSTR } from './timing.ts';
import { HELPERS, instrCode, type TranslateOptions } from './translate.ts';
import { listings } from './wasm/encoder.ts';
import { rotation, supported, worthAlone } from './wasm/lanes.ts';
import { LaneModule } from './wasm/module.ts';

/** What a block returns to the machine: go on with the next block, yield to the other QPUs, wait for one (blocked), or the program has ended. */
export const CONTINUE = 0;
export const YIELD = 1;
export const BLOCK = 2;
export const DONE = 3;
const STATUS = ['CONTINUE', 'YIELD', 'BLOCK', 'DONE'] as const;
type Status = (typeof STATUS)[number];

/** Runs from q.pc; returns CONTINUE, YIELD, BLOCK or DONE. Shared-unit steps compare q.time with the machine's horizons. */
export type BlockFn = (q: Qpu) => number;

/** What blocks read of a program (program.ts): its steps, and where a block that starts at pc ends. */
export interface Steps {
  readonly step: (pc: number) => Step;
  readonly blockEnd: (pc: number) => number;
}

export const MAX_BLOCK = 64;

const HELPER_NAMES = [...Object.keys(HELPERS), 'ruleError'];
const HELPER_VALUES = [...Object.values(HELPERS), ruleError];

const isError = (v: Violation) => RULES[v.rule].severity === 'error';

/**
 * When a shared-unit step must yield to the other QPUs: semaphore and mutex steps run in order
 * of clock, then QPU number (q.m.syncLate); other shared units (TMU, VPM, DMA, host interrupts)
 * within SLACK of the earliest other QPU (q.m.horizon). See machine.ts.
 */
const mustYield = (s: Step) => (s.sync ? 'q.m.syncLate(q)' : 'q.time > q.m.horizon');

/** After a jump: the branch queued in its last delay slot becomes the pending one. */
const PROMOTE =
  'if (q.branchCountdown2 > 0) { q.branchTarget = q.branchTarget2; q.branchCountdown = q.branchCountdown2 - 1; q.branchCountdown2 = 0; } else q.branchCountdown = 0;';

const isEnd = (s: Step) => s.instr.kind === 'alu' && PROGRAM_END_SIGNALS.has(s.instr.sig);

/** The signal field, read straight from an instruction's high word (blockEnd reads every one of a block). */
const F_SIG = fieldOf('alu', 'sig');
const SIG_SHIFT = F_SIG.lo - 32;
const SIG_MASK = (1 << F_SIG.width) - 1;
const BRANCH = SIG_BRANCH;
/** The read-address fields of an ALU instruction's low word (a uniform is address 32 of either file). */
const F_RADDR_A = fieldOf('alu', 'raddrA');
const F_RADDR_B = fieldOf('alu', 'raddrB');
/**
 * Uniform reads a block holds at most. Each runs as an instruction of its own, lane by lane in
 * JavaScript (its read may fault, and must come before the next instruction's), so a block of 64
 * of them (a stream's multiply-adds: examples/sgemm.ts) is a function too large for V8 to
 * optimize, and ran 3 times slower than blocks of 16.
 */
const MAX_BLOCK_UNIFORM_READS = 16;

/**
 * The last instruction of the block that starts at `start`, from the program's words (low word
 * first; only the signals are read). A branch in the first or second delay slot of another (a
 * broken rule, run in non-strict mode) starts a new block: a block's exits assume at most one
 * branch pending, or one queued in the last delay slot.
 */
export function blockEnd(words: Uint32Array, start: number): number {
  const n = words.length >>> 1;
  const sig = (pc: number) => (words[2 * pc + 1]! >>> SIG_SHIFT) & SIG_MASK;
  const isBranch = (pc: number) => sig(pc) === BRANCH;
  const field = (pc: number, f: { lo: number; width: number }) => (words[2 * pc]! >>> f.lo) & ((1 << f.width) - 1);
  const readsUniform = (pc: number) => sig(pc) < SIG_SMALL_IMM ? field(pc, F_RADDR_A) === R_UNIF || field(pc, F_RADDR_B) === R_UNIF : sig(pc) === SIG_SMALL_IMM && field(pc, F_RADDR_A) === R_UNIF;
  let uniforms = 0;
  let k = start;
  for (;;) {
    for (let j = Math.max(start, k - 3); j <= k; j++) {
      if (isBranch(j) && j + 3 === k) return k;
      if (PROGRAM_END_SIGNALS.has(sig(j)) && j + 2 === k) return k; // ALU signals: kind alu
    }
    if (k + 1 >= n || k + 1 - start >= MAX_BLOCK) return k;
    if (readsUniform(k) && ++uniforms >= MAX_BLOCK_UNIFORM_READS) return k;
    if (isBranch(k + 1) && (isBranch(k) || (k - 1 >= start && isBranch(k - 1)))) return k;
    k++;
  }
}

/** Instructions of a block that run together: one lane loop for all, or (one instruction) alone. */
interface Group {
  readonly first: number;
  readonly codes: InstrCode[];
  /** Strict runs: the error rule the first instruction breaks along the fall-through; the block stops there. */
  readonly bad?: Violation;
}

export function compileBlock(p: Steps, start: number, strict: boolean, opts: TranslateOptions): BlockFn {
  const end = p.blockEnd(start);
  const w = new BlockWriter(p, start, end, opts);
  for (const g of groupsOf(p, start, end, strict, opts)) {
    w.group(g);
    if (g.bad) return w.make(`block_${start}_${end}`); // it throws there: nothing after it runs
  }
  w.exit(strict);
  return w.make(`block_${start}_${end}`);
}

/**
 * The block's instructions in groups. Runs of lane-only instructions become one group with one
 * lane loop; anything else, and any instruction that must run on its own, a group of its own.
 */
function groupsOf(p: Steps, start: number, end: number, strict: boolean, opts: TranslateOptions): Group[] {
  const step = p.step;
  // A group's r4 reads all see r4 as it is at the group's start (the SFU-result checks are
  // hoisted before the loop), so in non-strict runs an instruction that reads r4 starts a new
  // group when an SFU result may arrive inside the group: when an SFU write may be among the two
  // instructions executed before the group. In strict runs such a read breaks r4-after-sfu and
  // stops the run before it.
  const sfuJustBefore = (first: number) => [first - 1, first - 2].some((j) => j < start || step(j).effects.sfuWrites > 0);
  // Strict runs: an instruction that breaks a rule along the block's fall-through (known from
  // the third instruction on; the machine checks the first two on entry) starts its own group,
  // so that the run stops right before it, after everything before it has run.
  const broken = (k: number) => (strict && k >= start + 2 ? (step(k).alone.find(isError) ?? step(k).fallThrough.find(isError)) : undefined);
  const groups: Group[] = [];
  for (let k = start; k <= end; k++) {
    const s = step(k);
    const code = instrCode(s.instr, k, opts);
    const g = groups[groups.length - 1];
    const bad = broken(k);
    const r4Late = !strict && g !== undefined && s.effects.readsR4 && sfuJustBefore(g.first);
    // A uniform read, the one thing in a lane-only instruction that can fault, starts a group:
    // a fault then leaves registers, clock and counts as they were before that instruction.
    const mayFault = s.effects.readsUniform;
    // A shared-unit step (even one whose write never happens, as `or.never mutex, ...`) runs alone,
    // after its horizon check, as it does one instruction at a time.
    if (s.shared) code.fusable = false;
    if (g && !bad && !mayFault && code.fusable && g.codes[g.codes.length - 1]!.fusable && !r4Late) g.codes.push(code);
    else groups.push({ first: k, codes: [code], bad });
  }
  return groups;
}

/**
 * Writes a block's function: its groups in order, then its exit. Keeps what the text uses, so
 * that the function declares only those: the views of the QPU's state, the names of the register
 * words, the status codes, the QPU's last pc before the block (`p0`).
 */
class BlockWriter {
  private readonly lines: string[] = [];
  private readonly views = new Set<View>();
  private readonly words = new Set<number>();
  private readonly statuses = new Set<Status>();
  private usesP0 = false;
  /** Nops executed so far in the block, and its last branch and program end so far (-1: none). */
  private nops = 0;
  private branchAt = -1;
  private endAt = -1;
  /** Lane arithmetic WebAssembly SIMD can do runs as SIMD functions (wasm/lanes.ts). */
  private readonly lanes = new LaneModule();

  constructor(
    private readonly p: Steps,
    private readonly start: number,
    private readonly end: number,
    private readonly opts: TranslateOptions,
  ) {}

  /** Code as text; the references it makes are declared. */
  private text(code: Code, local?: (r: Ref) => string | undefined): string {
    return print(code, local, this.declare);
  }

  private readonly declare = (r: Ref): void => {
    if (r.view !== undefined) this.views.add(r.view);
    if (r.word !== undefined) this.words.add(r.word);
  };

  private status(s: Status): string {
    this.statuses.add(s);
    return `return ${s};`;
  }

  /** The QPU's instruction before `k` at the block's start: `k` itself, or the one before the block. */
  private before(k: number): string {
    if (k >= this.start) return String(k);
    this.usesP0 = true;
    return 'p0';
  }

  /** Leaves the block before instruction k, as if it had run one instruction at a time. */
  private leaveBefore(k: number): string {
    const out = [`q.pc = ${k};`];
    if (k - 1 >= this.start) out.push(`q.prev0 = ${k - 1};`, `q.prev1 = ${this.before(k - 2)};`);
    if (this.nops) out.push(`q.stats.nops += ${this.nops};`);
    if (this.branchAt >= 0 && k <= this.branchAt + 3) out.push(`if (q.branchCountdown > 0) q.branchCountdown = ${this.branchAt + 4 - k};`);
    if (this.endAt >= 0 && k <= this.endAt + 2) out.push(`q.endCountdown = ${this.endAt + 3 - k};`);
    return out.join(' ');
  }

  /** A statement before an instruction's lane loop; `ahead`: instructions since the clock's count (a group counts at its end). */
  private stmt(s: Stmt, k: number, ahead: number, unit: boolean): string {
    if (isSyncR4(s)) return `q.syncR4(${ahead});`;
    if (isWait(s)) return `if (!${this.text(s.until)}) ${unit ? this.status('BLOCK') : `{ ${this.leaveBefore(k)} ${this.status('BLOCK')} }`}`;
    return this.text(s);
  }

  /** A group's first line: its instructions, with their assembly when listings are kept. */
  private header(first: number, n: number): string[] {
    if (!listings.on) return [`// ${first}${n > 1 ? `-${first + n - 1}` : ''}`];
    return range(first, n).map((k) => `// ${k}: ${disassembleInstr(this.p.step(k).instr)}`);
  }

  /** One group, then what it did to the counts, the pending branch and the program end. */
  group(g: Group): void {
    const { first, codes } = g;
    this.lines.push(...this.header(first, codes.length), `at = ${first};`);
    if (g.bad) {
      this.lines.push(`throw ruleError(${JSON.stringify(g.bad)});`);
      return;
    }
    // The instruction cache's line (icache.ts) at the block's first instruction: a miss stalls here (a fused group fetches later lines as it reaches them).
    if (first === this.start || first % INSTRS_PER_LINE === 0) this.lines.push(this.fetch(first, 0));
    if (codes.length === 1) this.alone(first, codes[0]!);
    else this.fused(first, codes);
    for (let k = first; k < first + codes.length; k++) {
      const s = this.p.step(k);
      if (s.nop) this.nops++;
      if (s.instr.kind === 'branch') {
        if (k + 3 === this.end) this.lines.push('const took = q.branchCountdown > 0;');
        this.branchAt = k;
      }
      if (isEnd(s) && !(this.endAt >= 0 && k <= this.endAt + 2)) this.endAt = k; // one in the delay slots does not count
    }
  }

  /** The fetch of instruction k's instruction-cache line, `ahead` instructions after the clock's count (passed as cycles). */
  private fetch(k: number, ahead: number): string {
    return `q.m.fetch(q, ${k >> LOG2_INSTRS_PER_LINE}, ${ahead * CYCLES_PER_INSTR});`;
  }

  /** Instruction k on its own: its yield to the other QPUs if it uses a shared unit, its code, its count. */
  private alone(k: number, c: InstrCode): void {
    const s = this.p.step(k);
    if (s.shared) this.lines.push(`if (${mustYield(s)}) { ${this.leaveBefore(k)} ${this.status('YIELD')} }`);
    const simd = this.simdOne(k) && worthAlone(s.instr);
    const code = simd ? this.simdAlone(k, c) : this.instr(k, c, false);
    this.lines.push(...(code.length ? ['{', ...code, '}'] : []), `q.time += ${CYCLES_PER_INSTR}; q.count++;`);
  }

  /** Lane-only instructions from `first` in one group: their statements before the loop, then runs of SIMD calls and of lane loops, in order. */
  private fused(first: number, codes: InstrCode[]): void {
    // Only the group's first instruction can fault (uniform reads start groups), so `at` holds.
    // A line that starts within the group is fetched where its first instruction issues, `j` instructions on (the group counts time at its end).
    codes.forEach((c, j) => {
      if (j > 0 && (first + j) % INSTRS_PER_LINE === 0) this.lines.push(this.fetch(first + j, j));
      this.lines.push(...c.pre.map((s) => this.stmt(s, first + j, j, false)));
    });
    const simd = (j: number) => codes[j]!.fusable && this.simdOne(first + j);
    for (let j = 0; j < codes.length; ) {
      const kind = simd(j);
      let n = 1;
      while (j + n < codes.length && simd(j + n) === kind) n++;
      // A run that does nothing lane by lane (nops) needs no call.
      if (kind && codes.slice(j, j + n).some((c) => c.loop.length)) this.lines.push(this.lanes.add(range(first + j, n).map((k) => this.p.step(k).instr), first + j));
      else if (!kind) {
        const bodies = codes.slice(j, j + n).filter((c) => c.loop.length);
        if (bodies.length) this.lines.push(`for (let l = 0; l < ${LANES}; l++) {`, ...this.promoteRegisters(bodies.map((c) => c.loop)), '}');
      }
      j += n;
    }
    this.lines.push(`q.time += ${CYCLES_PER_INSTR * codes.length}; q.count += ${codes.length};`);
  }

  private simdOne(k: number): boolean {
    return this.opts.simd && !this.opts.lastReads && supported(this.p.step(k).instr);
  }

  /** An instruction's JavaScript: before its lane loop, the loop, after it; in a unit, a wait returns at once. */
  instr(k: number, c: InstrCode, unit: boolean): string[] {
    const loop = c.loop.length ? [`for (let l = 0; l < ${c.lanes ?? LANES}; l++) {`, ...c.loop.map((x) => this.text(x)), '}'] : [];
    const body = [...c.pre.map((s) => this.stmt(s, k, 0, unit)), ...loop, ...c.post.map((x) => this.text(x))];
    return c.taken ? [`if (${this.text(c.taken)}) {`, ...body, '}'] : body;
  }

  /** An instruction alone, its lane work as SIMD: its JavaScript before, the call, its JavaScript after. */
  private simdAlone(k: number, c: InstrCode): string[] {
    const ins = this.p.step(k).instr;
    // Vector I/O writes (condition always) take every lane; a rotation's write is the SIMD function's.
    const masks = (c.ioMasks ?? []).map((m) => `${m} = 0xffff;`);
    const post = rotation(ins) ? c.post.slice(0, c.rotationPost) : c.post;
    return [...c.pre.map((s) => this.stmt(s, k, 0, false)), this.lanes.add([ins], k), ...masks, ...post.map((x) => this.text(x))];
  }

  /**
   * Keeps the register words a fused lane loop uses only as integers in locals (`r0_l` for lane
   * l of r0): each is loaded once at the top of the lane's iteration and, if written, stored once
   * at the bottom. Words the loop reads or writes as floats (through the F view) stay in the
   * array, so that both views see one value.
   */
  private promoteRegisters(bodies: (readonly Code[])[]): string[] {
    const asFloat = new Set<number>();
    for (let b = 0; b < bodies.length; b++)
      for (let k = 0; k < bodies[b]!.length; k++) {
        const line = bodies[b]![k]!;
        for (let j = 0; j < line.length; j++) {
          const p = line[j]!;
          if (typeof p !== 'string' && p.view === 'F' && p.lane === 'l') asFloat.add(p.word!);
        }
      }
    const used = new Map<number, string>();
    const written = new Set<number>();
    const local = (r: Ref) => {
      if (r.view !== 'R' || r.lane !== 'l' || asFloat.has(r.word!)) return undefined;
      let name = used.get(r.word!);
      if (name === undefined) used.set(r.word!, (name = `${wordName(r.word!)}_l`));
      if (r.write) written.add(r.word!);
      return name;
    };
    const out = bodies.map((b) => ['{', ...b.map((line) => this.text(line, local)), '}']).flat();
    const loads = [...used].map(([w, name]) => `let ${name} = ${this.text([{ view: 'R', word: w, lane: 'l' }])};`);
    const stores = [...written].map((w) => `${this.text([{ view: 'R', word: w, lane: 'l' }])} = ${used.get(w)};`);
    return [...loads, ...out, ...stores];
  }

  /** The block's end: the program's, the jump of the branch whose last delay slot it is, or the next instruction. */
  exit(strict: boolean): void {
    const { start, end, endAt, nops } = this;
    const lines = this.lines;
    const count = nops ? [`q.stats.nops += ${nops};`] : [];
    if (endAt >= 0 && endAt + 2 === end) {
      lines.push(`q.pc = ${end}; q.prev0 = ${end}; q.prev1 = ${this.before(end - 1)};`, ...count, this.status('DONE'));
      return;
    }
    if (!(end - 3 >= start && this.p.step(end - 3).instr.kind === 'branch')) {
      lines.push(this.leaveBefore(end + 1), this.status('CONTINUE'));
      return;
    }
    lines.push(
      `q.prev0 = ${end}; q.prev1 = ${this.before(end - 1)};`,
      ...count,
      ...(endAt >= 0 ? [`q.endCountdown = ${endAt + 3 - (end + 1)};`] : []),
      // The branch whose last delay slot this is jumps now; one taken in that slot waits 3 more.
      `if (took) { q.pc = q.branchTarget; ${PROMOTE} }`,
      `else { q.pc = ${end + 1}; if (q.branchCountdown > 0) q.branchCountdown = 3; }`,
    );
    // A loop: back at the start with nothing pending, the block runs again itself (up to q.loops
    // times a call), as the machine would run it, when entering it from its own end breaks no rule.
    if (endAt < 0 && !(strict && loopEntryBreaksRule(this.p.step, start, end))) {
      lines.push(`if (q.pc === ${start} && q.branchCountdown === 0 && --q.loops > 0) continue;`);
      this.loops = true;
    }
    lines.push(this.status('CONTINUE'));
  }

  /** The block jumps back to its own start (its body is a loop). */
  private loops = false;

  /** A unit: instruction pc alone, handling pending branches and program ends in general. */
  unit(pc: number, c: InstrCode): void {
    const s = this.p.step(pc);
    const code = this.instr(pc, c, true);
    this.lines.push(
      ...this.header(pc, 1),
      this.fetch(pc, 0),
      ...(s.shared ? [`if (${mustYield(s)}) ${this.status('YIELD')}`] : []),
      ...(code.length ? ['{', ...code, '}'] : []),
      `q.time += ${CYCLES_PER_INSTR}; q.count++;`,
      ...(s.nop ? ['q.stats.nops++;'] : []),
      `q.prev1 = q.prev0; q.prev0 = ${pc};`,
      `if (q.endCountdown > 0 && --q.endCountdown === 0) ${this.status('DONE')}`,
      `if (q.branchCountdown > 0 && --q.branchCountdown === 0) { q.pc = q.branchTarget; ${PROMOTE} } else q.pc = ${pc + 1};`,
      this.status('CONTINUE'),
    );
  }

  /**
   * The function: its declarations, then its body (in a loop when it jumps back to its start),
   * within the handler that leaves pc at the instruction that failed. `W` holds its SIMD
   * functions (wasm/module.ts).
   */
  make(name: string): BlockFn {
    const body = [...(this.usesP0 ? ['const p0 = q.prev0;'] : []), ...this.lines];
    const views = [...this.views].sort((a, b) => 'RFZNC'.indexOf(a) - 'RFZNC'.indexOf(b));
    const source = [
      `return function ${name}(q) {`,
      ...(views.length ? [`const ${views.map((v) => `${v} = q.${v}`).join(', ')};`] : []),
      ...(this.words.size ? [declareWords(this.words)] : []),
      ...(this.statuses.size ? [`const ${STATUS.filter((s) => this.statuses.has(s)).map((s) => `${s} = ${STATUS.indexOf(s)}`).join(', ')};`] : []),
      'let at = q.pc;',
      'try {',
      ...(this.loops ? ['for (;;) {', ...body, '}'] : body),
      '} catch (e) { q.pc = at; throw e; }',
      '}',
    ].join('\n');
    const W = this.lanes.empty ? undefined : this.lanes.instantiate();
    const fn = (new Function(...HELPER_NAMES, 'W', source) as (...h: unknown[]) => BlockFn)(...HELPER_VALUES, W);
    if (listings.on && !this.lanes.empty) (fn as Listed).wasm = this.lanes.text();
    return fn;
  }
}

/** A block that keeps the text of its SIMD functions (when listings are on). */
type Listed = BlockFn & { wasm?: string };

/**
 * The translations of the blocks made so far, in program order: each block's JavaScript, or
 * (`wasm`) the text of its SIMD functions; blocks made while listings were off have no SIMD text
 * and no assembly in their JavaScript.
 */
export function listing(blocks: readonly (BlockFn | undefined)[], what: 'js' | 'wasm'): string {
  const out: string[] = [];
  blocks.forEach((fn, pc) => {
    if (!fn) return;
    if (what === 'js') out.push(`// block at pc ${pc}\n${fn.toString()}`);
    else if ((fn as Listed).wasm) out.push(`;; block at pc ${pc}\n${(fn as Listed).wasm}`);
  });
  return out.join('\n\n') + (out.length ? '\n' : '');
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/**
 * Whether entering the block at `start` from its own last instruction breaks an error rule the
 * machine checks on entry (machine.ts entryViolation): the first instruction after the last two,
 * or the second after the first and the last.
 */
function loopEntryBreaksRule(step: (pc: number) => Step, start: number, end: number): boolean {
  const breaks = (pc: number, p0: number, p1: number) =>
    step(pc).alone.some(isError) || sequenceViolations(step(pc).effects, [step(p0).effects, step(p1).effects]).some(isError);
  return breaks(start, end, end - 1) || (end > start && breaks(start + 1, start, end));
}

/** One instruction, handling pending branches and program ends in general. */
export function compileUnit(p: Steps, pc: number, opts: TranslateOptions): BlockFn {
  const w = new BlockWriter(p, pc, pc, opts);
  w.unit(pc, instrCode(p.step(pc).instr, pc, opts));
  return w.make(`unit_${pc}`);
}
