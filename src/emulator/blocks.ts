// Puts translated instructions together into functions that each run a straight stretch of the
// program: a block. A block runs from its first instruction to the first of: the third delay
// slot of a branch in it, the second delay slot of a program end in it, the end of the program,
// or MAX_BLOCK instructions. Consecutive instructions that only do lane arithmetic share one lane
// loop. Blocks are made lazily, one per starting instruction, and cached.
// Needs: the program's steps (made as they are asked for: program.ts), and for a block, a QPU
// with no branch or program end pending.
// Guarantees: the QPU's pc, clock, counts, registers, pending branch and program end afterwards
// are exactly as if its instructions had run one at a time, also when one of them fails (then as
// before that instruction); strict-mode rule checks along the block's own fall-through are
// resolved when the block is made and run right before the instruction that breaks the rule.
//
// A "unit" is a block of one instruction that handles pending branches and program ends in
// general; the machine uses units for tracing, near the step budget, and inside delay slots.

import { LANES } from '../vc4/chip.ts';
import { fieldOf, fieldValue } from '../vc4/codec.ts';
import { SIG_BRANCH } from '../vc4/fields.ts';
import { RULES, sequenceViolations, type Violation } from '../vc4/rules.ts';
import { PROGRAM_END_SIGNALS } from '../vc4/tables.ts';
import { BLOCKED, HELPERS, type InstrCode, instrCode, joinCode, SYNC_R4, type TranslateOptions } from './translate.ts';
import type { Step } from './step.ts';
import type { Qpu } from './qpu.ts';
import { rotation, supported, worthAlone } from './wasm/lanes.ts';
import { listings } from './wasm/encoder.ts';
import { LaneModule } from './wasm/module.ts';
import { CYCLES_PER_INSTR } from './timing.ts';
import { ruleError } from './errors.ts';

export const CONTINUE = 0;
export const YIELD = 1;
export const BLOCK = 2;
export const DONE = 3;

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

/** The JavaScript of a block's function, given its body. */
function source(name: string, body: string): string {
  return `return function ${name}(q) {\nconst R = q.R, F = q.F, Z = q.Z, N = q.N, C = q.C;\nlet at = q.pc;\ntry {\n${body}\n} catch (e) { q.pc = at; throw e; }\n}`;
}

/** The block's function; `W` holds its SIMD functions (wasm/module.ts). */
function make(name: string, body: string, W?: Record<string, unknown>): BlockFn {
  return (new Function(...HELPER_NAMES, 'W', source(name, body)) as (...h: unknown[]) => BlockFn)(...HELPER_VALUES, W);
}

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

const F_SIG = fieldOf('alu', 'sig');

const isEnd = (s: Step) => s.instr.kind === 'alu' && PROGRAM_END_SIGNALS.has(s.instr.sig);

/**
 * The last instruction of the block that starts at `start`, from the program's words (low word
 * first; only the signals are read). A branch in the first or second delay slot of another (a
 * broken rule, run in non-strict mode) starts a new block: a block's exits assume at most one
 * branch pending, or one queued in the last delay slot.
 */
export function blockEnd(words: Uint32Array, start: number): number {
  const n = words.length >>> 1;
  const sig = (pc: number) => fieldValue(words[2 * pc + 1]!, words[2 * pc]!, F_SIG);
  const isBranch = (pc: number) => sig(pc) === SIG_BRANCH;
  let k = start;
  for (;;) {
    for (let j = Math.max(start, k - 3); j <= k; j++) {
      if (isBranch(j) && j + 3 === k) return k;
      if (PROGRAM_END_SIGNALS.has(sig(j)) && j + 2 === k) return k; // ALU signals: kind alu
    }
    if (k + 1 >= n || k + 1 - start >= MAX_BLOCK) return k;
    if (isBranch(k + 1) && (isBranch(k) || (k - 1 >= start && isBranch(k - 1)))) return k;
    k++;
  }
}

