// Statements and built-in functions of the language: If/Else, Where/Else (loops: loops.ts),
// any/all, index(), me(), numQPUs(), rotate, select, gather/receive/store, scatters, the special functions,
// semaphores and the mutex. Each records a statement in the kernel being built.

import { type Cond, elemOf, type Expr, type ScatterHow, type Stmt } from '../source/ast.ts';
import { BARRIER_SEMAPHORE } from '../source/ast.ts';
import { LANES, SEMAPHORES } from '../vc4/chip.ts';
import { builder, checkOwner, describeHost, type KernelBuilder } from './builder.ts';
import {
  BoolValue,
  boolOf,
  CondValue,
  type Elem,
  type ElemLike,
  exprOf,
  FloatExpr,
  floatExpr,
  type FloatVar,
  IntExpr,
  intExpr,
  type IntLike,
  type IntVar,
  PtrExpr,
  describeTy,
} from './values.ts';

/** True in the lanes where b holds: for If, While and For, a plain vector condition means any(b). */
export function any(b: BoolValue): CondValue {
  checkOwner(boolOf(b, 'any').owner, 'any');
  return new CondValue('any', b);
}
export function all(b: BoolValue): CondValue {
  checkOwner(boolOf(b, 'all').owner, 'all');
  return new CondValue('all', b);
}

export function condOf(c: CondValue | BoolValue, what: string): Cond {
  const x = c instanceof BoolValue ? new CondValue('any', c) : c;
  if (!(x instanceof CondValue)) throw builder(what).error(`${what} needs a condition: any(...), all(...) or a comparison`);
  checkOwner(x.b.owner, what);
  return { k: x.k, b: x.b.node };
}

export function notInWhere(b: KernelBuilder, what: string): void {
  if (b.whereDepth > 0) throw b.error(`${what} inside Where: only assignments, calls, scatters and nested Where may appear there`);
}

export interface ElseChain {
  /** The statements to run when the condition does not hold. */
  Else(body: () => void): void;
}

function elseOf(b: KernelBuilder, s: Extract<Stmt, { else: Stmt[] }>, what: string, where: boolean): ElseChain {
  let used = false;
  return {
    Else(body: () => void) {
      if (used) throw b.error(`${what} already has an Else`);
      if (b.last() !== s) throw b.error(`Else must come right after its ${what}`);
      used = true;
      if (where) b.whereDepth++;
      try {
        s.else.push(...b.collect(body));
      } finally {
        if (where) b.whereDepth--;
      }
    },
  };
}

/** Runs `then` when the condition holds: any(c) for a vector condition. */
export function If(c: CondValue | BoolValue, then: () => void): ElseChain {
  const b = builder('If');
  notInWhere(b, 'If');
  const cond = condOf(c, 'If');
  const s = b.emit({ k: 'if', c: cond, then: b.collect(then), else: [] });
  return elseOf(b, s, 'If', false);
}

/** Runs assignments only in the lanes where `cond` holds; Else in the others. */
export function Where(cond: BoolValue, then: () => void): ElseChain {
  const b = builder('Where');
  if (!(cond instanceof BoolValue)) throw b.error('Where needs a vector condition (a comparison), not any()/all()');
  checkOwner(cond.owner, 'Where');
  b.whereDepth++;
  let body: Stmt[];
  try {
    body = b.collect(then);
  } finally {
    b.whereDepth--;
  }
  const s = b.emit({ k: 'where', b: cond.node, then: body, else: [] });
  return elseOf(b, s, 'Where', true);
}

// ---- values every QPU has

/** The lane numbers 0, 1, ..., 15. */
export function index(): IntExpr {
  return intExpr({ k: 'special', ty: 'int', what: 'index' }, builder('index()'));
}
/** This QPU's number, 0 to numQPUs() - 1, in every lane. */
export function me(): IntExpr {
  return intExpr({ k: 'special', ty: 'int', what: 'me' }, builder('me()'));
}
/** How many QPUs run the kernel, in every lane. */
export function numQPUs(): IntExpr {
  return intExpr({ k: 'special', ty: 'int', what: 'numQPUs' }, builder('numQPUs()'));
}

/** Moves lane l to lane (l + n) mod 16: rotate(x, 1) puts element 0 in lane 1. n: 0-15, or an Int (its lane 0). */
export function rotate<T extends IntExpr | FloatExpr>(x: T, n: IntLike): T {
  const b = builder('rotate');
  if (!(x instanceof IntExpr || x instanceof FloatExpr)) throw b.error(`rotate needs an Int or a Float to rotate, not ${describeHost(x)}`);
  checkOwner(x.owner, 'rotate');
  if (typeof n === 'number' && (!Number.isInteger(n) || n < 0 || n >= LANES))
    throw b.error(`rotate by ${n}: the amount is 0 to ${LANES - 1} lanes, or an Int`);
  const node: Expr = { k: 'rotate', ty: x.ty, a: x.node, n: exprOf(n, 'int', 'rotate') };
  return (x instanceof FloatExpr ? floatExpr(node, b) : intExpr(node, b)) as T;
}

