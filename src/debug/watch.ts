// Watch expressions and breakpoint conditions: a small expression language over a stopped
// kernel's variables, evaluated lane by lane as the kernel's own operations are. Ints wrap at 32
// bits, divide toward zero and give 0 for a division or remainder by 0 (the language's `div` and
// `rem`, source/ops-div.ts), `>>` is arithmetic and `>>>` logical; Floats round to 32 bits
// after each operation; comparisons give 0 or 1. `x[3]` is lane 3 of x; `index` is each lane's number and
// `qpu` the QPU's. Precedence as in TypeScript: || && (comparisons) | ^ & (shifts) (+ -) (* / %).
// A condition holds when it is true in some lane the enclosing Wheres keep.

import { LANES } from '../vc4/chip.ts';

/** Int, Float, or a pointer (an Int that prints in hex). */
export type WatchType = 'int' | 'float' | 'ptr';

/** A value: 16 lanes, or one (a lane picked by `x[i]`). */
export interface WatchValue {
  readonly ty: WatchType;
  readonly lanes: readonly number[];
}

/** What names mean where the kernel stopped: a variable's lanes, or undefined for no such variable. */
export type Scope = (name: string) => WatchValue | { readonly unavailable: string } | undefined;

export class WatchError extends Error {}

type Node =
  | { k: 'num'; v: number; ty: WatchType }
  | { k: 'name'; name: string; at: number }
  | { k: 'lane'; of: Node; lane: number }
  | { k: 'un'; op: string; a: Node }
  | { k: 'bin'; op: string; a: Node; b: Node };

