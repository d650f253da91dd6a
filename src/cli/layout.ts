// What `qpu compile -o` says about the machine code it wrote: the uniforms each QPU reads, in
// order (docs/compiler.md, "The calling convention"), and a `qpu emu` command line that runs it
// as written, with a buffer of one vector for each array and zeros for numbers.

import type { Compiled } from '../compiler/driver.ts';
import type { KernelAst } from '../source/ast.ts';
import { oneLineEscaped, showChar } from '../vc4/asm/text.ts';

const TYPE_NAMES: Readonly<Record<string, string>> = {
  int: 'Int',
  float: 'Float',
  'int*': 'Ptr(Int)',
  'float*': 'Ptr(Float)',
  'u8*': 'Ptr(Uint8)',
  'i8*': 'Ptr(Int8)',
  'u16*': 'Ptr(Uint16)',
  'i16*': 'Ptr(Int16)',
};
/** Words given to each array in the example command line, per QPU: one 16-lane vector. */
const EXAMPLE_WORDS = 16;

interface Uniform {
  /** As `qpu emu --uniforms` writes it. */
  readonly emu: string;
  readonly what: string;
}

/** A buffer name `qpu emu` takes (--buffer NAME:WORDS, @NAME) and a shell keeps as it is. */
const BUFFER_NAME = /^[A-Za-z_]\w*$/;

/**
 * The buffer names of the command line: scratch memory's (when the code spills), then each
 * array parameter's own name where it is one qpu emu takes and no other buffer has, else argN.
 */
function bufferNames(ast: KernelAst, c: Compiled): { scratch?: string; arrays: Map<number, string> } {
  const used = new Set<string>();
  const unique = (want: string, fallback: string) => {
    let name = BUFFER_NAME.test(want) && !used.has(want) ? want : fallback;
    for (let k = 2; used.has(name); k++) name = `${fallback}_${k}`;
    used.add(name);
    return name;
  };
  const arrays = new Map<number, string>();
  ast.params.forEach((p, i) => {
    if (p.ty.endsWith('*')) arrays.set(i, unique(p.name, `arg${i}`));
  });
  return { scratch: c.uniformsBeforeArgs === 3 ? unique('scratch', 'scratch') : undefined, arrays };
}

/** The uniforms each QPU of `c` reads, before and including the kernel's arguments. */
function uniforms(ast: KernelAst, c: Compiled, names: ReturnType<typeof bufferNames>): Uniform[] {
  const out: Uniform[] = [
    { emu: '%qpu', what: "the QPU's number, 0 to N-1 (me())" },
    { emu: '%qpus', what: 'N, the number of QPUs (numQPUs())' },
  ];
  if (names.scratch) out.push({ emu: `@${names.scratch}`, what: `the address of ${c.scratchBytes} bytes of scratch memory (for failure records, print logs, spilled registers), shared by the QPUs and cleared before the run` });
  ast.params.forEach((p, i) => {
    const type = TYPE_NAMES[p.ty] ?? p.ty;
    if (p.ty.endsWith('*')) out.push({ emu: `@${names.arrays.get(i)}`, what: `${p.name}: ${type}, the bus address of its array` });
    else out.push({ emu: p.ty === 'float' ? '0.0' : '0', what: `${p.name}: ${type}, ${p.ty === 'float' ? "the value's float32 bits" : 'the value'}` });
  });
  return out;
}

/** The report: the uniform layout and a ready `qpu emu` line for the code written to `bin`. */
export function describeUniforms(ast: KernelAst, c: Compiled, bin: string): string {
  const names = bufferNames(ast, c);
  const list = uniforms(ast, c, names);
  const width = Math.max(...list.map((u) => u.emu.length));
  const rows = list.map((u, i) => `  ${String(i).padStart(2)}  ${u.emu.padEnd(width)}  ${u.what}`);
  const arrays = [...names.arrays].map(([i, name]) => ({ name, float: ast.params[i]!.ty === 'float*' }));
  const buffers = [...(names.scratch ? [`--buffer ${names.scratch}:${Math.ceil(c.scratchBytes / 4)}`] : []), ...arrays.map((a) => `--buffer ${a.name}:${EXAMPLE_WORDS * c.qpus}`)];
  const dumps = arrays.map((a) => `--dump ${a.name}:${a.float ? 'f32' : 'i32'}`);
  const command = ['qpu emu', quote(bin), `--qpus ${c.qpus}`, ...buffers, `--uniforms ${list.map((u) => u.emu).join(',')}`, ...dumps, '--stats'].join(' ');
  const numbers = ast.params.filter((p) => !p.ty.endsWith('*')).map((p) => p.name);
  return (
    `each QPU reads these uniforms, in order (docs/compiler.md, "The calling convention"):\n${rows.join('\n')}\n` +
    `run it on the emulator (${arrays.length ? `each array ${EXAMPLE_WORDS * c.qpus} words (a vector a QPU), zeroed; size and fill them with --buffer NAME:WORDS=V,V,...` : 'no arrays'}` +
    `${numbers.length ? `; replace the 0 given for ${numbers.join(', ')}` : ''}):\n  ${command}\n`
  );
}

/**
 * A path as a shell word: as it is, in single quotes, or, when it holds characters a terminal
 * would obey (escape sequences, newlines), in bash's $'...' with those escaped as messages
 * escape them (text.ts), so that the line is safe to print and still names the file.
 */
function quote(path: string): string {
  if (/^[\w./@%+:,=-]+$/.test(path)) return path;
  if (oneLineEscaped(path) === path) return `'${path.replace(/'/g, `'\\''`)}'`;
  let word = '';
  for (const ch of path) {
    const shown = ch === '\\' || ch === "'" ? `\\${ch}` : showChar(ch);
    word += shown.startsWith('\\u{') ? `\\U${shown.slice(3, -1).padStart(8, '0')}` : shown; // bash spells \u{1F600} \U0001F600
  }
  return `$'${word}'`;
}
