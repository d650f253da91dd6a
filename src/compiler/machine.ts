// Machine instructions from allocated IR: each IR instruction, its virtual registers replaced by
// physical ones, as the 64-bit instruction it stands for (src/vc4/instr.ts). The IR is in the
// assembly language's own terms, so each is handed to the assembler's builder as the statement
// its text would parse to: one table-driven encoder for hand-written and compiled code, and no
// text written or read on the way.
// Needs: an IR instruction whose sources and destination are physical registers or small
// immediates. Guarantees: the instruction, or a CompileError naming the kernel and the
// instruction when the hardware cannot do it in one word (an internal compiler error).

import { BuildError, buildStatement } from '../vc4/asm/build.ts';
import { bitsToFloat, smallImmValue } from '../vc4/tables.ts';
import type { NumberValue } from '../vc4/asm/numbers.ts';
import type { Operand, Statement, Suffix } from '../vc4/asm/parse.ts';
import type { Instr } from '../vc4/instr.ts';
import { CompileError } from './errors.ts';
import { immText, type IrInstr, irText, isFloatImm, type Src } from './ir.ts';

const suffix = (text: string): Suffix => ({ text, col: 0 });
const named = (name: string, rot?: number | 'r5'): Operand => ({ kind: 'name', name, col: 0, suffixes: [], ...(rot !== undefined ? { rot: { by: rot, col: 0 } } : {}) });
const number = (value: NumberValue, text: string): Operand => ({ kind: 'number', value, text, col: 0 });

function source(s: Src, rot?: number | 'r5'): Operand {
  if (s.k === 'v') throw new Error(`internal: %${s.id} has no register`);
  if (s.k === 'p') return named(s.name, rot);
  const bits = smallImmValue(s.code);
  const value: NumberValue = { bits: bits >>> 0, isFloat: isFloatImm(s), value: isFloatImm(s) ? bitsToFloat(bits) : bits };
  return { ...number(value, immText(s)), ...(rot !== undefined ? { rot: { by: rot, col: 0 } } : {}) };
}

/** The statement an IR instruction's text would parse to (docs/asm.md). */
function statement(i: IrInstr): Statement {
  const alu = (name: string, suffixes: Suffix[], operands: Operand[]): Statement => ({
    kind: 'alu',
    col: 0,
    parts: [{ kind: 'op', name, col: 0, suffixes, operands }],
  });
  switch (i.op) {
    case 'alu': {
      const sfx = [...(i.cond ? [suffix(i.cond)] : []), ...(i.setf ? [suffix('setf')] : [])];
      const dst = source(i.dst);
      if (i.code === 'mov') return alu('mov', sfx, [dst, source(i.a, i.rot)]);
      return alu(i.code, sfx, [dst, source(i.a, i.rot), source(i.b, i.rot)]);
    }
    case 'ldi':
      return {
        kind: 'ldi',
        col: 0,
        suffixes: i.cond ? [suffix(i.cond)] : [],
        operands: [source(i.dst), number({ bits: i.bits >>> 0, isFloat: false, value: i.bits | 0 }, String(i.bits))],
      };
    case 'read':
      return { kind: 'alu', col: 0, parts: [{ kind: 'read', col: 0, operand: named(i.src.name) }] };
    case 'signal':
      return { kind: 'alu', col: 0, parts: [{ kind: 'signal', name: i.sig, col: 0 }] };
    case 'nop':
      return alu('nop', [], []);
    case 'end':
      return alu('nop', [suffix('tend')], []);
    case 'sema':
      return { kind: 'sema', mnemonic: 'sema', col: 0, suffixes: [], operands: [named(i.down ? 'down' : 'up'), number({ bits: i.n, isFloat: false, value: i.n }, String(i.n))] };
    case 'branch':
      return { kind: 'branch', relative: true, col: 0, suffixes: i.cond === 'always' ? [] : [suffix(i.cond)], operands: [named('-'), named(i.label)] };
    case 'label':
      throw new Error('internal: a label is not an instruction');
  }
}

/**
 * The machine instruction for an allocated IR instruction. A branch is aimed at instruction 0
 * for now: its target is placed once the program's order is known (schedule.ts, space.ts).
 */
export function machineInstr(i: IrInstr, kernel: string): Instr {
  try {
    return buildStatement(statement(i), { labels: new Map(i.op === 'branch' ? [[i.label, 0]] : []), pc: 0 });
  } catch (e) {
    if (e instanceof BuildError)
      throw new CompileError(`kernel ${kernel}: internal compiler error: \`${irText(i)}\` is no instruction: ${e.message}`);
    throw e;
  }
}
