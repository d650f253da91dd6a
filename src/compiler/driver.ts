// The compiler's pipeline: a kernel AST to VideoCore IV machine code for a given number of QPUs.
// PIPELINE below lists its steps in the order they run, one row each (QBE's main.c reads the same
// way): the optimization passes, with the level each is on from, and the stages whose output
// `--dump` prints; an IR pass's row also holds the function the driver runs. The row drives the
// levels, `--passes`, `--dump` and `qpu compile --help`; docs/contributing.md, "Adding a compiler
// pass", says what else a new pass needs. The files, in order:
//   pipeline-loads.ts  AST -> AST: a counted loop's blocking loads become gathers one iteration ahead
//   induction.ts AST -> AST: a loop counter's products with invariants become running sums
//   lower.ts     AST -> IR over virtual registers (loops inverted, Where by flags); ranges.ts
//                the Int values' intervals it reads; frame.ts
//                its prologue and end, lower-words.ts the words it uses, source/ops.ts the operators
//   dead.ts, fold.ts, cse.ts, direct.ts, hoist.ts, strength.ts  the IR passes (rows below)
//   cfg.ts       basic blocks, edges and loops, for the passes that follow control flow
//   liveness.ts  live sets and interference
//   regalloc.ts  virtual registers -> r1-r3, ra0-31 / rb0-31, or a list to spill
//   spill.ts     spilled registers -> VPM rows or scratch memory, then allocation again
//   emit.ts      machine instructions (machine.ts), operands moved to r0 where two need one regfile
//   schedule.ts  each straight run reordered so that latencies are covered by other work
//   space.ts     nops where a latency is still uncovered, on any path
//   assert-rules.ts  the final assertion: the validator finds nothing
//   codec        64-bit words (src/vc4/codec.ts)
// Every stage's output can be printed (`dump`), so a miscompiled kernel can be cut down.

import type { KernelAst, Stmt } from '../source/ast.ts';
import { disassemble } from '../vc4/asm/disasm.ts';
import { MAX_QPUS } from '../vc4/chip.ts';
import { ProgramSizeError } from '../vc4/codec.ts';
import type { Instr } from '../vc4/instr.ts';
import { type AsmLine, asmText, emit } from './emit.ts';
import { CompileError } from './errors.ts';
import { assertRules } from './assert-rules.ts';
import { spaceForRules } from './space.ts';
import { scheduleLines } from './schedule.ts';
import { printIr, irText, type IrInstr } from './ir.ts';
import { interference, type Liveness, liveness, printLiveness, walkLive } from './liveness.ts';
import { eliminateCommon } from './cse.ts';
import { removeDeadCode } from './dead.ts';
import { foldConstants } from './fold.ts';
import { directWrites } from './direct.ts';
import { reduceStrength } from './strength.ts';
import { hoistConstants } from './hoist.ts';
import { type Lowered, lower } from './lower.ts';
import { type LoopDecision, pipelineLoads } from './pipeline-loads.ts';
import { delaySlotsOf, type Explanation, explainText, isNop } from './explain.ts';
import { reduceProducts } from './induction.ts';
import { checkKernel } from '../source/check.ts';
import { printKernel } from '../source/print.ts';
import { allocate, type Placement, placeName, pressureSpills } from './regalloc.ts';
import { accumulatorValues } from './accumulators.ts';
import { lendScratch } from './scratch.ts';
import { slotsFromLoopHeads } from './loop-slots.ts';
import { scratchBytes, type SpillState, spillRegisters } from './spill.ts';
import { spillRowsPerQpu } from './vpm-rows.ts';
import { MAX_RUN_ROWS } from './lower-store-rows.ts';
import { ROW_BYTES } from './lower-checks.ts';
import type { AssertStmt, PrintStmt } from '../source/checks.ts';
import { messagePrinter } from '../source/print.ts';
import { verifyIr } from './verify.ts';

/** Optimization levels: 0 compiles plainly; each pass is on from its level up (its row's `level`). */
export const OPT_LEVELS = [0, 1, 2] as const;
export type OptLevel = (typeof OPT_LEVELS)[number];

/** An IR pass: IR in, IR out (with the virtual registers in use, when it adds some). */
export type IrPass = (code: IrInstr[], vregs: number) => IrInstr[] | { code: IrInstr[]; vregs: number };

