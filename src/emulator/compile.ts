// Translates each decoded instruction, once, into a JavaScript function that executes it on a
// QPU: the lane loop specialised to the instruction's opcodes, muxes, conditions and
// destinations, with the register-mapped I/O calls resolved at translation time. Needs: a
// decoded instruction. Guarantees: a function that returns false without any effect when the
// instruction must wait for another QPU (semaphore, mutex), and otherwise performs the whole
// instruction; words the emulator cannot run become functions that throw a clear error.

import type { AluInstr, BranchInstr, Instr, LoadImmInstr, SemaInstr } from '../vc4/instr.ts';
import * as arith from '../vc4/arith.ts';
import { ADD_OPS, MUL_OPS, perElementValues, smallImmValue } from '../vc4/tables.ts';
import { addWriteFile, mulWriteFile, type RegFile } from '../vc4/registers.ts';
import { packA, packMul, unpackA, unpackR4 } from './pack.ts';
import { ACC, ioError, type Qpu, REG_A, REG_B, SA, SADD, SB, SMUL, SROT, STMP } from './qpu.ts';

export type Exec = (q: Qpu) => boolean;

const HELPERS = { ...arith, packA, packMul, unpackA, unpackR4, ioError, ACC };

/** Compiles one instruction. `pc` is its index (branches need it for PC-relative targets). */
export function compileInstr(ins: Instr, pc: number): Exec {
  let body: string;
  try {
    body =
      ins.kind === 'alu'
        ? genAlu(ins)
        : ins.kind === 'ldi'
          ? genImm(ins, ldiValues(ins))
          : ins.kind === 'sema'
            ? genSema(ins)
            : genBranch(ins, pc);
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    const err = e;
    return () => {
      throw ioError(err.kind, err.message);
    };
  }
  const names = Object.keys(HELPERS);
  const factory = new Function(...names, `return function exec(q) {\n${body}\nreturn true;\n}`) as (...h: unknown[]) => Exec;
  return factory(...names.map((n) => (HELPERS as Record<string, unknown>)[n]));
}

class Unsupported extends Error {
  constructor(
    readonly kind: 'unsupported' | 'fault',
    message: string,
  ) {
    super(message);
  }
}

const COND_EXPR = ['false', 'true', 'Z[l]', '!Z[l]', 'N[l]', '!N[l]', 'C[l]', '!C[l]'];

interface Code {
  /** Before the lane loop: blocking checks, I/O reads. */
  pre: string[];
  /** The lane loop's body. */
  loop: string[];
  /** After the loop: I/O writes, rotation, signals. */
  post: string[];
}

function assemble(c: Code): string {
  return [
    'const R = q.R, Z = q.Z, N = q.N, C = q.C;',
    ...c.pre,
    c.loop.length ? `for (let l = 0; l < 16; l++) {\n${c.loop.join('\n')}\n}` : '',
    ...c.post,
  ].join('\n');
}

/** Where reading address `addr` of `file` gets its value: an expression in lane `l`. */
function genRead(file: RegFile, addr: number, c: Code): string {
  const last = file === 'a' ? 'q.lastA' : 'q.lastB';
  const base = file === 'a' ? REG_A : REG_B;
  const S = file === 'a' ? SA : SB;
  const remember = (expr: (lane: number) => string) =>
    c.pre.push(`${[12, 13, 14, 15].map((lane, j) => `${last}[${j}] = ${expr(lane)};`).join(' ')}`);
  if (addr < 32) {
    remember((lane) => `R[${base + 16 * addr + lane}]`);
    return `R[${base + 16 * addr}+l]`;
  }
  switch (addr) {
    case 32:
      c.pre.push(`const u${file} = q.readUniform();`);
      remember(() => `u${file}`);
      return `u${file}`;
    case 35:
      throw new Unsupported('unsupported', 'reads varyings, which only fragment shaders have');
    case 39:
      return `${last}[l & 3]`;
    case 41:
    case 42:
      throw new Unsupported('unsupported', `reads ${file === 'a' ? 'ra' : 'rb'}${addr}, a fragment-shader register`);
    case 48:
      c.pre.push(`q.vpmRead(${S});`);
      remember((lane) => `R[${S + lane}]`);
      return `R[${S}+l]`;
    case 49:
      c.pre.push(`const busy${file} = q.dmaBusy(${file === 'b'});`);
      remember(() => `busy${file}`);
      return `busy${file}`;
    case 50:
      c.pre.push(`q.dmaWait(${file === 'b'});`);
      remember(() => '0');
      return '0';
    default:
      // The mutex and unmapped addresses read as the element number (A) or QPU number (B) (p. 24).
      if (file === 'a') {
        remember((lane) => String(lane));
        return 'l';
      }
      remember(() => 'q.id');
      return 'q.id';
  }
}

