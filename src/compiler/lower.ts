// Lowering: the kernel AST to IR over virtual registers. Needs: a built kernel (src/source/ast.ts).
// Guarantees: IR whose instructions each map to one QPU instruction, in which every ALU
// instruction has at most one small immediate, every I/O register is read only by a `mov` of its
// own, control flow is labels and branches each followed by its 3 delay-slot nops, and the kernel
// begins by reading its uniforms and ends with the end-of-kernel barrier (docs/compiler.md).
// Hardware hazards between instructions are left to space.ts (nops) and assert-rules.ts (the check).
//
// The memory model (docs/compiler.md): gather/receive go through TMU 0; blocking loads are a DMA
// load into this QPU's load row of the VPM and a read of that row (DMA reads memory itself, so a
// load sees every store before it, which the TMU's caches would not); stores go through this
// QPU's store row of the VPM (runs of them through several rows: lower-store-rows.ts) and a DMA
// store, the blocking one waiting for it. Each QPU's rows: vpm-rows.ts.

import { childBlocks, type Expr, type KernelAst, type PtrTy, type Stmt } from '../source/ast.ts';
import { CompileError } from './errors.ts';
import { OPPOSITE, type TrueCode } from './lower-words.ts';
import { arithType, binaryImpl, type OpEmitter, unaryRow } from '../source/ops.ts';
import { epilogue, type Frame, frameNames, prologue } from './frame.ts';
import { lowerScatter } from './lower-scatter.ts';
import { lowerLoad, lowerPtrAdd, lowerStore } from './lower-memory.ts';
import { lowerStoreRun, storeRun } from './lower-store-rows.ts';
import { Conditions } from './lower-conditions.ts';
import { lowerSelect, setsFlags } from './lower-select.ts';
import { lowerLane, lowerReduce, lowerRotate, lowerScan } from './lower-lanes.ts';
import { lowerBarrier, lowerCombine, type Meetings } from './lower-qpus.ts';
import { Functions } from './lower-funcs.ts';
import { Assertions, LOG_BYTES, logAddress, Prints, recordAddress, recordRows, ROW_BYTES } from './lower-checks.ts';
import { type AssertStmt, type PrintStmt, statementsIn } from '../source/checks.ts';
import { meetingSemaphores } from '../source/qpus.ts';
import { type AluCode, int, type IrInstr, p, type Reg, smallImm, type Src, v, type VReg, type WriteCond } from './ir.ts';
import { type BranchCondition, isFloatSmallImm, shiftImmediate, smallImmValue } from '../vc4/tables.ts';
import { LANES, MAX_QPUS } from '../vc4/chip.ts';
import { type Range, RegisterRanges } from './ranges.ts';
import { BRANCH_DELAY_SLOTS } from '../vc4/flow.ts';

/** The ALU's shifts and rotation, which read the low 5 bits of their amount (Guide p. 29, Table 12). */
const SHIFTS: ReadonlySet<string> = new Set(['shl', 'shr', 'asr', 'ror']);

export interface Lowered {
  readonly code: IrInstr[];
  /** Virtual registers used. */
  readonly vregs: number;
  /** The register holding this QPU's number, written by the first instruction. */
  readonly qpu: VReg;
  /** What some virtual registers hold: the kernel's variables and the prologue's values. */
  readonly names: ReadonlyMap<number, string>;
  /** The virtual register each variable of the kernel lives in, by variable id (the debugger reads variables there). */
  readonly homes: ReadonlyMap<number, number>;
  /**
   * When the kernel asserts or prints: the register the scratch memory's uniform is read into,
   * and the bytes at its start of the failure records, then of the print logs (lower-checks.ts).
   */
  readonly scratch?: VReg;
  readonly recordBytes: number;
  readonly logBytes: number;
  /** The assertions and prints lowered, in the order of the numbers their records hold. */
  readonly sites: readonly AssertStmt[];
  readonly printSites: readonly PrintStmt[];
  /** The spill rows runs of stores took for themselves (lower-store-rows.ts): spill.ts leaves them. */
  readonly storeRows: number;
}

