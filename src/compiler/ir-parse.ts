// The IR's text form read back: what printIr writes (ir.ts), so that tests can write a pass's
// input and its expected output as text (test/compiler/passes/), and a dump can be
// edited and fed to a pass again.
// Needs: lines as printIr writes them: `label:`, or an instruction in assembly syntax over
// virtual registers %n; `#` starts a comment. Guarantees: the IR those lines print as (printIr
// of the result gives the lines back, spacing aside), and the number of virtual registers, or
// a CompileError naming the line.

import { CompileError } from './errors.ts';
import { type AluCode, COLOURS, INSERTS, type IrInstr, p, parseImm, type PRegName, type Reg, type Src, UNPACKS, v, type WriteCond } from './ir.ts';
import { READ_A, READ_B, WRITE_A, WRITE_B } from '../vc4/registers.ts';
import { ADD_OP_BY_NAME, BRANCH_CONDITIONS, type BranchCondition, CONDITIONS, MUL_OP_BY_NAME } from '../vc4/tables.ts';

export interface ParsedIr {
  readonly code: IrInstr[];
  /** One more than the highest virtual register named. */
  readonly vregs: number;
}

// The names the tables give, as the IR's types allow them.
const CONDS: ReadonlySet<string> = new Set(CONDITIONS.filter((c) => c !== 'always'));
const BRANCH_CONDS: ReadonlySet<string> = new Set(BRANCH_CONDITIONS.filter((c) => c !== undefined));
const ALU_CODES: ReadonlySet<string> = new Set(['mov', ...ADD_OP_BY_NAME.keys(), ...MUL_OP_BY_NAME.keys(), ...Object.keys(UNPACKS), ...Object.keys(INSERTS), ...Object.keys(COLOURS)]);
const REGISTERS: ReadonlySet<string> = new Set(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', ...[READ_A, READ_B, WRITE_A, WRITE_B].flatMap((t) => t.map((r) => r.name))]);

export function parseIr(text: string): ParsedIr {
  const code: IrInstr[] = [];
  let vregs = 0;
  const src = (t: string, line: number): { s: Src; rot?: number | 'r5' } => {
    const [x, by] = t.split(/\s*>>\s*/) as [string, string | undefined];
    const rot = by === undefined ? undefined : by === 'r5' ? 'r5' : Number(by);
    if (typeof rot === 'number' && !(Number.isInteger(rot) && rot >= 1 && rot <= 15)) throw bad(line, `rotation ${by}`);
    const m = /^%(\d+)$/.exec(x);
    if (m) {
      vregs = Math.max(vregs, Number(m[1]) + 1);
      return { s: v(Number(m[1])), rot };
    }
    if (/^-?[\d.]/.test(x)) {
      const i = parseImm(x);
      if (!i) throw bad(line, `small immediate '${x}'`);
      return { s: i, rot };
    }
    return { s: register(x, line), rot };
  };
  const reg = (t: string, line: number): Reg => {
    const r = src(t, line).s;
    if (r.k === 'imm') throw bad(line, `destination '${t}'`);
    return r;
  };
  text.split('\n').forEach((raw, n) => {
    const line = n + 1;
    const t = raw.replace(/#.*/, '').trim();
    if (!t) return;
    const ret = /^bra\s+-\s*,\s*(\S+)\s*\(return from (\S+)\)$/.exec(t);
    if (ret) return void code.push({ op: 'branch', cond: 'always', label: ret[2]!, via: reg(ret[1]!, line) });
    if (t.endsWith(':')) return void code.push({ op: 'label', name: t.slice(0, -1) });
    const [head, ...rest] = t.split(/\s+/);
    const args = rest.join(' ').split(',').map((x) => x.trim()).filter((x) => x !== '');
    const [name, ...suffixes] = head!.split('.');
    const cond = suffixes.find((x) => CONDS.has(x));
    const setf = suffixes.includes('setf');
    if (suffixes.some((x) => !CONDS.has(x) && x !== 'setf' && !(name === 'nop' && x === 'tend') && name !== 'brr'))
      throw bad(line, `suffix in '${head}'`);
    switch (name) {
      case 'nop':
        return void code.push(suffixes[0] === 'tend' ? { op: 'end' } : { op: 'nop' });
      case 'ldtmu0':
      case 'ldtmu1':
        return void code.push({ op: 'signal', sig: name });
      case 'read':
        return void code.push({ op: 'read', src: register(args[0] ?? '', line) });
      case 'sema':
        return void code.push({ op: 'sema', down: args[0] === 'down', n: Number(args[1]) });
      case 'brr':
        if (suffixes[0] && !BRANCH_CONDS.has(suffixes[0])) throw bad(line, `branch condition '${suffixes[0]}'`);
        return void code.push({
          op: 'branch',
          cond: (suffixes[0] ?? 'always') as BranchCondition,
          label: args[1] ?? '',
          ...(args[0] && args[0] !== '-' ? { link: reg(args[0], line) } : {}),
        });
      case 'ldi':
        return void code.push({ op: 'ldi', dst: reg(args[0] ?? '', line), bits: Number(args[1]) | 0, ...(cond ? { cond: cond as WriteCond } : {}) });
    }
    if (!ALU_CODES.has(name!)) throw bad(line, `operation '${name}'`);
    if (args.length < 2 || args.length > 3) throw bad(line, `'${t}': an operation takes a destination and one or two sources`);
    const a = src(args[1]!, line);
    const b = args[2] === undefined ? a : src(args[2], line);
    code.push({
      op: 'alu',
      code: name as AluCode,
      dst: reg(args[0]!, line),
      a: a.s,
      b: b.s,
      ...(cond ? { cond: cond as WriteCond } : {}),
      ...(setf ? { setf } : {}),
      ...(a.rot !== undefined ? { rot: a.rot } : {}),
    });
  });
  return { code, vregs };
}

const bad = (line: number, what: string) => new CompileError(`IR line ${line}: cannot read ${what}`);

/** A physical register by the name the ISA's tables give it. */
function register(name: string, line: number): ReturnType<typeof p> {
  if (!REGISTERS.has(name)) throw bad(line, `register '${name}'`);
  return p(name as PRegName);
}
