// Writes a kernel's abstract syntax as readable text (k.dump() and the --dump form of the language):
//
//   kernel gcd(p: int*, q: int*, r: int*)
//     a = *p
//     while any(a != b)
//       where a > b
//         a = a - b
//
// Variables are named as the user's source names them (VarInfo.userName: messages and k.dump()),
// or by their internal names (v<id>: the compiler's dumps, whose passes add variables of their own).
// Operators print as their rows of ops.ts say: infix, prefix, or as a call.

import { meetingName } from './qpus.ts';
import type { BoolExpr, Cond, Expr, FuncAst, KernelAst, ReduceOp, Stmt } from './ast.ts';
import { childBlocks } from './ast.ts';
import { bitsToFloat } from '../vc4/tables.ts';
import { binaryRow, comparisonRow, unaryRow } from './ops.ts';

export function floatText(bits: number): string {
  const f = bitsToFloat(bits);
  if (Number.isInteger(f) && Math.abs(f) < 1e15) return f.toFixed(1);
  return String(f);
}

/** The method that makes each reduction (dsl/numbers.ts). */
export const REDUCE_METHODS: Readonly<Record<ReduceOp, string>> = { add: 'sumLanes', min: 'minLanes', max: 'maxLanes', and: 'andLanes', or: 'orLanes' };

export class Printer {
  constructor(
    private readonly names: (id: number) => string,
    /** The kernel's functions, which calls name. */
    private readonly funcs: readonly FuncAst[] = [],
  ) {}

  expr(e: Expr): string {
    switch (e.k) {
      case 'lit':
        return e.ty === 'int' ? String(e.bits | 0) : floatText(e.bits);
      case 'var':
        return this.names(e.id);
      case 'special':
        return `${e.what}()`;
      case 'bin': {
        const sym = binaryRow(e.op)?.infix;
        return sym ? `(${this.expr(e.a)} ${sym} ${this.expr(e.b)})` : `${e.op}(${this.expr(e.a)}, ${this.expr(e.b)})`;
      }
      case 'un': {
        const sym = unaryRow(e.op)?.prefix;
        return sym ? `${sym}${this.expr(e.a)}` : `${e.op}(${this.expr(e.a)})`;
      }
      case 'rotate':
        return `rotate(${this.expr(e.a)}, ${this.expr(e.n)})`;
      case 'ptradd':
        return `(${this.expr(e.p)} + ${this.expr(e.n)})`;
      case 'load':
        return e.n ? `load(${stripParens(this.expr(e.ptr))}, ${stripParens(this.expr(e.n))})` : `*${this.expr(e.ptr)}`;
      case 'lane':
        return `${this.expr(e.a)}.lane(${this.expr(e.n)})`;
      case 'select':
        return `select(${this.bool(e.c)}, ${this.expr(e.a)}, ${this.expr(e.b)})`;
      case 'reduce':
        return `${this.expr(e.a)}.${REDUCE_METHODS[e.op]}()`;
      case 'scan':
        return `${this.expr(e.a)}.scanLanes(${e.exclusive ? "'exclusive'" : ''})`;
    }
  }

  bool(b: BoolExpr): string {
    switch (b.k) {
      case 'cmp':
      {
        const infix = comparisonRow(b.op)?.infix;
        return infix ? `${this.expr(b.a)} ${infix} ${this.expr(b.b)}` : `${b.op}(${this.expr(b.a)}, ${this.expr(b.b)})`;
      }
      case 'and':
        return `(${this.bool(b.a)} && ${this.bool(b.b)})`;
      case 'or':
        return `(${this.bool(b.a)} || ${this.bool(b.b)})`;
      case 'not':
        return `!(${this.bool(b.a)})`;
    }
  }

  cond(c: Cond): string {
    return `${c.k}(${this.bool(c.b)})`;
  }

  /** A statement's first line for an error message: cut after 120 characters. */
  brief(s: Stmt): string {
    const h = this.head(s);
    return h.length > 120 ? `${h.slice(0, 117)}...` : h;
  }

