// Differential testing: a generated program (src/source/generate.ts) runs on the reference
// interpreter and, compiled, on the emulator; their output arrays must be identical bit for bit
// and the inputs untouched. Some programs run with the QPUs in random interleavings on both
// targets (interleaveFor): the generator's programs are race-free, so they must agree whatever
// the order. On a mismatch, shrink() cuts the program down, statement by statement and
// expression by expression, to a smaller one that still disagrees.

import { KernelAssertionError, printedLines } from '../source/checks.ts';
import type { SfuMode } from '../vc4/sfu-model.ts';
import { compile, type OptLevel } from '../compiler/driver.ts';
import { type Allocation, GpuMemory } from '../common/memory.ts';
import type { BoolExpr, Expr, KernelAst, Stmt } from '../source/ast.ts';
import type { GeneratedProgram } from '../source/generate.ts';
import { interpret } from '../source/interpreter.ts';
import { type ArrayArg, EmulatorTarget } from './emulate.ts';
import { VECTOR_BYTES } from '../vc4/chip.ts';

export type Outcome =
  /** `assertionFailed`: both stopped at the same failed assertion (the outputs are not compared then). */
  | { readonly kind: 'agree'; readonly assertionFailed?: boolean }
  /** The interpreter rejected the program: a generator bug, not a compiler one. */
  | { readonly kind: 'invalid'; readonly error: string }
  | { readonly kind: 'mismatch'; readonly detail: string };

/** By default one program in this many runs in random interleavings (fuzz --interleave). */
export const INTERLEAVE_EVERY = 5;

/**
 * The interleaving seed program `seed` runs with, when it runs in random interleavings: one
 * program in `every` (0: none), both targets drawing their orders from the program's seed.
 */
export function interleaveFor(seed: number, every = INTERLEAVE_EVERY): number | undefined {
  return every > 0 && seed % every === 0 ? seed >>> 0 : undefined;
}

/** The arrays a generated program is given, as both targets take them. */
function regions(a: Record<'inI' | 'inF' | 'outI' | 'outF', Allocation>): ArrayArg[] {
  return [a.inI, a.inF, a.outI, a.outF].map((x) => ({ name: x.name, address: x.address, bytes: x.bytes }));
}

/** Runs programs on both targets, in GPU memory renewed now and then (pages are never reused). */
export class DifferentialRunner {
  /** `opt`: the compiler's optimization level for the emulator's side; `sfu`: both targets' SFU mode. */
  constructor(
    private readonly opt: OptLevel = 2,
    private readonly sfu?: SfuMode,
  ) {}
  private memory = new GpuMemory();
  private target = new EmulatorTarget(this.memory);
  private runs = 0;