/** Optimizations made while lowering (driver.ts switches them with the -O level). */
export interface LowerOptions {
  /** Loops test their condition at the bottom, once more before the first iteration (pass `invert`). */
  readonly invertLoops?: boolean;
  /** A `Where` whose body only assigns sets the flags once and writes under its condition (pass `flags`). */
  readonly whereFlags?: boolean;
  /** Operators read their operands' value ranges (pass `ranges`: a multiply of 24-bit values is one `mul24`). */
  readonly ranges?: boolean;
  /** The rows a run of stores may take, its store row and spill rows (pass `rows`; 1 or none: each store its own transfer). */
  readonly storeRows?: number;
}

/** Lowers kernel `k` for `qpus` QPUs (the count places the VPM rows). */
export function lower(k: KernelAst, qpus: number, opts: LowerOptions = {}): Lowered {
  return new Lowering(k, qpus, opts).run();
}

class Lowering implements OpEmitter {
  readonly code: IrInstr[] = [];
  /** The IR's constructors, for the operators' lowering functions (ops.ts). */
  readonly p = p;
  readonly int = int;
  word(bits: number): Src {
    const imm = smallImm(bits, 'int') ?? smallImm(bits, 'float');
    if (imm) return imm;
    const r = this.fresh();
    this.emit({ op: 'ldi', dst: r, bits });
    return r;
  }
  /** The known intervals of Int values in virtual registers (pass `ranges`, ranges.ts). */
  private readonly ranges: RegisterRanges;
  range(x: Src): Range | undefined {
    if (!this.opts.ranges) return undefined;
    if (x.k === 'imm') return isFloatSmallImm(x.code) ? undefined : { lo: smallImmValue(x.code), hi: smallImmValue(x.code) };
    if (x.k === 'p') return x.name === 'elem_num' ? { lo: 0, hi: LANES - 1 } : undefined;
    return this.ranges.of(x.id);
  }
  private next = 0;
  private labels = 0;
  private readonly vars: VReg[] = [];
  private qpu!: VReg;
  private frame!: Frame;
  private nqpus!: VReg;
  /** The loops being lowered, innermost last: where a Break goes, and where a Continue does. */
  private readonly loops: { readonly end: string; next?: string }[] = [];
  /** Whether the kernel has non-blocking stores, which loads must wait for. */
  private readonly nonBlockingStores: boolean;
  /** The spill rows runs of stores took (lower-store-rows.ts). */
  private rowsTaken = 0;

  constructor(
    private readonly k: KernelAst,
    private readonly qpus: number,
    private readonly opts: LowerOptions,
  ) {
    const has = (ss: readonly Stmt[]): boolean => ss.some((s) => s.k === 'storeNB' || childBlocks(s).some(has));
    this.nonBlockingStores = has(k.body);
    this.ranges = new RegisterRanges(k);
    this.funcs = new Functions(this, k);
  }

  /** The QPU count and the release semaphores barriers use (lower-qpus.ts). */
  private meetings(): Meetings {
    const release = meetingSemaphores(this.k);
    if ('error' in release) throw new CompileError(`kernel ${this.k.name}: ${release.error}`);
    return { qpus: this.qpus, release };
  }

