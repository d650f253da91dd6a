// The random program generator: kernels that use the whole language, for differential testing
// (in the spirit of QPULib's AutoTest). Needs: a seed. Guarantees: a well-typed kernel AST that
// obeys every rule of the language (Where holds only assignments and scatters, the TMU FIFO
// never holds more than 4 gathers, semaphore 15 is left to the barrier, 13 and 14 to barrier()
// and the operations across QPUs, which stand at the top level), always ends, stays
// inside its arrays, and whose result does not depend on how the QPUs interleave: each QPU
// writes only its own part of the output arrays (but for atomicAdds of ints to one shared vector,
// whose sums do not depend on the order), gathers only from the input arrays, which nothing
// writes, and loads from the inputs or its own part of the outputs (blocking loads see stores:
// docs/compiler.md), or, after a semaphore hand-off, the vector another QPU stored for it
// before raising the semaphore.
//
// The kernel's parameters are (inI: Ptr(Int), inF: Ptr(Float), outI: Ptr(Int), outF: Ptr(Float),
// n: Int, x: Float). Each QPU owns 32 vectors of outI and of outF, 3 more of outI for
// hand-offs and one more (QPU 0's is the shared vector); at the end it stores every variable
// there, so that everything the program computed can be compared. 8- and 16-bit loads and
// stores view the same arrays as bytes (narrowPtr). The expressions are generate-expr.ts's.

import type { BoolExpr, Cond, Expr, KernelAst, Stmt, Ty, VarInfo, VarRef } from './ast.ts';
import { BARRIER_SEMAPHORE } from './ast.ts';
import { LANES, MAX_QPUS } from '../vc4/chip.ts';
import { lit, rng } from './generate-random.ts';
import { FUNC_SEED, FUNC_SHARE } from './generate-funcs.ts';
import { INPUT_ELEMS, MemoryGenerator } from './generate-memory.ts';
import { elementOf, parallelStatements } from './parallel.ts';
export { rng } from './generate-random.ts';

/** Output vectors each QPU may store to anywhere (a power of two), and vectors for hand-offs. */
const STORE_SLOTS = 32;
/** The semaphores hand-offs use, one vector each (semaphoreWait): the last but two before the end-of-kernel barrier's. */
const HANDOFF_SLOTS = 3;
/** The semaphores left free for barriers and operations across QPUs (source/qpus.ts, meetingSemaphores). */
const MEETING_SEMAS = 2;
/** QPU 0's last slot of outI: the vector every QPU's atomicAdd adds to (nothing else touches it). */
const SHARED_SLOTS = 1;
const FIRST_WAIT_SEMA = BARRIER_SEMAPHORE - MEETING_SEMAS - HANDOFF_SLOTS;
/** A vector's element count as a shift: n << VECTOR_SHIFT is n vectors' elements. */
const VECTOR_SHIFT = Math.log2(LANES);

/** Elements of each input array (a power of two; generate-memory.ts). */
export { INPUT_ELEMS };

export interface GeneratorOptions {
  /** Statements per block, at most (default 5). */
  readonly maxBlock?: number;
  /** Nesting of If/While/For/Where, at most (default 3). */
  readonly maxDepth?: number;
  /** Int and Float variables besides the parameters (default 4 to 9 of each). */
  readonly vars?: number;
  /** The QPU counts to choose among, uniformly (default 1, 2, 3, 4 or 12, favouring few). */
  readonly qpus?: readonly number[];
}

export interface GeneratedProgram {
  readonly ast: KernelAst;
  readonly qpus: number;
  /** Vectors of each output array each QPU owns. */
  readonly slots: number;
  /** Arguments n and x (x as float bits), and the inputs' contents. */
  readonly n: number;
  readonly xBits: number;
  readonly inI: Int32Array;
  readonly inF: Int32Array;
  /** Statements at the start that set up each QPU's output pointers: shrinking keeps them. */
  readonly prologue: number;
}

