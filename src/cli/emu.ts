// `qpu emu`: run machine code on the emulator.

import { disassembleInstr } from '../vc4/asm/disasm.ts';
import { BAR_AFTER_MS, formatSeconds, type ProgressBar, progressBar } from '../runtime/progress.ts';
import { timingFor } from '../emulator/timing.ts';
import { DEFAULT_MODEL, PI_MODELS, type PiModelName } from '../emulator/models.ts';
import { DEFAULT_SECONDS, EMULATOR_STEPS } from '../common/budget.ts';
import { EmulatorError } from '../emulator/errors.ts';
import { launch, LaunchError } from '../emulator/launch.ts';
import { Machine } from '../emulator/machine.ts';
import { MAX_QPUS } from '../vc4/chip.ts';
import { MAX_SEED } from '../common/interleave.ts';
import { type Allocation, footprint, GpuMemory, MemoryFault, PAGE } from '../common/memory.ts';
import { listing } from '../emulator/blocks.ts';
import { forgetTranslations } from '../emulator/program.ts';
import { formatStats } from '../emulator/report.ts';
import { listings } from '../emulator/wasm/encoder.ts';
import { VpmFormatError } from '../emulator/vpm.ts';
import { type Command, CliError, EXIT, exitHelp, formatBytes, onePositional, parse, parseCount, piModelOption, sfuMode, shown, SYNTAX_OPTION, syntaxOf } from './io.ts';
import { writeDump } from './dump.ts';
import { allocBuffers, type BufferSpec, LAUNCH_OPTIONS, parseBuffers, parseDumps, parseUniformLists, readRunnable } from './launch-args.ts';

/** The GPU memory the emulator gives a run (GpuMemory's default size). */
const MEMORY_BYTES = new GpuMemory().maxBytes;

