// Value tables of the VideoCore IV instruction set: opcodes, conditions, signals, small
// immediates, pack and unpack modes. Encode/decode, the assembler, the disassembler, the
// validator and the emulator all read these tables, so each value is defined once.
// Source: Broadcom, "VideoCore IV 3D Architecture Reference Guide" (2013), Tables 2-13
// (pp. 28-36); readable names follow Mesa's vc4_qpu_disasm.c and vc4asm where they exist.

/** What an ALU operation reads and produces, for printing, validation and execution. */
export type OpType = 'float' | 'int' | 'v8' | 'none';

/**
 * How an operation sets the carry flag C (Z and N come from the result alone). Measured on chips
 * for the add ALU (VC4C's hardware tables; docs/emulator.md); arith.ts computes each.
 */
export type CarryRule =
  /** The result is above zero as a signed pattern (+infinity counts). */
  | 'positive'
  /** a > b in the order fmin and fmax use (patterns as sign-magnitude integers). */
  | 'float-greater'
  /** |a| > |b| in that order (the patterns with their sign bits cleared). */
  | 'abs-greater'
  /** The unsigned carry out of a + b. */
  | 'carry-out'
  /** The unsigned borrow of a - b. */
  | 'borrow'
  /** The last bit shifted out to the right (none for a shift by 0). */
  | 'shifted-out-right'
  /** The last bit shifted out to the left (none for a shift by 0). */
  | 'shifted-out-left'
  /** a > b as signed integers. */
  | 'signed-greater'
  /** The 24-bit product needs more than 24 bits (vc4asm's table; not measured). */
  | 'wide-product'
  /** C is cleared. */
  | 'clear';

export interface OpInfo {
  readonly name: string;
  readonly code: number;
  /** Number of inputs the operation uses (nop: 0; ftoi, itof, not, clz: 1). */
  readonly arity: 0 | 1 | 2;
  /** The type of the inputs (for unpack, which converts floats differently from ints). */
  readonly input: OpType;
  readonly output: OpType;
  /** How it sets the carry flag. */
  readonly carry: CarryRule;
}

const op = <const N extends string>(name: N, code: number, arity: 0 | 1 | 2, input: OpType, output: OpType, carry: CarryRule = 'clear') => ({
  name,
  code,
  arity,
  input,
  output,
  carry,
});

/** Table 12: add ALU opcodes. Codes 9-11 and 25-29 are reserved. */
const ADD_OP_LIST = [
  op('nop', 0, 0, 'none', 'none'),
  op('fadd', 1, 2, 'float', 'float', 'positive'),
  op('fsub', 2, 2, 'float', 'float', 'positive'),
  op('fmin', 3, 2, 'float', 'float', 'float-greater'),
  op('fmax', 4, 2, 'float', 'float', 'float-greater'),
  op('fminabs', 5, 2, 'float', 'float', 'abs-greater'),
  op('fmaxabs', 6, 2, 'float', 'float', 'abs-greater'),
  op('ftoi', 7, 1, 'float', 'int'),
  op('itof', 8, 1, 'int', 'float', 'positive'),
  op('add', 12, 2, 'int', 'int', 'carry-out'),
  op('sub', 13, 2, 'int', 'int', 'borrow'),
  op('shr', 14, 2, 'int', 'int', 'shifted-out-right'),
  op('asr', 15, 2, 'int', 'int', 'shifted-out-right'),
  op('ror', 16, 2, 'int', 'int'),
  op('shl', 17, 2, 'int', 'int', 'shifted-out-left'),
  op('min', 18, 2, 'int', 'int', 'signed-greater'),
  op('max', 19, 2, 'int', 'int', 'signed-greater'),
  op('and', 20, 2, 'int', 'int'),
  op('or', 21, 2, 'int', 'int'),
  op('xor', 22, 2, 'int', 'int'),
  op('not', 23, 1, 'int', 'int'),
  op('clz', 24, 1, 'int', 'int'),
  op('v8adds', 30, 2, 'v8', 'v8'),
  op('v8subs', 31, 2, 'v8', 'v8'),
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
  op('nop', 0, 0, 'none', 'none'),
  op('fmul', 1, 2, 'float', 'float'),
  op('mul24', 2, 2, 'int', 'int', 'wide-product'),
  op('v8muld', 3, 2, 'v8', 'v8'),
  op('v8min', 4, 2, 'v8', 'v8'),
  op('v8max', 5, 2, 'v8', 'v8'),
  op('v8adds', 6, 2, 'v8', 'v8'),
  op('v8subs', 7, 2, 'v8', 'v8'),
] as const satisfies readonly OpInfo[];
/** A mul ALU operation's name. */
export type MulOpName = (typeof MUL_OP_LIST)[number]['name'];
export const MUL_OPS: readonly OpInfo[] = MUL_OP_LIST;