export function compileBlock(p: Steps, start: number, strict: boolean, opts: TranslateOptions): BlockFn {
  const step = p.step;
  const end = p.blockEnd(start);
  const lines: string[] = ['const p0 = q.prev0;'];
  let branchAt = -1;
  let endAt = -1;
  let nops = 0;

  /** Leaves the block before instruction k, as if it had run one instruction at a time. */
  const leaveBefore = (k: number): string => {
    const out = [`q.pc = ${k};`];
    if (k - 1 >= start) out.push(`q.prev0 = ${k - 1};`, `q.prev1 = ${k - 2 >= start ? k - 2 : 'p0'};`);
    if (nops) out.push(`q.stats.nops += ${nops};`);
    if (branchAt >= 0 && k <= branchAt + 3) out.push(`if (q.branchCountdown > 0) q.branchCountdown = ${branchAt + 4 - k};`);
    if (endAt >= 0 && k <= endAt + 2) out.push(`q.endCountdown = ${endAt + 3 - k};`);
    return out.join(' ');
  };

  // Runs of lane-only instructions become one group with one lane loop. A group's r4 reads all
  // see r4 as it is at the group's start (the SFU-result checks are hoisted before the loop), so
  // in non-strict runs an instruction that reads r4 starts a new group when an SFU result may
  // arrive inside the group: when an SFU write may be among the two instructions executed before
  // the group. In strict runs such a read breaks r4-after-sfu and stops the run before it.
  const sfuJustBefore = (first: number) => [first - 1, first - 2].some((j) => j < start || step(j).effects.sfuWrites > 0);
  // Strict runs: an instruction that breaks a rule along the block's fall-through (known from
  // the third instruction on; the machine checks the first two on entry) starts its own group,
  // so that the run stops right before it, after everything before it has run.
  const broken = (k: number) => (strict && k >= start + 2 ? (step(k).alone.find(isError) ?? step(k).fallThrough.find(isError)) : undefined);
  const groups: { first: number; codes: InstrCode[]; bad?: Violation }[] = [];
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

  // Lane arithmetic WebAssembly SIMD can do runs as SIMD functions (wasm/lanes.ts).
  const lanes = new LaneModule();
  const simdOne = (k: number) => opts.simd && !opts.lastReads && supported(step(k).instr);
  const simd = (k: number, c: InstrCode) => c.fusable && simdOne(k);
  /** An instruction alone, its lane work as SIMD: its JavaScript before, the call, its JavaScript after. */
  const simdAlone = (k: number, c: InstrCode) => {
    const ins = step(k).instr;
    // Vector I/O writes (condition always) take every lane; a rotation's write is the SIMD function's.
    const masks = (c.ioMasks ?? []).map((m) => `${m} = 0xffff;`);
    return [...c.pre, lanes.add([ins], k), ...masks, ...(rotation(ins) ? c.post.slice(0, c.rotationPost) : c.post)].join('\n');
  };
  for (const g of groups) {
    const len = g.codes.length;
    lines.push(`// ${g.first}${len > 1 ? `-${g.first + len - 1}` : ''}`, `at = ${g.first};`);
    if (g.bad) lines.push(`throw ruleError(${JSON.stringify(g.bad)});`);
    if (len === 1) {
      const k = g.first;
      const c = g.codes[0]!;
      if (step(k).shared) lines.push(`if (${mustYield(step(k))}) { ${leaveBefore(k)} return ${YIELD}; }`);
      const code = simdOne(k) && worthAlone(step(k).instr) ? simdAlone(k, c) : joinCode(c);
      const body = code.replaceAll(BLOCKED, `{ ${leaveBefore(k)} return ${BLOCK}; }`).replaceAll(SYNC_R4, 'q.syncR4(0);');
      lines.push(`{\n${body}\n}`, `q.time += ${CYCLES_PER_INSTR}; q.count++;`);
    } else {
      // Only the group's first instruction can fault (uniform reads start groups), so `at` holds.
      g.codes.forEach((c, j) => lines.push(...c.pre.map((s) => s.replaceAll(SYNC_R4, `q.syncR4(${j});`))));
      // Runs of instructions SIMD can do, and runs of the others in one lane loop, in order.
      for (let j = 0; j < len; ) {
        const kind = simd(g.first + j, g.codes[j]!);
        let n = 1;
        while (j + n < len && simd(g.first + j + n, g.codes[j + n]!) === kind) n++;
        if (kind) lines.push(lanes.add(range(g.first + j, n).map((k) => step(k).instr), g.first + j));
        else {
          const bodies = g.codes.slice(j, j + n).filter((c) => c.loop.length).map((c) => `{\n${c.loop.join('\n')}\n}`);
          if (bodies.length) lines.push(`for (let l = 0; l < ${LANES}; l++) {`, ...promoteRegisters(bodies), '}');
        }
        j += n;
      }
      lines.push(`q.time += ${CYCLES_PER_INSTR * len}; q.count += ${len};`);
    }
    for (let k = g.first; k < g.first + len; k++) {
      if (step(k).nop) nops++;
      if (step(k).instr.kind === 'branch') {
        if (k + 3 === end) lines.push('const took = q.branchCountdown > 0;');
        branchAt = k;
      }
      if (isEnd(step(k)) && !(endAt >= 0 && k <= endAt + 2)) endAt = k; // one in the delay slots does not count
    }
  }
  if (endAt >= 0 && endAt + 2 === end) {
    lines.push(`q.pc = ${end}; q.prev0 = ${end}; q.prev1 = ${end - 1 >= start ? end - 1 : 'p0'};`, nops ? `q.stats.nops += ${nops};` : '', `return ${DONE};`);
  } else if (end - 3 >= start && step(end - 3).instr.kind === 'branch') {
    lines.push(
      `q.prev0 = ${end}; q.prev1 = ${end - 1 >= start ? end - 1 : 'p0'};`,
      nops ? `q.stats.nops += ${nops};` : '',
      endAt >= 0 ? `q.endCountdown = ${endAt + 3 - (end + 1)};` : '',
      // The branch whose last delay slot this is jumps now; one taken in that slot waits 3 more.
      `if (took) { q.pc = q.branchTarget; ${PROMOTE} }`,
      `else { q.pc = ${end + 1}; if (q.branchCountdown > 0) q.branchCountdown = 3; }`,
    );
    // A loop: back at the start with nothing pending, the block runs again itself (up to q.loops
    // times a call), as the machine would run it, when entering it from its own end breaks no rule.
    if (endAt < 0 && !(strict && loopEntryBreaksRule(step, start, end)))
      lines.push(`if (q.pc === ${start} && q.branchCountdown === 0 && --q.loops > 0) continue;`);
    lines.push(`return ${CONTINUE};`);
  } else lines.push(leaveBefore(end + 1), `return ${CONTINUE};`);
  const loops = lines.some((l) => l.endsWith('continue;'));
  const body = loops ? `for (;;) {\n${lines.join('\n')}\n}` : lines.join('\n');
  const fn = make(`block_${start}_${end}`, body, lanes.empty ? undefined : lanes.instantiate());
  if (listings.on && !lanes.empty) (fn as Listed).wasm = lanes.text();
  return fn;
}

