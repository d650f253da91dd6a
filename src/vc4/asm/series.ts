// The SHA-256 series' assembler dialect (`qpu asm --syntax series`): the syntax and encoding of
// the QPU assembler in the "Hacking The GPU" series (elorimer/rpi-playground, QPU/assembler),
// learnt by reading it and running it on its own programs and on test programs of ours; none
// of its code is used here. Needs: source text in that syntax, after m4 when it uses macros, as
// the series' sources do. Guarantees: the words that assembler writes, bit for bit, for every
// program it assembles to what the text says; where it would silently drop or change part of
// a line (docs/asm.md, "The SHA-256 series' syntax"), an AsmError naming file:line:col instead.
//
// What the dialect encodes, unlike the default syntax: an ALU instruction sets the flags
// whenever its add operation is not nop, both of its conditions are always, read addresses
// it does not use are 0, and a bare `; nop` mul half writes nowhere with the add half's input
// muxes. Registers are numbers (ra0-ra63, rb0-rb63; accumulators r0-r5 as sources only); labels
// and branch offsets count bytes.

import { encodeProgram, MAX_PROGRAM_INSTRUCTIONS, programSizeProblem } from '../codec.ts';
import { ACCUMULATORS, SEMAPHORES } from '../chip.ts';
import { branchOffset } from '../flow.ts';
import { REGFILE_LOCATIONS, REGISTER_ADDRESSES, W_ACC0, W_NOP } from '../registers.ts';
import type { AluInstr, BranchInstr, Instr, LoadImmInstr } from '../instr.ts';
import { nopInstr, semaInstr } from '../instr.ts';
import {
  ADD_NOP,
  ADD_OP_BY_NAME,
  BRANCH_ALWAYS,
  BRANCH_CONDITION_ALIASES,
  COND_ALWAYS,
  MUL_NOP,
  MUL_OP_BY_NAME,
  MUX_A,
  MUX_B,
  SIG_LOAD_TMU0,
  SIG_NONE,
  SIG_PROG_END,
  SIG_SMALL_IMM,
} from '../tables.ts';
import type { AsmOptions, AsmProgram, AsmDiagnostic } from './program.ts';
import { AsmError, MAX_ERRORS, sourceLines } from './program.ts';
import { shown } from './text.ts';

/** The series' assembler reads lines into a 128-byte buffer: a longer line ends its input. */
export const SERIES_MAX_LINE = 127;
/** Its small immediates: the integers 0-15 (Table 5's codes 0-15). */
const SERIES_MAX_SMALL_IMM = 15;
const NO_REG = W_NOP;

