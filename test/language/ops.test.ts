// The operator table (src/source/ops.ts): each row's meaning and its lowering agree, lane by
// lane, for every row; the rows print, the generator uses the rows marked for it, and lookups
// find only the tables' own rows. A new row is checked here without a test of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BINARY,
  binaryImpl,
  type BinaryImpl,
  binaryRow,
  type CmpLowering,
  COMPARISONS,
  comparisonOrder,
  comparisonRow,
  type ComparisonRow,
  names,
  type OpEmitter,
  ORDER,
  UNARY,
  type UnaryRow,
  unaryRow,
} from '../../src/source/ops.ts';
import type { BinOp, CmpOp, Expr, UnOp } from '../../src/source/ast.ts';
import { Printer } from '../../src/source/print.ts';
import { generate, rng } from '../../src/source/generate.ts';
import { aluFunction, type AluCode, int, p, type Reg, regText, type Src, v, type WriteCond } from '../../src/compiler/ir.ts';
import { addCarry, negFlag, sfu, zeroFlag } from '../../src/vc4/arith.ts';
import { sfuChip } from '../../src/vc4/sfu-model.ts';
import { magicFor } from '../../src/source/ops-div.ts';
import { ADD_OP_BY_NAME, smallImmValue } from '../../src/vc4/tables.ts';

/** Patterns that find edge cases as ints and as floats, then random ones. */
const SPECIAL = [
  0, 1, -1, 2, 15, 16, 31, 32, -16, 0x7fffffff, -0x80000000, 0xffffff, 0x1000000, 0x80000000 | 0, 0x3f800000, 0xbf800000 | 0,
  0x00000001, 0x807fffff | 0, 0x00800000, 0x7f7fffff, 0x7f800000, 0xff800000 | 0, 0x7fc00000, 0xffc00000 | 0, 0x4b000000,
];
const random = rng(23);
const PATTERNS = [...SPECIAL, ...Array.from({ length: 40 }, () => random() | 0)];
const PAIRS = PATTERNS.flatMap((a) => PATTERNS.map((b) => [a, b] as const));
/** Operands in 24 bits and powers of two, which multiplies lower differently when told. */
const SMALL = [0, 1, 2, 3, 16, 255, 256, 0x7fffff, 0xffffff, 0x1000000, 2 ** 30, -(2 ** 31), ...Array.from({ length: 8 }, () => random() & 0xffffff)];
const SMALL_PAIRS = SMALL.flatMap((a) => [...SMALL, -1, -8, 0x12345678].map((b) => [a, b] as const));
const hex = (x: number) => '0x' + (x >>> 0).toString(16);

test('a binary row lowered to one ALU operation means what that operation computes', () => {
  for (const op of names(BINARY))
    for (const ty of ['int', 'float'] as const) {
      const impl: BinaryImpl | undefined = binaryImpl(op, ty);
      if (!impl || typeof impl.lower !== 'string') continue;
      const alu = aluFunction(impl.lower)!;
      for (const [a, b] of PAIRS) assert.equal(impl.fn(a, b), alu(a, b) | 0, `${ty} ${op}(${hex(a)}, ${hex(b)})`);
    }
});

test('a unary row lowered to one ALU operation means what that operation computes', () => {
  for (const op of names(UNARY)) {
    const row: UnaryRow = UNARY[op];
    if (typeof row.lower !== 'string') continue;
    const alu = aluFunction(row.lower)!;
    for (const a of PATTERNS) assert.equal(row.fn(a), alu(a, a) | 0, `${op}(${hex(a)})`);
  }
});

/**
 * One lane of a QPU running what a lowering function emits: registers by name, the flags Z, N and
 * C as the add ALU sets them (vc4/arith.ts).
 */
/** The SFU's registers in the order arith.sfu numbers its functions; a write puts the result in r4. */
const SFU_WRITES = ['sfu_recip', 'sfu_recipsqrt', 'sfu_exp2', 'sfu_log2'];

