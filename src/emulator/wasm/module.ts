// The SIMD functions of one translated block, as one WebAssembly module over the register
// memory (slots.ts): blocks.ts adds a function per run of lane arithmetic and calls it from the
// block's JavaScript as `W.lanes_<pc>(q.base, q.id)`.
// Needs: runs of instructions lanes.ts supports. Guarantees: after `instantiate`, `W` holds every
// function added, compiled by V8 (validated when the module is made).

import type { Instr } from '../../vc4/instr.ts';
import { encodeModule, FunctionBuilder } from './encoder.ts';
import { emitLanes, FIX_IMPORT, fixRareLanes } from './lanes.ts';
import { registerMemory } from './slots.ts';

let words = new Int32Array(registerMemory.buffer);
/** The fix import: recomputes rare float lanes with arith.ts (the memory may have grown since the last call). */
function fix(base: number, op: number): void {
  if (words.buffer !== registerMemory.buffer) words = new Int32Array(registerMemory.buffer);
  fixRareLanes(words, base, op);
}

export class LaneModule {
  private readonly funcs: FunctionBuilder[] = [];

  /** Adds the function for instructions `instrs` starting at `pc`; returns the JavaScript that calls it. */
  add(instrs: readonly Instr[], pc: number): string {
    const f = new FunctionBuilder(`lanes_${pc}`, [
      { name: 'base', type: 'i32' },
      { name: 'qpu', type: 'i32' },
    ]);
    emitLanes(f, instrs, pc);
    this.funcs.push(f);
    return `W.${f.name}(q.base, q.id);`;
  }

  get empty(): boolean {
    return this.funcs.length === 0;
  }

  /** The module's functions, callable from JavaScript. */
  instantiate(): Record<string, (base: number, qpu: number) => void> {
    const bytes = encodeModule([FIX_IMPORT], this.funcs);
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { js: { memory: registerMemory, fix } });
    return instance.exports as Record<string, (base: number, qpu: number) => void>;
  }

  /** The functions as text (`qpu emu --dump-wasm`). */
  text(): string {
    return this.funcs.map((f) => f.text()).join('\n\n');
  }
}
