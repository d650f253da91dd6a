// Spacing (src/compiler/space.ts) and the final assertion (assert-rules.ts): nops for latencies on
// every path, in the place each path needs them, and a hard stop on anything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { disassembleInstr } from '../../src/vc4/asm/disasm.ts';
import type { AsmLine } from '../../src/compiler/emit.ts';
import { spaceForRules } from '../../src/compiler/space.ts';
import { assertRules } from '../../src/compiler/assert-rules.ts';
import { CompileError } from '../../src/compiler/driver.ts';

/** Assembly as compiler lines: labels as their own lines, branches aimed at theirs. */
function lines(src: string): AsmLine[] {
  const p = assemble(src);
  const at = new Map([...p.labels].map(([name, i]) => [i, name]));
  const targets = [...src.matchAll(/brr[.a-z]* -, (\w+)/g)].map((m) => m[1]!);
  const out: AsmLine[] = [];
  p.instrs.forEach((instr, i) => {
    if (at.has(i)) out.push({ label: at.get(i)! });
    out.push(instr.kind === 'branch' ? { instr, target: targets.shift()! } : { instr });
  });
  return out;
}
const text = (ls: readonly AsmLine[]) => ls.map((l) => ('label' in l ? `${l.label}:` : disassembleInstr(l.instr).replace(/brr(\.\w+)? -?\d+/, 'brr$1')));

test('a latency broken only by falling through gets its nop before the label; one broken by a branch, after it', () => {
  // Falling into the loop reads ra1 right after its write: the nop goes before `top`, so the
  // back edge (whose last delay slot writes nothing) does not pay for it.
  const fall = spaceForRules(lines('mov ra1, 1\ntop: add rb2, ra1, 1\nmov.setf nop, rb3\nbrr.anyz -, top\nnop\nnop\nnop\nnop.tend\nnop\nnop'), 'k');
  assert.deepEqual(text(fall.lines).slice(0, 4), ['mov ra1, 1', 'nop', 'top:', 'add rb2, ra1, 1']);
  assert.equal(fall.nops, 1);
  // The back edge's last delay slot writes ra1: every path into `top` gets the nop.
  const back = spaceForRules(lines('mov rb5, 1\ntop: add rb2, ra1, 1\nmov.setf nop, rb3\nbrr.anyz -, top\nnop\nnop\nmov ra1, 2\nnop.tend\nnop\nnop'), 'k');
  assert.deepEqual(text(back.lines).slice(0, 4), ['mov rb5, 1', 'top:', 'nop', 'add rb2, ra1, 1']);
  // Either way the validator then finds nothing.
  assertRules(fall.lines, 'k');
  assertRules(back.lines, 'k');
});

test('the final assertion stops a program that breaks a rule spacing cannot cure', () => {
  // Two TMU loads with one request outstanding: no nop helps, the compiler must never emit it.
  const bad = lines('mov tmu0_s, ra1\nnop.ldtmu0\nnop.ldtmu0\nnop.tend\nnop\nnop');
  assert.throws(() => assertRules(spaceForRules(bad, 'k').lines, 'k'), (e: unknown) => e instanceof CompileError && /kernel k: internal compiler error: the code breaks a hardware rule: .*ldtmu0 with no request outstanding/.test(e.message));
});