class OneLane implements OpEmitter {
  /** The SFU's result for function fn of x (arith.sfu: exact; a test may make it err as the chip's). */
  constructor(private readonly sfuFn: (fn: number, x: number) => number = sfu) {}
  private readonly regs = new Map<string, number>();
  private flags = { z: 0, n: 0, c: 0 };
  private next = 100;
  readonly p = p;
  readonly int = int;
  /** The intervals the lowering is told its operands lie in (compiler/ranges.ts), by register. */
  readonly known = new Map<string, { lo: number; hi: number }>();
  range(x: Src) {
    return x.k === 'imm' ? undefined : this.known.get(regText(x));
  }
  word(bits: number): Src {
    const r = this.fresh();
    this.set(r, bits);
    return r;
  }
  fresh() {
    return v(this.next++);
  }
  set(r: Reg, x: number) {
    this.regs.set(regText(r), x | 0);
  }
  get(s: Src): number {
    if (s.k === 'imm') return smallImmValue(s.code) | 0;
    const x = this.regs.get(regText(s));
    if (x === undefined) throw new Error(`${regText(s)} read before it is written`);
    return x;
  }
  holds(c: WriteCond): boolean {
    const f = { z: this.flags.z, n: this.flags.n, c: this.flags.c }[c[0] as 'z' | 'n' | 'c'];
    return c[1] === 's' ? f === 1 : c[1] === 'c' ? f === 0 : false;
  }
  alu(code: AluCode, dst: Reg, a: Src, b: Src = a, extra: { cond?: WriteCond; setf?: boolean } = {}) {
    if (extra.cond && extra.setf) throw new Error('a conditional flag setting: not modelled');
    if (extra.cond && !this.holds(extra.cond)) return;
    const [x, y] = [this.get(a), this.get(b)];
    const r = aluFunction(code)!(x, y) | 0;
    if (extra.setf) {
      const add = ADD_OP_BY_NAME.get(code);
      if (!add) throw new Error(`flags from ${code}: only the add ALU's are modelled`);
      this.flags = { z: zeroFlag(r), n: negFlag(r), c: addCarry(add.code, x, y, r) };
    }
    if (dst.k === 'p' && dst.name.startsWith('sfu_')) this.set(p('r4'), this.sfuFn(SFU_WRITES.indexOf(dst.name), r));
    else if (!(dst.k === 'p' && dst.name === 'nop')) this.set(dst, r);
  }
  mov(dst: Reg, src: Src, cond?: WriteCond) {
    this.alu('mov', dst, src, src, cond ? { cond } : {});
  }
}

/** Whether comparison lowering `how` holds for a and b, run on one lane. */
function lowered(how: CmpLowering, a: number, b: number): boolean {
  const l = new OneLane();
  const [x, y] = [v(0), v(1)];
  l.set(x, a);
  l.set(y, b);
  if ('mask' in how) {
    const m = l.fresh();
    how.mask(l, m, x, y);
    return l.get(m) === 1;
  }
  l.alu(how.setf, p('nop'), how.swap ? y : x, how.swap ? x : y, { setf: true });
  return l.holds(how.holds);
}

test('a comparison\'s lowering holds exactly where its meaning does, on ints and floats', () => {
  for (const op of names(COMPARISONS))
    for (const ty of ['int', 'float'] as const) {
      const row: ComparisonRow = COMPARISONS[op];
      const how = row[ty];
      if (!how) continue; // a comparison ints have and floats do not (ult, ...)
      for (const [a, b] of PAIRS) assert.equal(lowered(how, a, b), row.holds(ORDER[comparisonOrder(row, ty)](a, b)), `${ty} ${hex(a)} ${op} ${hex(b)}`);
    }
});

test('a row lowered to several instructions means what its row says, run on one lane', () => {
  // Each operand told nothing of its range, or its own value as its range (a constant), or,
  // where it fits in 24 bits unsigned, that it does.
  const told = (a: number) => [undefined, { lo: a, hi: a }, ...(a >= 0 && a < 2 ** 24 ? [{ lo: 0, hi: 2 ** 24 - 1 }] : [])];
  const run = (lower: Exclude<BinaryImpl['lower'], string>, a: number, b: number, ra?: { lo: number; hi: number }, rb?: { lo: number; hi: number }, f = sfu) => {
    const l = new OneLane(f);
    const [x, y, d] = [v(0), v(1), v(2)];
    l.set(x, a);
    l.set(y, b);
    if (ra) l.known.set(regText(x), ra);
    if (rb) l.known.set(regText(y), rb);
    l.set(d, 0x5eed);
    lower(l, d, x, y, undefined);
    return l.get(d);
  };
  for (const op of names(UNARY)) {
    const row: UnaryRow = UNARY[op];
    // With the exact SFU and with the chip model: the meaning takes the same SFU as the lane.
    if (typeof row.lower !== 'string')
      for (const f of [sfu, sfuChip]) for (const a of PATTERNS) assert.equal(run(row.lower, a, a, undefined, undefined, f), row.fn(a, f) | 0, `${op}(${hex(a)})`);
  }
  for (const op of names(BINARY))
    for (const ty of ['int', 'float'] as const) {
      const impl: BinaryImpl | undefined = binaryImpl(op, ty);
      if (impl && typeof impl.lower !== 'string')
        for (const [a, b] of [...PAIRS, ...SMALL_PAIRS])
          for (const ra of told(a))
            for (const rb of told(b)) assert.equal(run(impl.lower, a, b, ra, rb), impl.fn(a, b) | 0, `${ty} ${op}(${hex(a)}, ${hex(b)}) told ${JSON.stringify([ra, rb])}`);
      if (impl && typeof impl.lower !== 'string' && ty === 'float')
        for (const [a, b] of PAIRS) assert.equal(run(impl.lower, a, b, undefined, undefined, sfuChip), impl.fn(a, b, sfuChip) | 0, `${ty} ${op}(${hex(a)}, ${hex(b)}), the chip's SFU`);
    }
});