  /** Flags and masks of conditions (lower-conditions.ts). */
  readonly cond = new Conditions(this);
  /** Calls and the functions' bodies (lower-funcs.ts). */
  private readonly funcs: Functions;
  /** Variable `id`'s register. */
  varReg(id: number): VReg {
    return this.vars[id]!;
  }
  get kernelName(): string {
    return this.k.name;
  }
  fresh(): VReg {
    return v(this.next++);
  }
  label(what: string): string {
    return `${what}${this.labels++}`;
  }
  /** The statement being lowered: every instruction remembers it (run-time errors name it). */
  private current: Stmt | undefined;
  emit(i: IrInstr): void {
    if (i.op === 'read' && i.src.name === 'vw_wait') this.storesWaited = true;
    else if (i.op === 'label' || (i.op === 'alu' && i.dst.k === 'p' && i.dst.name === 'vw_addr')) this.storesWaited = false;
    this.cond.seen(i);
    this.code.push(this.current ? { ...i, stmt: this.current } : i);
  }
  /** Whether every DMA store started has been waited for, on every path here (no label since). */
  private storesWaited = false;
  /** Waits for the DMA stores under way (`read vw_wait`), unless none can be. */
  waitForStores(): void {
    if (!this.storesWaited) this.emit({ op: 'read', src: p('vw_wait') });
  }
  alu(code: AluCode, dst: Reg, a: Src, b: Src = a, extra: { cond?: WriteCond; setf?: boolean; rot?: number | 'r5' } = {}): void {
    // One small immediate per instruction: a second, different one goes into a register.
    if (a.k === 'imm' && b.k === 'imm' && a.code !== b.code) a = this.materialize(a);
    this.emit({ op: 'alu', code, dst, a, b, ...extra });
  }
  mov(dst: Reg, src: Src, cond?: WriteCond): void {
    this.emit({ op: 'alu', code: 'mov', dst, a: src, b: src, cond });
  }
  branch(cond: BranchCondition, label: string): void {
    this.emit({ op: 'branch', cond, label });
    for (let i = 0; i < BRANCH_DELAY_SLOTS; i++) this.emit({ op: 'nop' }); // the delay slots
  }

  materialize(x: Src): VReg {
    if (x.k === 'v') return x;
    const r = this.fresh();
    this.mov(r, x);
    return r;
  }

  run(): Lowered {
    const k = this.k;
    for (const _ of k.vars) this.vars.push(this.fresh());
    // Assertions' failure records and prints' logs, at the start of scratch memory (lower-checks.ts).
    const asserts = statementsIn(k.body, 'assert');
    const shown = Math.max(0, ...asserts.map((a) => a.values.length));
    const recordBytes = asserts.length ? this.qpus * recordRows(shown) * ROW_BYTES : 0;
    const logBytes = statementsIn(k.body, 'print').length ? this.qpus * LOG_BYTES : 0;
    const scratch = recordBytes || logBytes ? this.fresh() : undefined;
    const f = prologue(this, k.params.length, this.vars, this.qpus, scratch);
    if (recordBytes) this.checks = new Assertions(this, f, recordAddress(this, f.qpu, scratch!, shown));
    if (logBytes) this.prints = new Prints(this, f, logAddress(this, f.qpu, scratch!, recordBytes));
    this.frame = f;
    ({ qpu: this.qpu, nqpus: this.nqpus } = f);
    this.vars.forEach((r, id) => this.ranges.variable(r.id, id));
    this.ranges.fixed(this.qpu.id, { lo: 0, hi: MAX_QPUS - 1 });
    this.ranges.fixed(this.nqpus.id, { lo: 1, hi: MAX_QPUS });

    this.block(k.body);
    if (this.checks) {
      const end = this.label('end');
      this.checks.emitHandlers(end, (s, body) => this.within(s, body));
      this.emit({ op: 'label', name: end });
    }
    epilogue(this, this.qpu, this.nqpus);
    this.funcs.emitBodies((ss) => this.block(ss));
    const names = new Map<number, string>();
    k.vars.forEach((x) => names.set(this.vars[x.id]!.id, x.name));
    names.set(this.qpu.id, 'me()');
    names.set(this.nqpus.id, 'numQPUs()');
    for (const [r, name] of frameNames(f)) names.set(r.id, name);
    if (scratch) names.set(scratch.id, 'scratch memory (failure records and print logs first)');
    const { sites, printSites } = this;
    const homes = new Map(k.vars.map((x) => [x.id, this.vars[x.id]!.id]));
    return { code: this.code, vregs: this.next, qpu: this.qpu, names, homes, scratch, recordBytes, logBytes, sites, printSites, storeRows: this.rowsTaken };
  }

