// A small WebAssembly encoder: just what the emulator's translation emits (functions over one
// imported memory, i32 and v128 values, the SIMD operations of the fixed-width SIMD proposal,
// calls to imported JavaScript). Each function keeps a readable listing beside its bytes, one
// line an operation, for `--dump-wasm`. Reference: the WebAssembly core specification 2.0
// (binary format, section 5) and its SIMD instruction opcodes (section 5.4.8).
// Needs: operations in stack order, as the specification defines them. Guarantees: bytes a
// conforming engine accepts when the operations are well typed (V8 validates them when the
// module is made; the tests run every sequence the translation emits).

export type ValType = 'i32' | 'i64' | 'f32' | 'f64' | 'v128';
const VALTYPE: Record<ValType, number> = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, v128: 0x7b };

/** SIMD operations (prefix 0xFD) without immediates, by their specification names. */
export const SIMD = {
  'i8x16.swizzle': 0x0e,
  'i32x4.splat': 0x11,
  'f32x4.splat': 0x13,
  'i32x4.eq': 0x37,
  'i32x4.ne': 0x38,
  'i32x4.lt_s': 0x39,
  'i32x4.lt_u': 0x3a,
  'i32x4.gt_s': 0x3b,
  'i32x4.gt_u': 0x3c,
  'i32x4.le_s': 0x3d,
  'i32x4.ge_s': 0x3f,
  'f32x4.eq': 0x41,
  'f32x4.ne': 0x42,
  'f32x4.lt': 0x43,
  'f32x4.gt': 0x44,
  'f32x4.le': 0x45,
  'f32x4.ge': 0x46,
  'f64x2.eq': 0x47,
  'f64x2.ne': 0x48,
  'f64x2.lt': 0x49,
  'f64x2.gt': 0x4a,
  'f64x2.le': 0x4b,
  'f64x2.ge': 0x4c,
  'v128.not': 0x4d,
  'v128.and': 0x4e,
  'v128.andnot': 0x4f,
  'v128.or': 0x50,
  'v128.xor': 0x51,
  'v128.bitselect': 0x52,
  'v128.any_true': 0x53,
  'f32x4.demote_f64x2_zero': 0x5e,
  'f64x2.promote_low_f32x4': 0x5f,
  'i8x16.add_sat_u': 0x70,
  'i8x16.sub_sat_u': 0x73,
  'i8x16.min_u': 0x77,
  'i8x16.max_u': 0x79,
  'i32x4.abs': 0xa0,
  'i32x4.neg': 0xa1,
  'i32x4.all_true': 0xa3,
  'i32x4.bitmask': 0xa4,
  'i32x4.shl': 0xab,
  'i32x4.shr_s': 0xac,
  'i32x4.shr_u': 0xad,
  'i32x4.add': 0xae,
  'i32x4.sub': 0xb1,
  'i32x4.mul': 0xb5,
  'i32x4.min_s': 0xb6,
  'i32x4.min_u': 0xb7,
  'i32x4.max_s': 0xb8,
  'i32x4.max_u': 0xb9,
  'f32x4.abs': 0xe0,
  'f32x4.neg': 0xe1,
  'f32x4.add': 0xe4,
  'f32x4.sub': 0xe5,
  'f32x4.mul': 0xe6,
  'f64x2.abs': 0xec,
  'f64x2.neg': 0xed,
  'f64x2.add': 0xf0,
  'f64x2.sub': 0xf1,
  'f64x2.mul': 0xf2,
  'i32x4.trunc_sat_f32x4_s': 0xf8,
  'f32x4.convert_i32x4_s': 0xfa,
  'f64x2.convert_low_i32x4_s': 0xfe,
} as const;
export type SimdOp = keyof typeof SIMD;

/** Plain (unprefixed) operations without immediates. */
const PLAIN = {
  drop: 0x1a,
  select: 0x1b,
  'i32.eqz': 0x45,
  'i32.eq': 0x46,
  'i32.ne': 0x47,
  'i32.and': 0x71,
  'i32.or': 0x72,
  'i32.add': 0x6a,
  'i32.sub': 0x6b,
  return: 0x0f,
} as const;
export type PlainOp = keyof typeof PLAIN;

function uleb(out: number[], n: number): void {
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
}

function sleb(out: number[], n: number): void {
  n |= 0;
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return;
    }
    out.push(b | 0x80);
  }
}

