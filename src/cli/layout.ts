// What `qpu compile -o` says about the machine code it wrote: the uniforms each QPU reads, in
// order (docs/compiler.md, "The calling convention"), and a `qpu emu` command line that runs it
// as written, with a buffer of one vector for each array and zeros for numbers.

import type { Compiled } from '../compiler/compile.ts';
import type { KernelAst } from '../source/ast.ts';

const TYPE_NAMES: Readonly<Record<string, string>> = { int: 'Int', float: 'Float', 'int*': 'Ptr(Int)', 'float*': 'Ptr(Float)' };
/** Words given to each array in the example command line: one 16-lane vector. */
const EXAMPLE_WORDS = 16;

interface Uniform {
  /** As `qpu emu --uniforms` writes it. */
  readonly emu: string;
  readonly what: string;
}

/** The uniforms each QPU of `c` reads, before and including the kernel's arguments. */
function uniforms(ast: KernelAst, c: Compiled): Uniform[] {
  const out: Uniform[] = [
    { emu: '%qpu', what: "the QPU's number, 0 to N-1 (me())" },
    { emu: '%qpus', what: 'N, the number of QPUs (numQPUs())' },
  ];
  if (c.uniformsBeforeArgs === 3) out.push({ emu: '@scratch', what: `the address of ${c.scratchBytes} bytes of scratch memory for spilled registers, shared by the QPUs` });
  for (const p of ast.params) {
    const type = TYPE_NAMES[p.ty] ?? p.ty;
    if (p.ty.endsWith('*')) out.push({ emu: `@${p.name}`, what: `${p.name}: ${type}, the bus address of its array` });
    else out.push({ emu: p.ty === 'float' ? '0.0' : '0', what: `${p.name}: ${type}, ${p.ty === 'float' ? "the value's float32 bits" : 'the value'}` });
  }
  return out;
}

/** The report: the uniform layout and a ready `qpu emu` line for the code written to `bin`. */
export function describeUniforms(ast: KernelAst, c: Compiled, bin: string): string {
  const list = uniforms(ast, c);
  const width = Math.max(...list.map((u) => u.emu.length));
  const rows = list.map((u, i) => `  ${String(i).padStart(2)}  ${u.emu.padEnd(width)}  ${u.what}`);
  const arrays = ast.params.filter((p) => p.ty.endsWith('*'));
  const buffers = [
    ...(c.uniformsBeforeArgs === 3 ? [`--buffer scratch:${Math.ceil(c.scratchBytes / 4)}`] : []),
    ...arrays.map((p) => `--buffer ${p.name}:${EXAMPLE_WORDS}`),
  ];
  const dumps = arrays.map((p) => `--dump ${p.name}:${p.ty === 'float*' ? 'f32' : 'i32'}`);
  const command = ['qpu emu', quote(bin), `--qpus ${c.qpus}`, ...buffers, `--uniforms ${list.map((u) => u.emu).join(',')}`, ...dumps, '--stats'].join(' ');
  const numbers = ast.params.filter((p) => !p.ty.endsWith('*')).map((p) => p.name);
  return (
    `each QPU reads these uniforms, in order (docs/compiler.md, "The calling convention"):\n${rows.join('\n')}\n` +
    `run it on the emulator (${arrays.length ? `each array ${EXAMPLE_WORDS} words, zeroed; fill one with --buffer NAME:WORDS=V,V,...` : 'no arrays'}` +
    `${numbers.length ? `; replace the 0 given for ${numbers.join(', ')}` : ''}):\n  ${command}\n`
  );
}

/** A path as a shell word. */
function quote(path: string): string {
  return /^[\w./@%+:,=-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