/** A step of the pipeline: an optimization pass, a stage `--dump` prints, or both. */
interface Step {
  /** Its name in `--passes` and `--dump`. */
  readonly name: string;
  /** A pass: the optimization level it is on from (`passes` switches it whatever the level). */
  readonly level?: Exclude<OptLevel, 0>;
  /** A pass: what it does (qpu compile --help). */
  readonly does?: string;
  /** A stage: what its dump shows (qpu compile --help). */
  readonly shows?: string;
  /** An IR pass: what the driver runs, between lowering and liveness, in the rows' order. */
  readonly ir?: IrPass;
}

/** The compiler's steps in the order they run. */
export const PIPELINE = [
  { name: 'pipeline', level: 2, does: "a counted loop's blocking loads as gathers a loop ahead (AST)", shows: '... after loads were pipelined into gathers (-O2)' },
  { name: 'induction', level: 1, does: 'a loop counter times an invariant as a running sum (AST)', shows: '... after products of loop counters became running sums' },
  { name: 'invert', level: 1, does: 'loops test at the bottom (in lowering)' },
  { name: 'flags', level: 1, does: 'a Where sets flags once and writes under them (in lowering)' },
  { name: 'ranges', level: 1, does: 'a product of 24-bit values is one mul24 (in lowering)' },
  { name: 'rows', level: 1, does: 'stores to rows one after another as one DMA (in lowering)' },
  { name: 'ir', shows: 'lowered to instructions over virtual registers (%n)' },
  { name: 'dead', level: 1, ir: removeDeadCode, does: 'values no path reads removed', shows: 'the IR after dead-code removal' },
  { name: 'fold', level: 1, ir: foldConstants, does: "operations on constants computed with the chip's arithmetic", shows: '... after constant folding' },
  { name: 'cse', level: 1, ir: eliminateCommon, does: 'an operation computed again in a block reads the first result', shows: '... after common subexpressions' },
  { name: 'direct', level: 1, ir: directWrites, does: 'results written where their copy goes; r4, r5 read in place', shows: '... after direct writes to where results are copied' },
  { name: 'hoist', level: 1, ir: hoistConstants, does: 'constants and invariant operations out of loops', shows: '... after loop-invariant code motion' },
  { name: 'strength', level: 1, ir: reduceStrength, does: 'addresses base + (i << k) as induction variables', shows: '... after strength reduction of addresses' },
  { name: 'liveness', shows: 'the IR with the registers live after each instruction' },
  { name: 'acc', level: 1, does: 'short-lived values in r1-r3 (in allocation)' },
  { name: 'coalesce', level: 1, does: 'a copy whose two values never interfere goes (in allocation)' },
  { name: 'scratch', level: 1, does: 'values in r0 where emit copies nothing (after allocation)' },
  { name: 'alloc', shows: 'where each virtual register went (r1-r3, ra/rb, or a spill)' },
  { name: 'emit', shows: 'the assembly before scheduling and hardware-rule spacing' },
  { name: 'schedule', level: 1, does: 'each straight run reordered to cover latencies', shows: 'the assembly after scheduling, before spacing across labels' },
  { name: 'pair', level: 2, does: 'add and mul ALU work paired, delay slots filled (scheduling)' },
  { name: 'asm', shows: 'the final assembly (the default)' },
  { name: 'code', shows: 'the machine code: index, word, instruction' },
] as const satisfies readonly Step[];

type Row = (typeof PIPELINE)[number];
/** The optimization passes, by name. */
export type Pass = Extract<Row, { level: number }>['name'];
/** The stages `dump` prints, by name. */
export type Stage = Extract<Row, { shows: string }>['name'];

const isPass = (r: Step): r is Extract<Row, { level: number }> => r.level !== undefined;
const isStage = (r: Step): r is Extract<Row, { shows: string }> => r.shows !== undefined;
/** The passes in pipeline order, each with its row. */
export const PASSES: readonly Extract<Row, { level: number }>[] = PIPELINE.filter(isPass);
/** The stages in pipeline order, each with its row. */
export const STAGE_ROWS: readonly Extract<Row, { shows: string }>[] = PIPELINE.filter(isStage);
export const STAGES: readonly Stage[] = STAGE_ROWS.map((r) => r.name);
/** The level each pass is on from. */
export const PASS_LEVEL = Object.fromEntries(PASSES.map((r) => [r.name, r.level])) as Readonly<Record<Pass, Exclude<OptLevel, 0>>>;
/** The IR passes, in the order they run. */
const IR_PASSES = PIPELINE.filter((r): r is Extract<Row, { ir: IrPass }> => 'ir' in r);

