// The encoder's typed entry: one instruction from typed fields (operation, register, condition
// and signal names from the tables, small immediates by their code), for programs built in code
// rather than written as text: the compiler's (compiler/machine.ts).
// Needs: a spec whose names the tables have (the types see to that). Guarantees: the instruction
// the assembler builds for the same statement written as text, because a spec is given to the
// same builder (build.ts) as the statement its text would parse to; or a BuildError saying why
// the hardware cannot do it in one word (its column is 0: a spec has no source text).

import type { Instr } from '../instr.ts';
import type { ReadName, WriteName } from '../registers.ts';
import {
  type AddOpName,
  bitsToFloat,
  type BranchCondition,
  type Condition,
  isFloatSmallImm,
  type MulOpName,
  type SignalName,
  smallImmValue,
} from '../tables.ts';
import { buildStatement } from './build.ts';
import { smallImmText } from './disasm.ts';
import type { NumberValue } from './numbers.ts';
import type { Operand, Part, Statement, Suffix } from './parse.ts';

/** A register by its assembly name: an accumulator, a regfile location or a name of the register table. */
export type RegisterName = 'r0' | 'r1' | 'r2' | 'r3' | 'r4' | 'r5' | `ra${number}` | `rb${number}` | ReadName | WriteName;

/** An ALU source: a register (from regfile A, with an unpack mode: Table 6), or a small immediate by its code (Table 5). */
export type SourceSpec = { readonly reg: RegisterName; readonly unpack?: string } | { readonly imm: number };

/** A write condition; `always` is the default. */
type WriteCondition = Exclude<Condition, 'always'>;

export type InstrSpec =
  /** One ALU operation (or `mov`): on the add ALU if it has it and nothing rotates, else the mul ALU. */
  | {
      readonly kind: 'alu';
      readonly op: AddOpName | MulOpName | 'mov';
      readonly dst: RegisterName;
      /** Regfile A's pack of the write to `dst` (Table 7). */
      readonly pack?: string;
      readonly a: SourceSpec;
      /** The second input (not for mov). */
      readonly b?: SourceSpec;
      readonly cond?: WriteCondition;
      readonly setf?: boolean;
      /** Rotation of the mul result: by 1-15 lanes up, or by r5. */
      readonly rot?: number | 'r5';
    }
  | { readonly kind: 'ldi'; readonly dst: RegisterName; readonly bits: number; readonly cond?: WriteCondition }
  /** A read whose value is not used (it waits, acquires, pops). */
  | { readonly kind: 'read'; readonly reg: RegisterName }
  /** An instruction that only signals (ldtmu0, tend, ...), or with none a plain nop. */
  | { readonly kind: 'nop'; readonly sig?: Exclude<SignalName, 'none' | 'smallimm' | 'ldi' | 'branch'> }
  | { readonly kind: 'sema'; readonly down: boolean; readonly n: number }
  /**
   * A relative branch by a byte offset from PC + 4 instructions, writing that address (the
   * return address) to `link` when given; or, with `via`, an absolute branch to the address in
   * that regfile-A register (a function's return).
   */
  | { readonly kind: 'branch'; readonly cond: BranchCondition; readonly offset: number; readonly link?: RegisterName }
  | { readonly kind: 'branch'; readonly cond: BranchCondition; readonly via: RegisterName };

/** The column of everything in a spec's statement: it has no source text. */
const COL = 0;

const suffix = (text: string): Suffix => ({ text, col: COL });
const integer = (n: number): NumberValue => ({ bits: n >>> 0, isFloat: false, value: n | 0 });
const number = (value: NumberValue, text = String(value.value)): Operand => ({ kind: 'number', value, text, col: COL });
const named = (name: string): Operand => ({ kind: 'name', name, col: COL, suffixes: [] });

function source(s: SourceSpec, rot: number | 'r5' | undefined): Operand {
  const rotation = rot !== undefined ? { rot: { by: rot, col: COL } } : {};
  if ('reg' in s) return { ...named(s.reg), ...(s.unpack ? { suffixes: [suffix(s.unpack)] } : {}), ...rotation };
  const bits = smallImmValue(s.imm);
  const float = isFloatSmallImm(s.imm);
  return { ...number({ bits: bits >>> 0, isFloat: float, value: float ? bitsToFloat(bits) : bits }, smallImmText(s.imm)), ...rotation };
}

const alu = (parts: Part[]): Statement => ({ kind: 'alu', col: COL, parts });

/** The statement a spec's text would parse to. */
function statement(s: InstrSpec): Statement {
  switch (s.kind) {
    case 'alu': {
      const suffixes = [...(s.cond ? [suffix(s.cond)] : []), ...(s.setf ? [suffix('setf')] : [])];
      const dst = s.pack ? { ...named(s.dst), suffixes: [suffix(s.pack)] } : named(s.dst);
      const operands = [dst, source(s.a, s.rot), ...(s.b ? [source(s.b, s.rot)] : [])];
      return alu([{ kind: 'op', name: s.op, col: COL, suffixes, operands }]);
    }
    case 'ldi':
      return { kind: 'ldi', col: COL, suffixes: s.cond ? [suffix(s.cond)] : [], operands: [named(s.dst), number(integer(s.bits))] };
    case 'read':
      return alu([{ kind: 'read', col: COL, operand: named(s.reg) }]);
    case 'nop':
      return alu(s.sig ? [{ kind: 'signal', name: s.sig, col: COL }] : [{ kind: 'op', name: 'nop', col: COL, suffixes: [], operands: [] }]);
    case 'sema':
      return { kind: 'sema', mnemonic: 'sema', col: COL, suffixes: [], operands: [named(s.down ? 'down' : 'up'), number(integer(s.n))] };
    case 'branch': {
      const suffixes = s.cond === 'always' ? [] : [suffix(s.cond)];
      if ('via' in s) return { kind: 'branch', relative: false, col: COL, suffixes, operands: [named('-'), named(s.via)] };
      return { kind: 'branch', relative: true, col: COL, suffixes, operands: [named(s.link ?? '-'), number(integer(s.offset))] };
    }
  }
}

/** The instruction a spec describes; throws a BuildError when no one instruction can do it. */
export function buildInstr(s: InstrSpec): Instr {
  return buildStatement(statement(s), { labels: new Map(), pc: 0 });
}