/** Code that writes `v` (a local of the lane loop) to `addr` of `file`, under condition `cond`. */
function genWrite(
  c: Code,
  v: string,
  file: RegFile,
  addr: number,
  condExpr: string,
  pack: { pm: number; mode: number; isMul: boolean; isFloat: boolean; satAdd?: string },
  scratch: number,
  l = 'l',
): void {
  if (addr === 39 || condExpr === 'false') return;
  const guard = (stmt: string) => c.loop.push(condExpr === 'true' ? stmt : `if (${condExpr}) ${stmt}`);
  const target = addr < 32 ? (file === 'a' ? REG_A : REG_B) + 16 * addr : addr <= 35 ? ACC + 16 * (addr - 32) : -1;
  if (target >= 0) {
    let value = v;
    if (pack.pm === 1 && pack.isMul && pack.mode) value = `packMul(${pack.mode}, R[${target}+${l}], ${v})`;
    else if (pack.pm === 0 && pack.mode && file === 'a' && addr < 32)
      value = `packA(${pack.mode}, R[${target}+${l}], ${v}, ${pack.isFloat}, ${pack.satAdd ?? 'undefined'})`;
    guard(`R[${target}+${l}] = ${value};`);
    return;
  }
  // I/O: collect the vector and the lanes that write, then act once after the loop.
  const m = `m${scratch}`;
  c.pre.push(`let ${m} = 0;`);
  c.loop.push(`R[${scratch}+${l}] = ${v};`);
  c.loop.push(condExpr === 'true' ? `${m} |= 1 << ${l};` : `if (${condExpr}) ${m} |= 1 << ${l};`);
  c.post.push(ioWrite(file, addr, scratch, m));
}

/** The call that performs an I/O write (Guide Table 14). */
function ioWrite(file: RegFile, addr: number, src: number, mask: string): string {
  const isB = file === 'b';
  if (addr === 36) return `q.setNoSwap(${src}, ${mask});`;
  if (addr === 37) return `q.writeR5(${src}, ${mask}, ${!isB});`;
  if (addr === 38) return `q.hostInterrupt(${src}, ${mask});`;
  if (addr === 40) return `if (${mask} & 1) q.setUniformAddress(R[${src}]);`;
  if (addr >= 41 && addr <= 47) throw new Unsupported('unsupported', `writes ${isB ? 'rb' : 'ra'}${addr}, a tile-buffer or fragment register`);
  if (addr === 48) return `q.vpmWrite(${src});`;
  if (addr === 49) return isB ? `q.writeSetup(R[${src}]);` : `q.readSetup(R[${src}]);`;
  if (addr === 50) return isB ? `q.dmaStore(R[${src}]);` : `q.dmaLoad(R[${src}]);`;
  if (addr === 51) return `q.m.mutexRelease(q);`;
  if (addr >= 52 && addr <= 55) return `q.sfu(${addr - 52}, ${src}, ${mask});`;
  if (addr === 56 || addr === 60) return `q.tmuRequest(${addr === 60 ? 1 : 0}, ${src}, ${mask});`;
  throw new Unsupported(
    'unsupported',
    `writes tmu${addr >= 60 ? 1 : 0}_${'srtb'[(addr - 56) % 4]}: texture lookups are not supported, only general-memory lookups through tmu0_s/tmu1_s`,
  );
}

