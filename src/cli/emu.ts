// `qpu emu`: run machine code on the emulator.

import { disassembleInstr } from '../vc4/asm/disasm.ts';
import { AsmError, assemble } from '../vc4/asm/assembler.ts';
import { EmulatorError } from '../emulator/errors.ts';
import { launch, LaunchError, parseUniforms, type UniformItem } from '../emulator/launch.ts';
import { Machine, MAX_QPUS } from '../emulator/machine.ts';
import { type Allocation, GpuMemory, hex } from '../emulator/memory.ts';
import { formatStats } from '../emulator/report.ts';
import { type Command, CliError, onePositional, parse, readInput } from './io.ts';
import { readProgram } from './disasm.ts';

export const emuCommand: Command = {
  name: 'emu',
  summary: 'run machine code on the emulator',
  help: `usage: qpu emu PROG.bin [--qpus N] [--buffer NAME:WORDS[=V,V,...]] ... [--uniforms LIST] ...
                    [--dump NAME] ... [--stats] [--trace] [--max-steps N] [--no-strict]

Runs PROG.bin (or PROG.qasm, assembled first) on N emulated QPUs (1-${MAX_QPUS}, default 1), all
starting at the first instruction, until every one has ended its program.

options:
  --qpus N             how many QPUs run the program
  --buffer NAME:WORDS  allocate a buffer of WORDS 32-bit words in GPU memory, zeroed, or
                       filled from the start with the values after '='
  --uniforms LIST      the uniforms, comma-separated: numbers (decimal, 0x hex, or floats such
                       as 1.5, whose bits are used), @NAME for a buffer's bus address, %qpu for
                       the QPU's number and %qpus for the number of QPUs. Given once, every QPU
                       gets the same list; given N times, QPU i gets the i-th list
  --dump NAME          after the run, print the buffer as 32-bit hex words
  --stats              print the cycle model's figures per QPU and the estimated Pi time
  --trace              print each executed instruction with its QPU and pc
  --max-steps N        stop after N instructions in total (default 200000000)
  --no-strict          do not stop at broken hardware rules
  -h, --help           this text

example (the SHA-256 series' hello world):
  qpu emu hello.bin --uniforms 100,@out --buffer out:16 --dump out
`,
  run(args, io) {
    const { values, positionals } = parse(args, {
      qpus: { type: 'string' },
      buffer: { type: 'string', multiple: true },
      uniforms: { type: 'string', multiple: true },
      dump: { type: 'string', multiple: true },
      stats: { type: 'boolean' },
      trace: { type: 'boolean' },
      'max-steps': { type: 'string' },
      'no-strict': { type: 'boolean' },
    });
    const path = onePositional(positionals, 'program');
    const qpus = intOption(values.qpus ?? '1', '--qpus', 1, MAX_QPUS);
    const maxSteps = values['max-steps'] === undefined ? undefined : intOption(values['max-steps'], '--max-steps', 1, 2 ** 53);

    let program: Uint32Array;
    if (/\.(qasm|asm|s)$/i.test(path)) {
      try {
        program = assemble(new TextDecoder().decode(readInput(io, path)), { file: path }).words;
      } catch (e) {
        if (e instanceof AsmError) throw new CliError(e.message, 1);
        throw e;
      }
    } else program = readProgram(io, path);

    const m = new Machine(new GpuMemory());
    const loaded = m.load(program);
    const buffers = new Map<string, Allocation>();
    for (const spec of values.buffer ?? []) {
      const match = /^([A-Za-z_]\w*):(\d+)(?:=(.*))?$/.exec(spec);
      if (!match) throw new CliError(`--buffer ${spec}: write NAME:WORDS or NAME:WORDS=V,V,...`);
      const [, name, words, init] = match;
      if (buffers.has(name!)) throw new CliError(`--buffer ${name} is given twice`);
      const count = intOption(words!, `--buffer ${name}`, 1, 1 << 26);
      const a = m.memory.alloc(count * 4, name);
      const init_ = init ? parseList(init, `--buffer ${name}`) : [];
      if (init_.length > count) throw new CliError(`--buffer ${name}: ${init_.length} values for ${count} words`);
      init_.forEach((v, i) => m.memory.writeWord(a.address + 4 * i, v));
      buffers.set(name!, a);
    }
    let uniforms: UniformItem[][];
    try {
      uniforms = (values.uniforms ?? []).map(parseUniforms);
    } catch (e) {
      if (e instanceof LaunchError) throw new CliError(`--uniforms: ${e.message}`);
      throw e;
    }
    for (const d of values.dump ?? []) if (!buffers.has(d)) throw new CliError(`--dump ${d}: there is no buffer ${d}`);

    const trace = values.trace
      ? (qpu: number, pc: number) => io.out(`qpu ${String(qpu).padStart(2)}  pc ${String(pc).padStart(4)}  ${disassembleInstr(loaded.instrs[pc]!)}\n`)
      : undefined;
    let result;
    try {
      result = launch(m, { program: loaded, qpus, uniforms, buffers }, { strict: !values['no-strict'], maxSteps, trace });
    } catch (e) {
      if (e instanceof EmulatorError) throw new CliError(e.message, 1);
      if (e instanceof LaunchError) throw new CliError(e.message);
      throw e;
    }
    for (const d of values.dump ?? []) {
      const a = buffers.get(d)!;
      io.out(`${d} (${a.bytes / 4} words at ${hex(a.address)}):\n`);
      const words: string[] = [];
      for (let i = 0; i < a.bytes / 4; i++) words.push(hex(m.memory.readWord(a.address + 4 * i)));
      for (let i = 0; i < words.length; i += 8) io.out(words.slice(i, i + 8).join(' ') + '\n');
    }
    if (values.stats) io.out(formatStats(result, m.timing));
    return 0;
  },
};

function intOption(text: string, what: string, lo: number, hi: number): number {
  const v = Number(text);
  if (!Number.isInteger(v) || v < lo || v > hi) throw new CliError(`${what} ${text}: expected a whole number from ${lo} to ${hi}`);
  return v;
}

function parseList(text: string, what: string): number[] {
  try {
    return parseUniforms(text).map((u) => {
      if (!('value' in u)) throw new LaunchError('only numbers can fill a buffer');
      return u.value;
    });
  } catch (e) {
    if (e instanceof LaunchError) throw new CliError(`${what}: ${e.message}`);
    throw e;
  }
}