export function generate(seed: number, opts: GeneratorOptions = {}): GeneratedProgram {
  return new Generator(seed, opts).run();
}

class Generator extends MemoryGenerator {
  protected readonly vars: VarInfo[] = [];
  private readonly maxBlock: number;
  private readonly maxDepth: number;
  /** Loop counters currently in use: not to be assigned by the loop's body. */
  private readonly protectedVars = new Set<number>();
  /** The loops whose bodies are being made, innermost last: what a Break or Continue may jump out of. */
  protected readonly loopKinds: ('while' | 'for')[] = [];
  /** Semaphores left for semaphoreWait. */
  private readonly waitSemas = Array.from({ length: HANDOFF_SLOTS }, (_, i) => FIRST_WAIT_SEMA + i);
  private readonly qpus: number;
  protected readonly slots: number;
  private budget = 60; // statements in the whole program, roughly
  protected ptrVar!: VarRef;
  private outQ!: VarRef;
  private outFQ!: VarRef;

  constructor(
    seed: number,
    private readonly opts: GeneratorOptions,
  ) {
    super(seed);
    // Drawn apart, so that a program without functions is the one its seed made before they existed.
    this.withFuncs = rng(seed ^ FUNC_SEED)() / 2 ** 32 < FUNC_SHARE;
    this.maxBlock = opts.maxBlock ?? 5;
    this.maxDepth = opts.maxDepth ?? 3;
    // Mostly few QPUs; now and then 5 to 11.
    this.qpus = this.pick(opts.qpus ?? [1, 1, 1, 2, 2, 3, 4, MAX_QPUS, 0]) || 5 + this.int(MAX_QPUS - 5);
    this.slots = STORE_SLOTS + HANDOFF_SLOTS + SHARED_SLOTS;
  }

  // ---- variables
  protected newVar(ty: Ty, name?: string): VarRef {
    const id = this.vars.length;
    this.vars.push({ id, ty, name: name ?? `v${id}` });
    return { k: 'var', id, ty };
  }
  protected varsOf(ty: Ty, assignable = false): VarRef[] {
    const p = this.parallel;
    // A function's body assigns only its own variables; the kernel and the other functions
    // neither read nor assign a function's (dsl/funcs.ts checkFuncVariables).
    const other = (id: number) => this.func !== undefined && id < this.func.floor;
    return this.vars
      .filter((v) => v.ty === ty && v.id >= 6 && !p?.hidden.has(v.id) && !this.funcVars.has(v.id) && !this.readOnce.has(v.id) && !(assignable && (this.protectedVars.has(v.id) || this.isInfra(v.id) || (p && v.id < p.floor) || other(v.id))))
      .map((v) => ({ k: 'var', id: v.id, ty: v.ty }) as VarRef);
  }
  /**
   * While a parallel loop's body is made: the variables it may assign (from `floor` on: its own),
   * those it may not read (the accumulators), and its element numbers.
   */
  private parallel: { readonly floor: number; readonly hidden: ReadonlySet<number>; readonly leaves: readonly Expr[] } | undefined;
  protected elementLeaf(): Expr | undefined {
    return this.parallel && this.chance(0.5) ? this.pick(this.parallel.leaves) : undefined;
  }
  private isInfra(id: number): boolean {
    return id === this.outQ.id || id === this.outFQ.id;
  }