export const ADD_OP_BY_NAME: ReadonlyMap<string, OpInfo> = new Map(
  ADD_OPS.filter((o): o is OpInfo => o !== undefined).map((o) => [o.name, o]),
);
export const MUL_OP_BY_NAME: ReadonlyMap<string, OpInfo> = new Map(MUL_OPS.map((o) => [o.name, o]));
/** The opcode of an ALU that does nothing (its inputs are not read, nothing it writes is a result). */
export const ADD_NOP = ADD_OP_BY_NAME.get('nop' satisfies AddOpName)!.code;
export const MUL_NOP = MUL_OP_BY_NAME.get('nop' satisfies MulOpName)!.code;
/**
 * `mov`'s operation on each ALU: `or x, x` on the add ALU and `v8min x, x` on the mul ALU both
 * copy x exactly.
 */
export const ADD_MOV: OpInfo = ADD_OP_BY_NAME.get('or' satisfies AddOpName)!;
export const MUL_MOV: OpInfo = MUL_OP_BY_NAME.get('v8min' satisfies MulOpName)!;

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

/** What a signal does, as the validator, the control flow and the compiler ask it (Table 4, p. 29). */
export interface SignalInfo {
  readonly name: string;
  readonly code: number;
  /** The program ends after this instruction and two delay slots (thread end; colour load and end: p. 21). */
  readonly endsProgram?: true;
  /** The TMU whose next result it pops into r4 (ldtmu0, ldtmu1: p. 39). */
  readonly tmuLoad?: 0 | 1;
  /** A tile-buffer unit writes r4: coverage, colour, colour and end, alpha mask (p. 29). */
  readonly tlbLoad?: true;
  /** Only fragment shaders may use it: what kind of signal it is (pp. 20-24). */
  readonly fragmentOnly?: 'thread switch' | 'scoreboard' | 'tile-buffer load';
  /** Not a signal: the code selects the small-immediate, load-immediate or branch format. */
  readonly format?: true;
}

const sig = <const N extends string>(name: N, props: Omit<SignalInfo, 'name' | 'code'> = {}) => ({ name, ...props });

