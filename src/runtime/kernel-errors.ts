// An emulator error in a compiled kernel, told in the kernel's terms: the kernel's name, the
// statement the failing instruction was compiled from (file:line:col and the statement as the
// user wrote it), the user's variable names, and what a broken rule means in a kernel.

import { BARRIER_SEMAPHORE } from '../source/ast.ts';
import type { Compiled } from '../compiler/driver.ts';
import { EmulatorError } from '../emulator/errors.ts';
import { accessesMemory, type KernelAst } from '../source/ast.ts';
import { messagePrinter } from '../source/print.ts';
import { GATHER_AFTER_STORE_HINT, STREAM_AFTER_STORE_HINT } from '../vc4/rules.ts';

/**
 * An emulator error in a compiled kernel, with the kernel and the statement the failing
 * instruction was compiled from (file:line:col and the statement as text) added.
 */
export function inKernel(ast: KernelAst, c: Compiled, e: EmulatorError): EmulatorError {
  const printer = messagePrinter(ast);
  const statement = (pc: number, memory = false): string => {
    // An instruction can hold two statements' work (paired): a memory fault is the one that accesses memory.
    const paired = c.pairedStatements[pc];
    const s = memory && paired && accessesMemory(paired) && !accessesMemory(c.statements[pc] ?? paired) ? paired : c.statements[pc];
    return s ? `in ${s.loc ? s.loc + ' ' : ''}\`${printer.brief(s.shows ?? s)}\`` : '';
  };
  if (e.kind === 'deadlock' && e.blocked) {
    const waits = e.blocked.map((b) => ({
      qpu: b.qpu,
      // The compiler's end-of-kernel barrier (docs/compiler.md), not the user's.
      text: b.semaphore === BARRIER_SEMAPHORE && !c.statements[b.pc]
        ? `QPU ${b.qpu} has finished the kernel and waits for every other QPU to finish it`
        : `QPU ${b.qpu} ${statement(b.pc) || `at pc ${b.pc}`} waits for ${b.waitingFor}`,
    }));
    // Every QPU in order, as the interpreter lists them: those that ended too.
    for (const q of e.finished ?? []) waits.push({ qpu: q, text: `QPU ${q} has finished the kernel` });
    waits.sort((a, b) => a.qpu - b.qpu);
    const text = waits.map((w) => w.text).join('; ');
    return new EmulatorError('deadlock', `kernel ${ast.name}: deadlock: every QPU still running waits on another: ${text}`, undefined, undefined, e.blocked, e.finished);
  }
  const stmt = e.where ? statement(e.where.pc, e.kind === 'fault' || MEMORY_RULES.test(e.rule ?? '')) : '';
  const out = new EmulatorError(e.kind, `kernel ${ast.name}${stmt ? ' ' + stmt : ''}: ${e.message}${KERNEL_HINTS[e.rule ?? ''] ?? ''}`, undefined, e.rule);
  Object.defineProperty(out, 'where', { value: e.where });
  return out;
}

/** Rules about memory requests (rules.ts): their statement is the one that reads or writes memory. */
const MEMORY_RULES = /^(dma|tmu|vpm|stream)-|race/;

/**
 * What a broken rule usually means in a compiled kernel, where the rule's own advice (in terms
 * of machine code) does not help: two QPUs' DMA on the same memory is a kernel that gives every
 * QPU the same elements to work on.
 */
const KERNEL_HINTS: Readonly<Record<string, string>> = {
  'gather-after-store': GATHER_AFTER_STORE_HINT,
  'stream-after-store': STREAM_AFTER_STORE_HINT,
  'dma-store-race': `; in a kernel this means two QPUs store to, or one loads from, the same memory in one run: give each QPU its own part of the arrays (me(), numQPUs()), or run the kernel on one QPU`,
};
