// Lowering functions (`func`, source/ast.ts FuncAst): each body compiled once, after the
// kernel's end, and entered by the chip's branch with link (Guide p. 34: a branch writes the
// address of the instruction after its delay slots to its destinations, and a branch through a
// regfile-A register jumps to the address in it). Needs: a lowering to emit into (lower.ts).
// Guarantees, in the IR:
// - a call: its arguments written to the function's parameters, `brr %link, entry` and its 3
//   delay slots, a label where it returns, then the results copied to the call's variables (under
//   the caller's Where mask, when there is one: the body sets flags of its own);
// - each function called, callers before callees (so no call branches backwards, and cfg.ts's
//   loops are the kernel's loops): its entry label, its body, its results computed into its
//   result registers, and its return `bra -, %link` with 3 delay slots;
// - one link register a function, which every call writes and its return reads: the allocator
//   keeps it in regfile A (regalloc.ts fileAOnly) and never spills it (driver.ts).
// No recursion (the DSL refuses it), so each function's parameters, variables and results have
// one register each, and the control-flow graph (cfg.ts) sees every call and return.

import { childBlocks, type Expr, type KernelAst, type Stmt } from '../source/ast.ts';
import type { IrInstr, Reg, Src, VReg } from './ir.ts';
import { BRANCH_DELAY_SLOTS } from '../vc4/flow.ts';
import type { Conditions } from './lower-conditions.ts';

/** What lowering functions needs of a lowering (lower.ts). */
export interface FuncEmitter {
  emit(i: IrInstr): void;
  fresh(): VReg;
  label(what: string): string;
  mov(dst: Reg, src: Src, cond?: 'zc'): void;
  exprInto(e: Expr, dst: Reg): void;
  varReg(id: number): VReg;
  readonly cond: Conditions;
}

interface Lowered {
  readonly entry: string;
  readonly link: VReg;
  readonly results: readonly VReg[];
}

export class Functions {
  private readonly lowered = new Map<number, Lowered>();

  constructor(
    private readonly l: FuncEmitter,
    private readonly k: KernelAst,
  ) {}

  private of(f: number): Lowered {
    let x = this.lowered.get(f);
    if (!x) {
      const fa = this.k.funcs![f]!;
      x = { entry: this.l.label(`func_${fa.name.replace(/[^\w]/g, '_')}_`), link: this.l.fresh(), results: fa.results.map(() => this.l.fresh()) };
      this.lowered.set(f, x);
    }
    return x;
  }

  /** A call statement: arguments in, the branch with link, the results out (in the lanes of `mask`). */
  call(s: Stmt & { k: 'call' }, mask: VReg | undefined): void {
    const f = this.of(s.f);
    const fa = this.k.funcs![s.f]!;
    // A function's parameters are its own (dsl/funcs.ts checkFuncVariables): no argument reads one.
    s.args.forEach((a, i) => this.l.exprInto(a, this.l.varReg(fa.params[i]!.id)));
    this.branch({ op: 'branch', cond: 'always', label: f.entry, link: f.link });
    this.l.emit({ op: 'label', name: this.l.label(`${f.entry}return`) });
    if (mask) this.l.cond.flagsFromMask(mask);
    s.outs.forEach((o, i) => this.l.mov(this.l.varReg(o.id), f.results[i]!, mask ? 'zc' : undefined));
  }

  /** The bodies of the functions the kernel calls, callers first; `block` lowers statements. */
  emitBodies(block: (ss: readonly Stmt[]) => void): void {
    for (const n of this.callOrder()) {
      const f = this.of(n);
      const fa = this.k.funcs![n]!;
      this.l.emit({ op: 'label', name: f.entry });
      block(fa.body);
      fa.results.forEach((e, i) => this.l.exprInto(e, f.results[i]!));
      this.branch({ op: 'branch', cond: 'always', label: f.entry, via: f.link });
    }
  }

  private branch(i: IrInstr): void {
    this.l.emit(i);
    for (let j = 0; j < BRANCH_DELAY_SLOTS; j++) this.l.emit({ op: 'nop' });
  }

  /** The functions the kernel's body calls, directly or through others, each before those it calls. */
  private callOrder(): number[] {
    const post: number[] = [];
    const seen = new Set<number>();
    const visit = (ss: readonly Stmt[]): void => {
      for (const s of ss) {
        if (s.k === 'call' && !seen.has(s.f)) {
          seen.add(s.f);
          visit(this.k.funcs![s.f]!.body);
          post.push(s.f);
        }
        childBlocks(s).forEach(visit);
      }
    };
    visit(this.k.body);
    return post.reverse();
  }
}