function signalCode(sig: number, c: Code): void {
  if (sig === 0) throw new Unsupported('unsupported', 'a software breakpoint (bkpt signal)');
  if ([2, 4, 5, 6, 7, 8, 9, 12].includes(sig))
    throw new Unsupported('unsupported', 'a thread-switch, scoreboard or tile-buffer signal, which only fragment shaders use');
  if (sig === 3) c.post.push('q.endCountdown = 3;');
  if (sig === 10 || sig === 11) c.post.push(`q.tmuLoad(${sig - 10});`);
}

/**
 * The mul result rotated across lanes (Guide p. 20): destination lane d takes the result of lane
 * d - n. With an input other than r0-r3 only the lanes within each quad rotate (vc4asm's
 * addendum). Conditions are those of the destination lane, evaluated before this instruction.
 */
function rotateCode(i: AluInstr, c: Code, flagsFromMul: boolean): void {
  const byR5 = i.raddrB === 48;
  const full = i.mulA <= 3 && i.mulB <= 3;
  c.pre.push(byR5 ? `const rot = R[${ACC + 80}] & 15;` : `const rot = ${i.raddrB - 48};`);
  const inner: Code = { pre: [], loop: [], post: [] };
  genWrite(inner, 'rd', mulWriteFile(i.ws), i.waddrMul, 'cd', { pm: i.pm, mode: i.pack, isMul: true, isFloat: i.opMul === 1 }, SROT, 'd');
  if (flagsFromMul) inner.loop.push(...flagCode('rd', 'cd', true, i.opMul, `R[${STMP}+s]`, `R[${STMP + 16}+s]`, 'd'));
  c.pre.push(...inner.pre);
  c.post.push(
    'for (let d = 0; d < 16; d++) {',
    `const s = ${full ? '(d - rot) & 15' : '(d & 12) | ((d - rot) & 3)'};`,
    `const rd = R[${SMUL}+s], cd = (cmask >>> d) & 1;`,
    ...inner.loop,
    '}',
    ...inner.post,
  );
}

function flagCode(r: string, cond: string, isMul: boolean, op: number, a: string, b: string, l = 'l'): string[] {
  const isFloat = isMul ? arith.MUL_FLOAT_RESULT.has(op) : arith.ADD_FLOAT_RESULT.has(op);
  const carry = isMul ? `mulCarry(${op}, ${a}, ${b})` : `addCarry(${op}, ${a}, ${b}, ${r})`;
  const set = `{ Z[${l}] = zeroFlag(${r}, ${isFloat}); N[${l}] = ${r} >>> 31; C[${l}] = ${carry}; }`;
  return [cond === 'true' ? set : `if (${cond}) ${set}`];
}