  /** Assertions' failure paths and prints (lower-checks.ts), and those lowered, numbered in order. */
  private checks: Assertions | undefined;
  private prints: Prints | undefined;
  private readonly sites: AssertStmt[] = [];
  private readonly printSites: PrintStmt[] = [];

  /** Waits for a non-blocking store still under way (in kernels that have any). */
  storesFinished(): void {
    if (this.nonBlockingStores) this.waitForStores();
  }

  // ---- statements

  private block(ss: readonly Stmt[], mask?: VReg): void {
    for (let at = 0; at < ss.length; at++) {
      const run = storeRun(ss, at, this.opts.storeRows ?? 1);
      if (!run) this.stmt(ss[at]!, mask);
      else lowerStoreRun(this, this.frame, run);
      const rows = run?.stores.length ?? 1;
      this.rowsTaken = Math.max(this.rowsTaken, rows - 1);
      at += rows - 1;
    }
  }

  private stmt(s: Stmt, mask: VReg | undefined): void {
    this.within(s, () => this.lowerStmt(s, mask));
  }

  /** Lowers with `s` as the statement every instruction comes from. */
  within(s: Stmt, lowering: () => void): void {
    const outer = this.current;
    this.current = s;
    try {
      lowering();
    } finally {
      this.current = outer;
    }
  }

  /** An assignment written only in the lanes where condition code `t` holds. */
  private stmtUnder(s: Stmt, t: TrueCode): void {
    if (s.k !== 'assign') throw new Error('internal: only assignments lower under a condition code');
    const outer = this.current;
    this.current = s;
    try {
      this.exprInto(s.e, this.vars[s.v.id]!, t);
    } finally {
      this.current = outer;
    }
  }

