// The random program generator's reads through the TMU and the uniform stream (generate.ts
// builds programs around them): groups of gathers and receives, and broadcast streams with their
// reads. Needs: the program's inputs (params 0 and 1, INPUT_ELEMS words each, never stored to),
// its pointer variable and its variables. Guarantees: every address read is inside an input;
// the TMU FIFO never holds more than TMU_FIFO_DEPTH gathers; a stream's address is the same in
// every lane, and its reads, in one group right after it, stay inside the input it reads.

import type { Expr, Stmt, VarInfo, VarRef } from './ast.ts';
import { TMU_FIFO_DEPTH } from '../vc4/rules.ts';
import { lit } from './generate-random.ts';
import { FuncGenerator } from './generate-funcs.ts';

/** Elements of each input array (a power of two). */
export const INPUT_ELEMS = 64;

export abstract class MemoryGenerator extends FuncGenerator {
  protected abstract override readonly vars: readonly VarInfo[];
  protected abstract readonly ptrVar: VarRef;
  protected abstract readonly slots: number;
  /** The stream statements made so far: the next one's number. */
  private streams = 0;
  /** Variables a stream's read goes into that one operation reads, and nothing else (not even the final stores). */
  protected readonly readOnce = new Set<number>();

  /** An input pointer plus (e & mask): in bounds for every lane. */
  protected inPtr(base: VarRef, mask: number, depth = 1): Expr {
    const idx: Expr = { k: 'bin', op: 'and', ty: 'int', a: this.intExpr(depth, false), b: lit('int', mask) };
    return { k: 'ptradd', ty: base.ty as 'int*', p: base, n: idx };
  }

  /** 1-4 gathers, some assignments, then as many receives: the FIFO never holds more than it can (TMU_FIFO_DEPTH). */
  protected gatherGroup(): Stmt[] {
    const n = 1 + this.int(TMU_FIFO_DEPTH);
    const out: Stmt[] = [];
    const into: VarRef[] = [];
    for (let i = 0; i < n; i++) {
      const ty = this.chance(0.5) ? 'int' : 'float';
      const vs = this.varsOf(ty, true);
      if (!vs.length) continue;
      into.push(this.pick(vs));
      // Through the pointer variable too (pv is inI + 0..15, so pv + 0..31 stays inside).
      const ptr: Expr = ty === 'int' && this.chance(0.3) ? { k: 'ptradd', ty: 'int*', p: this.ptrVar, n: { k: 'bin', op: 'and', ty: 'int', a: this.intExpr(1, false), b: lit('int', 31) } } : this.inPtr(this.params[ty === 'int' ? 0 : 1]!, INPUT_ELEMS - 1);
      out.push({ k: 'gather', ptr });
    }
    if (this.chance(0.5)) out.push(...this.assign(false));
    for (const v of into) out.push({ k: 'receive', v });
    return out;
  }

  /**
   * A broadcast stream of ints or floats from lane 0's address in an input (at most 31 words in,
   * so the 8 reads it may have stay inside) and its reads into variables of that type: 1-4 in a
   * row, with an assignment among them now and then; or the two arms of an If reading 1-3 each;
   * or a loop of 1-3 passes reading 1-2 a pass (a stream read across a loop's passes).
   */
  protected broadcastStream(): Stmt[] {
    const ty = this.chance(0.5) ? 'int' : 'float';
    const vs = this.varsOf(ty, true);
    if (!vs.length) return this.assign(false);
    const id = this.streams++;
    const at = this.inPtr(this.params[ty === 'int' ? 0 : 1]!, 31);
    const start: Stmt = { k: 'stream', ptr: { k: 'lane', ty: at.ty, a: at, n: lit('int', 0) }, id };
    // A read into a variable, or (as `v.set(v.add(s.next()))` is built) into a new one that one
    // operation reads: what the compiler reads in place, straight from the stream (direct.ts).
    const read = (): Stmt[] => {
      const v = this.pick(vs);
      if (!this.chance(0.4)) return [{ k: 'next', v, stream: id }];
      const t = this.newVar(ty);
      this.readOnce.add(t.id);
      const op = this.pick(ty === 'int' ? (['add', 'sub', 'mul', 'xor'] as const) : (['add', 'sub', 'mul'] as const));
      return [{ k: 'next', v: t, stream: id }, { k: 'assign', v, e: { k: 'bin', op, ty, a: v, b: t } }];
    };
    const reads = (n: number): Stmt[] => Array.from({ length: n }, read).flat();
    const form = this.int(3);
    if (form === 1) {
      const then = reads(1 + this.int(3));
      return [start, { k: 'if', c: this.cond(), then, else: this.chance(0.5) ? reads(1 + this.int(3)) : [] }];
    }
    if (form === 2 && this.vars.filter((v) => v.ty === 'int').length < this.slots) {
      const c = this.newVar('int');
      const passes = 1 + this.int(3);
      const body = [...reads(1 + this.int(2)), { k: 'assign', v: c, e: { k: 'bin', op: 'add', ty: 'int', a: c, b: lit('int', 1) } } as Stmt];
      return [start, { k: 'assign', v: c, e: lit('int', 0) }, { k: 'while', c: { k: 'any', b: { k: 'cmp', op: 'lt', ty: 'int', a: c, b: lit('int', passes) } }, body }];
    }
    const out = [start, ...reads(1 + this.int(4))];
    if (this.chance(0.3)) out.splice(1 + this.int(out.length - 1), 0, ...this.assign(false));
    return out;
  }
}