  /** `interleave`: a seed; both targets run the QPUs in random interleavings drawn from it. */
  run(p: GeneratedProgram, ast: KernelAst = p.ast, interleave?: number): Outcome {
    if (++this.runs % 40 === 0) {
      this.memory = new GpuMemory();
      this.target = new EmulatorTarget(this.memory);
    }
    const mem = this.memory;
    const arrays = () => {
      const inI = mem.alloc(p.inI.length * 4, 'inI');
      const inF = mem.alloc(p.inF.length * 4, 'inF');
      const outI = mem.alloc(p.qpus * p.slots * VECTOR_BYTES, 'outI');
      const outF = mem.alloc(p.qpus * p.slots * VECTOR_BYTES, 'outF');
      mem.view(inI, Int32Array).set(p.inI);
      mem.view(inF, Int32Array).set(p.inF);
      return { inI, inF, outI, outF, args: [inI.address, inF.address, outI.address, outF.address, p.n, p.xBits].map((x) => x | 0) };
    };
    const a = arrays();
    let failed: KernelAssertionError | undefined; // an assertion the interpreter saw fail: compiled code must fail it too
    let printed: string[] = [];
    try {
      printed = printedLines(interpret(ast, {
        qpus: p.qpus,
        args: a.args,
        memory: mem,
        arrays: regions(a),
        maxSteps: 2_000_000,
        interleave,
        sfu: this.sfu,
      }).printed);
    } catch (e) {
      if (!(e instanceof KernelAssertionError)) return { kind: 'invalid', error: String((e as Error).message ?? e) };
      failed = e;
    }
    const b = arrays();
    try {
      const c = compile(ast, { qpus: p.qpus, opt: this.opt, verify: true });
      this.target.run(c, b.args, regions(b), { maxSteps: 50_000_000, interleave, sfu: this.sfu });
    } catch (e) {
      if (failed && e instanceof KernelAssertionError) return sameFailure(failed, e);
      return { kind: 'mismatch', detail: `the emulator run failed: ${(e as Error).message ?? e}` };
    }
    if (failed) return { kind: 'mismatch', detail: `the interpreter stopped at an assertion and the compiled code did not:\n${failed.message}` };
    const shown = printedLines(this.target.printed);
    if (shown.join('\n') !== printed.join('\n'))
      return { kind: 'mismatch', detail: `the prints differ:\ninterpreter:\n  ${printed.join('\n  ')}\nemulator:\n  ${shown.join('\n  ')}` };
    for (const k of ['inI', 'inF', 'outI', 'outF'] as const) {
      const x = mem.view(a[k], Int32Array);
      const y = mem.view(b[k], Int32Array);
      const diffs: string[] = [];
      for (let i = 0; i < x.length; i++)
        if (x[i] !== y[i])
          diffs.push(`${k}[${i}] (QPU ${Math.floor(i / (p.slots * 16))}, slot ${Math.floor(i / 16) % p.slots}, lane ${i % 16}): interpreter ${hex(x[i]!)}, emulator ${hex(y[i]!)}`);
      if (diffs.length)
        return { kind: 'mismatch', detail: `${diffs.length} word${diffs.length > 1 ? 's' : ''} differ:\n  ${diffs.slice(0, 12).join('\n  ')}${diffs.length > 12 ? '\n  ...' : ''}` };
    }
    return { kind: 'agree' };
  }
}

const hex = (x: number) => '0x' + (x >>> 0).toString(16).padStart(8, '0');

/** Cuts a failing program down: keeps each simplification after which it still fails. */
export function shrink(ast: KernelAst, fails: (k: KernelAst) => boolean, opts: { keep?: number; maxTries?: number } = {}): KernelAst {
  const keep = opts.keep ?? 0;
  const maxTries = opts.maxTries ?? 4000;
  let cur = ast;
  let tries = 0;
  for (let progress = true; progress && tries < maxTries; ) {
    progress = false;
    for (const cand of variants(cur, keep)) {
      if (++tries > maxTries) break;
      if (fails(cand)) {
        cur = cand;
        progress = true;
        break;
      }
    }
  }
  return cur;
}

/**
 * Smaller versions of a kernel: one statement removed or flattened, or one expression simplified.
 * The first `keep` statements stay as they are (the generator's prologue, which keeps the QPUs'
 * outputs apart: without it a smaller program could race and fail for that reason alone).
 */
function* variants(k: KernelAst, keep: number): Generator<KernelAst> {
  const head = k.body.slice(0, keep);
  for (const rest of blockVariants(k.body.slice(keep))) yield { ...k, body: [...head, ...rest] };
}

function* blockVariants(ss: readonly Stmt[]): Generator<Stmt[]> {
  // Remove whole statements first (the biggest steps), then simplify inside each.
  for (let i = 0; i < ss.length; i++) yield [...ss.slice(0, i), ...ss.slice(i + 1)];
  for (let i = 0; i < ss.length; i++) {
    const s = ss[i]!;
    const put = (x: Stmt[]) => [...ss.slice(0, i), ...x, ...ss.slice(i + 1)];
    if (s.k === 'if' || s.k === 'where') {
      yield put(s.then);
      if (s.else.length) yield put(s.else);
      for (const t of blockVariants(s.then)) yield put([{ ...s, then: t }]);
      for (const e of blockVariants(s.else)) yield put([{ ...s, else: e }]);
    }
    if (s.k === 'while' || s.k === 'for') {
      for (const b of blockVariants(s.body)) yield put([{ ...s, body: b }]);
    }
    for (const x of stmtExprVariants(s)) yield put([x]);
  }
}

