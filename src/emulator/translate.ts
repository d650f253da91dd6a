// Translates a decoded instruction into JavaScript that executes it on a QPU: the lane loop
// specialised to the instruction's opcodes, muxes, conditions and destinations, with the
// register-mapped I/O calls resolved at translation time (the reads and writes: access.ts; the
// ALU operations: inline.ts). blocks.ts puts these pieces together into functions. Needs: a decoded instruction. Guarantees: code (code.ts) that either stops at
// its wait, before any effect, when the instruction must wait for another QPU (semaphore,
// mutex), or performs the whole instruction; words the emulator cannot run become a statement
// that throws a clear error.
//
// The locals an instruction's code declares before its lane loop end in the instruction's
// index, and each instruction's loop body is a block of its own, so that blocks.ts can run the
// lane loops of several instructions as one loop.

import * as arith from '../vc4/arith.ts';
import type { AluInstr, BranchInstr, Instr, LoadImmInstr, SemaInstr } from '../vc4/instr.ts';
import { LANES } from '../vc4/chip.ts';
import { BRANCH_SETS_FLAGS, SIG_SMALL_IMM } from '../vc4/fields.ts';
import { BRANCH_DELAY_SLOTS, linkOffset } from '../vc4/flow.ts';
import { addNopKeepsAccumulator } from '../vc4/effects.ts';
import { addWriteFile, mulWriteFile, R_MUTEX, R_UNIF, type RegFile, W_NOP, writeInfo } from '../vc4/registers.ts';
import {
  ADD_OPS,
  type AddOpName,
  BRANCH_ALWAYS,
  BRANCH_CONDITIONS,
  COND_NEVER,
  LDI_MODE_32,
  LDI_MODE_SIGNED,
  LDI_MODE_UNSIGNED,
  MUL_OPS,
  type MulOpName,
  MUX_A,
  MUX_B,
  MUX_R4,
  PACK_MUL_MODES,
  perElementValues,
  SIG_LOAD_TMU0,
  SIG_LOAD_TMU1,
  SIG_PROG_END,
  SIGNALS,
  SMALL_IMM_ROTATE_R5,
  smallImmRotation,
  smallImmValue,
  TLB_LOAD_SIGNALS,
} from '../vc4/tables.ts';
import {
  ADD_FLOAT_OUT,
  ADD_IDENTITY,
  ADD_READS_FLOAT,
  addCarryExpr,
  addOpCode,
  constVal,
  exprVal,
  loadFloat,
  MUL_FLOAT_OUT,
  MUL_IDENTITY,
  MUL_READS_FLOAT,
  mulCarryExpr,
  mulOpCode,
  regVal,
  type Val,
} from './inline.ts';
import { packA, packMul, unpackA, unpackR4 } from './pack.ts';
import { condDef, condLocal, element0Write, flagCode, genRead, genWrite, needInt, Unsupported } from './access.ts';
import { C, type Code, type InstrCode, isWait, js, N, print, R, set, Z } from './code.ts';
import { ioError } from './errors.ts';
import { ACC, R4, R5, REG_A, SADD, SMUL, SROT, STMP } from './layout.ts';

/** Whether every lane of `flags` (LANES of them) is `v` (a branch condition's all-). */
function allLanes(flags: Int32Array, v: number): boolean {
  for (let l = 0; l < flags.length; l++) if (flags[l] !== v) return false;
  return true;
}
/** Whether any lane of `flags` is `v` (a branch condition's any-). */
function anyLane(flags: Int32Array, v: number): boolean {
  for (let l = 0; l < flags.length; l++) if (flags[l] === v) return true;
  return false;
}

/** The helper functions generated code calls, by name. */
export const HELPERS: Readonly<Record<string, unknown>> = { ...arith, packA, packMul, unpackA, unpackR4, ioError, allLanes, anyLane };

export interface TranslateOptions {
  /** The program reads the nop register somewhere, so regfile reads must be remembered (addendum). */
  readonly lastReads: boolean;
  /** Lane arithmetic runs as WebAssembly SIMD where it can (wasm/lanes.ts); else as JavaScript lane loops. */
  readonly simd: boolean;
}