test('operators print as their rows say: infix, prefix, or as a call', () => {
  const pr = new Printer((id) => `v${id}`);
  const a: Expr = { k: 'var', id: 0, ty: 'int' };
  const b: Expr = { k: 'var', id: 1, ty: 'int' };
  const bin = (op: BinOp) => pr.expr({ k: 'bin', op, ty: 'int', a, b });
  const un = (op: UnOp) => pr.expr({ k: 'un', op, ty: 'int', a });
  const cmp = (op: CmpOp) => pr.bool({ k: 'cmp', op, ty: 'int', a, b });
  assert.deepEqual([bin('add'), bin('ushr'), bin('min'), un('not'), un('toInt'), cmp('le')], ['(v0 + v1)', '(v0 >>> v1)', 'min(v0, v1)', '~v0', 'toInt(v0)', 'v0 <= v1']);
  for (const op of names(BINARY)) {
    const infix = binaryRow(op)!.infix;
    assert.equal(bin(op), infix ? `(v0 ${infix} v1)` : `${op}(v0, v1)`);
  }
  for (const op of names(UNARY)) {
    const prefix = unaryRow(op)!.prefix;
    assert.equal(un(op), prefix ? `${prefix}v0` : `${op}(v0)`);
  }
  for (const op of names(COMPARISONS)) {
    const infix = comparisonRow(op)!.infix;
    assert.equal(cmp(op), infix ? `v0 ${infix} v1` : `${op}(v0, v1)`);
  }
});

test('the generator uses every row marked for it, with the types the row has', () => {
  const seen = new Set<string>();
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) return x.forEach(walk);
    if (!x || typeof x !== 'object') return;
    const o = x as { k?: string; op?: string; ty?: string };
    if (o.k === 'bin' || o.k === 'un' || o.k === 'cmp') seen.add(`${o.k} ${o.op} ${o.k === 'un' ? '' : o.ty}`);
    Object.values(o).forEach(walk);
  };
  for (let seed = 0; seed < 200; seed++) walk(generate(seed).ast.body);
  const want = new Set<string>();
  for (const op of names(BINARY))
    for (const ty of ['int', 'float'] as const) if (BINARY[op].generate && binaryImpl(op, ty)) want.add(`bin ${op} ${ty}`);
  for (const op of names(UNARY)) if (UNARY[op].generate) want.add(`un ${op} `);
  for (const op of names(COMPARISONS))
    for (const ty of ['int', 'float'] as const) if (COMPARISONS[op].generate && comparisonRow(op)![ty]) want.add(`cmp ${op} ${ty}`);
  assert.deepEqual([...seen].sort(), [...want].sort());
});

test('lookups find only the tables\' own rows, and a type an operator lacks finds nothing', () => {
  assert.equal(binaryImpl('shl', 'float'), undefined);
  assert.equal(binaryImpl('shl', 'int*')?.lower, 'shl'); // a pointer computes as an int
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    assert.equal(binaryImpl(name as BinOp, 'int'), undefined, name);
    assert.equal(unaryRow(name as UnOp), undefined, name);
    assert.equal(comparisonRow(name as CmpOp), undefined, name);
  }
});