export interface CompileOptions {
  /** The number of QPUs the code will run on (1-12): it decides the VPM rows each may use. */
  readonly qpus: number;
  /** The optimization level (default 2). */
  readonly opt?: OptLevel;
  /** Passes switched on or off whatever the level (at -O0, the passes switched on are the only ones). */
  readonly passes?: Partial<Record<Pass, boolean>>;
  /** Runs the IR verifier (verify.ts) after lowering and after each IR pass. */
  readonly verify?: boolean;
  /** The most rows a run of stores may take (pass `rows`): the compiler lowers it when its runs leave registers to spill to memory. */
  readonly runRows?: number;
}

/** Whether a pass runs under these options. */
export function passOn(opts: CompileOptions, pass: Pass): boolean {
  return opts.passes?.[pass] ?? (opts.opt ?? 2) >= PASS_LEVEL[pass];
}

export interface Compiled {
  readonly kernel: string;
  readonly qpus: number;
  /** Machine code as little-endian word pairs (low, high). */
  readonly words: Uint32Array;
  readonly instrs: Instr[];
  /** The final assembly, labels included. */
  readonly asm: string;
  /** For each instruction, the kernel statement it comes from (undefined: prologue, barrier). */
  readonly statements: readonly (Stmt | undefined)[];
  /** For each instruction made of two paired ones from different statements, the second's (sparse). */
  readonly pairedStatements: readonly (Stmt | undefined)[];
  /** For each instruction, the statement whose part of it can stall: its own, or the paired one's (profiles charge stalls to it). */
  readonly stallsIn: readonly (Stmt | undefined)[];
  /**
   * What the debugger needs to read variables on the emulator (debug/emulator-replay.ts): each
   * variable's virtual register (by variable id), the register it was given (undefined: spilled),
   * and the virtual registers each instruction writes.
   */
  readonly debug: {
    readonly homes: ReadonlyMap<number, number>;
    registerOf(vreg: number): string | undefined;
    /** Where a spilled virtual register lives: a VPM row or scratch memory (undefined: not spilled). */
    spilledTo(vreg: number): 'vpm' | 'memory' | 'constant' | undefined;
    readonly defs: readonly (readonly number[])[];
    /** For each instruction, the virtual registers that hold their register's value as it starts (copies left out). */
    readonly aliases: readonly (readonly number[])[];
    /** For each instruction, whether it is a loop head's in the slot of the branch back (loop-slots.ts): its writes count only if the branch jumps. */
    readonly ahead: readonly boolean[];
  };
  /** For each instruction, whether it is spill code: a store or reload of a spilled register (spill.ts). */
  readonly spill: readonly boolean[];
  /**
   * Uniforms each QPU reads before the kernel's arguments: its number and the QPU count (2), and
   * when registers spill to memory, the address of scratchBytes of memory for them (3).
   */
  readonly uniformsBeforeArgs: number;
  /** Scratch memory (for all QPUs) the code needs for failure records and spilled registers; 0 when it needs none. */
  readonly scratchBytes: number;
  /**
   * The kernel's assertions (lower-checks.ts): the statements in the order of the numbers their
   * failure records hold, and the records at the start of scratch memory, `rows` rows of 16 words
   * for each QPU, recordBytes for all.
   */
  readonly assertions: { readonly sites: readonly AssertStmt[]; readonly texts: readonly string[]; readonly recordBytes: number; readonly rows: number };
  /** The kernel's prints, numbered as in the logs (lower-checks.ts), and where the logs start in scratch memory (LOG_BYTES a QPU). */
  readonly prints: { readonly sites: readonly PrintStmt[]; readonly offset: number };
  readonly stats: {
    readonly vregs: number;
    /** Values that left the registers: to VPM rows, to memory, or constants loaded again where read. */
    readonly spilled: number;
    readonly spilledToMemory: number;
    readonly nops: number;
    readonly registers: number;
  };
  /** A stage's output as text. */
  dump(stage: Stage): string;
  /** What the compiler did and why: registers, spills, loops pipelined or not, pairing, delay slots, warnings (explain.ts). */
  readonly explanation: Explanation;
  /** The explanation as text (qpu compile --explain). */
  explain(): string;
}