export function instrCode(ins: Instr, pc: number, opts: TranslateOptions): InstrCode {
  const c: InstrCode = { pre: [], loop: [], post: [], fusable: false };
  try {
    if (ins.kind === 'alu') genAlu(ins, pc, c, opts);
    else if (ins.kind === 'ldi') genImm(ins, pc, ldiValues(ins), c);
    else if (ins.kind === 'sema') genSema(ins, pc, c);
    else genBranch(ins, pc, c);
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    return { pre: [js`throw ioError(${JSON.stringify(e.kind)}, ${JSON.stringify(e.message)});`], loop: [], post: [], fusable: false };
  }
  return c;
}

const SIG_BREAKPOINT = SIGNALS.indexOf('bkpt');
/** Signals only fragment shaders use: thread switches, the scoreboard, tile-buffer loads (Table 4). */
const FRAGMENT_SIGNALS: ReadonlySet<number> = new Set([...(['thrsw', 'lthrsw', 'sbwait', 'sbdone'] as const).map((s) => SIGNALS.indexOf(s)), ...TLB_LOAD_SIGNALS]);

function signalCode(sig: number, c: InstrCode): void {
  if (sig === SIG_BREAKPOINT) throw new Unsupported('unsupported', 'a software breakpoint (bkpt signal)');
  if (FRAGMENT_SIGNALS.has(sig)) throw new Unsupported('unsupported', 'a thread-switch, scoreboard or tile-buffer signal, which only fragment shaders use');
  // Two delay slots run after a program end, then the QPU is idle (Guide p. 21): a program end
  // in them (a broken rule, end-in-end-delay-slot) does not restart them.
  if (sig === SIG_PROG_END) c.post.push(js`if (!(q.endCountdown > 0)) q.endCountdown = 3;`);
  if (sig === SIG_LOAD_TMU0 || sig === SIG_LOAD_TMU1) c.post.push(js`q.tmuLoad(${sig - SIG_LOAD_TMU0});`);
}

/**
 * Loads an operation's inputs into locals `x`, `y` (`ints`) and, for float ops, their floats
 * `fx`, `fy` (`float`); only `x` and `fx` when it reads one input (`unary`).
 */
function loadInputs(c: InstrCode, [x, y, fx, fy]: readonly [string, string, string, string], a: Val, b: Val, { float, ints, unary }: { float: boolean; ints: boolean; unary: boolean }): void {
  const same = sameCode(a.int, b.int);
  if (ints) c.loop.push(unary ? js`const ${x} = ${a.int};` : js`const ${x} = ${a.int}, ${y} = ${same ? x : b.int};`);
  if (!float) return;
  c.loop.push(floatInput(c, fx, a));
  if (!unary) c.loop.push(same ? js`const ${fy} = ${fx};` : floatInput(c, fy, b));
}

/** Loads input `v`'s float into local `name`: from the F view for a register, else its float (defined before the loop when it needs it). */
function floatInput(c: InstrCode, name: string, v: Val): Code {
  if (v.fref) return loadFloat(name, v.fref);
  if (v.floatDef && !c.pre.includes(v.floatDef)) c.pre.push(v.floatDef);
  return js`const ${name} = ${v.float};`;
}

/** Whether two pieces of code are the same expression. */
const sameCode = (a: Code, b: Code) => print(a) === print(b);

/** Whether an operation reads regfile A's value as a float (`op` a float operation and a mux A). */
const floatFromA = (op: { input: string }, a: number, b: number) => op.input === 'float' && (a === MUX_A || b === MUX_A);

/** Whether an ALU's write reaches anything: a register or an I/O register, under a condition other than never. */
const goes = (file: RegFile, addr: number, cond: number) => writeInfo(file, addr).unit !== 'nop' && cond !== COND_NEVER;

/** What an ALU instruction's muxes choose from: its register-file reads, and whether regfile A unpacks to float. */
interface Inputs {
  readonly i: AluInstr;
  readonly a: Val;
  readonly b: Val;
  readonly aFloat: boolean;
  readonly c: InstrCode;
}

/** The value mux `m` gives (Table 3): r0-r5, regfile A (unpacked by pm 0) or B; r4 unpacked by pm 1. */
function mux({ i, a, b, aFloat, c }: Inputs, m: number): Val {
  if ((m === MUX_A && a.crossLane) || (m === MUX_B && b.crossLane)) c.crossLane = true;
  if (m === MUX_A) return i.pm === 0 && i.unpack ? exprVal(js`unpackA(${i.unpack}, ${a.int}, ${aFloat})`) : a;
  if (m === MUX_B) return b;
  if (m === MUX_R4 && i.pm === 1 && i.unpack) return exprVal(js`unpackR4(${i.unpack}, ${R(R4, 'l')})`);
  return regVal(ACC + LANES * m); // r0-r5
}