/** Table 4: signals, in code order. 13-15 select the small-immediate, load-immediate and branch formats. */
const SIGNAL_LIST = [
  sig('bkpt'),
  sig('none'),
  sig('thrsw', { fragmentOnly: 'thread switch' }),
  sig('tend', { endsProgram: true }),
  sig('sbwait', { fragmentOnly: 'scoreboard' }),
  sig('sbdone', { fragmentOnly: 'scoreboard' }),
  sig('lthrsw', { fragmentOnly: 'thread switch' }),
  sig('loadcv', { tlbLoad: true, fragmentOnly: 'tile-buffer load' }),
  sig('loadc', { tlbLoad: true, fragmentOnly: 'tile-buffer load' }),
  sig('ldcend', { tlbLoad: true, fragmentOnly: 'tile-buffer load', endsProgram: true }),
  sig('ldtmu0', { tmuLoad: 0 }),
  sig('ldtmu1', { tmuLoad: 1 }),
  sig('loadam', { tlbLoad: true, fragmentOnly: 'tile-buffer load' }),
  sig('smallimm', { format: true }),
  sig('ldi', { format: true }),
  sig('branch', { format: true }),
] as const;
export type SignalName = (typeof SIGNAL_LIST)[number]['name'];
/** The signals by code (0-15). */
export const SIGNAL_INFO: readonly SignalInfo[] = SIGNAL_LIST.map((s, code) => ({ ...s, code }));
/** The signals' names by code. */
export const SIGNALS: readonly SignalName[] = SIGNAL_LIST.map((s) => s.name);
const signalCode = (name: SignalName) => SIGNALS.indexOf(name);
export const SIG_BREAKPOINT = signalCode('bkpt');
export const SIG_NONE = signalCode('none');
export const SIG_PROG_END = signalCode('tend');
export const SIG_LOAD_TMU0 = signalCode('ldtmu0');
export const SIG_LOAD_TMU1 = signalCode('ldtmu1');
/** The codes that select a format rather than a signal (fields.ts lays the formats out). */
export const SIG_SMALL_IMM = signalCode('smallimm');
export const SIG_LOAD_IMM = signalCode('ldi');
export const SIG_BRANCH = signalCode('branch');
/** Other spellings accepted by the assembler: the SHA-256 series' `.tmu`, vc4asm's `thrend`. */
export const SIGNAL_ALIASES: ReadonlyMap<string, number> = new Map([
  ['tmu', signalCode('ldtmu0')],
  ['thrend', signalCode('tend')],
  ['progend', signalCode('tend')],
]);
/** Signals that make a tile-buffer unit write r4 (coverage, colour, colour+end, alpha mask). */
export const TLB_LOAD_SIGNALS: ReadonlySet<number> = new Set(SIGNAL_INFO.filter((s) => s.tlbLoad).map((s) => s.code));
/** Signals that end the program (thread end; colour load and program end). */
export const PROGRAM_END_SIGNALS: ReadonlySet<number> = new Set(SIGNAL_INFO.filter((s) => s.endsProgram).map((s) => s.code));

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
/**
 * A shift or rotation amount 0-31 as the small immediate's integer that reads as it: shifts and
 * rotations use the low 5 bits, so 16-31 are written -16..-1 (small immediates are -16..15).
 */
export const shiftImmediate = (k: number): number => (k < 16 ? k : k - 32);

export function smallImmValue(code: number): number {
  if (code < 16) return code;
  if (code < 32) return code - 32;
  if (code < 40) return floatBits(2 ** (code - 32));
  if (code < 48) return floatBits(2 ** (code - 48));
  return code - 64;
}

/** Whether small immediate `code` is a float (32-47: 1.0..128.0 and 1/256..1/2). */
export function isFloatSmallImm(code: number): boolean {
  return code >= 32 && code < SMALL_IMM_ROTATE_R5;
}

/** Rotation of the mul output (0 = none) for a small immediate code; 'r5' for code 48. */
export function smallImmRotation(code: number): number | 'r5' {
  if (code < SMALL_IMM_ROTATE_R5) return 0;
  return code === SMALL_IMM_ROTATE_R5 ? 'r5' : code - SMALL_IMM_ROTATE_R5;
}

/** The small immediate code (48-63) that rotates the mul output by `by` elements (1-15) or by r5. */
export function smallImmForRotation(by: number | 'r5'): number {
  return by === 'r5' ? SMALL_IMM_ROTATE_R5 : SMALL_IMM_ROTATE_R5 + by;
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
export const NO_UNPACK = 0;
export const UNPACK_MODES = ['', '16a', '16b', '8dr', '8a', '8b', '8c', '8d'] as const;

/** Pack mode 0 packs nothing, in either table. */
export const NO_PACK = 0;

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

// ---- Input muxes (Table 3, p. 28): 0-5 read accumulators r0-r5 (the mux is the number) ----
export const MUX_R0 = 0;
/** The last of r0-r3, the accumulators that are plain per-lane registers. */
export const MUX_R3 = 3;
export const MUX_R4 = 4;
export const MUX_R5 = 5;
export const MUX_A = 6;
export const MUX_B = 7;

// ---- Load-immediate modes (Figure 5) ----
export const LDI_MODE_32 = 0;
export const LDI_MODE_SIGNED = 1;
export const LDI_MODE_UNSIGNED = 3;
/** Signal 14 with this mode is a semaphore instruction, not a load immediate (Figure 6). */
export const LDI_MODE_SEMAPHORE = 4;
export const LDI_MODE_NAMES: Readonly<Record<number, string>> = { [LDI_MODE_32]: '', [LDI_MODE_SIGNED]: 'i2', [LDI_MODE_UNSIGNED]: 'u2' };

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
