// Value tables of the VideoCore IV instruction set: opcodes, conditions, signals, small
// immediates, pack and unpack modes. Encode/decode, the assembler, the disassembler, the
// validator and the emulator all read these tables, so each value is defined once.
// Source: Broadcom, "VideoCore IV 3D Architecture Reference Guide" (2013), Tables 2-13
// (pp. 28-36); readable names follow Mesa's vc4_qpu_disasm.c and vc4asm where they exist.

/** What an ALU operation reads and produces, for printing, validation and execution. */
export type OpType = 'float' | 'int' | 'v8' | 'none';

export interface OpInfo {
  readonly name: string;
  readonly code: number;
  /** Number of inputs the operation uses (nop: 0; ftoi, itof, not, clz: 1). */
  readonly arity: 0 | 1 | 2;
  /** The type of the inputs (for unpack, which converts floats differently from ints). */
  readonly input: OpType;
  readonly output: OpType;
}

const op = <const N extends string>(name: N, code: number, arity: 0 | 1 | 2, input: OpType, output = input) => ({
  name,
  code,
  arity,
  input,
  output,
});

/** Table 12: add ALU opcodes. Codes 9-11 and 25-29 are reserved. */
const ADD_OP_LIST = [
  op('nop', 0, 0, 'none'),
  op('fadd', 1, 2, 'float'),
  op('fsub', 2, 2, 'float'),
  op('fmin', 3, 2, 'float'),
  op('fmax', 4, 2, 'float'),
  op('fminabs', 5, 2, 'float'),
  op('fmaxabs', 6, 2, 'float'),
  op('ftoi', 7, 1, 'float', 'int'),
  op('itof', 8, 1, 'int', 'float'),
  op('add', 12, 2, 'int'),
  op('sub', 13, 2, 'int'),
  op('shr', 14, 2, 'int'),
  op('asr', 15, 2, 'int'),
  op('ror', 16, 2, 'int'),
  op('shl', 17, 2, 'int'),
  op('min', 18, 2, 'int'),
  op('max', 19, 2, 'int'),
  op('and', 20, 2, 'int'),
  op('or', 21, 2, 'int'),
  op('xor', 22, 2, 'int'),
  op('not', 23, 1, 'int'),
  op('clz', 24, 1, 'int'),
  op('v8adds', 30, 2, 'v8'),
  op('v8subs', 31, 2, 'v8'),
] as const satisfies readonly OpInfo[];
/** An add ALU operation's name. */
export type AddOpName = (typeof ADD_OP_LIST)[number]['name'];

/** The add ALU opcodes by code (undefined: reserved). */
export const ADD_OPS: readonly (OpInfo | undefined)[] = (() => {
  const t: (OpInfo | undefined)[] = new Array(32).fill(undefined);
  for (const o of ADD_OP_LIST) t[o.code] = o;
  return t;
})();

/** Table 13: mul ALU opcodes. */
const MUL_OP_LIST = [
  op('nop', 0, 0, 'none'),
  op('fmul', 1, 2, 'float'),
  op('mul24', 2, 2, 'int'),
  op('v8muld', 3, 2, 'v8'),
  op('v8min', 4, 2, 'v8'),
  op('v8max', 5, 2, 'v8'),
  op('v8adds', 6, 2, 'v8'),
  op('v8subs', 7, 2, 'v8'),
] as const satisfies readonly OpInfo[];
/** A mul ALU operation's name. */
export type MulOpName = (typeof MUL_OP_LIST)[number]['name'];
export const MUL_OPS: readonly OpInfo[] = MUL_OP_LIST;

export const ADD_OP_BY_NAME: ReadonlyMap<string, OpInfo> = new Map(
  ADD_OPS.filter((o): o is OpInfo => o !== undefined).map((o) => [o.name, o]),
);
export const MUL_OP_BY_NAME: ReadonlyMap<string, OpInfo> = new Map(MUL_OPS.map((o) => [o.name, o]));