  private lowerStmt(s: Stmt, mask: VReg | undefined): void {
    switch (s.k) {
      case 'assign': {
        const dst = this.vars[s.v.id]!;
        if (!mask) {
          this.exprInto(s.e, dst);
          return;
        }
        if (setsFlags(s.e)) {
          // A select sets flags of its own: the value first, then the mask's flags to keep it.
          const value = this.expr(s.e);
          this.cond.flagsFromMask(mask);
          this.mov(dst, value, 'zc');
          return;
        }
        // The value is computed straight into the lanes the mask keeps.
        this.cond.flagsFromMask(mask);
        this.exprInto(s.e, dst, 'zc');
        return;
      }
      case 'where': {
        if (!mask && this.opts.whereFlags && [...s.then, ...s.else].every((x) => x.k === 'assign' && !setsFlags(x.e))) {
          // The condition's own flags, set once: each assignment writes where they hold (then)
          // or fail (else). These expressions set no flags, so they stay valid through the body.
          const t = this.cond.flags(s.b);
          for (const x of s.then) this.stmtUnder(x, t);
          for (const x of s.else) this.stmtUnder(x, OPPOSITE[t]);
          return;
        }
        const b = this.cond.mask(s.b);
        const yes = mask ? this.fresh() : b;
        if (mask) this.alu('and', yes, mask, b);
        this.block(s.then, yes);
        if (s.else.length) {
          const no = this.fresh();
          this.alu('xor', no, b, int(1));
          if (mask) this.alu('and', no, no, mask);
          this.block(s.else, no);
        }
        return;
      }
      case 'if': {
        const elseL = this.label('else');
        const endL = this.label('endif');
        this.cond.branchUnless(s.c, elseL);
        this.block(s.then);
        if (s.else.length) this.branch('always', endL);
        this.emit({ op: 'label', name: elseL });
        if (s.else.length) {
          this.block(s.else);
          this.emit({ op: 'label', name: endL });
        }
        return;
      }
      case 'while':
      case 'for': {
        const top = this.label('loop');
        const end = this.label('endloop');
        if (this.opts.invertLoops) {
          // The test once before the loop, then at the bottom: one branch an iteration, not two.
          this.cond.branchUnless(s.c, end);
          this.emit({ op: 'label', name: top });
        } else {
          this.emit({ op: 'label', name: top });
          this.cond.branchUnless(s.c, end);
        }
        // A Break in the body, or in a For's step, leaves this loop; a Continue goes on to
        // `next`, placed (where one is) before the step or the test at the bottom.
        const loop: { end: string; next?: string } = { end };
        this.loops.push(loop);
        this.block(s.body);
        if (loop.next) this.emit({ op: 'label', name: loop.next });
        if (s.k === 'for') this.block(s.step);
        this.loops.pop();
        if (this.opts.invertLoops) this.cond.branchIf(s.c, top);
        else this.branch('always', top);
        this.emit({ op: 'label', name: end });
        return;
      }
      case 'break':
      case 'continue': {
        const loop = this.loops[this.loops.length - 1 - (s.levels ?? 0)];
        if (!loop) throw new Error(`internal: a ${s.k} outside its loops`);
        this.branch('always', s.k === 'break' ? loop.end : (loop.next ??= this.label('next')));
        return;
      }
      case 'store':
      case 'storeNB': {
        const [val, ptr] = [this.expr(s.e), this.expr(s.ptr)];
        const count = s.k === 'store' && s.n ? this.expr(s.n) : undefined;
        lowerStore(this, this.frame, s.ptr.ty as PtrTy, ptr, val, count, s.k === 'store');
        return;
      }
      case 'scatter': {
        const [ptr, val] = [this.materialize(this.expr(s.ptr)), this.materialize(this.expr(s.e))];
        lowerScatter(this, this.frame, s.how, ptr, val, arithType(s.e.ty) === 'float', mask);
        return;
      }
      case 'gather': // a TMU 0 request; a stream restarts the uniform stream at element 0's address (Guide p. 22)
      case 'stream':
        return this.mov(p(s.k === 'gather' ? 'tmu0_s' : 'unif_addr'), this.expr(s.ptr));
      case 'receive':
        this.emit({ op: 'signal', sig: 'ldtmu0' });
        return this.mov(this.vars[s.v.id]!, p('r4'));
      case 'next': // space.ts keeps it 3 instructions after a stream's start
        return this.mov(this.vars[s.v.id]!, p('unif'));
      case 'sema':
        // A semaphore up or a mutex release tells another QPU that this one's stores are done
        // (docs/compiler.md): a non-blocking store still under way must finish first, or the
        // other QPU's load can start before the DMA engine has written memory.
        if (!s.down) this.storesFinished();
        this.emit({ op: 'sema', down: s.down, n: s.n });
        return;
      case 'assert':
        this.sites.push(s);
        return this.checks!.check(s, this.sites.length - 1);
      case 'print':
        this.printSites.push(s);
        return this.prints!.print(s, this.printSites.length - 1);
      case 'call':
        return this.funcs.call(s, mask);
      case 'barrier':
        return lowerBarrier(this, this.frame, this.meetings());
      case 'combine':
        return lowerCombine(this, this.frame, this.meetings(), this.vars[s.v.id]!, s.op, s.v.ty as 'int' | 'float', s.scan);
      case 'mutex':
        if (s.lock) this.emit({ op: 'read', src: p('mutex') });
        else {
          this.storesFinished();
          this.mov(p('mutex'), int(1));
        }
        return;
    }
  }

  // ---- expressions

  /** The value of e: a register, or a small immediate. */
  expr(e: Expr): Src {
    if (e.k === 'lit') {
      const t = smallImm(e.bits, e.ty);
      if (t !== undefined) return t;
    }
    if (e.k === 'var') return this.vars[e.id]!;
    // The element number is read where it is used (it has no side effect).
    if (e.k === 'special') return e.what === 'index' ? p('elem_num') : e.what === 'me' ? this.qpu : this.nqpus;
    const r = this.fresh();
    this.exprInto(e, r);
    if (this.opts.ranges && e.ty === 'int') this.ranges.holds(r.id, e);
    return r;
  }