function genAlu(i: AluInstr, pc: number, c: InstrCode, opts: TranslateOptions): void {
  const addInfo = ADD_OPS[i.opAdd];
  if (!addInfo) throw new Unsupported('unsupported', `add opcode ${i.opAdd} is reserved`);
  const mulInfo = MUL_OPS[i.opMul]!;
  const add = addInfo.name as AddOpName;
  const mul = mulInfo.name as MulOpName;
  // An ALU with opcode nop still writes when its write address and condition say so: the mul
  // ALU its last result of elements 12-15 (vc4asm's addendum, "Secret access to previous MUL
  // ALU result"), the add ALU something undocumented. Not modelled, so never silently dropped;
  // but an add nop that gives an accumulator what it reads from it (py-videocore's nop) keeps it
  // (effects.ts says why).
  if (addNopKeepsAccumulator(i)) i = { ...i, waddrAdd: W_NOP };
  if (add === 'nop' && i.waddrAdd !== W_NOP && i.condAdd !== COND_NEVER)
    throw new Unsupported('unsupported', `the add ALU's opcode is nop but it writes address ${i.waddrAdd}: what that writes is not documented`);
  if (mul === 'nop' && i.waddrMul !== W_NOP && i.condMul !== COND_NEVER)
    throw new Unsupported(
      'unsupported',
      `the mul ALU's opcode is nop but it writes address ${i.waddrMul}: that writes its last result of elements 12-15 (vc4asm's addendum), which the emulator does not model`,
    );
  const smallImm = i.sig === SIG_SMALL_IMM;
  if (i.raddrA === R_MUTEX || (!smallImm && i.raddrB === R_MUTEX)) c.pre.push({ until: js`q.m.mutexAcquire(q)` });
  if (!smallImm) signalCode(i.sig, c);
  if (i.pm === 1 && PACK_MUL_MODES[i.pack] === undefined) throw new Unsupported('unsupported', `mul pack mode ${i.pack} is reserved`);

  // The two register-file reads happen whether or not an ALU uses them (uniforms pop, ...).
  const aVal = genRead('a', i.raddrA, pc, c, opts.lastReads);
  let bVal: Val;
  if (smallImm) {
    bVal = constVal(smallImmValue(i.raddrB));
    if (opts.lastReads) c.loop.push(js`if (l >= 12) q.lastB[l - 12] = ${bVal.int};`);
  } else if (i.raddrA === R_UNIF && i.raddrB === R_UNIF) {
    bVal = aVal; // both ports reading uniforms take one uniform (Mesa's and the kernel's validators)
    if (opts.lastReads) c.loop.push(js`if (l >= 12) q.lastB[l - 12] = ${aVal.int};`);
  } else bVal = genRead('b', i.raddrB, pc, c, opts.lastReads);

  const usesR4 = (add !== 'nop' && (i.addA === MUX_R4 || i.addB === MUX_R4)) || (mul !== 'nop' && (i.mulA === MUX_R4 || i.mulB === MUX_R4));
  if (usesR4) c.pre.push({ syncR4: true });
  // Unpacking regfile A converts to float if any ALU that reads A does a float operation (Table 6).
  const aFloat = floatFromA(addInfo, i.addA, i.addB) || floatFromA(mulInfo, i.mulA, i.mulB);
  const inputs: Inputs = { i, a: aVal, b: bVal, aFloat, c };
  const rotates = smallImm && i.raddrB >= SMALL_IMM_ROTATE_R5 && mul !== 'nop';
  const flagsFrom = !i.sf ? 'none' : add !== 'nop' ? 'add' : mul !== 'nop' ? 'mul' : 'none';
  // An ALU computes only what goes somewhere: a register, an I/O register, the flags, a rotation.
  const addOut = add !== 'nop' && (flagsFrom === 'add' || goes(addWriteFile(i.ws), i.waddrAdd, i.condAdd));
  const mulOut = mul !== 'nop' && (flagsFrom === 'mul' || rotates || goes(mulWriteFile(i.ws), i.waddrMul, i.condMul));
  // Conditions use the flags from before this instruction.
  const ca = condLocal(i.condAdd, 'ca');
  const cm = condLocal(i.condMul, 'cm');
  if (ca === 'ca' && addOut) c.loop.push(condDef(i.condAdd, ca));
  if (cm === 'cm' && mulOut) c.loop.push(condDef(i.condMul, cm));
  const ints = new Set<string>();
  const addF = ADD_FLOAT_OUT.has(add) ? { defined: ints } : undefined;
  const mulF = MUL_FLOAT_OUT.has(mul) ? { defined: ints } : undefined;
  // An ALU's inputs may read other lanes (the nop register) even when it computes nothing.
  const [addX, addY] = add !== 'nop' ? [mux(inputs, i.addA), mux(inputs, i.addB)] : [];
  const [mulX, mulY] = mul !== 'nop' ? [mux(inputs, i.mulA), mux(inputs, i.mulB)] : [];
  if (addOut) {
    // fadd and fsub need their inputs' patterns only on the slow path: read them there.
    const [x, y] = [addX!, addY!];
    const lazy = (add === 'fadd' || add === 'fsub') && !(i.pm === 0 && i.pack);
    // A move (`or x, x`) copies its input; the flags' carry reads both inputs.
    const move = sameCode(x.int, y.int) && ADD_IDENTITY.has(add);
    if (move && flagsFrom !== 'add') c.loop.push(js`const add_out = ${x.int};`);
    else {
      // ftoi reads only its input's float; a move setting flags reads its input twice only for the carry (and, or: C is 0).
      const unary = addInfo.arity === 1 || (move && (add === 'and' || add === 'or'));
      loadInputs(c, ['aa', 'ab', 'fa', 'fb'], x, y, { float: ADD_READS_FLOAT.has(add), ints: !lazy && add !== 'ftoi', unary });
      c.loop.push(...(move ? [js`const add_out = aa;`] : addOpCode(add, 'add_out', lazy ? [x.int, y.int] : undefined)));
    }
  }
  if (mulOut) {
    const [x, y] = [mulX!, mulY!];
    const lazy = mul === 'fmul' && !(i.sf && add === 'nop') && !rotates;
    // A move (`v8min x, x`) copies its input; a rotation's flags read both inputs.
    const move = sameCode(x.int, y.int) && MUL_IDENTITY.has(mul);
    if (move && flagsFrom !== 'mul' && !rotates) c.loop.push(js`const mul_out = ${x.int};`);
    else {
      // A rotated move without flags reads its input once; with them, the carry reads both.
      loadInputs(c, ['ma', 'mb', 'fma', 'fmb'], x, y, { float: MUL_READS_FLOAT.has(mul), ints: !lazy, unary: move && flagsFrom !== 'mul' });
      c.loop.push(...(move ? [js`const mul_out = ma;`] : mulOpCode(mul, 'mul_out', lazy ? [x.int, y.int] : undefined)));
    }
  }
  // Writes come after every input of the lane has been read.
  if (addOut) {
    const overflow = add === 'add' || add === 'sub' ? js`, addOverflow(${i.opAdd}, aa, ab) ? 1 : 0, ${addCarryExpr(add, 'add_out')}` : undefined;
    const pack = { pm: i.pm, mode: i.pack, isMul: false, isFloat: arith.ADD_FLOAT_RESULT.has(i.opAdd), overflow };
    genWrite(c, 'add_out', addWriteFile(i.ws), i.waddrAdd, ca, pack, SADD, `a${pc}`, 'l', addF);
    if (flagsFrom === 'add') {
      if (addF) needInt(c, 'add_out', ints);
      c.loop.push(flagCode('add_out', ca, addCarryExpr(add, 'add_out')));
    }
  }
  if (mulOut) {
    if (rotates) {
      c.pre.push(js`let cmask${pc} = 0;`);
      if (mulF) needInt(c, 'mul_out', ints);
      c.loop.push(js`${set(R(SMUL, 'l'))} = mul_out;`, cm === 'true' ? js`cmask${pc} |= 1 << l;` : js`if (${cm}) cmask${pc} |= 1 << l;`);
      if (flagsFrom === 'mul') c.loop.push(js`${set(R(STMP, 'l'))} = ma; ${set(R(STMP + LANES, 'l'))} = mb;`);
      rotateCode(i, pc, c, flagsFrom === 'mul');
    } else {
      genWrite(c, 'mul_out', mulWriteFile(i.ws), i.waddrMul, cm, { pm: i.pm, mode: i.pack, isMul: true, isFloat: mul === 'fmul' }, SMUL, `m${pc}`, 'l', mulF);
      if (flagsFrom === 'mul') {
        if (mulF) needInt(c, 'mul_out', ints);
        c.loop.push(flagCode('mul_out', cm, mulCarryExpr(mul)));
      }
    }
  }
  c.fusable = !c.crossLane && !c.io && c.post.length === 0 && !c.pre.some(isWait);
  // Flags and remembered reads (the nop register) need every lane; a rotation reads them all.
  if (!i.sf && !opts.lastReads && !rotates && element0Write(add !== 'nop', addWriteFile(i.ws), i.waddrAdd) && element0Write(mul !== 'nop', mulWriteFile(i.ws), i.waddrMul))
    c.lanes = 1;
}