  run(): GeneratedProgram {
    const inI = this.newVar('int*', 'inI');
    const inF = this.newVar('float*', 'inF');
    const outI = this.newVar('int*', 'outI');
    const outF = this.newVar('float*', 'outF');
    const n = this.newVar('int', 'n');
    const x = this.newVar('float', 'x');
    this.params = [inI, inF, outI, outF, n, x];
    // This QPU's part of each output array.
    this.outQ = this.newVar('int*', 'outQ');
    this.outFQ = this.newVar('float*', 'outFQ');
    const body: Stmt[] = [];
    const mine: Expr = { k: 'bin', op: 'mul', ty: 'int', a: { k: 'special', ty: 'int', what: 'me' }, b: lit('int', this.slots * LANES) };
    body.push({ k: 'assign', v: this.outQ, e: { k: 'ptradd', ty: 'int*', p: outI, n: mine } });
    body.push({ k: 'assign', v: this.outFQ, e: { k: 'ptradd', ty: 'float*', p: outF, n: mine } });
    // The pointer variable first: variables' initial values may load through it.
    this.ptrVar = this.newVar('int*', 'pv');
    const lane: Expr = { k: 'bin', op: 'and', ty: 'int', a: { k: 'special', ty: 'int', what: 'index' }, b: lit('int', this.int(LANES)) };
    body.push({ k: 'assign', v: this.ptrVar, e: { k: 'ptradd', ty: 'int*', p: inI, n: lane } });
    const nv = this.opts.vars ?? 4 + this.int(6);
    for (let i = 0; i < nv; i++) {
      const v = this.newVar('int');
      body.push({ k: 'assign', v, e: this.intExpr(2, false) });
    }
    for (let i = 0; i < nv; i++) {
      const v = this.newVar('float');
      body.push({ k: 'assign', v, e: this.floatExpr(2, false) });
    }
    if (this.withFuncs) this.makeFuncs();
    if (this.chance(0.3)) body.push(...this.streamLoop());
    if (this.chance(0.25)) body.push(...this.parallelLoop());
    body.push(...this.block(0, false));
    // Every int and float variable to this QPU's output slots: one after another, or now and
    // then every second or third slot (runs of stores a step apart, pass `rows`).
    const ints = this.vars.filter((v) => v.ty === 'int' && !this.funcVars.has(v.id) && !this.readOnce.has(v.id));
    const floats = this.vars.filter((v) => v.ty === 'float' && !this.funcVars.has(v.id) && !this.readOnce.has(v.id));
    const step = this.chance(0.3) ? this.pick([2, 3]) : 1;
    const room = Math.ceil(STORE_SLOTS / step);
    // Now and then the slots a variable's number of words apart, known only at run time (pass
    // `rows` tests it): the same 16 step words, or 8, too few for a run (stored one by one).
    let slot = (i: number): number | Expr => i * step;
    if (this.chance(0.25)) {
      const x = this.newVar('int');
      const words = this.chance(0.7) ? LANES * step : LANES / 2;
      body.push({ k: 'assign', v: x, e: { k: 'bin', op: 'add', ty: 'int', a: { k: 'bin', op: 'and', ty: 'int', a: this.params[4]!, b: lit('int', 0) }, b: lit('int', words) } });
      slot = (i) => (i === 0 ? 0 : { k: 'bin', op: 'mul', ty: 'int', a: x, b: lit('int', i) });
    }
    ints.slice(0, room).forEach((v, i) => body.push(this.storeTo(this.outQ, slot(i), { k: 'var', id: v.id, ty: 'int' })));
    floats.slice(0, room).forEach((v, i) => body.push(this.storeTo(this.outFQ, slot(i), { k: 'var', id: v.id, ty: 'float' })));
    const ast: KernelAst = { name: 'generated', params: this.vars.slice(0, 6), vars: this.vars, body, ...(this.funcs.length ? { funcs: this.funcs } : {}) };
    const inputI = new Int32Array(INPUT_ELEMS).map(() => this.intLit());
    const inputF = new Int32Array(INPUT_ELEMS).map(() => this.floatLit());
    return { ast, qpus: this.qpus, slots: this.slots, n: this.intLit(), xBits: this.floatLit(), inI: inputI, inF: inputF, prologue: 2 };
  }
  protected params: VarRef[] = [];

