// The IR's text form read back: what printIr writes (ir.ts), so that tests can write a pass's
// input and its expected output as text (test/compiler/passes.test.ts), and a dump can be
// edited and fed to a pass again.
// Needs: lines as printIr writes them: `label:`, or an instruction in assembly syntax over
// virtual registers %n; `#` starts a comment. Guarantees: the IR those lines print as (printIr
// of the result gives the lines back, spacing aside), and the number of virtual registers, or
// a CompileError naming the line.

import { CompileError } from './errors.ts';
import { imm, type IrInstr, p, type Reg, type Src, v } from './ir.ts';

export interface ParsedIr {
  readonly code: IrInstr[];
  /** One more than the highest virtual register named. */
  readonly vregs: number;
}

const CONDS = new Set(['zs', 'zc', 'ns', 'nc', 'cs', 'cc', 'never']);

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
    if (/^-?[\d.]/.test(x)) return { s: imm(x), rot };
    if (!/^[a-z_][a-z0-9_]*$/.test(x)) throw bad(line, `operand '${x}'`);
    return { s: p(x), rot };
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
        return void code.push({ op: 'read', src: p(args[0] ?? '') });
      case 'sema':
        return void code.push({ op: 'sema', down: args[0] === 'down', n: Number(args[1]) });
      case 'brr':
        return void code.push({ op: 'branch', cond: suffixes[0] ?? 'always', label: args[1] ?? '' });
      case 'ldi':
        return void code.push({ op: 'ldi', dst: reg(args[0] ?? '', line), bits: Number(args[1]) | 0, ...(cond ? { cond } : {}) });
    }
    if (args.length < 2 || args.length > 3) throw bad(line, `'${t}': an operation takes a destination and one or two sources`);
    const a = src(args[1]!, line);
    const b = args[2] === undefined ? a : src(args[2], line);
    code.push({
      op: 'alu',
      code: name!,
      dst: reg(args[0]!, line),
      a: a.s,
      b: b.s,
      ...(cond ? { cond } : {}),
      ...(setf ? { setf } : {}),
      ...(a.rot !== undefined ? { rot: a.rot } : {}),
    });
  });
  return { code, vregs };
}

const bad = (line: number, what: string) => new CompileError(`IR line ${line}: cannot read ${what}`);