export function compile(ast: KernelAst, opts: CompileOptions): Compiled {
  try {
    return compileStages(ast, opts);
  } catch (e) {
    // The passes recurse over expressions and blocks: a nest deep enough exhausts the host's stack.
    if (e instanceof RangeError && /call stack/i.test(e.message))
      throw new CompileError(
        `kernel ${ast.name}: expressions or blocks nested too deeply to compile (the host's stack ran out); ` +
          `break long expressions up with intermediate variables`,
      );
    throw e;
  }
}

/** Each stage's output as text, made when asked for. */
type Dumps = Map<Stage, () => string>;

/** The steps of PIPELINE in order, each stage leaving its dump in `dumps`. */
function compileStages(ast: KernelAst, opts: CompileOptions): Compiled {
  const { qpus } = opts;
  if (!Number.isInteger(qpus) || qpus < 1 || qpus > MAX_QPUS) throw new RangeError(`kernel ${ast.name}: compile for 1 to ${MAX_QPUS} QPUs, not ${qpus}`);
  if (opts.opt !== undefined && !(OPT_LEVELS as readonly number[]).includes(opts.opt))
    throw new RangeError(`kernel ${ast.name}: optimization level ${opts.opt}: the levels are ${OPT_LEVELS.join(', ')}`);
  const dumps: Dumps = new Map();
  const { ast: source, loops } = astPasses(ast, opts, dumps);
  const storeRows = passOn(opts, 'rows') ? Math.min(MAX_RUN_ROWS, 1 + spillRowsPerQpu(qpus), opts.runRows ?? MAX_RUN_ROWS) : 1;
  const lowered = lower(source, qpus, { invertLoops: passOn(opts, 'invert'), whereFlags: passOn(opts, 'flags'), ranges: passOn(opts, 'ranges'), storeRows });
  const header = () => [...lowered.names].map(([id, name]) => `# %${id}: ${name}`).join('\n');
  dumps.set('ir', () => `${header()}\n${printIr(lowered.code)}`);
  const ir = irPasses(lowered, opts, dumps, header);
  const { code, place, st, pressure } = allocateRegisters(ast.name, ir, lowered, opts, dumps);
  // Rows runs of stores took would have kept registers out of memory: again, with shorter runs (each time shorter, down to none).
  if (st.memory.size && lowered.storeRows) return compileStages(ast, { ...opts, runRows: Math.max(1, lowered.storeRows + 1 - st.memory.size) });
  const lines: AsmLine[] = emit(code, place, ast.name);
  dumps.set('emit', () => asmText(lines));
  const ordered = passOn(opts, 'schedule') ? scheduleLines(lines, passOn(opts, 'pair')) : undefined;
  const scheduled = ordered && passOn(opts, 'pair') ? slotsFromLoopHeads(ordered) : ordered;
  dumps.set('schedule', () => (scheduled ? asmText(scheduled) : '# scheduling is off (-O0): the emitted order stands\n'));
  const spacing = spaceForRules(scheduled ?? lines, ast.name);
  const spaced = withinSizeLimit(ast.name, () => assertRules(spacing.lines, ast.name));
  let asm: string | undefined;
  dumps.set('asm', () => (asm ??= asmText(spaced.lines)));
  dumps.set('code', () => disassemble(spaced.instrs, { addresses: true }));
  const instrLines = spaced.lines.filter((l): l is Exclude<AsmLine, { label: string }> => !('label' in l));
  const registers = new Set(place.filter((x) => x).map((x) => placeName(x!))).size;
  const explanation: Explanation = {
    kernel: ast.name,
    qpus,
    instructions: spaced.instrs.length,
    nops: spaced.instrs.filter(isNop).length,
    registers: { used: new Set(place.filter((x) => x && x.file !== 'acc').map((x) => placeName(x!))).size, ...pressure },
    spills: [...[...st.slots.keys()].map((id) => spilled(id, 'vpm')), ...[...st.memory.keys()].map((id) => spilled(id, 'memory')), ...[...st.remat.keys()].map((id) => spilled(id, 'constant'))],
    ...(loops ? { loops } : {}),
    ...(scheduled && passOn(opts, 'pair') ? { pairing: { before: instrCount(lines), pairs: instrCount(lines) - instrCount(scheduled.filter((l) => !('spacer' in l && l.spacer))) } } : {}),
    delaySlots: delaySlotsOf(spaced.instrs),
  };
  return {
    kernel: ast.name,
    qpus,
    words: spaced.words,
    instrs: spaced.instrs,
    get asm() {
      return (asm ??= asmText(spaced.lines));
    },
    statements: instrLines.map((l) => l.stmt),
    pairedStatements: instrLines.map((l) => l.paired),
    spill: instrLines.map((l) => !!l.spill),
    stallsIn: instrLines.map((l) => (l.stallsInPaired ? l.paired : l.stmt)),
    debug: {
      homes: lowered.homes,
      registerOf: (vreg: number) => (place[vreg] ? placeName(place[vreg]!) : undefined),
      spilledTo: (vreg: number) => (st.slots.has(vreg) ? 'vpm' : st.memory.has(vreg) ? 'memory' : st.remat.has(vreg) ? 'constant' : undefined),
      defs: instrLines.map((l) => l.defs ?? []),
      aliases: instrLines.map((l) => l.aliases ?? []),
      ahead: instrLines.map((l) => !!l.ahead),
    },
    uniformsBeforeArgs: st.scratch || lowered.scratch ? 3 : 2,
    scratchBytes: lowered.recordBytes + lowered.logBytes + scratchBytes(st, qpus),
    assertions: { sites: lowered.sites, texts: lowered.sites.map((x) => messagePrinter(ast).head(x.shows ?? x)), recordBytes: lowered.recordBytes, rows: lowered.recordBytes / qpus / ROW_BYTES },
    prints: { sites: lowered.printSites, offset: lowered.recordBytes },
    stats: { vregs: st.nregs, spilled: st.slots.size + st.memory.size + st.remat.size, spilledToMemory: st.memory.size, nops: spacing.nops, registers },
    dump: (stage: Stage) => dumps.get(stage)!(),
    explanation,
    explain: () => explainText(explanation, ast),
  };

  /** A spilled value by the user's name of its variable, or the compiler's name. */
  function spilled(id: number, to: Explanation['spills'][number]['to']): Explanation['spills'][number] {
    const name = lowered.names.get(id);
    const v = name === undefined ? undefined : ast.vars.find((x) => x.name === name);
    return name === undefined ? { name: `%${id}`, to, made: true } : { name: v?.userName ?? name, to };
  }
}