  /**
   * A loop over the inputs a vector at a time, before any store, that stores into this QPU's
   * last output slots and may load what it stores: the shape the compiler pipelines
   * (compiler/pipeline-loads.ts), and shapes near it that it must leave alone.
   */
  private streamLoop(): Stmt[] {
    const i = this.newVar('int');
    const step = this.chance(0.7) ? LANES : 2 * LANES;
    const end = (1 + this.int(step === LANES ? 3 : 2)) * step; // i <= 32: 16 more elements stay inside
    const at = (base: VarRef, c: number): Expr => ({
      k: 'ptradd',
      ty: base.ty as 'int*',
      p: { k: 'ptradd', ty: base.ty as 'int*', p: base, n: lit('int', c) },
      n: i,
    });
    this.protectedVars.add(i.id);
    const loads: Stmt[] = [];
    for (let n = 1 + this.int(3); n > 0; n--) {
      const ty = this.chance(0.5) ? 'int' : 'float';
      const vs = this.varsOf(ty, true);
      if (!vs.length) continue;
      // A vector of the slots the loop stores: the one it stores this iteration (an address
      // read twice, which pass strength reduces), or one before or after.
      const own = this.chance(0.35);
      const base = own ? (ty === 'int' ? this.outQ : this.outFQ) : this.params[ty === 'int' ? 0 : 1]!;
      const c = own ? (STORE_SLOTS - 4 + this.pick([0, 0, 1, -1])) * LANES : this.int(2) * LANES;
      loads.push({ k: 'assign', v: this.pick(vs), e: { k: 'load', ty, ptr: at(base, c), ...this.maybeCount(i, end) } });
    }
    this.loopKinds.push('for');
    const body = this.chance(0.5) ? this.assign(false) : this.block(1, false);
    this.loopKinds.pop();
    this.protectedVars.delete(i.id);
    const int = this.chance(0.5);
    const store = { k: 'store', ptr: at(int ? this.outQ : this.outFQ, (STORE_SLOTS - 4) * LANES), e: int ? this.intExpr(2, false) : this.floatExpr(2, false), ...this.maybeCount(i, end) } as const;
    const cond: Cond = { k: this.chance(0.5) ? 'any' : 'all', b: { k: 'cmp', op: 'lt', ty: 'int', a: i, b: lit('int', end) } };
    const inc: Stmt = { k: 'assign', v: i, e: { k: 'bin', op: 'add', ty: 'int', a: i, b: lit('int', step) } };
    return [{ k: 'assign', v: i, e: lit('int', 0) }, { k: 'for', c: cond, step: [inc], body: [...loads, ...body, store] }];
  }

  /**
   * A parallel loop (source/parallel.ts) over n <= 64 elements, or w x h with w <= 32 and h <= 2
   * (element y * w + x): its body loads the inputs and stores this QPU's first output slots at
   * the element, makes statements of every kind around that assigning only its own variables,
   * and accumulates into 0-2 outer variables it does not otherwise read.
   */
  private parallelLoop(): Stmt[] {
    const two = this.chance(0.3);
    const w = 1 + this.int(32);
    const sizes: Expr[] = two
      ? [lit('int', w), lit('int', 1 + this.int(2))]
      : [this.chance(0.7) ? lit('int', this.int(INPUT_ELEMS + 1)) : { k: 'bin', op: 'and', ty: 'int', a: this.params[4]!, b: lit('int', INPUT_ELEMS - 1) }];
    const base = this.newVar('int');
    const row = two ? this.newVar('int') : undefined;
    const x = elementOf(base);
    const at: Expr = row ? { k: 'bin', op: 'add', ty: 'int', a: { k: 'bin', op: 'mul', ty: 'int', a: row, b: lit('int', w) }, b: x } : x;
    const init: Stmt[] = [];
    const accumulators = Array.from({ length: this.int(3) }, () => {
      const ty = this.chance(0.5) ? 'int' : 'float';
      const v = this.newVar(ty);
      init.push({ k: 'assign', v, e: ty === 'int' ? this.intExpr(1, false) : this.floatExpr(1, false) });
      return { v, op: this.pick(ty === 'int' ? (['add', 'min', 'max', 'and', 'or'] as const) : (['add', 'min', 'max'] as const)) };
    });
    const outer = { loops: this.loopKinds.splice(0), floor: this.vars.length };
    this.parallel = { floor: outer.floor, hidden: new Set(accumulators.map((a) => a.v.id)), leaves: row ? [x, row, at] : [x] };
    [base, row].forEach((v) => v && this.protectedVars.add(v.id));
    const load = (ty: 'int' | 'float'): Stmt => ({ k: 'assign', v: this.newVar(ty), e: { k: 'load', ty, ptr: { k: 'ptradd', ty: `${ty}*`, p: this.params[ty === 'int' ? 0 : 1]!, n: at } } });
    const body: Stmt[] = [load('int'), ...(this.chance(0.5) ? [load('float')] : []), ...this.block(1, false)];
    if (this.chance(0.7)) {
      const int = this.chance(0.5);
      body.push({ k: 'store', ptr: { k: 'ptradd', ty: int ? 'int*' : 'float*', p: int ? this.outQ : this.outFQ, n: at }, e: int ? this.intExpr(2, false) : this.floatExpr(2, false) });
    }
    for (const a of accumulators) {
      const e = a.v.ty === 'int' ? this.intExpr(2, false) : this.floatExpr(2, false);
      const acc: Stmt = { k: 'assign', v: a.v, e: { k: 'bin', op: a.op, ty: a.v.ty, a: a.v, b: e } };
      body.push(this.chance(0.3) ? { k: 'where', b: this.boolExpr(1), then: [acc], else: [] } : acc);
    }
    this.parallel = undefined;
    this.loopKinds.push(...outer.loops);
    [base, row].forEach((v) => v && this.protectedVars.delete(v.id));
    return [...init, ...parallelStatements({ sizes, base, row, body, accumulators, fresh: (ty) => this.newVar(ty) })];
  }