/**
 * The mul result rotated across lanes (Guide p. 20): destination lane d takes the result of lane
 * d - n. With an input other than r0-r3 only the lanes within each quad rotate (vc4asm's
 * addendum). Conditions are those of the destination lane, evaluated before this instruction.
 */
function rotateCode(i: AluInstr, pc: number, c: InstrCode, flagsFromMul: boolean): void {
  const full = i.mulA < MUX_R4 && i.mulB < MUX_R4; // both inputs r0-r3
  const rot = i.raddrB === SMALL_IMM_ROTATE_R5 ? js`(${R(R5)} & 15)` : [String(smallImmRotation(i.raddrB))];
  const inner: InstrCode = { pre: [], loop: [], post: [], fusable: false };
  const pack = { pm: i.pm, mode: i.pack, isMul: true, isFloat: MUL_OPS[i.opMul]!.name === 'fmul' };
  genWrite(inner, 'rd', mulWriteFile(i.ws), i.waddrMul, 'cd', pack, SROT, `r${pc}`, 'd');
  if (flagsFromMul) inner.loop.push(flagCode('rd', 'cd', js`mulCarry(${i.opMul}, ${R(STMP, 's')}, ${R(STMP + LANES, 's')})`, 'd'));
  // r5 is read when the instruction starts, before this instruction's own writes (its add ALU
  // may write r5, which happens after the lane loop): the Guide's rule that r5 must not be
  // written by the previous instruction (p. 37) means the amount is latched at issue.
  c.pre.push(...inner.pre, js`const rot${pc} = ${rot};`);
  c.rotationPost = c.post.length;
  c.post.push(
    js`for (let d = 0; d < ${LANES}; d++) {`,
    js`const s = ${full ? `(d - rot${pc}) & 15` : `(d & 12) | ((d - rot${pc}) & 3)`};`,
    js`const rd = ${R(SMUL, 's')}, cd = (cmask${pc} >>> d) & 1;`,
    ...inner.loop,
    js`}`,
    ...inner.post,
  );
}