  /**
   * Computes e into dst, the last instruction writing it; with `cond`, that write happens only in
   * the lanes where the condition code holds (the instructions before it write temporaries).
   */
  exprInto(e: Expr, dst: Reg, cond?: TrueCode): void {
    const c = cond ? { cond } : {};
    switch (e.k) {
      case 'lit': {
        const t = smallImm(e.bits, e.ty);
        if (t !== undefined) this.mov(dst, t, cond);
        else this.emit({ op: 'ldi', dst, bits: e.bits, ...c });
        return;
      }
      case 'var':
        this.mov(dst, this.vars[e.id]!, cond);
        return;
      case 'special':
        this.mov(dst, e.what === 'index' ? p('elem_num') : e.what === 'me' ? this.qpu : this.nqpus, cond);
        return;
      case 'bin': {
        // Its row of ops.ts: one ALU operation, or a function that emits several.
        const impl = binaryImpl(e.op, e.ty);
        if (!impl) throw new CompileError(`kernel ${this.k.name}: the QPU has no ${e.ty} operation '${e.op}'`);
        if (impl.setsFlags && cond) throw new Error(`internal: ${e.op} sets flags and lowers before the flags it is written under (setsFlags)`);
        const how = impl.lower;
        const a = this.expr(e.a);
        // A shift reads its amount's low 5 bits: a constant one of 16-31 is the small immediate
        // with those bits (-16 to -1), not a loaded word.
        const b = typeof how === 'string' && SHIFTS.has(how) && e.b.k === 'lit' ? int(shiftImmediate(e.b.bits & 31)) : this.expr(e.b);
        if (typeof how === 'string') this.alu(how, dst, a, b, c);
        else how(this, dst, a, b, cond);
        return;
      }
      case 'un': {
        const row = unaryRow(e.op);
        if (!row) throw new CompileError(`kernel ${this.k.name}: the QPU has no operation '${e.op}'`);
        if (row.setsFlags && cond) throw new Error(`internal: ${e.op} sets flags and lowers before the flags it is written under (setsFlags)`);
        const how = row.lower;
        const a = this.expr(e.a);
        if (typeof how === 'string') this.alu(how, dst, a, a, c);
        else how(this, dst, a, a, cond);
        return;
      }
      case 'rotate':
        lowerRotate(this, e, dst, cond);
        return;
      case 'ptradd':
        lowerPtrAdd(this, e, dst, cond);
        return;
      case 'load': {
        // A DMA load of the 16 elements at lane 0's address into this QPU's load row, then a read
        // of the row, which arrives three instructions after its setup (space.ts spaces them).
        const ptr = this.expr(e.ptr);
        // A non-blocking store may still be writing memory: the DMA engines do not order a load
        // after it, so wait for it first (a store already waited for costs one instruction).
        if (this.nonBlockingStores) this.waitForStores();
        if (e.n && cond) throw new Error('internal: a counted load lowers before the flags it is written under (setsFlags)');
        lowerLoad(this, this.frame, e.ptr.ty as PtrTy, ptr, e.n && this.expr(e.n), dst, cond);
        return;
      }
      case 'lane':
        lowerLane(this, e, dst, cond);
        return;
      case 'select':
        if (cond) throw new Error('internal: a select lowers before the flags it is written under (setsFlags)');
        lowerSelect(this, e, dst);
        return;
      case 'reduce':
        lowerReduce(this, e, this.expr(e.a), dst, cond);
        return;
      case 'scan':
        lowerScan(this, e, this.expr(e.a), dst, cond);
        return;
      default:
        throw new Error(`internal: no lowering for expression ${(e satisfies never as Expr).k}`);
    }
  }
}