export const emuCommand: Command = {
  name: 'emu',
  summary: 'run machine code on the emulator',
  help: `usage: qpu emu PROG.bin [--qpus N] [--buffer NAME:WORDS[=V,V,...]|NAME:[WORDS]@FILE] ...
                    [--uniforms LIST] ... [--dump NAME[:FORMAT]] ... [--stats] [--model M] [--trace]
                    [--max-steps N] [--no-strict] [--interleave SEED] [--sfu MODE]
                    [--dump-js] [--dump-wasm]

Runs PROG.bin (or PROG.qasm, assembled first) on N emulated QPUs (1-${MAX_QPUS}, default 1), all
starting at the first instruction, until every one has ended its program. PROG.bin must hold at
least one instruction (8 bytes each).

options:
  --qpus N             how many QPUs run the program
  --buffer NAME:WORDS  allocate a buffer of WORDS 32-bit words in GPU memory, zeroed, or
                       filled from the start with the values after '=' (numbers as in --uniforms)
  --buffer NAME:@FILE  a buffer holding FILE's bytes as they are (little-endian words), as many
                       words as FILE has, a partial last word completed with zero bytes;
                       NAME:WORDS@FILE makes it WORDS words, zeros after FILE. FILE must be a
                       regular file (not a FIFO or a device) that fits
  --uniforms LIST      the uniforms, comma-separated: numbers (decimal, 0x hex, or floats such
                       as 1.5, whose bits are used), @NAME for a buffer's bus address, %qpu for
                       the QPU's number and %qpus for the number of QPUs. Given once, every QPU
                       gets the same list; given N times, QPU i gets the i-th list
  --dump NAME[:FORMAT] after the run, print the buffer's 32-bit words, 8 a line, as FORMAT:
                       hex (the default), i32 (signed), u32 (unsigned) or f32 (floats,
                       each as the shortest decimal that reads back to the same bits)
  --stats              print the cycle model's figures per QPU and the estimated Pi time
  --model M            the Pi whose time the cycle model estimates: zero, 1, 2, 3, 3b+ or
                       zero2 (default 1; docs/timing.md, "Each Pi model")
  --trace              print each executed instruction with its QPU and pc
  --max-steps N        stop after N instructions in total (default ${EMULATOR_STEPS}, or
                       ${DEFAULT_SECONDS} s of running, whichever comes first)
  --no-strict          do not stop at broken hardware rules
  --interleave SEED    run the QPUs in a random interleaving drawn from SEED (0 to ${MAX_SEED})
  --sfu MODE           the SFU's results: exact (the default) or chip (off as a chip's are)
                       instead of in time order, to show races (docs/emulator.md); the same
                       seed runs the same way
  --dump-js            after the run, print the JavaScript each translated block of the
                       program became, each instruction's part headed by its assembly
                       (docs/emulator.md, "How it runs")
  --dump-wasm          after the run, print the WebAssembly SIMD functions that run the
                       blocks' lane arithmetic, as text, an operation a line
  --syntax S           PROG is assembly in this dialect, whatever its name: qpu-ts (the
                       default for .qasm, .asm and .s) or series (docs/asm.md)
  -h, --help           this text

N and WORDS are counts: decimal digits only. The buffers, the program and each QPU's uniforms
share the emulator's ${formatBytes(MEMORY_BYTES)} of GPU memory; each takes whole 4 KiB pages and a 4 KiB
guard page after it. A run that cannot fit is refused before it starts.

${exitHelp('PROG has errors, no instructions or a partial one, or the run stops\n     at an error (a broken rule, a memory fault, a deadlock, the step budget)', 'buffers that do not fit in GPU memory are a wrong command line')}
example (the SHA-256 series' hello world):
  qpu emu hello.bin --uniforms 100,@out --buffer out:16 --dump out
`,
  async run(args, io) {
    const { values, positionals } = parse(args, {
      ...LAUNCH_OPTIONS,
      'dump-js': { type: 'boolean' },
      'dump-wasm': { type: 'boolean' },
      trace: { type: 'boolean' },
      'max-steps': { type: 'string' },
      'no-strict': { type: 'boolean' },
      interleave: { type: 'string' },
      sfu: { type: 'string' },
      ...SYNTAX_OPTION,
    });
    const path = onePositional(positionals, 'program');
    syntaxOf(values.syntax); // a wrong --syntax is refused before anything else

    // The whole command line first: nothing is read or allocated before it is known to be right.
    const qpus = parseCount(values.qpus, 1, 1, MAX_QPUS, '--qpus');
    const model = piModelOption(values.model);
    // Without --max-steps, the emulator's defaults apply: its step budget and its time limit.
    const maxSteps = values['max-steps'] === undefined ? undefined : parseCount(values['max-steps'], EMULATOR_STEPS, 1, Number.MAX_SAFE_INTEGER, '--max-steps');
    const interleave = values.interleave === undefined ? undefined : parseCount(values.interleave, 0, 0, MAX_SEED, '--interleave');
    const specs = parseBuffers(values.buffer, MEMORY_BYTES);
    const uniforms = parseUniformLists(values.uniforms, qpus, specs);
    const dumps = parseDumps(values.dump, specs);
    const program = readRunnable(io, path, values.syntax, 'emu');
    if (typeof program === 'number') return program;

    const uniformWords = Array.from({ length: qpus }, (_, q) => (uniforms.length ? uniforms[Math.min(q, uniforms.length - 1)]!.length : 0));
    checkMemory(path, program.length / 2, specs, uniformWords);

    // Listings (the SIMD functions' text, each instruction's assembly in the JavaScript) cost
    // translation time: kept only when asked for, in a translation made for this run.
    listings.on = !!values['dump-wasm'] || !!values['dump-js'];
    if (listings.on) forgetTranslations();
    const m = new Machine(new GpuMemory(MEMORY_BYTES));
    let loaded;
    try {
      loaded = m.load(program);
    } catch (e) {
      throw oneLine(e, `${path}: `, EXIT.INPUT);
    }
    let buffers: Map<string, Allocation>;
    try {
      buffers = allocBuffers(m.memory, specs);
    } catch (e) {
      throw oneLine(e, '', EXIT.USAGE);
    }

    const trace = values.trace
      ? (qpu: number, pc: number) => io.out(`qpu ${String(qpu).padStart(2)}  pc ${String(pc).padStart(4)}  ${disassembleInstr(loaded.instrs[pc]!)}\n`)
      : undefined;
    let result;
    const bar = runBar(path, maxSteps ?? EMULATOR_STEPS, model);
    try {
      result = launch(m, { program: loaded, qpus, uniforms, buffers }, { strict: !values['no-strict'], maxSteps, trace, onProgress: trace ? undefined : bar.onProgress, interleave, sfu: sfuMode(values.sfu), model });
    } catch (e) {
      // LaunchErrors are about the command line (uniform lists); the rest about the program's run.
      const err = oneLine(e, '', e instanceof LaunchError || e instanceof RangeError ? EXIT.USAGE : EXIT.INPUT);
      if (err instanceof CliError && e instanceof EmulatorError && e.kind === 'fault' && /uniform read at/.test(e.message))
        err.message += `: the program reads more uniforms than --uniforms gave QPU ${e.where?.qpu ?? 0} (${uniformWords[e.where?.qpu ?? 0]}); qpu compile -o prints the uniforms a compiled kernel reads`;
      throw err;
    } finally {
      bar.stop();
    }
    for (const d of dumps) {
      const a = buffers.get(d.name)!;
      await writeDump(io, d, a.address, m.memory.view(a, Int32Array));
    }
    if (values.stats) io.out(formatStats(result));
    const blocks = values['no-strict'] ? loaded.blocks.loose : loaded.blocks.strict;
    if (values['dump-js']) io.out(listing(blocks, 'js'));
    if (values['dump-wasm']) io.out(listing(blocks, 'wasm') || '(no block of this run had lane arithmetic for SIMD)\n');
    return EXIT.OK;
  },
};

