// Launching a program the way the Pi's firmware does (mailbox "execute QPU"): each QPU gets
// the code address and the address of its own uniform stream. This file builds those streams in
// GPU memory from a list of values, buffer addresses and per-QPU numbers.

import { parseNumber } from '../vc4/asm/numbers.ts';
import { shown } from '../vc4/asm/text.ts';
import type { Allocation } from '../common/memory.ts';
import type { LoadedProgram, Machine, MachineRunOptions, RunResult } from './machine.ts';

/** One uniform: a 32-bit value, a buffer's bus address, or the QPU's number / the QPU count. */
export type UniformItem = { value: number } | { buffer: string } | { special: 'qpu' | 'qpus' };

export class LaunchError extends Error {}

/**
 * Parses a uniform list like `100,@out,%qpu,0x10,1.5`: numbers (decimal, hex, or floats, whose
 * bits are used), `@NAME` for the address of buffer NAME, `%qpu` for the QPU's number (0, 1, ...)
 * and `%qpus` for the number of QPUs.
 */
export function parseUniforms(text: string): UniformItem[] {
  if (text.trim() === '') return [];
  return text.split(',').map((raw) => {
    const s = raw.trim();
    if (s.startsWith('@')) {
      if (!/^@[A-Za-z_][\w]*$/.test(s)) throw new LaunchError(`'${s}' is not a buffer reference like @out`);
      return { buffer: s.slice(1) };
    }
    if (s === '%qpu' || s === '%qpus') return { special: s.slice(1) as 'qpu' | 'qpus' };
    // Numbers as the assembler reads them: 32-bit integers, or floats single precision holds as
    // normal numbers (an overflow or an underflow to zero or a denormal is an error, not +Inf or 0).
    const n = parseNumber(s);
    if (typeof n !== 'string') return { value: n.bits | 0 };
    if (/^-?[0-9.]/.test(s)) throw new LaunchError(n);
    throw new LaunchError(`${shown(s)} is not a uniform: use numbers, @BUFFER, %qpu or %qpus`);
  });
}

export interface Launch {
  readonly program: LoadedProgram;
  readonly qpus: number;
  /** One list for every QPU, or one list per QPU. */
  readonly uniforms: readonly (readonly UniformItem[])[];
  readonly buffers: ReadonlyMap<string, Allocation>;
}

/** Writes each QPU's uniform stream into GPU memory and runs the program. */
export function launch(m: Machine, l: Launch, opts: MachineRunOptions = {}): RunResult {
  if (l.uniforms.length > 1 && l.uniforms.length !== l.qpus)
    throw new LaunchError(`${l.uniforms.length} uniform lists for ${l.qpus} QPUs: give one list for all, or one per QPU`);
  const addrs: number[] = [];
  for (let q = 0; q < l.qpus; q++) {
    const list = l.uniforms.length ? l.uniforms[Math.min(q, l.uniforms.length - 1)]! : [];
    const words = list.map((u) => {
      if ('value' in u) return u.value;
      if ('special' in u) return u.special === 'qpu' ? q : l.qpus;
      const b = l.buffers.get(u.buffer);
      if (!b) throw new LaunchError(`@${u.buffer} names no buffer (the buffers are: ${[...l.buffers.keys()].join(', ') || 'none'})`);
      return b.address | 0;
    });
    const a = m.memory.alloc(Math.max(4, words.length * 4), `uniforms of QPU ${q}`);
    words.forEach((w, i) => m.memory.writeWord(a.address + 4 * i, w));
    addrs.push(a.address);
  }
  return m.run(l.program, addrs, opts);
}