/** A counted load or store without its count (all 16 lanes), then with its count made smaller. */
function* countVariants<T extends { readonly n?: Expr }>(x: T): Generator<T> {
  if (!x.n) return;
  const { n, ...whole } = x;
  yield whole as T;
  for (const m of exprVariants(n)) yield { ...x, n: m };
}

function* stmtExprVariants(s: Stmt): Generator<Stmt> {
  switch (s.k) {
    case 'assign':
      for (const e of exprVariants(s.e)) yield { ...s, e };
      return;
    case 'store':
      yield* countVariants(s);
      for (const e of exprVariants(s.e)) yield { ...s, e };
      return;
    case 'storeNB':
    case 'scatter':
      for (const e of exprVariants(s.e)) yield { ...s, e };
      return;
    case 'where':
      for (const b of boolVariants(s.b)) yield { ...s, b };
      return;
    case 'if':
    case 'while':
    case 'for':
      for (const b of boolVariants(s.c.b)) yield { ...s, c: { ...s.c, b } } as Stmt;
      return;
    default:
      return;
  }
}

function* boolVariants(b: BoolExpr): Generator<BoolExpr> {
  if (b.k === 'and' || b.k === 'or') {
    yield b.a;
    yield b.b;
    for (const a of boolVariants(b.a)) yield { ...b, a };
    for (const x of boolVariants(b.b)) yield { ...b, b: x };
  } else if (b.k === 'not') {
    yield b.a;
    for (const a of boolVariants(b.a)) yield { ...b, a };
  } else {
    const c = b as Extract<BoolExpr, { k: 'cmp' }>;
    for (const a of exprVariants(c.a)) yield { ...c, a };
    for (const x of exprVariants(c.b)) yield { ...c, b: x };
  }
}

/** Simpler expressions of the same type: a literal 0, a same-typed child, or a child simplified. */
function* exprVariants(e: Expr): Generator<Expr> {
  const ty = e.ty === 'float' ? 'float' : e.ty === 'int' ? 'int' : undefined;
  if (ty && !(e.k === 'lit' && e.bits === 0)) yield { k: 'lit', ty, bits: 0 };
  switch (e.k) {
    case 'bin':
      if (e.a.ty === e.ty) yield e.a;
      if (e.b.ty === e.ty) yield e.b;
      for (const a of exprVariants(e.a)) yield { ...e, a };
      for (const b of exprVariants(e.b)) yield { ...e, b };
      return;
    case 'un':
      if (e.a.ty === e.ty) yield e.a;
      for (const a of exprVariants(e.a)) yield { ...e, a };
      return;
    case 'rotate':
      yield e.a;
      for (const a of exprVariants(e.a)) yield { ...e, a };
      for (const n of exprVariants(e.n)) yield { ...e, n };
      return;
    case 'ptradd':
      for (const n of exprVariants(e.n)) yield { ...e, n };
      return;
    case 'load':
      yield* countVariants(e);
      for (const ptr of exprVariants(e.ptr)) yield { ...e, ptr };
      return;
    case 'lane':
      yield e.a;
      for (const a of exprVariants(e.a)) yield { ...e, a };
      for (const n of exprVariants(e.n)) yield { ...e, n };
      return;
    case 'select':
      yield e.a;
      yield e.b;
      for (const a of exprVariants(e.a)) yield { ...e, a };
      for (const b of exprVariants(e.b)) yield { ...e, b };
      for (const c of boolVariants(e.c)) yield { ...e, c };
      return;
    case 'reduce':
    case 'scan':
      yield e.a;
      for (const a of exprVariants(e.a)) yield { ...e, a };
      return;
    default:
      return;
  }
}

/**
 * An assertion both targets saw fail: the interpreter stops at the first QPU it runs that fails
 * one, compiled code records every QPU's first failure, so the interpreter's must be among them.
 */
function sameFailure(interpreted: KernelAssertionError, compiled: KernelAssertionError): Outcome {
  const mine = interpreted.records[0]!;
  const found = compiled.records.some((r) => r.qpu === mine.qpu && r.at === mine.at && r.assertion === mine.assertion && r.line === mine.line);
  return found ? { kind: 'agree', assertionFailed: true } : { kind: 'mismatch', detail: `the targets failed assertions differently:\ninterpreter: ${interpreted.message}\nemulator: ${compiled.message}` };
}