const instrCount = (lines: readonly AsmLine[]) => lines.filter((l) => !('label' in l)).length;

/** The AST passes (pass pipeline): the kernel to lower. */
function astPasses(ast: KernelAst, opts: CompileOptions, dumps: Dumps): { ast: KernelAst; loops?: LoopDecision[] } {
  const piped = passOn(opts, 'pipeline') ? pipelineLoads(ast) : undefined;
  // Its prefetches leave a count of gathers that only the run knows (pipeline-loads.ts).
  if (piped && opts.verify) checkKernel(piped.ast, { fifo: piped.loops === 0 });
  const runs = piped?.prefetched ? `; ${piped.prefetched} straight-line load${piped.prefetched === 1 ? '' : 's'} gathered ahead` : '';
  dumps.set('pipeline', () =>
    !piped ? '# pass pipeline is off: the kernel stands\n' : `# loads pipelined in ${piped.loops} loop${piped.loops === 1 ? '' : 's'}${runs}\n${printKernel(piped.ast)}`,
  );
  const source = piped?.ast ?? ast;
  const summed = passOn(opts, 'induction') ? reduceProducts(source) : undefined;
  if (summed && opts.verify) checkKernel(summed.ast, { fifo: !piped?.loops });
  dumps.set('induction', () =>
    !summed ? '# pass induction is off: the kernel stands\n' : `# ${summed.products} product${summed.products === 1 ? '' : 's'} as running sums\n${printKernel(summed.ast)}`,
  );
  return { ast: summed?.ast ?? source, loops: piped?.decisions };
}

/** The IR passes in PIPELINE's order: each run if on, verified if asked, its output kept for its dump. */
function irPasses(lowered: Lowered, opts: CompileOptions, dumps: Dumps, header: () => string): { code: IrInstr[]; vregs: number } {
  let code: IrInstr[] = lowered.code;
  /** Virtual registers in use: lowering's, and any a pass adds. */
  let vregs = lowered.vregs;
  if (opts.verify) verifyIr(code, vregs, 'lowering');
  for (const { name, ir } of IR_PASSES) {
    if (!passOn(opts, name)) {
      dumps.set(name, () => `# pass ${name} is off: the IR stands\n`);
      continue;
    }
    const r = ir(code, vregs);
    const out = (code = Array.isArray(r) ? r : r.code);
    if (!Array.isArray(r)) vregs = r.vregs;
    if (opts.verify) verifyIr(code, vregs, `pass ${name}`);
    dumps.set(name, () => `${header()}\n${printIr(out)}`);
  }
  return { code, vregs };
}