/** Table 2: ALU write conditions, per lane. Printed as suffixes; `always` prints as nothing. */
export const CONDITIONS = ['never', 'always', 'zs', 'zc', 'ns', 'nc', 'cs', 'cc'] as const;
export type Condition = (typeof CONDITIONS)[number];
export const COND_NEVER = 0;
export const COND_ALWAYS = 1;
const conditionCode = (name: (typeof CONDITIONS)[number]) => CONDITIONS.indexOf(name);
/**
 * Whether two write conditions can never hold on the same lane: a flag set and the same flag
 * clear (zs/zc, ns/nc, cs/cc, which Table 2 lists side by side as codes 2k and 2k+1).
 */
export const exclusiveConditions = (a: number, b: number): boolean =>
  a >= conditionCode('zs') && b >= conditionCode('zs') && (a ^ b) === 1;
/** vc4asm's spellings of the same conditions. (Maps, not objects, for every table that user
 *  text indexes: `constructor` or `__proto__` must find nothing.) */
export const CONDITION_ALIASES: ReadonlyMap<string, number> = new Map([
  ['ifz', conditionCode('zs')],
  ['ifnz', conditionCode('zc')],
  ['ifn', conditionCode('ns')],
  ['ifnn', conditionCode('nc')],
  ['ifc', conditionCode('cs')],
  ['ifnc', conditionCode('cc')],
]);

/** Table 4: signals. 13-15 select the small-immediate, load-immediate and branch formats. */
export const SIGNALS = [
  'bkpt',
  'none',
  'thrsw',
  'tend',
  'sbwait',
  'sbdone',
  'lthrsw',
  'loadcv',
  'loadc',
  'ldcend',
  'ldtmu0',
  'ldtmu1',
  'loadam',
  'smallimm',
  'ldi',
  'branch',
] as const;
export const SIG_NONE = 1;
export const SIG_PROG_END = 3;
export const SIG_LOAD_TMU0 = 10;
export const SIG_LOAD_TMU1 = 11;
const signalCode = (name: (typeof SIGNALS)[number]) => SIGNALS.indexOf(name);
/** Other spellings accepted by the assembler: the SHA-256 series' `.tmu`, vc4asm's `thrend`. */
export const SIGNAL_ALIASES: ReadonlyMap<string, number> = new Map([
  ['tmu', signalCode('ldtmu0')],
  ['thrend', signalCode('tend')],
  ['progend', signalCode('tend')],
]);
/** Signals that make a tile-buffer unit write r4 (coverage, colour, colour+end, alpha mask). */
export const TLB_LOAD_SIGNALS: ReadonlySet<number> = new Set([7, 8, 9, 12]);
/** Signals that end the program (thread end; colour load and program end). */
export const PROGRAM_END_SIGNALS: ReadonlySet<number> = new Set([3, 9]);

/** Table 11: branch conditions over all 16 lanes. 12-14 are reserved. */
export const BRANCH_CONDITIONS = [
  'allz',
  'allnz',
  'anyz',
  'anynz',
  'alln',
  'allnn',
  'anyn',
  'anynn',
  'allc',
  'allnc',
  'anyc',
  'anync',
  undefined,
  undefined,
  undefined,
  'always',
] as const;
export type BranchCondition = Exclude<(typeof BRANCH_CONDITIONS)[number], undefined>;
export const BRANCH_ALWAYS = 15;
const branchConditionCode = (name: BranchCondition) => BRANCH_CONDITIONS.indexOf(name);
/** The SHA-256 series' assembler spellings ("z full", "z empty", ...), and `*` for always. */
export const BRANCH_CONDITION_ALIASES: ReadonlyMap<string, number> = new Map([
  ['zf', branchConditionCode('allz')],
  ['ze', branchConditionCode('allnz')],
  ['zs', branchConditionCode('anyz')],
  ['zc', branchConditionCode('anynz')],
  ['nf', branchConditionCode('alln')],
  ['ne', branchConditionCode('allnn')],
  ['ns', branchConditionCode('anyn')],
  ['nc', branchConditionCode('anynn')],
  ['cf', branchConditionCode('allc')],
  ['ce', branchConditionCode('allnc')],
  ['cs', branchConditionCode('anyc')],
  ['cc', branchConditionCode('anync')],
  ['*', branchConditionCode('always')],
]);

// ---- Small immediates (Table 5, p. 29) ----

/** Small immediate 48 rotates the mul output by r5 element 0; 49-63 rotate by 1-15. */
export const SMALL_IMM_ROTATE_R5 = 48;

