// `qpu compile`: a kernel written in the language, from a TypeScript module, to machine code,
// with any stage of the compiler printed (docs/compiler.md).

import { compile, type Compiled, CompileError, type OptLevel, type Pass, PASSES, type Stage, STAGE_ROWS, STAGES } from '../compiler/driver.ts';
import { printKernel } from '../source/print.ts';
import { oneLineEscaped } from '../vc4/asm/text.ts';
import { programToBytes } from '../vc4/codec.ts';
import { type Command, CliError, EXIT, exitHelp, onePositional, parse, parseCount, refuseOverwrite, shown, writeOutput } from './io.ts';
import { describeUniforms } from './layout.ts';
import { chooseKernel, loadModule, oneLine } from './module.ts';

/** The compiler's passes, one a line: name, the level it is on from, what it does (driver.ts PIPELINE). */
const passList = () => PASSES.map((p) => `                        ${p.name.padEnd(10)}-O${p.level}  ${p.does}`).join('\n');
/** The compiler's stages, one a line: name, what the dump shows. */
const stageList = () => STAGE_ROWS.map((s) => `                        ${s.name.padEnd(10)}${s.shows}`).join('\n');
const PASS_NAMES: readonly string[] = PASSES.map((p) => p.name);

export const compileCommand: Command = {
  name: 'compile',
  summary: 'compile a kernel from a TypeScript module to machine code',
  help: `usage: qpu compile MODULE.ts [--kernel NAME] [--qpus N] [-O LEVEL] [--passes LIST]
                         [--dump STAGE | --explain] [-o OUT.bin]

Imports MODULE.ts (an ES module: .mts, or .ts in a package with "type": "module"), takes the
kernel it exports (kernel(...) values; name one with --kernel when there are several), compiles
it for N QPUs (default 1) and prints its assembly, or writes its machine code to OUT.bin (64-bit
words, little-endian, low word first: what qpu disasm reads).

options:
      --kernel NAME   the exported kernel (its export name or its kernel name)
      --qpus N        the number of QPUs the code is for, 1-12 (default 1)
  -O, --opt LEVEL     optimization level: 0 (no passes), 1 or 2 (the default); docs/compiler.md
      --passes LIST   passes on (NAME) or off (no-NAME) whatever the level, comma-separated;
                      with -O0, only the passes listed run (to find the pass that miscompiles
                      a kernel, add them one at a time). The passes, in the order they run:
${passList()}
      --dump STAGE    print one stage instead of the final assembly:
                        ast       the kernel as the language sees it, with your variables' names
${stageList()}
      --explain       print what the compiler did and why instead of the assembly: the
                      registers the kernel needs and where the most values are live, what
                      spilled (to VPM rows or, through DMA, to memory), each loop's load
                      pipelining or why there is none, pairing and delay slots, and
                      warnings (spills to memory on several QPUs) (docs/debugging.md)
  -o, --output FILE   write the machine code to FILE (and print only a --dump asked for);
                      FILE may not be MODULE.ts itself
  -h, --help          this text

N is a count: decimal digits only. An error thrown while MODULE.ts loads (or builds its
kernels) is reported in one line with the place in MODULE.ts it came from; an export that looks
like a kernel but was not made by kernel(...) is named. The command does not wait for timers
MODULE.ts leaves running.

${exitHelp('MODULE.ts does not load, exports no kernel, or the kernel does not\n     compile', '--kernel naming no kernel it exports is a wrong command line')}`,
  async run(args, io) {
    const { values, positionals } = parse(args, {
      kernel: { type: 'string' },
      qpus: { type: 'string' },
      opt: { type: 'string', short: 'O' },
      passes: { type: 'string' },
      dump: { type: 'string' },
      explain: { type: 'boolean' },
      output: { type: 'string', short: 'o' },
    });
    const path = onePositional(positionals, 'TypeScript module');
    const qpus = parseCount(values.qpus, 1, 1, 12, '--qpus');
    const opt = parseCount(values.opt, 2, 0, 2, '-O') as OptLevel;
    const passes = values.passes === undefined ? undefined : parsePasses(values.passes);
    const stage = values.dump ?? 'asm';
    if (stage !== 'ast' && !(STAGES as readonly string[]).includes(stage))
      throw new CliError(`--dump ${stage}: the stages are ast, ${STAGES.join(', ')}`);
    if (values.explain && values.dump !== undefined) throw new CliError('--explain or --dump: one at a time');
    if (values.output !== undefined) refuseOverwrite(path, values.output);
    const chosen = chooseKernel(await loadModule(io, path, 'compile'), path, values.kernel);

    if (stage === 'ast') {
      io.out(printKernel(chosen.ast, 'user'));
      return EXIT.OK;
    }
    const before = chosen.numQPUs;
    try {
      const c = passes ? compile(chosen.ast, { qpus, opt, passes }) : chosen.setNumQPUs(qpus).setOptLevel(opt).code();
      if (values.output !== undefined) {
        writeOutput(io, values.output, programToBytes(c.words));
        io.err(`${c.kernel}: ${c.instrs.length} instructions for ${qpus} QPU${qpus > 1 ? 's' : ''} written to ${shown(values.output)}\n`);
        io.err(describeUniforms(chosen.ast, c, values.output));
      } else if (c.scratchBytes && !values.explain)
        io.err(
          `${c.kernel} ${scratchUse(c)}: give it ${c.scratchBytes} bytes of scratch memory, cleared, ` +
            `its address as the uniform after the QPU count (docs/compiler.md, "The calling convention")\n`,
        );
      // With -o the assembly is printed only when a stage (or the explanation) is asked for.
      if (values.explain) io.out(c.explain());
      else if (values.output === undefined || values.dump !== undefined) io.out(c.dump(stage as Stage));
      return EXIT.OK;
    } catch (e) {
      if (e instanceof CompileError) throw new CliError(oneLine(e.message), EXIT.INPUT);
      throw e;
    } finally {
      chosen.setNumQPUs(before);
    }
  },
};

/** `--passes hoist,no-cse`: passes switched on (NAME) or off (no-NAME, or -NAME as in `--passes=-cse`). */
function parsePasses(list: string): Partial<Record<Pass, boolean>> {
  const out: Partial<Record<Pass, boolean>> = {};
  for (const item of list.split(',').map((x) => x.trim())) {
    const prefix = /^(no-|-)/.exec(item)?.[0] ?? '';
    const off = prefix !== '';
    const name = item.slice(prefix.length);
    if (!PASS_NAMES.includes(name))
      throw new CliError(`--passes: unknown pass '${oneLineEscaped(name)}': the passes are ${PASS_NAMES.join(', ')} (no-NAME switches one off)`);
    out[name as Pass] = !off;
  }
  return out;
}

/** What a kernel's scratch memory is for: "asserts, prints and spills registers to memory". */
function scratchUse(c: Compiled): string {
  const uses = [c.assertions.sites.length && 'asserts', c.prints.sites.length && 'prints', c.stats.spilledToMemory && 'spills registers to memory'].filter((x): x is string => !!x);
  return uses.length > 1 ? `${uses.slice(0, -1).join(', ')} and ${uses.at(-1)}` : uses[0]!;
}