  private storeTo(base: VarRef, slot: number | Expr, e: Expr, nb = false): Stmt {
    const n = typeof slot === 'number' ? lit('int', slot * LANES) : slot;
    const ptr: Expr = { k: 'ptradd', ty: base.ty as 'int*', p: base, n };
    return nb ? { k: 'storeNB', e, ptr } : { k: 'store', ptr, e, ...this.maybeCount() };
  }

  /**
   * Now and then a count for a load or store (its first lanes): in a counted loop, what is left of
   * it (end - i, as a kernel over an array of `end` elements writes); else a number from -2 to
   * 18 or an Int (clamped to 0..16 either way).
   */
  protected maybeCount(i?: VarRef, end?: number): { n?: Expr } {
    if (!this.chance(0.2)) return {};
    if (i && end !== undefined && this.chance(0.6)) return { n: { k: 'bin', op: 'sub', ty: 'int', a: lit('int', end - this.int(8)), b: i } };
    return { n: this.chance(0.6) ? lit('int', this.int(21) - 2) : this.intExpr(1, false) };
  }

  /**
   * Now and then 16 elements of 8 or 16 bits at any (element-aligned) offset: of this QPU's
   * output slots (`own`), or the input's ints seen as bytes. The AST's pointer types are not
   * checked, so an int* base with a u8* offset is how a generated kernel views words as bytes
   * (users' kernels take byte arrays as Ptr(Uint8) parameters instead).
   */
  protected narrowPtr(own: boolean): Expr | undefined {
    if (!this.chance(0.15)) return undefined;
    const ty = this.pick(['u8*', 'i8*', 'u16*', 'i16*'] as const);
    const bytes = (own ? STORE_SLOTS * LANES : INPUT_ELEMS) * 4;
    // Elements of the region, a power of two: an index below half of them leaves room for 16 more.
    const elems = bytes / (ty.includes('16') ? 2 : 1);
    const idx: Expr = { k: 'bin', op: 'and', ty: 'int', a: this.intExpr(1, false), b: lit('int', elems / 2 - 1) };
    return { k: 'ptradd', ty, p: own ? this.outQ : this.params[0]!, n: idx };
  }

