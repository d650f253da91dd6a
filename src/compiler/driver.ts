// The compiler's pipeline: a kernel AST to VideoCore IV machine code for a given number of QPUs.
//   pipeline-loads.ts  AST -> AST: a counted loop's blocking loads become gathers one iteration ahead
//   lower.ts     AST -> IR over virtual registers (loops inverted, Where by flags); frame.ts
//                its prologue and end, lower-words.ts the words it uses, source/ops.ts the operators
//   dead.ts      values no path reads
//   fold.ts      operations on constants computed now, with the chip's arithmetic
//   cse.ts       operations computed once
//   direct.ts    results written straight to where they are copied
//   hoist.ts     constants and invariant operations out of loops
//   strength.ts  addresses base + (i << k) as induction variables of their own
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
import { ProgramSizeError } from '../vc4/codec.ts';
import type { Instr } from '../vc4/instr.ts';
import { type AsmLine, asmText, emit } from './emit.ts';
import { CompileError } from './errors.ts';
import { assertRules } from './assert-rules.ts';
import { spaceForRules } from './space.ts';
import { scheduleLines } from './schedule.ts';
import { printIr, irText, type IrInstr } from './ir.ts';
import { interference, liveness, printLiveness } from './liveness.ts';
import { eliminateCommon } from './cse.ts';
import { removeDeadCode } from './dead.ts';
import { foldConstants } from './fold.ts';
import { directWrites } from './direct.ts';
import { reduceStrength } from './strength.ts';
import { hoistConstants } from './hoist.ts';
import { lower } from './lower.ts';
import { pipelineLoads } from './pipeline-loads.ts';
import { checkKernel } from '../source/check.ts';
import { printKernel } from '../source/print.ts';
import { accumulatorValues, allocate, type Placement, placeName, pressureSpills } from './regalloc.ts';
import { scratchBytes, type SpillState, spillRegisters } from './spill.ts';
import { verifyIr } from './verify.ts';

export const STAGES = ['pipeline', 'ir', 'dead', 'fold', 'cse', 'direct', 'hoist', 'strength', 'liveness', 'alloc', 'emit', 'schedule', 'asm', 'code'] as const;
export type Stage = (typeof STAGES)[number];

/** Optimization levels: 0 compiles plainly; each pass is on from its level up (PASS_LEVEL). */
export const OPT_LEVELS = [0, 1, 2] as const;
export type OptLevel = (typeof OPT_LEVELS)[number];
/** The optimization passes, and the level each is on from. */
export const PASS_LEVEL = { pipeline: 2, invert: 1, flags: 1, dead: 1, fold: 1, cse: 1, direct: 1, hoist: 1, strength: 1, acc: 1, coalesce: 1, schedule: 1, pair: 2 } as const;
export type Pass = keyof typeof PASS_LEVEL;