function genAlu(i: AluInstr): string {
  const add = ADD_OPS[i.opAdd];
  if (!add) throw new Unsupported('unsupported', `add opcode ${i.opAdd} is reserved`);
  const mul = MUL_OPS[i.opMul]!;
  const c: Code = { pre: [], loop: [], post: [] };
  const smallImm = i.sig === 13;
  if (i.raddrA === 51 || (!smallImm && i.raddrB === 51)) c.pre.push('if (!q.m.mutexAcquire(q)) return false;');
  if (!smallImm) signalCode(i.sig, c);
  if (i.pm === 1 && i.pack !== 0 && (i.pack < 3 || i.pack > 7)) throw new Unsupported('unsupported', `mul pack mode ${i.pack} is reserved`);

  // The two register-file reads happen whether or not an ALU uses them (uniforms pop, ...).
  const aExpr = genRead('a', i.raddrA, c);
  let bExpr: string;
  if (smallImm) {
    bExpr = String(smallImmValue(i.raddrB) | 0);
    c.pre.push(`q.lastB.fill(${bExpr});`);
  } else bExpr = genRead('b', i.raddrB, c);

  const usesR4 = (i.opAdd !== 0 && (i.addA === 4 || i.addB === 4)) || (i.opMul !== 0 && (i.mulA === 4 || i.mulB === 4));
  if (usesR4) c.pre.push('q.syncR4();');
  // Unpacking regfile A converts to float if any ALU that reads A does a float operation (Table 6).
  const readsA = (op: { input: string }, a: number, b: number) => op.input === 'float' && (a === 6 || b === 6);
  const aFloat = readsA(add, i.addA, i.addB) || readsA(mul, i.mulA, i.mulB);
  const mux = (m: number): string => {
    if (m === 6) return i.pm === 0 && i.unpack ? `unpackA(${i.unpack}, ${aExpr}, ${aFloat})` : aExpr;
    if (m === 7) return bExpr;
    if (m === 4 && i.pm === 1 && i.unpack) return `unpackR4(${i.unpack}, R[${ACC + 64}+l])`;
    return `R[${ACC + 16 * m}+l]`;
  };
  const rotates = smallImm && i.raddrB >= 48 && i.opMul !== 0;
  const flagsFrom = !i.sf ? 'none' : i.opAdd !== 0 ? 'add' : i.opMul !== 0 ? 'mul' : 'none';

  c.loop.push(`const ca = ${COND_EXPR[i.condAdd]}, cm = ${COND_EXPR[i.condMul]};`);
  if (i.opAdd !== 0) {
    c.loop.push(`const aa = ${mux(i.addA)}, ab = ${mux(i.addB)};`);
    c.loop.push(`const ra = ${add.name}(aa, ab);`);
  }
  if (i.opMul !== 0) {
    c.loop.push(`const ma = ${mux(i.mulA)}, mb = ${mux(i.mulB)};`);
    c.loop.push(`const rm = ${mul.name}(ma, mb);`);
  }
  // Writes come after every input of the lane has been read.
  if (i.opAdd !== 0) {
    const sat = add.name === 'add' ? '(aa + ab)' : add.name === 'sub' ? '(aa - ab)' : undefined;
    const packInfo = { pm: i.pm, mode: i.pack, isMul: false, isFloat: arith.ADD_FLOAT_RESULT.has(i.opAdd), satAdd: sat };
    genWrite(c, 'ra', addWriteFile(i.ws), i.waddrAdd, 'ca', packInfo, SADD);
    if (flagsFrom === 'add') c.loop.push(...flagCode('ra', 'ca', false, i.opAdd, 'aa', 'ab'));
  }
  if (i.opMul !== 0) {
    if (rotates) {
      c.pre.push('let cmask = 0;');
      c.loop.push(`R[${SMUL}+l] = rm; if (cm) cmask |= 1 << l;`);
      if (flagsFrom === 'mul') c.loop.push(`R[${STMP}+l] = ma; R[${STMP + 16}+l] = mb;`);
      rotateCode(i, c, flagsFrom === 'mul');
    } else {
      genWrite(c, 'rm', mulWriteFile(i.ws), i.waddrMul, 'cm', { pm: i.pm, mode: i.pack, isMul: true, isFloat: i.opMul === 1 }, SMUL);
      if (flagsFrom === 'mul') c.loop.push(...flagCode('rm', 'cm', true, i.opMul, 'ma', 'mb'));
    }
  }
  if (c.loop.length === 1) c.loop.length = 0; // no ALU work: skip the loop
  return assemble(c);
}