function ldiValues(i: LoadImmInstr): number[] {
  if (i.mode === LDI_MODE_32) return new Array<number>(LANES).fill(i.imm | 0);
  if (i.mode === LDI_MODE_SIGNED || i.mode === LDI_MODE_UNSIGNED) return perElementValues(i.imm, i.mode === LDI_MODE_SIGNED);
  throw new Unsupported('unsupported', `load-immediate mode ${i.mode} is not defined`);
}

/** Load immediate and semaphore: both ALUs output the value (Guide p. 33). */
function genImm(i: LoadImmInstr | SemaInstr, pc: number, values: number[], c: InstrCode): void {
  if (i.pm === 1 && PACK_MUL_MODES[i.pack] === undefined) throw new Unsupported('unsupported', `mul pack mode ${i.pack} is reserved`);
  const same = values.every((v) => v === values[0]);
  if (!same) c.pre.push(js`const V${pc} = [${values.join(', ')}];`);
  c.loop.push(js`const v = ${same ? values[0]! : `V${pc}[l]`};`);
  const ca = condLocal(i.condAdd, 'ca');
  const cm = condLocal(i.condMul, 'cm');
  if (ca === 'ca') c.loop.push(condDef(i.condAdd, ca));
  if (cm === 'cm') c.loop.push(condDef(i.condMul, cm));
  const before = c.loop.length;
  genWrite(c, 'v', addWriteFile(i.ws), i.waddrAdd, ca, { pm: i.pm, mode: i.pack, isMul: false, isFloat: false }, SADD, `a${pc}`);
  genWrite(c, 'v', mulWriteFile(i.ws), i.waddrMul, cm, { pm: i.pm, mode: i.pack, isMul: true, isFloat: false }, SMUL, `m${pc}`);
  if (i.sf) c.loop.push(flagCode('v', ca, '0'));
  if (c.loop.length === before) c.loop.length = 0;
  c.fusable = i.kind === 'ldi' && c.post.length === 0;
  if (!i.sf && element0Write(true, addWriteFile(i.ws), i.waddrAdd) && element0Write(true, mulWriteFile(i.ws), i.waddrMul)) c.lanes = 1;
}