/** Appends `more` to `out` (a loop: spreading a long array as arguments overflows the stack). */
function append(out: number[], more: readonly number[]): void {
  for (let i = 0; i < more.length; i++) out.push(more[i]!);
}

function name(out: number[], s: string): void {
  const bytes = new TextEncoder().encode(s);
  uleb(out, bytes.length);
  out.push(...bytes);
}

/**
 * Whether translations keep listings: SIMD functions the text of what they emit, blocks' JavaScript
 * each instruction's assembly (for `qpu emu --dump-wasm` and `--dump-js`; it costs translation time).
 */
export const listings = { on: false };

/** One function's body under construction: its locals, its code, and its listing. */
export class FunctionBuilder {
  readonly code: number[] = [];
  readonly listing: string[] = [];
  private readonly locals: ValType[] = [];
  private readonly localNames: string[] = [];
  private readonly nameCount = new Map<string, number>();
  private depth = 0;

  constructor(
    readonly name: string,
    readonly params: readonly { name: string; type: ValType }[],
    readonly results: readonly ValType[] = [],
  ) {
    for (const p of params) this.localNames.push(p.name);
  }

  /** A new local of `type`, named for the listing; returns its index. */
  local(type: ValType, name: string): number {
    this.locals.push(type);
    // Names are unique, as the text format wants: a second `fa` is `fa_1`.
    const n = (this.nameCount.get(name) ?? 0) + 1;
    this.nameCount.set(name, n);
    this.localNames.push(n === 1 ? name : `${name}_${n - 1}`);
    return this.params.length + this.locals.length - 1;
  }

  private line(text: string): void {
    if (listings.on) this.listing.push('  '.repeat(this.depth + 1) + text);
  }

  /** A comment in the listing (no bytes). */
  note(text: string): this {
    this.line(`;; ${text}`);
    return this;
  }

  get(i: number): this {
    this.code.push(0x20);
    uleb(this.code, i);
    this.line(`local.get $${this.localNames[i]}`);
    return this;
  }
  set(i: number): this {
    this.code.push(0x21);
    uleb(this.code, i);
    this.line(`local.set $${this.localNames[i]}`);
    return this;
  }
  tee(i: number): this {
    this.code.push(0x22);
    uleb(this.code, i);
    this.line(`local.tee $${this.localNames[i]}`);
    return this;
  }
  i32(n: number): this {
    this.code.push(0x41);
    sleb(this.code, n);
    this.line(`i32.const ${n | 0}`);
    return this;
  }
  op(o: PlainOp): this {
    this.code.push(PLAIN[o]);
    this.line(o);
    return this;
  }
  simd(o: SimdOp): this {
    this.code.push(0xfd);
    uleb(this.code, SIMD[o]);
    this.line(o);
    return this;
  }
  /** v128.const of four i32 lanes. */
  v128i32(lanes: readonly number[]): this {
    this.code.push(0xfd);
    uleb(this.code, 0x0c);
    const b = new Uint8Array(new Int32Array(lanes.map((x) => x | 0)).buffer);
    this.code.push(...b);
    this.line(`v128.const i32x4 ${lanes.map((x) => `0x${(x >>> 0).toString(16)}`).join(' ')}`);
    return this;
  }
  /** i8x16.shuffle: lane k of the result is byte `lanes[k]` of the two operands (0-15 the first, 16-31 the second). */
  shuffle(lanes: readonly number[]): this {
    this.code.push(0xfd);
    uleb(this.code, 0x0d);
    this.code.push(...lanes);
    this.line(`i8x16.shuffle ${lanes.join(' ')}`);
    return this;
  }
  /** v128.load of the 16 bytes at the address on the stack plus `offset`. */
  load(offset: number, what = ''): this {
    return this.memory(0x00, 4, 'v128.load', offset, what);
  }
  /** v128.load32_splat: the 32-bit word at the address on the stack plus `offset`, in all four lanes. */
  load32Splat(offset: number, what = ''): this {
    return this.memory(0x09, 2, 'v128.load32_splat', offset, what);
  }
  /** A SIMD memory instruction: its opcode, alignment hint (a power of 2) and offset. */
  private memory(op: number, align: number, name: string, offset: number, what: string): this {
    this.code.push(0xfd);
    uleb(this.code, op);
    uleb(this.code, align);
    uleb(this.code, offset);
    this.line(`${name} offset=${offset}${what ? ` ;; ${what}` : ''}`);
    return this;
  }
  store(offset: number, what = ''): this {
    this.code.push(0xfd);
    uleb(this.code, 0x0b);
    uleb(this.code, 4);
    uleb(this.code, offset);
    this.line(`v128.store offset=${offset}${what ? ` ;; ${what}` : ''}`);
    return this;
  }
  call(index: number, callee: string): this {
    this.code.push(0x10);
    uleb(this.code, index);
    this.line(`call $${callee}`);
    return this;
  }
  /** `if` (no result) ... `end`, around what `body` emits. */
  if(body: () => void): this {
    this.code.push(0x04, 0x40);
    this.line('if');
    this.depth++;
    body();
    this.depth--;
    this.code.push(0x0b);
    this.line('end');
    return this;
  }