const LEVELS: readonly (readonly string[])[] = [['||'], ['&&'], ['==', '!=', '<', '<=', '>', '>='], ['|'], ['^'], ['&'], ['<<', '>>', '>>>'], ['+', '-'], ['*', '/', '%']];
const INT_ONLY = new Set(['|', '^', '&', '<<', '>>', '>>>', '%']);
const TOKEN = /\s*(?:(\d+\.\d*(?:e[+-]?\d+)?|\d*\.\d+(?:e[+-]?\d+)?|\d+e[+-]?\d+)|(0x[0-9a-f]+|\d+)|([A-Za-z_$][\w$@#:.]*)|(\|\||&&|==|!=|<=|>=|<<|>>>|>>|[-+*/%<>|^&!()[\]]))/iy;

/** Parses an expression; a WatchError says what is wrong and where. */
export function parseWatch(text: string): Node {
  const tokens: { t: string; kind: 'float' | 'int' | 'name' | 'op'; at: number }[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < text.length && text.slice(at).trim()) {
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(text);
    if (!m) throw new WatchError(`cannot read ${JSON.stringify(text.slice(at).trim().slice(0, 20))} (column ${at + 1})`);
    const kind = m[1] ? 'float' : m[2] ? 'int' : m[3] ? 'name' : 'op';
    tokens.push({ t: m[1] ?? m[2] ?? m[3] ?? m[4]!, kind, at: at + m[0].length - (m[1] ?? m[2] ?? m[3] ?? m[4]!).length });
    at = TOKEN.lastIndex;
  }
  let i = 0;
  const peek = () => tokens[i];
  const expect = (t: string) => {
    if (peek()?.t !== t) throw new WatchError(`expected ${t} ${peek() ? `before ${JSON.stringify(peek()!.t)} (column ${peek()!.at + 1})` : 'at the end'}`);
    i++;
  };
  const level = (n: number): Node => {
    if (n === LEVELS.length) return unary();
    let a = level(n + 1);
    while (peek()?.kind === 'op' && LEVELS[n]!.includes(peek()!.t)) {
      const op = tokens[i++]!.t;
      a = { k: 'bin', op, a, b: level(n + 1) };
    }
    return a;
  };
  const unary = (): Node => {
    if (peek()?.t === '-' || peek()?.t === '!') return { k: 'un', op: tokens[i++]!.t, a: unary() };
    let x = primary();
    while (peek()?.t === '[') {
      i++;
      const lane = peek();
      if (lane?.kind !== 'int' || Number(lane.t) >= LANES) throw new WatchError(`a lane is 0 to ${LANES - 1}${lane ? `, not ${lane.t}` : ''}`);
      i++;
      expect(']');
      x = { k: 'lane', of: x, lane: Number(lane.t) };
    }
    return x;
  };
  const primary = (): Node => {
    const t = tokens[i++];
    if (!t) throw new WatchError('the expression ends too soon');
    if (t.kind === 'float') return { k: 'num', v: Math.fround(Number(t.t)), ty: 'float' };
    // An Int literal wraps at 32 bits in Int operations; in a Float one it is the number written.
    if (t.kind === 'int') return { k: 'num', v: Number(t.t), ty: 'int' };
    if (t.kind === 'name') return { k: 'name', name: t.t, at: t.at };
    if (t.t === '(') {
      const e = level(0);
      expect(')');
      return e;
    }
    throw new WatchError(`unexpected ${JSON.stringify(t.t)} (column ${t.at + 1})`);
  };
  if (!tokens.length) throw new WatchError('the expression is empty');
  const e = level(0);
  if (i < tokens.length) throw new WatchError(`unexpected ${JSON.stringify(tokens[i]!.t)} (column ${tokens[i]!.at + 1})`);
  return e;
}

/** The names an expression reads. */
export function namesOf(e: Node): string[] {
  switch (e.k) {
    case 'num':
      return [];
    case 'name':
      return [e.name];
    case 'lane':
      return namesOf(e.of);
    case 'un':
      return namesOf(e.a);
    case 'bin':
      return [...namesOf(e.a), ...namesOf(e.b)];
  }
}

/** Evaluates a parsed expression in a scope. */
export function evaluate(e: Node, scope: Scope): WatchValue {
  switch (e.k) {
    case 'num':
      return { ty: e.ty, lanes: [e.v] };
    case 'name': {
      const v = scope(e.name);
      if (!v) throw new WatchError(`no variable ${e.name} here`);
      if ('unavailable' in v) throw new WatchError(`${e.name}: ${v.unavailable}`);
      return v;
    }
    case 'lane': {
      const v = evaluate(e.of, scope);
      return { ty: v.ty, lanes: [v.lanes.length === 1 ? v.lanes[0]! : v.lanes[e.lane]!] };
    }
    case 'un': {
      const a = evaluate(e.a, scope);
      if (e.op === '!') return { ty: 'int', lanes: a.lanes.map((x) => (x ? 0 : 1)) };
      return a.ty === 'float' ? { ty: 'float', lanes: a.lanes.map((x) => -x) } : { ty: 'int', lanes: a.lanes.map((x) => -x | 0) };
    }
    case 'bin':
      return binary(e.op, evaluate(e.a, scope), evaluate(e.b, scope));
  }
}

function binary(op: string, a: WatchValue, b: WatchValue): WatchValue {
  const n = Math.max(a.lanes.length, b.lanes.length);
  const at = (v: WatchValue, l: number) => (v.lanes.length === 1 ? v.lanes[0]! : v.lanes[l]!);
  const float = a.ty === 'float' || b.ty === 'float';
  if (float && INT_ONLY.has(op)) throw new WatchError(`${op} is for Ints`);
  const out: number[] = [];
  for (let l = 0; l < n; l++) {
    const x = at(a, l);
    const y = at(b, l);
    out.push(float ? floatOp(op, x, y) : intOp(op, x, y));
  }
  const logical = ['||', '&&', '==', '!=', '<', '<=', '>', '>='].includes(op);
  return { ty: float && !logical ? 'float' : 'int', lanes: out };
}

function intOp(op: string, x0: number, y0: number): number {
  const x = x0 | 0;
  const y = y0 | 0;
  switch (op) {
    case '+': return (x + y) | 0;
    case '-': return (x - y) | 0;
    case '*': return Math.imul(x, y);
    case '/': return y === 0 ? 0 : (x / y) | 0;
    case '%': return y === 0 ? 0 : x % y | 0;
    case '&': return x & y;
    case '|': return x | y;
    case '^': return x ^ y;
    case '<<': return x << (y & 31);
    case '>>': return x >> (y & 31);
    case '>>>': return (x >>> (y & 31)) | 0;
    default: return compare(op, x, y);
  }
}

function floatOp(op: string, x0: number, y0: number): number {
  const x = Math.fround(x0);
  const y = Math.fround(y0);
  switch (op) {
    case '+': return Math.fround(x + y);
    case '-': return Math.fround(x - y);
    case '*': return Math.fround(x * y);
    case '/': return Math.fround(x / y);
    default: return compare(op, x, y);
  }
}

function compare(op: string, x: number, y: number): number {
  switch (op) {
    case '==': return x === y ? 1 : 0;
    case '!=': return x !== y ? 1 : 0;
    case '<': return x < y ? 1 : 0;
    case '<=': return x <= y ? 1 : 0;
    case '>': return x > y ? 1 : 0;
    case '>=': return x >= y ? 1 : 0;
    case '&&': return x && y ? 1 : 0;
    case '||': return x || y ? 1 : 0;
    default: throw new WatchError(`unknown operator ${op}`);
  }
}

/** Whether a condition holds: true in some lane of `mask` (or its one value, for `x[i]`). */
export function holds(v: WatchValue, mask?: Uint8Array): boolean {
  if (v.lanes.length === 1) return v.lanes[0] !== 0;
  return v.lanes.some((x, l) => x !== 0 && (!mask || mask[l]));
}

export type { Node as WatchExpr };