/**
 * A progress bar for a long run, on a terminal: instructions against the step budget and the
 * estimated Pi time so far, drawn once the run has taken BAR_AFTER_MS.
 */
function runBar(path: string, budget: number, model: PiModelName = DEFAULT_MODEL): { onProgress(instructions: number, cycles: number): void; stop(): void } {
  const start = performance.now();
  let bar: ProgressBar | undefined;
  return {
    onProgress(instructions, cycles) {
      if (!bar && performance.now() - start < BAR_AFTER_MS) return;
      bar ??= progressBar(shown(path), budget, { unit: 'instructions' });
      bar.update(instructions, `${formatSeconds(cycles / timingFor(model).clockHz)} on a ${PI_MODELS[model].short} so far`);
    },
    stop: () => bar?.stop(),
  };
}

/**
 * An error the emulator raises for what it was given (EmulatorError, LaunchError, MemoryFault,
 * VpmFormatError, GpuMemoryFull, or the RangeError of a bad step budget) as a one-line
 * CliError with this status. Anything else is a bug in qpu-ts and is returned as it is, to be
 * reported with its stack; so is a RangeError from the JavaScript engine's own stack overflow.
 */
function oneLine(e: unknown, prefix: string, status: number): unknown {
  const known =
    e instanceof EmulatorError ||
    e instanceof LaunchError ||
    e instanceof MemoryFault ||
    e instanceof VpmFormatError ||
    (e instanceof RangeError && !/call stack/i.test(e.message));
  if (!known) return e;
  return new CliError(prefix + (e as Error).message.split('\n').join(' '), status);
}

/**
 * Refuses a run whose program, buffers and uniforms cannot all be allocated, naming what
 * takes the memory. A program too big on its own is the input's fault; buffers the command line's.
 */
function checkMemory(path: string, instrs: number, specs: readonly BufferSpec[], uniformWords: readonly number[]): void {
  const code = footprint(Math.max(8, instrs * 8));
  const unifs = uniformWords.reduce((t, n) => t + footprint(Math.max(4, n * 4)), 0);
  if (code + unifs > MEMORY_BYTES)
    throw new CliError(`${path}: ${instrs} instructions (${formatBytes(instrs * 8)}) do not fit in the emulator's ${formatBytes(MEMORY_BYTES)} of GPU memory`, EXIT.INPUT);
  const bufs = specs.reduce((t, s) => t + footprint(s.words * 4), 0);
  if (code + unifs + bufs <= MEMORY_BYTES) return;
  const list = specs.map((s) => `${s.name} ${s.words} words (${formatBytes(s.words * 4)})`).join(', ');
  const alone = (MEMORY_BYTES - code - unifs - PAGE) / 4;
  throw new CliError(
    `the buffers do not fit in the emulator's ${formatBytes(MEMORY_BYTES)} of GPU memory: ${list} ` +
      `need ${code + unifs + bufs} bytes (${formatBytes(code + unifs + bufs)}) with the program (${formatBytes(instrs * 8)}) and the uniforms, ` +
      `each allocation taking whole 4 KiB pages and a 4 KiB guard page; one buffer alone could have at most ${alone} words`,
  );
}