  /** The body as the code section holds it: locals, then the code and `end`. */
  body(): number[] {
    const out: number[] = [];
    const groups: [number, ValType][] = [];
    for (const t of this.locals) {
      const g = groups[groups.length - 1];
      if (g && g[1] === t) g[0]++;
      else groups.push([1, t]);
    }
    uleb(out, groups.length);
    for (const [n, t] of groups) {
      uleb(out, n);
      out.push(VALTYPE[t]);
    }
    append(out, this.code);
    out.push(0x0b);
    return out;
  }

  /** The function as text, one operation a line. */
  text(): string {
    const params = this.params.map((p) => `(param $${p.name} ${p.type})`).join(' ');
    const results = this.results.length ? ` (result ${this.results.join(' ')})` : '';
    const locals = this.locals.map((t, i) => `(local $${this.localNames[this.params.length + i]} ${t})`);
    const rows: string[] = [];
    for (let i = 0; i < locals.length; i += 6) rows.push(`  ${locals.slice(i, i + 6).join(' ')}`);
    return [`(func $${this.name} ${params}${results}`, ...rows, ...this.listing, ')'].join('\n');
  }
}

/** A JavaScript function the module imports, with its signature. */
export interface ImportedFunction {
  readonly name: string;
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
}

/**
 * A module: `imports` (from module "js") are functions 0..n-1, then `funcs`, each exported by its
 * name; memory "js"."memory" is imported, with at least `minPages` pages.
 */
export function encodeModule(imports: readonly ImportedFunction[], funcs: readonly FunctionBuilder[], minPages = 1): Uint8Array<ArrayBuffer> {
  const types: string[] = [];
  const typeOf = (params: readonly ValType[], results: readonly ValType[]) => {
    const key = `${params.join(',')}>${results.join(',')}`;
    let i = types.indexOf(key);
    if (i < 0) i = types.push(key) - 1;
    return i;
  };
  const importTypes = imports.map((f) => typeOf(f.params, f.results));
  const funcTypes = funcs.map((f) => typeOf(f.params.map((p) => p.type), f.results));
  const section = (out: number[], id: number, content: number[]) => {
    out.push(id);
    uleb(out, content.length);
    append(out, content);
  };
  const out: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const typeSec: number[] = [];
  uleb(typeSec, types.length);
  for (const key of types) {
    const [ps, rs] = key.split('>').map((s) => (s ? (s.split(',') as ValType[]) : []));
    typeSec.push(0x60);
    uleb(typeSec, ps!.length);
    for (const p of ps!) typeSec.push(VALTYPE[p]);
    uleb(typeSec, rs!.length);
    for (const r of rs!) typeSec.push(VALTYPE[r]);
  }
  section(out, 1, typeSec);
  const importSec: number[] = [];
  uleb(importSec, imports.length + 1);
  name(importSec, 'js');
  name(importSec, 'memory');
  importSec.push(0x02, 0x00);
  uleb(importSec, minPages);
  imports.forEach((f, i) => {
    name(importSec, 'js');
    name(importSec, f.name);
    importSec.push(0x00);
    uleb(importSec, importTypes[i]!);
  });
  section(out, 2, importSec);
  const funcSec: number[] = [];
  uleb(funcSec, funcs.length);
  for (const t of funcTypes) uleb(funcSec, t);
  section(out, 3, funcSec);
  const exportSec: number[] = [];
  uleb(exportSec, funcs.length);
  funcs.forEach((f, i) => {
    name(exportSec, f.name);
    exportSec.push(0x00);
    uleb(exportSec, imports.length + i);
  });
  section(out, 7, exportSec);
  const codeSec: number[] = [];
  uleb(codeSec, funcs.length);
  for (const f of funcs) {
    const body = f.body();
    uleb(codeSec, body.length);
    append(codeSec, body);
  }
  section(out, 10, codeSec);
  return new Uint8Array(out);
}
