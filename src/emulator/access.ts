// What reading and writing a register address does, as translated code (Guide Table 14): the
// register files and accumulators as words of the layout, the uniforms, the VPM, DMA, the SFU,
// the TMUs, r5, the mutex, host interrupts; and a write's condition, pack and flags. translate.ts
// calls these for each instruction's reads and writes.
// Needs: an instruction's code being built (code.ts InstrCode). Guarantees: a read's value for
// lane `l`, its effect before the lane loop; a write under its condition in the loop, an I/O
// register's effect once after it; registers the emulator does not run throw Unsupported.

import { LANES } from '../vc4/chip.ts';
import { readInfo, type RegFile, tmuOfWrite, W_ACC0, W_NOP, W_SFU_RECIP, W_TMU0_S, W_TMU1_S, writeInfo } from '../vc4/registers.ts';
import { COND_ALWAYS, COND_NEVER, CONDITIONS, type Condition } from '../vc4/tables.ts';
import { at, C, type Code, F, type InstrCode, js, N, R, set, Z } from './code.ts';
import { constVal, exprVal, intOfFloat, regVal, type Val } from './inline.ts';
import { ACC, REG_A, REG_B, SA, SB, UNIF } from './layout.ts';

/** An instruction the emulator does not run: translated into a statement that throws this error. */
export class Unsupported extends Error {
  constructor(
    readonly kind: 'unsupported' | 'fault',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Whether an ALU's write (`writes`: its opcode is not nop) needs only lane 0 computed: it writes
 * nothing, or an I/O register that takes element 0 of what is written (the register table's
 * `scalar` rows: setups, DMA and uniform addresses, tmu_noswap, host_int, the mutex).
 */
export function element0Write(writes: boolean, file: RegFile, addr: number): boolean {
  return !writes || addr === W_NOP || writeInfo(file, addr).scalar === true;
}

/** Each write condition (Table 2) as an expression of lane `l`'s flags, by code. */
const COND_EXPR: readonly Code[] = CONDITIONS.map(
  (c) =>
    (
      ({
        never: ['false'],
        always: ['true'],
        zs: js`${Z}[l]`,
        zc: js`!${Z}[l]`,
        ns: js`${N}[l]`,
        nc: js`!${N}[l]`,
        cs: js`${C}[l]`,
        cc: js`!${C}[l]`,
      }) satisfies Record<Condition, Code>
    )[c],
);

/** A write condition as the lane loop tests it: `true` or `false` when it tests no flag, else the local `name`, which `condDef` defines. */
export const condLocal = (cond: number, name: string): string => (cond === COND_NEVER ? 'false' : cond === COND_ALWAYS ? 'true' : name);
export const condDef = (cond: number, name: string): Code => js`const ${name} = ${COND_EXPR[cond]!};`;

/** Where reading address `addr` of `file` gets its value, for lane `l`. */
export function genRead(file: RegFile, addr: number, pc: number, c: InstrCode, lastReads: boolean): Val {
  const last = file === 'a' ? 'q.lastA' : 'q.lastB';
  const base = file === 'a' ? REG_A : REG_B;
  const S = file === 'a' ? SA : SB;
  let v: Val;
  switch (readInfo(file, addr).unit) {
    case 'regfile':
      v = regVal(base + LANES * addr);
      break;
    case 'uniform': {
      // Into the UNIF word, which every lane reads, as a SIMD function does (wasm/lanes.ts; a uniform read starts a group, blocks.ts).
      c.pre.push(js`${set(R(UNIF))} = q.readUniform();`);
      v = { int: [R(UNIF)], float: ['flushF(', F(UNIF), ')'], fref: F(UNIF) };
      break;
    }
    case 'varying':
      throw new Unsupported('unsupported', 'reads varyings, which only fragment shaders have');
    case 'nop':
      // Lanes 12-15 of an earlier read: an instruction using it is not fused with those before.
      return { ...exprVal(js`${last}[l & 3]`), crossLane: true };
    case 'fragment':
      throw new Unsupported('unsupported', `reads ${file === 'a' ? 'ra' : 'rb'}${addr}, a fragment-shader register`);
    case 'vpm':
      c.io = true;
      c.pre.push(js`q.vpmRead(${at(S)});`);
      v = regVal(S);
      break;
    case 'dma_busy':
      c.io = true;
      c.pre.push(js`const busy${file}${pc} = q.dmaBusy(${file === 'b'});`);
      v = exprVal([`busy${file}${pc}`]);
      break;
    case 'dma_wait':
      c.io = true;
      c.pre.push(js`q.dmaWait(${file === 'b'});`);
      v = constVal(0);
      break;
    default:
      // The mutex (its effect is the instruction's: genAlu), elem_num, qpu_num and unmapped
      // addresses read as the element number (A) or QPU number (B) (p. 24).
      v = exprVal([file === 'a' ? 'l' : 'q.id']);
  }
  if (lastReads) c.loop.push(js`if (l >= 12) ${last}[l - 12] = ${v.int};`);
  return v;
}

export interface PackInfo {
  pm: number;
  mode: number;
  isMul: boolean;
  isFloat: boolean;
  /** For add and sub: expressions of the signed overflow and the carry, which the packs use. */
  overflow?: Code;
}

/** A statement under a write condition (a local, `true` or `false`). */
const guarded = (cond: string, stmt: Code): Code => (cond === 'true' ? stmt : js`if (${cond}) ${stmt}`);

/** Code that writes `v` (a local of the lane loop) to `addr` of `file`, under condition `cond` (a local, `true` or `false`). */
export function genWrite(
  c: InstrCode,
  v: string,
  file: RegFile,
  addr: number,
  cond: string,
  pack: PackInfo,
  scratch: number,
  tag: string,
  l = 'l',
  /** A float result kept as a double (the _f, _slow and _bits locals), and the set of those made into ints. */
  floatOut?: { defined: Set<string> },
): void {
  const unit = writeInfo(file, addr).unit;
  if (unit === 'nop' || cond === 'false') return;
  const target = unit === 'regfile' ? (file === 'a' ? REG_A : REG_B) + LANES * addr : unit === 'acc' ? ACC + LANES * (addr - W_ACC0) : -1;
  // Regfile A's pack applies to what the add ALU, or with pm the mul ALU, writes to regfile A; the mul pack to what the mul ALU writes anywhere.
  const packA = pack.pm === 0 && pack.mode && file === 'a' && unit === 'regfile';
  const packsMul = pack.pm === 1 && pack.isMul && pack.mode;
  const plain = !packsMul && !packA;
  if (target >= 0 && plain && floatOut) {
    c.loop.push(guarded(cond, js`{ if (${v}_slow) ${set(R(target, l))} = ${v}_bits; else ${set(F(target, l))} = ${v}_f; }`));
    return;
  }
  if (floatOut) needInt(c, v, floatOut.defined);
  if (target >= 0) {
    let value: Code = [v];
    if (packsMul) value = js`packMul(${pack.mode}, ${R(target, l)}, ${v})`;
    else if (packA) value = js`packA(${pack.mode}, ${R(target, l)}, ${v}, ${pack.isFloat}${pack.overflow ?? []})`;
    c.loop.push(guarded(cond, js`${set(R(target, l))} = ${value};`));
    return;
  }
  // I/O: collect the vector (and, where the register's effect depends on them, the lanes that
  // write), then act once after the loop.
  const m = `m${tag}`;
  const io = ioWrite(file, addr, scratch, m);
  if (io.mask) {
    c.pre.push(js`let ${m} = 0;`);
    if (l === 'l') (c.ioMasks ??= []).push(m);
  }
  c.loop.push(js`${set(R(scratch, l))} = ${v};`);
  if (io.mask) c.loop.push(cond === 'true' ? js`${m} |= 1 << ${l};` : js`if (${cond}) ${m} |= 1 << ${l};`);
  c.post.push(io.code);
}

const masked = (code: Code) => ({ code, mask: true });
const whole = (code: Code) => ({ code, mask: false });

/**
 * The call that performs an I/O write (Guide Table 14), and whether it reads `mask`, the lanes
 * that wrote: the SFU, TMU requests, r5 and the element-0 registers whose effect depends on the
 * lane's condition. The VPM, the setups, the DMA addresses and the mutex act whatever it is.
 */
function ioWrite(file: RegFile, addr: number, src: number, mask: string): { code: Code; mask: boolean } {
  const isB = file === 'b';
  const { name, unit } = writeInfo(file, addr);
  switch (unit) {
    case 'tmu_noswap':
      return masked(js`q.setNoSwap(${at(src)}, ${mask});`);
    case 'r5':
      return masked(js`q.writeR5(${at(src)}, ${mask}, ${!isB});`);
    case 'host_int':
      return masked(js`q.hostInterrupt(${at(src)}, ${mask});`);
    case 'unif_addr':
      return masked(js`if (${mask} & 1) q.setUniformAddress(${R(src)});`);
    case 'fragment':
    case 'tlb':
      throw new Unsupported('unsupported', `writes ${name}, a tile-buffer or fragment register`);
    case 'vpm':
      return whole(js`q.vpmWrite(${at(src)});`);
    case 'vpm_setup':
      return whole(isB ? js`q.writeSetup(${R(src)});` : js`q.readSetup(${R(src)});`);
    case 'dma_addr':
      return whole(isB ? js`q.dmaStore(${R(src)});` : js`q.dmaLoad(${R(src)});`);
    case 'mutex':
      return whole(js`q.m.mutexRelease(q);`);
    case 'sfu':
      return masked(js`q.sfu(${addr - W_SFU_RECIP}, ${at(src)}, ${mask});`); // Table 14's order is arith.sfu's
    case 'tmu':
      if (addr === W_TMU0_S || addr === W_TMU1_S) return masked(js`q.tmuRequest(${tmuOfWrite(addr)}, ${at(src)}, ${mask});`);
  }
  throw new Unsupported('unsupported', `writes ${name}: texture lookups are not supported, only general-memory lookups through tmu0_s/tmu1_s`);
}

/** Flag updates from result `r` (Z: all bits zero; N: bit 31); `carry` is the C expression. */
export function flagCode(r: string, cond: string, carry: Code | string, l = 'l'): Code {
  const update = js`{ ${Z}[${l}] = ${r} === 0 ? 1 : 0; ${N}[${l}] = ${r} >>> 31; ${C}[${l}] = ${carry}; }`;
  return cond === 'true' ? update : js`if (${cond}) ${update}`;
}

/** Makes sure the int pattern of a float result `out` is defined (once) before it is used. */
export function needInt(c: InstrCode, out: string, defined: Set<string>): void {
  if (defined.has(out)) return;
  defined.add(out);
  c.loop.push(intOfFloat(out));
}