  /** A blocking load's address: lane 0 plus 15 more elements stay inside the input. */
  protected loadPtr(ty: 'int' | 'float'): Expr {
    if (this.chance(0.2)) {
      // A vector of this QPU's own output, which it may have stored: blocking loads see stores.
      const k: Expr = { k: 'bin', op: 'and', ty: 'int', a: this.intExpr(1, false), b: lit('int', STORE_SLOTS - 1) };
      const n: Expr = { k: 'bin', op: 'shl', ty: 'int', a: k, b: lit('int', VECTOR_SHIFT) };
      const base = ty === 'int' ? this.outQ : this.outFQ;
      return { k: 'ptradd', ty: base.ty as 'int*', p: base, n };
    }
    if (ty === 'int' && this.chance(0.3)) {
      // Through the pointer variable (pv is inI + 0..15, so pv + 0..31 + 15 < 64).
      const idx: Expr = { k: 'bin', op: 'and', ty: 'int', a: this.intExpr(1, false), b: lit('int', 31) };
      return { k: 'ptradd', ty: 'int*', p: this.ptrVar, n: idx };
    }
    return this.inPtr(this.params[ty === 'int' ? 0 : 1]!, INPUT_ELEMS / 2 - 1);
  }

  // ---- statements
  protected block(depth: number, inWhere: boolean): Stmt[] {
    const n = 1 + this.int(this.maxBlock);
    const out: Stmt[] = [];
    for (let i = 0; i < n && this.budget > 0; i++) out.push(...this.stmt(depth, inWhere));
    return out;
  }

  protected assign(inWhere: boolean): Stmt[] {
    const ty = this.chance(0.5) ? 'int' : 'float';
    const vs = this.varsOf(ty, true);
    if (!vs.length) return [];
    return [{ k: 'assign', v: this.pick(vs), e: this.expr(ty, 3, inWhere || !!this.func) }];
  }

  private stmt(depth: number, inWhere: boolean): Stmt[] {
    this.budget--;
    if (this.func) return this.funcStmt(depth, inWhere);
    if (this.funcs.length && this.chance(0.1)) return this.call(inWhere);
    if (inWhere) {
      if (depth < this.maxDepth && this.chance(0.25)) return [this.where(depth)];
      if (this.chance(0.08)) return [this.scatter(true)];
      return this.assign(true);
    }
    const nest = depth < this.maxDepth;
    if (depth === 0 && this.chance(0.1)) return [this.meeting()];
    const c = this.int(20);
    if (c < 6 || (!nest && c < 12)) return this.assign(false);
    if (c < 8) return nest ? [this.where(depth)] : this.assign(false);
    if (c < 10) {
      const s: Stmt = { k: 'if', c: this.cond(), then: this.block(depth + 1, false), else: this.chance(0.5) ? this.block(depth + 1, false) : [] };
      return [s];
    }
    if (c < 12) return this.loop(depth);
    if (c === 12 && this.loopKinds.length > 0) {
      // A jump in the then or the else branch, alone or after other statements.
      const arm: Stmt[] = [...(this.chance(0.3) ? this.assign(false) : []), this.jump()];
      const other = this.chance(0.3) ? this.assign(false) : [];
      return [this.chance(0.6) ? { k: 'if', c: this.cond(), then: arm, else: other } : { k: 'if', c: this.cond(), then: other, else: arm }];
    }
    if (c === 13) return this.parallel || this.chance(0.7) ? this.gatherGroup() : this.broadcastStream();
    if (c === 14) {
      const narrow = this.narrowPtr(true);
      if (narrow) return [this.chance(0.5) ? { k: 'store', ptr: narrow, e: this.intExpr(2, false), ...this.maybeCount() } : { k: 'storeNB', ptr: narrow, e: this.intExpr(2, false) }];
      return [this.storeTo(this.outQ, this.storeSlot(), this.intExpr(2, false), this.chance(0.5))];
    }
    if (c === 15) return [this.storeTo(this.outFQ, this.storeSlot(), this.floatExpr(2, false), this.chance(0.5))];
    if (c === 16) {
      // At the top level every QPU runs the statement once: QPU 0 waits for each of the others,
      // on a semaphore of its own (10-14, each used once: at most 11 raises pending, and the
      // raise-then-lower pairs on 0-9 never lose a count to it and wait).
      if (this.qpus > 1 && depth === 0 && this.waitSemas.length && this.chance(0.5)) return [this.semaphoreWait(this.waitSemas.shift()!)];
      const n = this.int(FIRST_WAIT_SEMA);
      return [{ k: 'sema', down: false, n }, ...this.assign(false), { k: 'sema', down: true, n }];
    }
    if (c === 17) return [{ k: 'mutex', lock: true }, ...this.assign(false), { k: 'mutex', lock: false }];
    if (c === 18 && !this.parallel) return [{ k: 'assign', v: this.ptrVar, e: this.inPtr(this.params[0]!, 15) }];
    if (c === 19 && this.chance(0.5)) return [this.scatter(false)];
    if (c === 19) return [this.chance(0.5) ? this.assertion() : this.printing()];
    return this.assign(false);
  }