/** A block that keeps the text of its SIMD functions (when listings are on). */
type Listed = BlockFn & { wasm?: string };

/**
 * The translations of the blocks made so far, in program order: each block's JavaScript, or
 * (`wasm`) the text of its SIMD functions; blocks made while listings were off have no SIMD text.
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
  const step = p.step(pc);
  const body = joinCode(instrCode(step.instr, pc, opts)).replaceAll(BLOCKED, `return ${BLOCK};`).replaceAll(SYNC_R4, 'q.syncR4(0);');
  const lines = [
    step.shared ? `if (${mustYield(step)}) return ${YIELD};` : '',
    `{\n${body}\n}`,
    `q.time += ${CYCLES_PER_INSTR}; q.count++;`,
    step.nop ? 'q.stats.nops++;' : '',
    `q.prev1 = q.prev0; q.prev0 = ${pc};`,
    `if (q.endCountdown > 0 && --q.endCountdown === 0) return ${DONE};`,
    `if (q.branchCountdown > 0 && --q.branchCountdown === 0) { q.pc = q.branchTarget; ${PROMOTE} } else q.pc = ${pc + 1};`,
    `return ${CONTINUE};`,
  ];
  return make(`unit_${pc}`, lines.join('\n'));
}

/**
 * Keeps the register words a fused lane loop uses only as integers in locals: each is loaded
 * once at the top of the lane's iteration and, if written, stored once at the bottom. Words the
 * loop reads or writes as floats (through the F view) stay in the array, so that both views see
 * one value.
 */
function promoteRegisters(bodies: string[]): string[] {
  const asFloat = new Set<string>();
  for (const b of bodies) for (const m of b.matchAll(/F\[(\d+)\+l\]/g)) asFloat.add(m[1]!);
  const used = new Set<string>();
  const written = new Set<string>();
  const out = bodies.map((body) =>
    body.replace(/R\[(\d+)\+l\](\s*=(?!=))?/g, (m: string, n: string, assign: string | undefined) => {
      if (asFloat.has(n)) return m;
      used.add(n);
      if (assign) written.add(n);
      return assign ? `i${n} =` : `i${n}`;
    }),
  );
  const loads = [...used].map((n) => `let i${n} = R[${n}+l];`);
  const stores = [...written].map((n) => `R[${n}+l] = i${n};`);
  return [...loads, ...out, ...stores];
}