test('integer division and remainder are exact for every int32, signed and unsigned, with the SFU 2^-11 off either way', () => {
  // Operands of every length (random bit counts), their edges, and divisors near each power of two.
  const r = rng(2401);
  const sized = () => {
    const bits = 1 + Math.floor(r() * 32);
    const x = Math.floor((r() >>> 0) / 2 ** (32 - bits));
    return (r() & 1 ? -x : x) | 0;
  };
  const edges = [0, 1, -1, 2, -2, 3, 7, 0x7fffffff, -0x80000000, 0x7ffffffe, -0x7fffffff, 0xffff, 0x10000, 0xffffff, 0x1000000, 46341];
  const pairs: [number, number][] = [];
  for (const a of edges) for (const b of edges) pairs.push([a, b]);
  for (let i = 0; i < 30000; i++) pairs.push([sized(), sized()]);
  for (let k = 0; k < 32; k++) for (const dk of [-1, 0, 1]) for (let i = 0; i < 20; i++) pairs.push([sized(), (2 ** k + dk) | 0]);
  const err = (scale: number) => (fn: number, x: number) => {
    const exact = sfu(fn, x);
    return fn === 0 ? (Math.fround(new Float32Array(new Int32Array([exact]).buffer)[0]! * scale) === Infinity ? exact : new Int32Array(new Float32Array([new Float32Array(new Int32Array([exact]).buffer)[0]! * scale]).buffer)[0]!) : exact;
  };
  for (const sfuFn of [sfu, err(1 + 2 ** -11), err(1 - 2 ** -11)])
    for (const op of ['div', 'rem', 'udiv', 'urem'] as const) {
      const impl = binaryImpl(op, 'int')!;
      const lower = impl.lower as Exclude<BinaryImpl['lower'], string>;
      for (const [a, b] of pairs)
        // The divisor unknown, and (with the exact SFU) known to be the constant it is: its reciprocal is then computed in advance.
        for (const told of sfuFn === sfu ? [false, true] : [false]) {
          const l = new OneLane(sfuFn);
          const [x, y, d] = [v(0), v(1), v(2)];
          l.set(x, a);
          l.set(y, b);
          if (told) l.known.set(regText(y), { lo: b, hi: b });
          lower(l, d, x, y, undefined);
          if (l.get(d) !== impl.fn(a, b)) assert.fail(`${op}(${a}, ${b})${told ? ' by a constant' : ''}: ${l.get(d)}, not ${impl.fn(a, b)}`);
        }
    }
});

test('division by a constant through the high word of a product (magicFor) is exact where an error would show: every divisor to 2000 and 300 more, either sign, signed and unsigned', () => {
  const r = rng(2402);
  const divisors = [...Array.from({ length: 1998 }, (_, i) => i + 3), 2 ** 24 - 1, 2 ** 24 + 1, 2 ** 30 + 3, 2 ** 31 - 1, 2 ** 31 + 1, 2 ** 32 - 1, 3000000019];
  for (let i = 0; i < 300; i++) divisors.push(3 + ((r() >>> 0) % (2 ** 32 - 3)));
  for (const op of ['div', 'rem', 'udiv', 'urem'] as const) {
    const impl = binaryImpl(op, 'int')!;
    const lower = impl.lower as Exclude<BinaryImpl['lower'], string>;
    const unsigned = op.startsWith('u');
    for (const d of divisors)
      for (const c of unsigned ? [d | 0] : [d, -d].filter((x) => Math.abs(x) < 2 ** 31)) {
        // Below and at the multiples of d nearest the top of the dividends' range, and the range's ends.
        const top = unsigned ? 2 ** 32 - 1 : 2 ** 31;
        const last = Math.floor(top / d) * d;
        const as = [0, 1, d - 1, d, d + 1, top - 1, top, last - 1, last, last - d - 1, r() >>> 0];
        for (const a0 of as)
          for (const a of unsigned ? [a0 | 0] : [a0 | 0, -a0 | 0]) {
            const l = new OneLane();
            const [x, y, q] = [v(0), v(1), v(2)];
            l.set(x, a);
            l.set(y, c);
            l.known.set(regText(y), { lo: c, hi: c });
            lower(l, q, x, y, undefined);
            if (l.get(q) !== impl.fn(a, c)) assert.fail(`${op}(${a}, ${c}) by a constant: ${l.get(q)}, not ${impl.fn(a, c)}`);
          }
      }
  }
  // Some divisors need a magic number of 33 bits (the quotient's fix-up path).
  assert.ok(magicFor(7, 2 ** 32 - 1).m >= 2 ** 32);
});

test('a lowering given a condition writes its destination only where the condition holds (rows that set no flags)', () => {
  const untouched = (lower: Exclude<BinaryImpl['lower'], string>, a: number, b: number) => {
    const l = new OneLane();
    const [x, y, d] = [v(0), v(1), v(2)];
    l.set(x, a);
    l.set(y, b);
    l.set(d, 0x5eed);
    l.alu('or', p('nop'), int(1), int(1), { setf: true }); // Z clear: 'zs' holds nowhere
    lower(l, d, x, y, 'zs');
    return l.get(d);
  };
  for (const op of names(UNARY)) {
    const row: UnaryRow = UNARY[op];
    if (typeof row.lower !== 'string' && !row.setsFlags) for (const a of PATTERNS.slice(0, 8)) assert.equal(untouched(row.lower, a, a), 0x5eed, `${op}(${hex(a)}) under a condition that fails`);
  }
  for (const op of names(BINARY))
    for (const ty of ['int', 'float'] as const) {
      const impl: BinaryImpl | undefined = binaryImpl(op, ty);
      if (impl && typeof impl.lower !== 'string' && !impl.setsFlags)
        for (const [a, b] of PAIRS.slice(0, 8)) assert.equal(untouched(impl.lower, a, b), 0x5eed, `${ty} ${op} under a condition that fails`);
    }
});
