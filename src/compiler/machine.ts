// Machine instructions from allocated IR: each IR instruction, its virtual registers replaced by
// physical ones, as the 64-bit instruction it stands for (src/vc4/instr.ts). The IR is in the
// assembly language's own terms, so each becomes the encoder's typed spec of the same fields
// (src/vc4/asm/typed.ts): one table-driven builder for hand-written and compiled code, and no
// text written or read on the way.
// Needs: an IR instruction whose sources and destination are physical registers or small
// immediates. Guarantees: the instruction, or a CompileError naming the kernel and the
// instruction when the hardware cannot do it in one word (an internal compiler error).

import { BuildError } from '../vc4/asm/build.ts';
import { buildInstr, type InstrSpec, type SourceSpec } from '../vc4/asm/typed.ts';
import type { Instr } from '../vc4/instr.ts';
import { CompileError } from './errors.ts';
import { type IrInstr, irText, isColour, isInsert, isUnpack, type Src } from './ir.ts';

function source(s: Src): SourceSpec {
  if (s.k === 'v') throw new Error(`internal: %${s.id} has no register`);
  return s.k === 'p' ? { reg: s.name } : { imm: s.code };
}

function register(s: Src) {
  if (s.k !== 'p') throw new Error(`internal: ${s.k === 'v' ? `%${s.id}` : 'an immediate'} is no register`);
  return s.name;
}

/** The typed spec of an IR instruction: the same fields. */
function spec(i: IrInstr): InstrSpec {
  switch (i.op) {
    case 'alu': {
      const { code: op, cond, setf, rot, unpack, pack } = i;
      if (isUnpack(op) || isInsert(op) || isColour(op)) throw new Error(`internal: ${op} reached machine code (emit.ts makes it instructions)`);
      const dst = register(i.dst);
      // The unpack applies to every regfile-A input (docs/asm.md): each is written with it.
      const input = (s: Src) => (unpack && s.k === 'p' && s.name.startsWith('ra') ? { reg: s.name, unpack } : source(s));
      return { kind: 'alu', op, dst, ...(pack ? { pack } : {}), a: input(i.a), ...(op === 'mov' ? {} : { b: input(i.b) }), cond, setf, rot };
    }
    case 'ldi':
      return { kind: 'ldi', dst: register(i.dst), bits: i.bits, cond: i.cond };
    case 'read':
      return { kind: 'read', reg: i.src.name };
    case 'signal':
      return { kind: 'nop', sig: i.sig };
    case 'nop':
      return { kind: 'nop' };
    case 'end':
      return { kind: 'nop', sig: 'tend' };
    case 'sema':
      return { kind: 'sema', down: i.down, n: i.n };
    case 'branch':
      if (i.via) return { kind: 'branch', cond: i.cond, via: register(i.via) };
      return { kind: 'branch', cond: i.cond, offset: 0, ...(i.link ? { link: register(i.link) } : {}) };
    case 'label':
      throw new Error('internal: a label is not an instruction');
  }
}

/**
 * The machine instruction for an allocated IR instruction. A branch's offset is 0 for now: its
 * target is placed once the program's order is known (emit.ts aimBranches).
 */
export function machineInstr(i: IrInstr, kernel: string): Instr {
  try {
    return buildInstr(spec(i));
  } catch (e) {
    if (e instanceof BuildError)
      throw new CompileError(`kernel ${kernel}: internal compiler error: \`${irText(i)}\` is no instruction: ${e.message}`);
    throw e;
  }
}