// ---- select

/**
 * Lane by lane, `a` where `c` holds and `b` where it does not. Both values are computed in every
 * lane. The two have one type (a number takes the other's); two numbers make an Int when both are
 * integers.
 */
export function select(c: BoolValue, a: FloatExpr, b: FloatExpr | number): FloatExpr;
export function select(c: BoolValue, a: FloatExpr | number, b: FloatExpr): FloatExpr;
export function select(c: BoolValue, a: IntLike, b: IntLike): IntExpr;
export function select<E extends Elem>(c: BoolValue, a: PtrExpr<E>, b: PtrExpr<E>): PtrExpr<E>;
export function select(c: BoolValue, a: IntExpr | FloatExpr | PtrExpr<Elem> | number, b: IntExpr | FloatExpr | PtrExpr<Elem> | number): IntExpr | FloatExpr | PtrExpr<Elem> {
  const bld = builder('select');
  const cond = boolOf(c, 'select');
  checkOwner(cond.owner, 'select');
  const isValue = (x: unknown): x is IntExpr | FloatExpr | PtrExpr<Elem> => x instanceof IntExpr || x instanceof FloatExpr || x instanceof PtrExpr;
  for (const x of [a, b] as unknown[])
    if (typeof x !== 'number' && !isValue(x)) throw bld.error(`select chooses between two Ints, two Floats or two Ptrs (or numbers), not ${describeHost(x)}`);
  const typed = [a, b].find(isValue);
  if (typed instanceof PtrExpr) {
    for (const x of [a, b]) {
      if (!(x instanceof PtrExpr) || x.ty !== typed.ty) throw bld.error(`select between ${describeTy(typed.ty)} and ${typeof x === 'number' ? `the number ${x}` : describeTy((x as PtrExpr<Elem>).ty)}: both must be the same kind of Ptr`);
      checkOwner(x.owner, 'select');
    }
    const node: Expr = { k: 'select', ty: typed.ty, c: cond.node, a: (a as PtrExpr<Elem>).node, b: (b as PtrExpr<Elem>).node };
    return new PtrExpr(node, bld, typed.elem);
  }
  const ty = typed === undefined ? 'int' : typed.ty === 'float' ? 'float' : 'int';
  for (const x of [a, b])
    if (typeof x !== 'number' && x.ty !== ty) throw bld.error(`select between ${describeTy((typed as IntExpr).ty)} and ${describeTy(x.ty)}: both values must have one type (convert one with toFloat() or toInt())`);
  if (typed === undefined && !(Number.isInteger(a) && Number.isInteger(b)))
    throw bld.error(`select(c, ${a}, ${b}): between two numbers it makes an Int; write Float(${a}) for a Float`);
  const node: Expr = { k: 'select', ty, c: cond.node, a: exprOf(a as IntLike, ty, 'select'), b: exprOf(b as IntLike, ty, 'select') };
  return ty === 'float' ? floatExpr(node, bld) : intExpr(node, bld);
}

// ---- memory

/** Gathers and scatters move each lane's own 32-bit word: a pointer to narrower elements is an error. */
function wordElements(b: KernelBuilder, p: PtrExpr<Elem>, what: string): void {
  if (p.elemBytes !== 4)
    throw b.error(`${what} moves one 32-bit word a lane, and ${describeTy(p.ty)} points to ${p.elemBytes * 8}-bit elements: load and store them 16 at a time (p.load(), p.store(x))`);
}

/** Requests the value at each lane's address, without waiting (at most 4 outstanding). */
export function gather<E extends Elem>(p: PtrExpr<E>): void {
  const b = builder('gather');
  notInWhere(b, 'gather');
  if (!(p instanceof PtrExpr)) throw b.error('gather needs a Ptr');
  checkOwner(p.owner, 'gather');
  wordElements(b, p, 'gather');
  b.emit({ k: 'gather', ptr: p.node });
}

/** Waits for the oldest gather and puts its values in the variable. */
export function receive(v: IntVar | FloatVar): void {
  const b = builder('receive');
  notInWhere(b, 'receive');
  if (!(v instanceof IntExpr || v instanceof FloatExpr) || v.node.k !== 'var') throw b.error('receive needs a variable (Int(), Float()) to put the values in');
  checkOwner(v.owner, 'receive');
  b.emit({ k: 'receive', v: v.node });
}