  /**
   * A scatter, scatterAdd or atomicAdd of ints or floats to lanes' own addresses in this QPU's
   * output slots (e & (slots' elements - 1) from each lane's e), or an atomicAdd of ints to the
   * shared vector, where the QPUs' adds race and every one counts whatever their order.
   */
  private scatter(inWhere: boolean): Stmt {
    const how = this.pick(['store', 'add', 'atomicAdd'] as const);
    const ty = this.chance(0.5) ? 'int' : 'float';
    const e = ty === 'int' ? this.intExpr(2, inWhere) : this.floatExpr(2, inWhere);
    if (how === 'atomicAdd' && ty === 'int' && this.chance(0.5)) {
      const at: Expr = { k: 'bin', op: 'and', ty: 'int', a: this.intExpr(1, inWhere), b: lit('int', LANES - 1) };
      const shared: Expr = { k: 'ptradd', ty: 'int*', p: this.params[2]!, n: lit('int', (this.slots - SHARED_SLOTS) * LANES) };
      return { k: 'scatter', how, ptr: { k: 'ptradd', ty: 'int*', p: shared, n: at }, e };
    }
    const at: Expr = { k: 'bin', op: 'and', ty: 'int', a: this.intExpr(1, inWhere), b: lit('int', STORE_SLOTS * LANES - 1) };
    return { k: 'scatter', how, ptr: { k: 'ptradd', ty: ty === 'int' ? 'int*' : 'float*', p: ty === 'int' ? this.outQ : this.outFQ, n: at }, e };
  }

  /** A slot of this QPU's output: a constant, or (e & (slots-1)) * 16 from lane 0 of e. */
  private storeSlot(): number | Expr {
    if (this.chance(0.5)) return this.int(STORE_SLOTS);
    const i: Expr = { k: 'bin', op: 'and', ty: 'int', a: this.intExpr(1, false), b: lit('int', STORE_SLOTS - 1) };
    return { k: 'bin', op: 'shl', ty: 'int', a: i, b: lit('int', VECTOR_SHIFT) };
  }

  protected cond(): Cond {
    return { k: this.chance(0.5) ? 'any' : 'all', b: this.boolExpr(1, this.chance(0.3) && !this.func) } as const;
  }