function genSema(i: SemaInstr, pc: number, c: InstrCode): void {
  c.pre.push({ until: js`q.m.semaphore(q, ${i.sema}, ${i.down === 1})` });
  // The whole low word reaches the ALU outputs (fields.ts SEMA_LAYOUT): rest, down, sema.
  genImm(i, pc, new Array<number>(LANES).fill(((i.rest << 5) | (i.down << 4) | i.sema) | 0), c);
}

/**
 * A branch condition (Table 11) as an expression of the flags. Its name says it: all or any
 * lanes, an `n` when the flag must be clear, the flag (`allz`: every Z set; `anync`: some C clear).
 */
function branchExpr(cond: number): Code {
  const name = BRANCH_CONDITIONS[cond]!;
  const clear = name.length === 'allnz'.length;
  const flag = { z: Z, n: N, c: C }[name.slice(-1) as 'z' | 'n' | 'c'];
  return js`${name.startsWith('all') ? 'allLanes' : 'anyLane'}(${flag}, ${clear ? 0 : 1})`;
}

function genBranch(i: BranchInstr, pc: number, c: InstrCode): void {
  if (BRANCH_CONDITIONS[i.cond] === undefined) throw new Unsupported('unsupported', `branch condition ${i.cond} is reserved`);
  if (i.cond !== BRANCH_ALWAYS) c.taken = branchExpr(i.cond);
  const link = `((q.m.codeBase + ${linkOffset(pc)}) | 0)`;
  // The target: the immediate, plus PC + 4 when relative, plus element 15 of regfile A (addendum).
  const target: Code[] = [[`${i.imm}`], ...(i.rel ? [[`q.m.codeBase + ${linkOffset(pc)}`]] : []), ...(i.reg ? [[R(REG_A + LANES * i.raddrA, LANES - 1)]] : [])];
  // The target is computed before the link is written: with the link and the target in one
  // register (bra ra0, ZERO, ra0) the jump uses the register's old value.
  c.pre.push(js`const t${pc} = q.m.branchIndex((${target.flatMap((t, k) => (k ? [' + ', ...t] : t))}) >>> 0);`);
  c.loop.push(js`const v = link${pc};`);
  const before = c.loop.length;
  genWrite(c, 'v', addWriteFile(i.ws), i.waddrAdd, 'true', { pm: 0, mode: 0, isMul: false, isFloat: false }, SADD, `a${pc}`);
  genWrite(c, 'v', mulWriteFile(i.ws), i.waddrMul, 'true', { pm: 0, mode: 0, isMul: true, isFloat: false }, SMUL, `m${pc}`);
  if (i.raddrA & BRANCH_SETS_FLAGS) c.loop.push(flagCode('v', 'true', '0')); // bit 45 is set-flags (addendum)
  if (c.loop.length === before) c.loop.length = 0;
  else c.pre.unshift(js`const link${pc} = ${link};`);
  // A branch in the last delay slot of another queues behind it (vc4asm's addendum).
  c.post.push(js`if (q.branchCountdown > 0) { q.branchTarget2 = t${pc}; q.branchCountdown2 = ${BRANCH_DELAY_SLOTS + 1}; } else { q.branchTarget = t${pc}; q.branchCountdown = ${BRANCH_DELAY_SLOTS + 1}; }`);
}