  /** One statement's first line (no nested blocks). */
  head(s: Stmt): string {
    switch (s.k) {
      case 'assign':
        return `${this.names(s.v.id)} = ${stripParens(this.expr(s.e))}`;
      case 'store':
        return s.n ? `store(${stripParens(this.expr(s.ptr))}, ${stripParens(this.expr(s.e))}, ${stripParens(this.expr(s.n))})` : `*${this.expr(s.ptr)} = ${stripParens(this.expr(s.e))}`;
      case 'if':
        return `if ${this.cond(s.c)}`;
      case 'while':
        return `while ${this.cond(s.c)}`;
      case 'for':
        return `for ${this.cond(s.c)}`;
      case 'where':
        return `where ${this.bool(s.b)}`;
      case 'break':
      case 'continue':
        // As PHP writes them: `break 2` leaves two loops, `continue 2` goes on with the second.
        return s.levels ? `${s.k} ${s.levels + 1}` : s.k;
      case 'gather':
        return `gather(${stripParens(this.expr(s.ptr))})`;
      case 'receive':
        return `receive(${this.names(s.v.id)})`;
      case 'stream':
        return `stream(${stripParens(this.expr(s.ptr))})`;
      case 'next':
        return `${this.names(s.v.id)} = next()`;
      case 'storeNB':
        return `store(${stripParens(this.expr(s.e))}, ${stripParens(this.expr(s.ptr))})`;
      case 'scatter':
        return `${s.how === 'store' ? 'scatter' : s.how === 'add' ? 'scatterAdd' : 'atomicAdd'}(${stripParens(this.expr(s.ptr))}, ${stripParens(this.expr(s.e))})`;
      case 'sema':
        return `sema${s.down ? 'Dec' : 'Inc'}(${s.n})`;
      case 'mutex':
        return s.lock ? 'mutexLock()' : 'mutexUnlock()';
      case 'barrier':
        return 'barrier()';
      case 'combine':
        return `${this.names(s.v.id)} = ${meetingName(s)}(${s.from ? stripParens(this.expr(s.from)) : this.names(s.v.id)}${s.scan === 'exclusive' ? ", 'exclusive'" : ''})`;
      case 'print':
        return `print(${[JSON.stringify(s.label), ...s.values.map((e, j) => (s.names[j] ? `${s.names[j]}: ` : '') + stripParens(this.expr(e)))].join(', ')})`;
      case 'call': {
        const outs = s.outs.map((o) => this.names(o.id)).join(', ');
        return `${outs} = ${this.funcs[s.f]?.name ?? `func${s.f}`}(${s.args.map((e) => stripParens(this.expr(e))).join(', ')})`;
      }
      case 'assert': {
        const named = s.names.map((n, j) => `${n}: ${stripParens(this.expr(s.values[j]!))}`).join(', ');
        return `assert(${stripParens(this.bool(s.b))}${s.message !== undefined || named ? `, ${JSON.stringify(s.message ?? '')}` : ''}${named ? `, { ${named} }` : ''})`;
      }
    }
  }

  stmts(ss: readonly Stmt[], indent: string, out: string[]): void {
    for (const s of ss) {
      out.push(indent + this.head(s));
      const inner = indent + '  ';
      if (s.k === 'if' || s.k === 'where') {
        this.stmts(s.then, inner, out);
        if (s.else.length) {
          out.push(indent + 'else');
          this.stmts(s.else, inner, out);
        }
      } else if (s.k === 'while') this.stmts(s.body, inner, out);
      else if (s.k === 'for') {
        this.stmts(s.body, inner, out);
        if (s.step.length) {
          out.push(indent + 'step');
          this.stmts(s.step, inner, out);
        }
      }
    }
  }
}

function stripParens(s: string): string {
  return s.startsWith('(') && s.endsWith(')') && balanced(s.slice(1, -1)) ? s.slice(1, -1) : s;
}

function balanced(s: string): boolean {
  let d = 0;
  for (const ch of s) {
    if (ch === '(') d++;
    else if (ch === ')' && --d < 0) return false;
  }
  return d === 0;
}

/** Which names a printer gives variables: the user's (messages, k.dump()) or the internal v<id>. */
export type VarNames = 'user' | 'internal';

/** A kernel's variable names by id (v<id> for an id the kernel does not list: one a compiler pass made). */
export function varNames(k: KernelAst, which: VarNames = 'user'): (id: number) => string {
  const names = new Map(k.vars.map((v) => [v.id, which === 'user' ? (v.userName ?? v.name) : v.name]));
  return (id) => names.get(id) ?? `v${id}`;
}

/** A printer of statements for messages about kernel `k`: variables by the user's names. */
export function messagePrinter(k: KernelAst): Printer {
  return new Printer(varNames(k, 'user'), k.funcs);
}

/**
 * Each statement of the kernel as the user wrote it (as messages write it), by where it was
 * written ("file:line:col"; the first at each place): passes rewrite statements, keeping the place.
 */
export function writtenStatements(k: KernelAst): Map<string, string> {
  const printer = messagePrinter(k);
  const out = new Map<string, string>();
  const walk = (ss: readonly Stmt[]) => {
    for (const s of ss) {
      if (s.loc && !out.has(s.loc)) out.set(s.loc, printer.brief(s));
      for (const b of childBlocks(s)) walk(b);
    }
  };
  walk(k.body);
  for (const f of k.funcs ?? []) walk(f.body);
  return out;
}

/**
 * A namer of statements as the user wrote them: one of the kernel's own is printed as it is; one
 * a compiler pass made or rewrote, as the user's first statement at its place (or as it is).
 */
export function statementNamer(k: KernelAst): (s: Stmt) => string {
  const printer = messagePrinter(k);
  const own = new WeakSet<Stmt>();
  const walk = (ss: readonly Stmt[]) => ss.forEach((x) => (own.add(x), childBlocks(x).forEach(walk)));
  walk(k.body);
  for (const f of k.funcs ?? []) walk(f.body);
  const written = writtenStatements(k);
  return (s) => (own.has(s) ? printer.brief(s) : ((s.loc && written.get(s.loc)) ?? printer.brief(s)));
}

/** The whole kernel as text; the compiler's dumps ask for the internal names. */
export function printKernel(k: KernelAst, which: VarNames = 'internal'): string {
  const name = varNames(k, which);
  const p = new Printer(name, k.funcs);
  const out = [`kernel ${k.name}(${k.params.map((v) => `${name(v.id)}: ${v.ty}`).join(', ')})`];
  p.stmts(k.body, '  ', out);
  for (const f of k.funcs ?? []) {
    out.push(`func ${f.name}(${f.params.map((v) => `${name(v.id)}: ${v.ty}`).join(', ')})`);
    p.stmts(f.body, '  ', out);
    out.push(`  return ${f.results.map((e) => stripParens(p.expr(e))).join(', ')}`);
  }
  return out.join('\n') + '\n';
}