class SeriesError extends Error {
  constructor(
    message: string,
    readonly col: number,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------- tokens

interface Token {
  readonly text: string;
  readonly col: number;
}

const PUNCT = '.,;:';

/** A line's tokens: words, and `.`, `,`, `;`, `:`; `#` at a token's start ends the line. */
function tokens(line: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') i++;
    else if (c === '#') break;
    else if (PUNCT.includes(c)) out.push({ text: c, col: ++i });
    else {
      const start = i;
      // A number runs over hex digits, '.' and 'x' (1.5 and 0x1F are one word each).
      const inWord = c >= '0' && c <= '9' ? (d: string) => /[0-9a-fA-F.x]/.test(d) : (d: string) => !' \t'.includes(d) && !PUNCT.includes(d);
      while (i < line.length && inWord(line[i]!)) i++;
      out.push({ text: line.slice(start, i), col: start + 1 });
    }
  }
  return out;
}

class Cursor {
  private i = 0;
  constructor(
    private readonly ts: Token[],
    private readonly endCol: number,
  ) {}
  peek(): Token | undefined {
    return this.ts[this.i];
  }
  next(what: string): Token {
    const t = this.ts[this.i++];
    if (!t) throw new SeriesError(`expected ${what}`, this.endCol);
    return t;
  }
  expect(p: string, what: string): void {
    const t = this.next(`'${p}' ${what}`);
    if (t.text !== p) throw new SeriesError(`expected '${p}' ${what}, found '${shown(t.text)}'`, t.col);
  }
  /** Only an optional `;` may end the line (the series' sources end ldi and branch lines so). */
  end(what: string): void {
    if (this.peek()?.text === ';') this.i++;
    const t = this.peek();
    if (t)
      throw new SeriesError(
        `unexpected '${shown(t.text)}' after ${what}: the series' assembler ignores the rest of such a line; remove it or make it a # comment`,
        t.col,
      );
  }
}

// ---------------------------------------------------------------- operands

interface Reg {
  readonly file: 'a' | 'b' | 'acc';
  readonly n: number;
  readonly col: number;
  readonly text: string;
}

/** raN, rbN (0-63) or rN; undefined for a word that is not a register. */
function register(t: Token): Reg | undefined {
  const m = /^r(a|b)?(\d+)$/.exec(t.text);
  if (!m) {
    if (t.text.startsWith('r')) throw new SeriesError(`'${shown(t.text)}' is not a register: write raN, rbN (N = 0-63) or r0-r5`, t.col);
    return undefined;
  }
  const n = Number(m[2]);
  const file = m[1] === 'a' ? 'a' : m[1] === 'b' ? 'b' : 'acc';
  if (file === 'acc' ? n >= ACCUMULATORS : n >= REGISTER_ADDRESSES)
    throw new SeriesError(file === 'acc' ? `there are accumulators r0-r5, not r${n}` : `register numbers are 0-63, not ${n}`, t.col);
  return { file, n, col: t.col, text: t.text };
}

/** A destination: raN or rbN (the series encodes rN as address N, so it is refused). */
function destination(t: Token): Reg & { file: 'a' | 'b' } {
  const r = register(t);
  if (!r) throw new SeriesError(`expected a destination register raN or rbN, found '${shown(t.text)}'`, t.col);
  if (r.file === 'acc')
    throw new SeriesError(
      `the series' assembler writes ${r.text} as register address ${r.n} (ra${r.n} or rb${r.n}), not the accumulator: write ra${r.n} for that, or ra${W_ACC0 + r.n} for accumulator ${r.text}`,
      t.col,
    );
  return r as Reg & { file: 'a' | 'b' };
}

/**
 * A number as the series reads it: hex with an `x` (0x1F), a float's bits with a `.` or an `f`
 * (1.5, 1f), else decimal (010 is ten); `-N` is 2^32 - N where `allowNegative`. Anything its
 * reader would cut short or wrap is refused.
 */
function seriesNumber(t: Token, allowNegative: boolean): number {
  const s = t.text;
  let v: number | undefined;
  if (/^0x[0-9a-fA-F]{1,8}$/.test(s)) v = parseInt(s.slice(2), 16);
  else if (/^\d+(\.\d*(e\d+)?f?|f)$/.test(s)) v = new Uint32Array(new Float32Array([Number.parseFloat(s)]).buffer)[0]!;
  else if (/^\d+$/.test(s)) v = Number(s);
  else if (allowNegative && /^-\d+$/.test(s)) v = 2 ** 32 + Number(s);
  if (v === undefined || !(v >= 0 && v < 2 ** 32))
    throw new SeriesError(
      `'${shown(s)}' is not a number the series' assembler reads as written: use decimal (${allowNegative ? '-1, ' : ''}42), hex (0x2A) or a float (1.5)`,
      t.col,
    );
  return v;
}

// ---------------------------------------------------------------- statements

interface Context {
  readonly labels: ReadonlyMap<string, number>;
  readonly pc: number;
}

/** Reads: the first regfile-A and regfile-B register named, and the small immediate. */
class Reads {
  a: Reg | undefined;
  b: Reg | undefined;
  imm: { value: number; col: number } | undefined;
  /** The input mux of source `t`; `first`: an operation's first source, which must be a register. */
  mux(t: Token, first: boolean): number {
    const r = register(t);
    if (!r) {
      if (first)
        throw new SeriesError(
          `the first source must be a register in the series' syntax (it reads a number there as an undefined register): '${shown(t.text)}' can only be the second`,
          t.col,
        );
      const value = seriesNumber(t, false);
      if (value > SERIES_MAX_SMALL_IMM)
        throw new SeriesError(`the series' small immediates are 0-${SERIES_MAX_SMALL_IMM}, not ${shown(t.text)}: load it with ldi`, t.col);
      if (this.b)
        throw new SeriesError(`a small immediate and ${this.b.text} both need the regfile-B read (the series' assembler would read the immediate for both)`, t.col);
      if (this.imm && this.imm.value !== value) throw new SeriesError('one small immediate fits in an instruction', t.col);
      this.imm = { value, col: t.col };
      return MUX_B;
    }
    if (r.file === 'acc') return r.n;
    const held = r.file === 'a' ? this.a : this.b;
    if (held && held.n !== r.n)
      throw new SeriesError(`${held.text} and ${r.text} are both regfile ${r.file.toUpperCase()} reads; an instruction has one (the series' assembler would read ${held.text} for both)`, r.col);
    if (r.file === 'b' && this.imm)
      throw new SeriesError(`${r.text} and a small immediate both need the regfile-B read (the series' assembler would read the immediate for both)`, r.col);
    if (r.file === 'a') this.a = r;
    else this.b = r;
    return r.file === 'a' ? MUX_A : MUX_B;
  }
}

function buildAlu(c: Cursor, op: Token): AluInstr {
  const add = ADD_OP_BY_NAME.get(op.text)!;
  const ins = nopInstr(SIG_NONE);
  if (c.peek()?.text === '.') {
    c.next('');
    const s = c.next('a suffix after the dot');
    if (s.text === 'tmu') ins.sig = SIG_LOAD_TMU0;
    else if (s.text === 'tend') ins.sig = SIG_PROG_END;
    else
      throw new SeriesError(
        `the series' assembler ignores .${shown(s.text)} on an ALU operation (its only suffixes are .tmu and .tend; its ALU writes are unconditional and set the flags whenever the add operation is not nop)`,
        s.col,
      );
  }
  const reads = new Reads();
  const dst = destination(c.next('a destination'));
  c.expect(',', 'after the destination');
  ins.addA = reads.mux(c.next('the first source'), true);
  c.expect(',', 'after the first source');
  ins.addB = reads.mux(c.next('the second source'), false);
  c.expect(';', `before the mul half: every line of the series' syntax has one (; nop)`);
  const mulOp = c.next('the mul operation (nop, fmul, mul24, v8muld, v8min, v8max, v8adds, v8subs)');
  const mul = MUL_OP_BY_NAME.get(mulOp.text);
  if (!mul) throw new SeriesError(`'${shown(mulOp.text)}' is not a mul operation: nop, fmul, mul24, v8muld, v8min, v8max, v8adds, v8subs`, mulOp.col);
  ins.ws = dst.file === 'b' ? 1 : 0;
  ins.waddrAdd = dst.n;
  ins.opAdd = add.code;
  ins.opMul = mul.code;
  const next = c.peek();
  if (mul.code === MUL_NOP && (!next || next.text === ';')) {
    // A bare nop: it writes nowhere and feeds its inputs from the add half's muxes.
    ins.waddrMul = NO_REG;
    [ins.mulA, ins.mulB] = [ins.addA, ins.addB];
  } else {
    if (next?.text === '.') throw new SeriesError("the series' assembler ignores suffixes on the mul operation: write them on the add operation", next.col);
    const mdst = destination(c.next('the mul destination'));
    if (mdst.file === dst.file)
      throw new SeriesError(
        `${mdst.text} is in the same register file as the add's destination ${dst.text}; the mul ALU writes the other file: ${mdst.file === 'a' ? 'rb' : 'ra'}${mdst.n}`,
        mdst.col,
      );
    ins.waddrMul = mdst.n;
    c.expect(',', 'after the mul destination');
    ins.mulA = reads.mux(c.next('the first mul source'), true);
    c.expect(',', 'after the first mul source');
    ins.mulB = reads.mux(c.next('the second mul source'), false);
  }
  c.end('the instruction');
  ins.condAdd = ins.condMul = COND_ALWAYS;
  ins.sf = add.code !== ADD_NOP ? 1 : 0;
  ins.raddrA = reads.a?.n ?? 0;
  ins.raddrB = reads.imm?.value ?? reads.b?.n ?? 0;
  if (reads.imm) {
    if (ins.sig !== SIG_NONE)
      throw new SeriesError(`a small immediate takes the signal field, so the series' assembler drops .${ins.sig === SIG_PROG_END ? 'tend' : 'tmu'}: move the signal to another instruction`, op.col);
    ins.sig = SIG_SMALL_IMM;
  }
  return ins;
}

function buildLdi(c: Cursor): LoadImmInstr {
  if (c.peek()?.text === '.') throw new SeriesError("the series' assembler ignores suffixes on ldi", c.peek()!.col);
  const first = destination(c.next('a destination'));
  c.expect(',', 'after the destination');
  let second: Reg | undefined;
  let t = c.next('a value');
  const r = register(t);
  if (r) {
    second = destination(t);
    if (second.file === first.file)
      throw new SeriesError(`ldi writes one register of each file: ${first.text} and ${first.file === 'a' ? 'rb' : 'ra'}${second.n} (the series' assembler ignores this register's file)`, t.col);
    c.expect(',', 'after the second destination');
    t = c.next('a value');
  }
  const imm = seriesNumber(t, true);
  c.end('the value');
  const other = second?.n ?? NO_REG;
  return {
    kind: 'ldi',
    mode: 0,
    pm: 0,
    pack: 0,
    condAdd: COND_ALWAYS,
    condMul: COND_ALWAYS,
    sf: 0,
    ws: 0,
    waddrAdd: first.file === 'a' ? first.n : other,
    waddrMul: first.file === 'b' ? first.n : other,
    imm,
  };
}

function buildBranch(c: Cursor, op: Token, ctx: Context): BranchInstr {
  let cond = BRANCH_ALWAYS;
  if (c.peek()?.text === '.') {
    c.next('');
    const s = c.next('a branch condition');
    const code = BRANCH_CONDITION_ALIASES.get(s.text);
    if (code === undefined) throw new SeriesError(`unknown branch condition .${shown(s.text)}: the series' are .zf .ze .zs .zc .nf .ne .ns .nc .cf .ce .cs .cc and .*`, s.col);
    cond = code;
  }
  const link = destination(c.next('a link register (ra39 for none)'));
  c.expect(',', 'after the link register');
  const target = c.next('a label or ZERO');
  let imm = 0;
  if (target.text !== 'ZERO') {
    const at = ctx.labels.get(target.text);
    if (at === undefined) throw new SeriesError(`unknown label '${shown(target.text)}'`, target.col);
    if (op.text === 'bra')
      throw new SeriesError(
        `the series' assembler gives bra the relative offset of a label, which an absolute branch would take as an address: use brr ${shown(target.text)}, or bra with ZERO and a register`,
        target.col,
      );
    imm = branchOffset(ctx.pc, at);
  }
  let reg = 0;
  let raddrA = 0;
  if (c.peek()?.text === ',') {
    c.next('');
    const t = c.next('a regfile-A register ra0-ra31');
    const r = register(t);
    if (!r || r.file !== 'a' || r.n >= REGFILE_LOCATIONS) throw new SeriesError('a branch adds a regfile-A register ra0-ra31 to its target, nothing else', t.col);
    reg = 1;
    raddrA = r.n;
  }
  c.end('the branch');
  return {
    kind: 'branch',
    unused: 0,
    cond,
    rel: op.text === 'brr' ? 1 : 0,
    reg,
    raddrA,
    ws: 0,
    waddrAdd: link.file === 'a' ? link.n : NO_REG,
    waddrMul: link.file === 'b' ? link.n : NO_REG,
    imm: imm | 0,
  };
}

function buildSema(c: Cursor): Instr {
  if (c.peek()?.text === '.') throw new SeriesError('sema takes no suffix', c.peek()!.col);
  const dir = c.next('up or down');
  const down = dir.text === 'down' || dir.text === 'acquire';
  if (!down && dir.text !== 'up' && dir.text !== 'release')
    throw new SeriesError(`sema takes up, down, acquire or release, not '${shown(dir.text)}' (the series' assembler takes any other word as up)`, dir.col);
  c.expect(',', 'after the direction');
  const t = c.next('the semaphore number');
  const n = seriesNumber(t, false);
  if (n >= SEMAPHORES) throw new SeriesError(`there are ${SEMAPHORES} semaphores, numbered 0 to ${SEMAPHORES - 1}`, t.col);
  c.end('the semaphore number');
  return semaInstr(down, n);
}

function buildStatement(ts: Token[], endCol: number, ctx: Context): Instr {
  const c = new Cursor(ts, endCol);
  const op = c.next('an instruction');
  if (op.text === 'ldi') return buildLdi(c);
  if (op.text === 'bra' || op.text === 'brr') return buildBranch(c, op, ctx);
  if (op.text === 'sema') return buildSema(c);
  if (ADD_OP_BY_NAME.has(op.text)) return buildAlu(c, op);
  if (MUL_OP_BY_NAME.has(op.text))
    throw new SeriesError(`the add half comes first in the series' syntax: nop ra39, ra39, ra39; ${op.text} ...`, op.col);
  throw new SeriesError(`'${shown(op.text)}' is not an instruction of the series' syntax (add and mul operations, ldi, bra, brr, sema; there is no mov: or d, s, 0)`, op.col);
}

// ---------------------------------------------------------------- programs

/** Assembles a program in the series' syntax. Throws AsmError with every error (up to maxErrors). */
export function assembleSeries(source: string, opts: AsmOptions = {}): AsmProgram {
  const file = opts.file ?? '<input>';
  const maxErrors = opts.maxErrors ?? MAX_ERRORS;
  const diagnostics: AsmDiagnostic[] = [];
  const fail = (line: number, col: number, message: string) => {
    if (diagnostics.length < maxErrors) diagnostics.push({ file, line, col, message });
  };
  const statements: { ts: Token[]; endCol: number; line: number }[] = [];
  const labels = new Map<string, number>();
  let line = 0;
  for (const text of sourceLines(source)) {
    line++;
    if (diagnostics.length >= maxErrors) break;
    if (statements.length > MAX_PROGRAM_INSTRUCTIONS) {
      fail(line, 1, `${programSizeProblem(statements.length)}: the rest of the file is not read`);
      break;
    }
    if (text.length > SERIES_MAX_LINE) {
      fail(line, SERIES_MAX_LINE + 1, `a line of ${text.length} characters: the series' assembler reads ${SERIES_MAX_LINE} at most and silently ignores the file from a longer line on`);
      continue;
    }
    const ts = tokens(text);
    if (ts.length === 0) continue;
    if (PUNCT.includes(ts[0]!.text)) {
      fail(line, ts[0]!.col, `a line cannot start with '${ts[0]!.text}' (the series' assembler skips such a line without a word)`);
      continue;
    }
    if (ts[1]?.text === ':') {
      const name = ts[0]!;
      if (labels.has(name.text)) fail(line, name.col, `label '${shown(name.text)}' is defined twice`);
      else if (name.text === 'ZERO' || /^r(a|b)?\d+$/.test(name.text)) fail(line, name.col, `'${shown(name.text)}' cannot be a label`);
      else labels.set(name.text, statements.length);
      if (ts.length > 2)
        fail(line, ts[2]!.col, "the series' assembler ignores the rest of a label's line: put the instruction on the next line");
      continue;
    }
    statements.push({ ts, endCol: text.length + 1, line });
  }
  if (statements.length === 0 && diagnostics.length === 0) fail(1, 1, 'no instructions: the program is empty');
  const instrs: Instr[] = [];
  statements.forEach(({ ts, endCol, line }, pc) => {
    try {
      instrs.push(buildStatement(ts, endCol, { labels, pc }));
    } catch (e) {
      if (e instanceof SeriesError) fail(line, e.col, e.message);
      else throw e;
    }
  });
  if (diagnostics.length) throw new AsmError(diagnostics.sort((x, y) => x.line - y.line || x.col - y.col));
  return { instrs, words: encodeProgram(instrs), labels, lines: statements.map((s) => s.line) };
}