  /**
   * A hand-off: every QPU but 0 stores a vector to its hand-off slot for semaphore n (blocking
   * or not) and raises n; QPU 0 lowers n once for each of them, then loads the vector one of
   * them stored into a variable. Nothing else writes that slot, so the load sees exactly the
   * store, as docs/compiler.md promises after a semaphore.
   */
  private semaphoreWait(n: number): Stmt {
    const first: BoolExpr = { k: 'cmp', op: 'eq', ty: 'int', a: { k: 'special', ty: 'int', what: 'me' }, b: lit('int', 0) };
    const downs: Stmt[] = Array.from({ length: this.qpus - 1 }, () => ({ k: 'sema', down: true, n }));
    const slot = STORE_SLOTS + (n - FIRST_WAIT_SEMA);
    const store = this.storeTo(this.outQ, slot, this.intExpr(2, false), this.chance(0.5));
    // QPU `from`'s hand-off vector, from the start of outI.
    const from = 1 + this.int(this.qpus - 1);
    const ptr: Expr = { k: 'ptradd', ty: 'int*', p: this.params[2]!, n: lit('int', (from * this.slots + slot) * LANES) };
    const ints = this.varsOf('int', true);
    const take: Stmt[] = ints.length
      ? [{ k: 'assign', v: this.pick(ints), e: { k: 'bin', op: 'xor', ty: 'int', a: this.intExpr(1, false), b: { k: 'load', ty: 'int', ptr } } }]
      : [];
    return {
      k: 'if',
      c: { k: this.chance(0.5) ? 'any' : 'all', b: first },
      then: [...downs, ...take, ...this.assign(false)],
      else: [...this.assign(false), store, { k: 'sema', down: false, n }],
    };
  }

  protected where(depth: number): Stmt {
    return { k: 'where', b: this.boolExpr(1), then: this.block(depth + 1, true), else: this.chance(0.5) ? this.block(depth + 1, true) : [] };
  }

  protected loop(depth: number): Stmt[] {
    if (this.vars.filter((v) => v.ty === 'int').length >= this.slots) return this.assign(!!this.func); // every variable must fit the output slots
    // A counter no statement in the body assigns: lanes start at 0 or at index() & 3.
    const c = this.newVar('int');
    const start: Expr = this.chance(0.5) ? lit('int', 0) : { k: 'bin', op: 'and', ty: 'int', a: { k: 'special', ty: 'int', what: 'index' }, b: lit('int', 3) };
    const limit = 1 + this.int(4);
    // The counter's bound in one of several forms, sometimes with another condition beside it
    // (and: the loop still ends when the counter reaches the limit).
    const form = this.int(4);
    let bound: BoolExpr =
      form === 0 ? { k: 'cmp', op: 'lt', ty: 'int', a: c, b: lit('int', limit) }
      : form === 1 ? { k: 'cmp', op: 'gt', ty: 'int', a: lit('int', limit), b: c }
      : form === 2 ? { k: 'cmp', op: 'le', ty: 'int', a: c, b: lit('int', limit - 1) }
      : { k: 'not', a: { k: 'cmp', op: 'ge', ty: 'int', a: c, b: lit('int', limit) } };
    if (this.chance(0.3)) bound = { k: 'and', a: bound, b: this.boolExpr(1, this.chance(0.3) && !this.func) };
    const cond = { k: this.chance(0.5) ? 'any' : 'all', b: bound } as const;
    const inc: Stmt = { k: 'assign', v: c, e: { k: 'bin', op: 'add', ty: 'int', a: c, b: lit('int', 1) } };
    this.protectedVars.add(c.id);
    // A While counts at the end of its body, which a Continue would skip: only a For's goes on.
    const kind = this.chance(0.5) ? 'while' : 'for';
    this.loopKinds.push(kind);
    const body = this.block(depth + 1, false);
    this.loopKinds.pop();
    this.protectedVars.delete(c.id);
    const init: Stmt = { k: 'assign', v: c, e: start };
    if (kind === 'while') return [init, { k: 'while', c: cond, body: [...body, inc] }];
    return [init, { k: 'for', c: cond, step: [inc], body }];
  }

  /** A Break of this loop or one further out, or a Continue of a For (whose step counts on). */
  protected jump(): Stmt {
    const fors = this.loopKinds.flatMap((k, i) => (k === 'for' ? [this.loopKinds.length - 1 - i] : []));
    if (fors.length && this.chance(0.4)) {
      const levels = this.pick(fors);
      return levels ? { k: 'continue', levels } : { k: 'continue' };
    }
    const levels = this.chance(0.7) ? 0 : this.int(this.loopKinds.length);
    return levels ? { k: 'break', levels } : { k: 'break' };
  }
}