export interface CompileOptions {
  /** The number of QPUs the code will run on (1-12): it decides the VPM rows each may use. */
  readonly qpus: number;
  /** The optimization level (default 2). */
  readonly opt?: OptLevel;
  /** Passes switched on or off whatever the level. */
  readonly passes?: Partial<Record<Pass, boolean>>;
  /** Runs the IR verifier (verify.ts) after lowering and after each IR pass. */
  readonly verify?: boolean;
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
  /**
   * Uniforms each QPU reads before the kernel's arguments: its number and the QPU count (2), and
   * when registers spill to memory, the address of scratchBytes of memory for them (3).
   */
  readonly uniformsBeforeArgs: number;
  /** Scratch memory (for all QPUs) the code needs for spilled registers; 0 when it needs none. */
  readonly scratchBytes: number;
  readonly stats: {
    readonly vregs: number;
    readonly spilled: number;
    readonly spilledToMemory: number;
    readonly nops: number;
    readonly registers: number;
  };
  /** A stage's output as text. */
  dump(stage: Stage): string;
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

function compileStages(ast: KernelAst, opts: CompileOptions): Compiled {
  const { qpus } = opts;
  if (!Number.isInteger(qpus) || qpus < 1 || qpus > 12) throw new RangeError(`kernel ${ast.name}: compile for 1 to 12 QPUs, not ${qpus}`);
  if (opts.opt !== undefined && !(OPT_LEVELS as readonly number[]).includes(opts.opt))
    throw new RangeError(`kernel ${ast.name}: optimization level ${opts.opt}: the levels are ${OPT_LEVELS.join(', ')}`);
  const piped = passOn(opts, 'pipeline') ? pipelineLoads(ast) : undefined;
  if (piped && opts.verify) checkKernel(piped.ast);
  const lowered = lower(piped?.ast ?? ast, qpus, { invertLoops: passOn(opts, 'invert'), whereFlags: passOn(opts, 'flags') });
  const header = () => [...lowered.names].map(([id, name]) => `# %${id}: ${name}`).join('\n');

  let code: IrInstr[] = lowered.code;
  /** Virtual registers in use: lowering's, and any a pass adds. */
  let vregs = lowered.vregs;
  const dumps = new Map<Stage, () => string>();
  // Each IR pass: run if on, verify if asked, and keep its output for --dump.
  const irPass = (pass: Pass & Stage, run: (code: IrInstr[], vregs: number) => IrInstr[] | { code: IrInstr[]; vregs: number }) => {
    if (!passOn(opts, pass)) return void dumps.set(pass, () => `# pass ${pass} is off: the IR stands\n`);
    const r = run(code, vregs);
    const out = (code = Array.isArray(r) ? r : r.code);
    if (!Array.isArray(r)) vregs = r.vregs;
    if (opts.verify) verifyIr(code, vregs, `pass ${pass}`);
    dumps.set(pass, () => `${header()}\n${printIr(out)}`);
  };
  if (opts.verify) verifyIr(code, vregs, 'lowering');
  irPass('dead', removeDeadCode);
  irPass('fold', foldConstants);
  irPass('cse', eliminateCommon);
  irPass('direct', directWrites);
  irPass('hoist', hoistConstants);
  irPass('strength', reduceStrength);
  const st: SpillState = { nregs: vregs, slots: new Map(), memory: new Map(), unspillable: new Set([lowered.qpu.id]) };
  let place: (Placement | undefined)[];
  let liveDump = () => '';
  for (let round = 0; ; round++) {
    const live = liveness(code, st.nregs);
    const early = pressureSpills(code, live, st.unspillable);
    if (early.length) {
      code = spillRegisters(code, early, st, { qpu: lowered.qpu, qpus });
      if (opts.verify) verifyIr(code, st.nregs, 'spilling');
      continue;
    }
    const adj = interference(live);
    const r = allocate(code, adj, st.nregs, st.unspillable, passOn(opts, 'acc') ? accumulatorValues(live, adj) : undefined, passOn(opts, 'coalesce'));
    if (r.ok) {
      place = r.place;
      liveDump = () => printLiveness(live, irText);
      break;
    }
    if (r.spill.length === 0 || round > 20)
      throw new CompileError(
        `kernel ${ast.name}: too many values live at once for the 64 registers of regfiles A and B, even after spilling`,
      );
    code = spillRegisters(code, r.spill, st, { qpu: lowered.qpu, qpus });
    if (opts.verify) verifyIr(code, st.nregs, 'spilling');
  }
  const lines: AsmLine[] = emit(code, place, ast.name);
  const scheduled = passOn(opts, 'schedule') ? scheduleLines(lines, passOn(opts, 'pair')) : undefined;
  const spacing = spaceForRules(scheduled ?? lines, ast.name);
  const spaced = withinSizeLimit(ast.name, () => assertRules(spacing.lines, ast.name));
  let asm: string | undefined;
  const registers = new Set(place.filter((x) => x).map((x) => placeName(x!))).size;
  return {
    kernel: ast.name,
    qpus,
    words: spaced.words,
    instrs: spaced.instrs,
    get asm() {
      return (asm ??= asmText(spaced.lines));
    },
    statements: spaced.lines.flatMap((l) => ('label' in l ? [] : [l.stmt])),
    pairedStatements: spaced.lines.flatMap((l) => ('label' in l ? [] : [l.paired])),
    uniformsBeforeArgs: st.scratch ? 3 : 2,
    scratchBytes: scratchBytes(st, qpus),
    stats: { vregs: st.nregs, spilled: st.slots.size + st.memory.size, spilledToMemory: st.memory.size, nops: spacing.nops, registers },
    dump(stage: Stage): string {
      switch (stage) {
        case 'pipeline':
          return !piped
            ? '# pass pipeline is off: the kernel stands\n'
            : `# loads pipelined in ${piped.loops} loop${piped.loops === 1 ? '' : 's'}\n${printKernel(piped.ast)}`;
        case 'ir':
          return `${header()}\n${printIr(lowered.code)}`;
        case 'fold':
        case 'dead':
        case 'cse':
        case 'strength':
        case 'direct':
        case 'hoist':
          return dumps.get(stage)!();
        case 'liveness':
          return liveDump();
        case 'alloc':
          return place
            .map((x, id) => (x ? `%${id} -> ${placeName(x)}` : undefined))
            .filter(Boolean)
            .concat([...st.slots].map(([id, slot]) => `%${id} -> VPM spill row ${slot}`))
            .concat([...st.memory].map(([id, slot]) => `%${id} -> scratch memory slot ${slot}`))
            .join('\n') + '\n';
        case 'emit':
          return asmText(lines);
        case 'schedule':
          return scheduled ? asmText(scheduled) : '# scheduling is off (-O0): the emitted order stands\n';
        case 'asm':
          return asmText(spaced.lines);
        case 'code':
          return disassemble(spaced.instrs, { addresses: true });
      }
    },
  };
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
