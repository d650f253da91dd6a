// The IR verifier: what every pass between lowering and register allocation must leave true.
// compile() runs it after each IR pass when asked (`verify: true`, as the differential tests
// and `npm run fuzz` do), so that a pass that breaks the IR is named at once, not found later
// as wrong results.
// Needs: IR. Guarantees: a CompileError naming the pass, the instruction and the broken rule,
// or nothing. The rules: labels are unique and every branch's target exists; every branch is
// followed by its 3 delay-slot nops and the end comes last; an ALU instruction reads at most
// one distinct small immediate; every virtual register is below the count; and no virtual
// register is read before it is written on some path (none is live where the kernel starts).

import { CompileError } from './errors.ts';
import { def, type IrInstr, irText, uses } from './ir.ts';
import { liveness, walkLive } from './liveness.ts';

export function verifyIr(code: readonly IrInstr[], nregs: number, after: string): void {
  const fail = (k: number, why: string) =>
    new CompileError(`internal compiler error: the IR after ${after} breaks a rule at instruction ${k} (${k < code.length ? irText(code[k]!) : 'the end'}): ${why}`);
  const labels = new Set<string>();
  code.forEach((i, k) => {
    if (i.op !== 'label') return;
    if (labels.has(i.name)) throw fail(k, `label ${i.name} is defined twice`);
    labels.add(i.name);
  });
  code.forEach((i, k) => {
    if (i.op === 'branch') {
      if (!labels.has(i.label)) throw fail(k, `the branch's target ${i.label} is not defined`);
      for (let j = 1; j <= 3; j++) if (code[k + j]?.op !== 'nop') throw fail(k, `delay slot ${j} is not a nop`);
    }
    if (i.op === 'alu') {
      const imms = new Set([i.a, i.b].flatMap((s) => (s.k === 'imm' ? [s.code] : [])));
      if (imms.size > 1) throw fail(k, 'two different small immediates');
    }
    for (const r of [...uses(i), ...('dst' in i && i.dst.k === 'v' ? [i.dst] : [])])
      if (r.id < 0 || r.id >= nregs) throw fail(k, `%${r.id} is not a virtual register (there are ${nregs})`);
  });
  // After the end, only functions' bodies (lower-funcs.ts), each entered by a call.
  const end = code.findIndex((i) => i.op === 'end');
  const called = new Set(code.flatMap((i) => (i.op === 'branch' && i.link ? [i.label] : [])));
  const next = code[end + 1];
  if (end < 0 || (next && !(next.op === 'label' && called.has(next.name))))
    throw fail(end < 0 ? code.length : end, 'the program end is not the last instruction, nor followed by a function called');
  // Live where the kernel starts: read on some path before any write.
  walkLive(liveness(code, nregs), (k, live) => {
    if (k !== 0) return;
    const set = new Set(live.dense.subarray(0, live.size));
    const d = def(code[0]!);
    if (d) set.delete(d.id);
    for (const u of uses(code[0]!)) set.add(u.id);
    if (set.size) throw fail(0, `%${[...set][0]} is read before it is written`);
  });
}