function ldiValues(i: LoadImmInstr): number[] {
  if (i.mode === 0) return new Array<number>(16).fill(i.imm | 0);
  if (i.mode === 1 || i.mode === 3) return perElementValues(i.imm, i.mode === 1);
  throw new Unsupported('unsupported', `load-immediate mode ${i.mode} is not defined`);
}

/** Load immediate and semaphore: both ALUs output the value (Guide p. 33). */
function genImm(i: LoadImmInstr | SemaInstr, values: number[], c: Code = { pre: [], loop: [], post: [] }): string {
  if (i.pm === 1 && i.pack !== 0 && (i.pack < 3 || i.pack > 7)) throw new Unsupported('unsupported', `mul pack mode ${i.pack} is reserved`);
  const uniform = values.every((v) => v === values[0]);
  c.pre.push(uniform ? '' : `const V = [${values.join(', ')}];`);
  c.loop.push(`const v = ${uniform ? values[0] : 'V[l]'};`, `const ca = ${COND_EXPR[i.condAdd]}, cm = ${COND_EXPR[i.condMul]};`);
  genWrite(c, 'v', addWriteFile(i.ws), i.waddrAdd, 'ca', { pm: i.pm, mode: i.pack, isMul: false, isFloat: false }, SADD);
  genWrite(c, 'v', mulWriteFile(i.ws), i.waddrMul, 'cm', { pm: i.pm, mode: i.pack, isMul: true, isFloat: false }, SMUL);
  if (i.sf) c.loop.push(...flagCode('v', 'ca', false, 12, 'v', '0'));
  if (c.loop.length === 2) c.loop.length = 0;
  return assemble(c);
}

function genSema(i: SemaInstr): string {
  const c: Code = { pre: [`if (!q.m.semaphore(q, ${i.sema}, ${i.down === 1})) return false;`], loop: [], post: [] };
  const value = ((i.rest << 5) | (i.down << 4) | i.sema) | 0;
  return genImm(i, new Array<number>(16).fill(value), c);
}

const BRANCH_EXPR = (cond: number): string => {
  const flag = ['Z', 'N', 'C'][cond >> 2];
  const all = (cond & 2) === 0;
  const set = (cond & 1) === 0;
  return `${all ? 'q.m.all' : 'q.m.any'}(${flag}, ${set ? 1 : 0})`;
};

function genBranch(i: BranchInstr, pc: number): string {
  if (i.cond >= 12 && i.cond <= 14) throw new Unsupported('unsupported', `branch condition ${i.cond} is reserved`);
  const c: Code = { pre: [], loop: [], post: [] };
  const taken = i.cond === 15 ? 'true' : BRANCH_EXPR(i.cond);
  const link = `((q.m.codeBase + ${(pc + 4) * 8}) | 0)`;
  // The target: the immediate, plus PC + 4 when relative, plus element 15 of regfile A (addendum).
  const target = [`${i.imm}`, i.rel ? `q.m.codeBase + ${(pc + 4) * 8}` : '', i.reg ? `R[${REG_A + 16 * i.raddrA + 15}]` : '']
    .filter(Boolean)
    .join(' + ');
  c.pre.push(`if (!(${taken})) return true;`, `const link = ${link};`);
  c.loop.push('const v = link;');
  genWrite(c, 'v', addWriteFile(i.ws), i.waddrAdd, 'true', { pm: 0, mode: 0, isMul: false, isFloat: false }, SADD);
  genWrite(c, 'v', mulWriteFile(i.ws), i.waddrMul, 'true', { pm: 0, mode: 0, isMul: true, isFloat: false }, SMUL);
  if (i.raddrA & 1) c.loop.push('Z[l] = v === 0 ? 1 : 0; N[l] = v >>> 31; C[l] = 0;'); // bit 45 is set-flags (addendum)
  if (c.loop.length === 1) c.loop.length = 0;
  c.post.push(`q.branchTarget = q.m.branchIndex(q, (${target}) >>> 0);`, 'q.branchCountdown = 4;');
  return assemble(c);
}