/** Writes 16 values from the address in lane 0 of p, without waiting for the write. */
export function store<E extends Elem>(x: ElemLike<E>, p: PtrExpr<E>): void {
  const b = builder('store');
  notInWhere(b, 'store');
  if (!(p instanceof PtrExpr)) throw b.error('store needs a Ptr as its second argument');
  checkOwner(p.owner, 'store');
  b.emit({ k: 'storeNB', e: exprOf(x as IntExpr | FloatExpr | number, elemOf(p.ty), 'store'), ptr: p.node });
}

/** The scatter statement of `what` (scatter, scatterAdd, atomicAdd), its arguments checked. */
function scatterStmt<E extends Elem>(what: string, how: ScatterHow, p: PtrExpr<E>, x: ElemLike<E>): void {
  const b = builder(what);
  if (!(p instanceof PtrExpr)) throw b.error(`${what} needs a Ptr as its first argument (each lane's address), not ${describeHost(p)}`);
  checkOwner(p.owner, what);
  wordElements(b, p, what);
  b.emit({ k: 'scatter', how, ptr: p.node, e: exprOf(x as IntExpr | FloatExpr | number, elemOf(p.ty), what) });
}

/**
 * Each lane writes its value to its own address (lane by lane, so a later lane wins an address
 * two share); in a Where, only its lanes. Waits until memory holds them. One DMA transfer a lane.
 */
export function scatter<E extends Elem>(p: PtrExpr<E>, x: ElemLike<E>): void {
  scatterStmt('scatter', 'store', p, x);
}

/**
 * Each lane adds its value to the word at its own address, lane after lane, so lanes sharing an
 * address all count; not atomic between QPUs (give each QPU its own counters, or use atomicAdd).
 */
export function scatterAdd<E extends Elem>(p: PtrExpr<E>, x: ElemLike<E>): void {
  scatterStmt('scatterAdd', 'add', p, x);
}

/** scatterAdd holding the mutex, so that QPUs adding to the same words all count. Not inside mutexLock(). */
export function atomicAdd<E extends Elem>(p: PtrExpr<E>, x: ElemLike<E>): void {
  scatterStmt('atomicAdd', 'atomicAdd', p, x);
}

// ---- the special-function unit

function floatOf(x: unknown, what: string): FloatExpr {
  if (!(x instanceof FloatExpr)) throw builder(what).error(`${what} needs a Float, not ${x instanceof IntExpr ? 'an Int (convert it with toFloat())' : describeHost(x)}`);
  return x;
}
export const recip = (x: FloatExpr) => floatOf(x, 'recip').recip();
export const recipsqrt = (x: FloatExpr) => floatOf(x, 'recipsqrt').recipsqrt();
export const exp2 = (x: FloatExpr) => floatOf(x, 'exp2').exp2();
export const log2 = (x: FloatExpr) => floatOf(x, 'log2').log2();

// ---- synchronisation between QPUs

/** The language's last semaphore: the chip's last is the end-of-kernel barrier's (BARRIER_SEMAPHORE, source/ast.ts). */
const LAST_SEMAPHORE = BARRIER_SEMAPHORE - 1;

function semaphoreNumber(b: KernelBuilder, n: number, what: string): number {
  if (typeof n !== 'number') throw b.error(`${what} takes a semaphore's number (0 to ${LAST_SEMAPHORE}, a host number), not ${describeHost(n)}`);
  if (!Number.isInteger(n) || n < 0 || n >= SEMAPHORES) throw b.error(`${what}(${n}): there are ${SEMAPHORES} semaphores, 0 to ${SEMAPHORES - 1}`);
  if (n === BARRIER_SEMAPHORE)
    throw b.error(`${what}(${n}): semaphore ${n} is the end-of-kernel barrier's (docs/compiler.md); use 0 to ${LAST_SEMAPHORE}`);
  return n;
}

/** Increments semaphore n (0-14; 15 is the end-of-kernel barrier's, source/ast.ts); waits while it is at 15. */
export function semaInc(n: number): void {
  const b = builder('semaInc');
  notInWhere(b, 'semaInc');
  b.emit({ k: 'sema', down: false, n: semaphoreNumber(b, n, 'semaInc') });
}

/** Decrements semaphore n (0-14); waits while it is at 0. */
export function semaDec(n: number): void {
  const b = builder('semaDec');
  notInWhere(b, 'semaDec');
  b.emit({ k: 'sema', down: true, n: semaphoreNumber(b, n, 'semaDec') });
}

/** Takes the mutex shared by all QPUs, waiting while another QPU holds it. */
export function mutexLock(): void {
  const b = builder('mutexLock');
  notInWhere(b, 'mutexLock');
  b.emit({ k: 'mutex', lock: true });
}

export function mutexUnlock(): void {
  const b = builder('mutexUnlock');
  notInWhere(b, 'mutexUnlock');
  b.emit({ k: 'mutex', lock: false });
}

