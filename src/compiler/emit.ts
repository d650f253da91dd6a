// Emission: allocated IR to assembly lines, one machine instruction each. Needs: IR whose
// virtual registers all have a placement (regalloc.ts). Guarantees: every instruction reads at
// most one regfile-A and one regfile-B address, counting a small immediate as a B read (Guide
// p. 17, p. 29): where an instruction's two operands would need the same file, the first is
// copied to accumulator r0 by an instruction of its own just before; so is a rotation's input
// that is not in r0-r3 (only those rotate across all 16 lanes, Guide p. 20). Program end gets its two
// delay slots. The result is a list of assembly lines (docs/asm.md) and labels.

import { lookupSource } from '../vc4/asm/names.ts';
import { type IrInstr, irText, p, type Src } from './ir.ts';
import { type Placement, placeName } from './regalloc.ts';
import type { Stmt } from '../source/ast.ts';

/** A line of the emitted program: a label, or one instruction in assembly syntax. */
export type AsmLine =
  | { readonly label: string }
  | {
      readonly text: string;
      /** A branch's target label. */
      readonly target?: string;
      /** The kernel statement the instruction comes from. */
      readonly stmt?: Stmt;
    };

/** Where a source is read: a regfile port and address, an accumulator, or either file. */
type Port = { file: 'a' | 'b'; addr: number | 'imm' } | { file: 'either'; addr: number } | undefined;

function portOf(s: Src): Port {
  if (s.k === 'imm') return { file: 'b', addr: 'imm' };
  if (s.k === 'v') throw new Error('internal: unallocated register in emit');
  const m = /^r([ab])(\d+)$/.exec(s.name);
  if (m) return { file: m[1] as 'a' | 'b', addr: Number(m[2]) };
  const r = lookupSource(s.name);
  if (!r || r.kind === 'acc') return undefined;
  return { file: r.file, addr: r.addr };
}

/** Whether two sources can be read in one instruction. */
export function portsFit(a: Src, b: Src): boolean {
  const x = portOf(a);
  const y = portOf(b);
  if (!x || !y) return true;
  if (x.addr === y.addr && (x.file === y.file || x.file === 'either' || y.file === 'either')) return true;
  if (x.file === 'either' || y.file === 'either') return true;
  if (x.file !== y.file) return true;
  return false;
}

export function emit(code: readonly IrInstr[], place: readonly (Placement | undefined)[]): AsmLine[] {
  const phys = (s: Src): Src => {
    if (s.k !== 'v') return s;
    const pl = place[s.id];
    if (!pl) throw new Error(`internal: %${s.id} has no register`);
    return p(placeName(pl));
  };
  const out: AsmLine[] = [];
  for (const i of code) {
    const stmt = i.stmt;
    switch (i.op) {
      case 'label':
        out.push({ label: i.name });
        break;
      case 'end':
        out.push({ text: 'nop.tend', stmt }, { text: 'nop', stmt }, { text: 'nop', stmt });
        break;
      case 'ldi':
        out.push({ text: irText({ ...i, dst: phys(i.dst) as typeof i.dst }), stmt });
        break;
      case 'alu': {
        let a = phys(i.a);
        const b = phys(i.b);
        const same = srcKey(i.a) === srcKey(i.b);
        if (i.rot !== undefined && !(a.k === 'p' && ROTATABLE.has(a.name))) {
          // A rotation across all 16 lanes reads r0-r3 (Guide p. 20).
          out.push({ text: `mov r0, ${srcText(a)}`, stmt });
          a = p('r0');
        } else if (!same && !portsFit(a, b)) {
          out.push({ text: `mov r0, ${srcText(a)}`, stmt });
          a = p('r0');
        }
        out.push({ text: irText({ ...i, dst: phys(i.dst) as typeof i.dst, a, b: same ? a : b }), stmt });
        break;
      }
      case 'branch':
        out.push({ text: irText(i), target: i.label, stmt });
        break;
      default:
        out.push({ text: irText(i), stmt });
    }
  }
  return out;
}

/** The accumulators a rotation reads across all 16 lanes. */
const ROTATABLE: ReadonlySet<string> = new Set(['r0', 'r1', 'r2', 'r3']);

const srcKey = (s: Src) => (s.k === 'v' ? `%${s.id}` : s.k === 'p' ? s.name : `#${s.text}`);
const srcText = (s: Src) => (s.k === 'p' ? s.name : s.k === 'imm' ? s.text : `%${s.id}`);

/** The lines as an assembly program. */
export function asmText(lines: readonly AsmLine[]): string {
  return lines.map((l) => ('label' in l ? `${l.label}:` : `    ${l.text}`)).join('\n') + '\n';
}