/**
 * The 32-bit value that small immediate `code` (0-63) feeds to a mux reading regfile B.
 * 0-15: integers 0..15; 16-31: -16..-1; 32-39: floats 1.0..128.0; 40-47: 1/256..1/2.
 * The rotation codes 48-63 also feed a value: -16..-1, as measured on real chips (vc4asm's
 * addendum, "Small immediate values").
 */
export function smallImmValue(code: number): number {
  if (code < 16) return code;
  if (code < 32) return code - 32;
  if (code < 40) return floatBits(2 ** (code - 32));
  if (code < 48) return floatBits(2 ** (code - 48));
  return code - 64;
}

/** Rotation of the mul output (0 = none) for a small immediate code; 'r5' for code 48. */
export function smallImmRotation(code: number): number | 'r5' {
  if (code < SMALL_IMM_ROTATE_R5) return 0;
  return code === SMALL_IMM_ROTATE_R5 ? 'r5' : code - 48;
}

/** The small immediate code (0-47) for an integer, or undefined if none exists. */
export function smallImmForInt(v: number): number | undefined {
  if (Number.isInteger(v) && v >= 0 && v <= 15) return v;
  if (Number.isInteger(v) && v >= -16 && v <= -1) return v + 32;
  return undefined;
}

/** The small immediate code (32-47) for a float, or undefined if none exists. */
export function smallImmForFloat(v: number): number | undefined {
  for (let code = 32; code < 48; code++) if (bitsToFloat(smallImmValue(code)) === v) return code;
  return undefined;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** The IEEE single-precision bits of a number, as an unsigned 32-bit integer. */
export function floatBits(v: number): number {
  f32[0] = v;
  return u32[0]!;
}
export function bitsToFloat(bits: number): number {
  u32[0] = bits >>> 0;
  return f32[0]!;
}

// ---- Pack and unpack (Tables 6-9, pp. 31-32) ----

/** Regfile-A unpack (pm = 0) and r4 unpack (pm = 1) share these names. 0 is "no unpack". */
export const UNPACK_MODES = ['', '16a', '16b', '8dr', '8a', '8b', '8c', '8d'] as const;

/** Regfile-A pack (pm = 0). 8-15 saturate. */
export const PACK_A_MODES = [
  '',
  '16a',
  '16b',
  '8888',
  '8a',
  '8b',
  '8c',
  '8d',
  '32s',
  '16as',
  '16bs',
  '8888s',
  '8as',
  '8bs',
  '8cs',
  '8ds',
] as const;

/** Mul ALU float-to-colour pack (pm = 1). Undefined entries are reserved. */
export const PACK_MUL_MODES: readonly (string | undefined)[] = [
  '',
  undefined,
  undefined,
  '8888',
  '8a',
  '8b',
  '8c',
  '8d',
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
];

// ---- Input muxes (Table 3, p. 28) ----
export const MUX_R4 = 4;
export const MUX_R5 = 5;
export const MUX_A = 6;
export const MUX_B = 7;

// ---- Load-immediate modes (Figure 5) ----
export const LDI_MODE_32 = 0;
export const LDI_MODE_SIGNED = 1;
export const LDI_MODE_UNSIGNED = 3;
export const LDI_MODE_NAMES: Readonly<Record<number, string>> = { 0: '', 1: 'i2', 3: 'u2' };

/** Elements (lanes) of a QPU vector, one per per-element load-immediate value. */
export const LANES = 16;

/** Per-element load immediate: lane i takes bit i (LS) and bit 16+i (MS) of the immediate. */
export function perElementValues(imm: number, signed: boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < LANES; i++) {
    const ls = (imm >>> i) & 1;
    const ms = (imm >>> (LANES + i)) & 1;
    out.push(signed ? ls - 2 * ms : ls + 2 * ms);
  }
  return out;
}

/** The inverse of perElementValues; values must be in range for the mode. */
export function perElementImmediate(values: readonly number[]): number {
  let imm = 0;
  values.forEach((v, i) => {
    imm |= (v & 1) << i;
    imm |= ((v >> 1) & 1) << (LANES + i);
  });
  return imm >>> 0;
}