/**
 * Liveness and register allocation (passes acc and coalesce), spilling and starting again while
 * values do not fit: the code with its spills, where each virtual register went, and the spills.
 */
function allocateRegisters(
  kernel: string,
  ir: { code: IrInstr[]; vregs: number },
  lowered: Lowered,
  opts: CompileOptions,
  dumps: Dumps,
): { code: IrInstr[]; place: (Placement | undefined)[]; st: SpillState; pressure: { pressure: number; at?: Stmt } } {
  const { qpus } = opts;
  let code = ir.code;
  // Functions' links stay in registers: a return jumps through one (lower-funcs.ts).
  const links = code.flatMap((i) => (i.op === 'branch' && i.link?.k === 'v' ? [i.link.id] : []));
  const st: SpillState = { nregs: ir.vregs, slots: new Map(), memory: new Map(), remat: new Map(), unspillable: new Set([lowered.qpu.id, ...links]) };
  const ctx = { qpu: lowered.qpu, qpus, scratch: lowered.scratch && { reg: lowered.scratch, reserved: lowered.recordBytes + lowered.logBytes }, storeRows: lowered.storeRows };
  let pressure: { pressure: number; at?: Stmt } | undefined;
  for (let round = 0; ; round++) {
    const live = liveness(code, st.nregs);
    pressure ??= mostLive(live);
    const early = pressureSpills(code, live, st.unspillable);
    if (early.length) {
      code = spillRegisters(code, early, st, ctx);
      if (opts.verify) verifyIr(code, st.nregs, 'spilling');
      continue;
    }
    const adj = interference(live);
    const r = allocate(code, adj, st.nregs, st.unspillable, passOn(opts, 'acc') ? accumulatorValues(live, adj, passOn(opts, 'pair')) : undefined, passOn(opts, 'coalesce'), passOn(opts, 'pair'));
    if (r.ok) {
      const place = r.place;
      if (passOn(opts, 'scratch')) lendScratch(code, live, adj, place);
      dumps.set('liveness', () => printLiveness(live, irText));
      dumps.set('alloc', () => allocDump(place, st));
      return { code, place, st, pressure };
    }
    if (r.spill.length === 0 || round > 20)
      throw new CompileError(
        !r.ok && r.stuck !== undefined && links.includes(r.stuck)
          ? `kernel ${kernel}: funcs called inside funcs too deeply: each call under way keeps its return address in an even register of regfile A (16 of them), ` +
              `beside the values that must stay in registers; call fewer funcs inside funcs (make inner ones plain TypeScript functions, which inline)`
          : `kernel ${kernel}: too many values live at once for the 64 registers of regfiles A and B, even after spilling`,
      );
    code = spillRegisters(code, r.spill, st, ctx);
    if (opts.verify) verifyIr(code, st.nregs, 'spilling');
  }
}

/** The most values live at once (before spilling), and the statement where. */
function mostLive(live: Liveness): { pressure: number; at?: Stmt } {
  let pressure = 0;
  let at = -1;
  walkLive(live, (k, set) => {
    if (set.size > pressure) [pressure, at] = [set.size, k];
  });
  const stmt = at >= 0 ? live.code[at]!.stmt : undefined;
  return stmt ? { pressure, at: stmt } : { pressure };
}

/** The alloc stage's dump: each virtual register's place, or its spill row or slot. */
function allocDump(place: readonly (Placement | undefined)[], st: SpillState): string {
  return (
    place
      .map((x, id) => (x ? `%${id} -> ${placeName(x)}` : undefined))
      .filter(Boolean)
      .concat([...st.slots].map(([id, slot]) => `%${id} -> VPM spill row ${slot}`))
      .concat([...st.memory].map(([id, slot]) => `%${id} -> scratch memory slot ${slot}`))
      .concat([...st.remat].map(([id, bits]) => `%${id} -> the constant 0x${(bits >>> 0).toString(16)}, loaded where it is read`))
      .join('\n') + '\n'
  );
}

/** Runs `f`, turning the validator's refusal of a program too large into an error naming the kernel. */
function withinSizeLimit<T>(kernel: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ProgramSizeError)
      throw new CompileError(`kernel ${kernel} compiles to too many instructions: ${e.message}; split the work into smaller kernels or loops`);
    throw e;
  }
}

export { CompileError };
