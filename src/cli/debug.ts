// `qpu debug`: runs a user's program as `qpu run` does and stops its first run of a kernel (or
// of the kernel --kernel names) in the debugger: a command line on the terminal (gdb's commands,
// debug/commands.ts), which works over ssh on a Pi; or, with --dap, the Debug Adapter Protocol
// on standard input and output, for VS Code and other editors (debug/dap.ts). The session
// replays the run; when it ends, the program's own run goes on and the program with it.

import { closeSync, openSync, readFileSync } from 'node:fs';
import { MAX_QPUS } from '../vc4/chip.ts';
import type { OptLevel } from '../compiler/driver.ts';
import { DebugConsole } from '../debug/commands.ts';
import { DebugError, DebugSession, type DebugTarget } from '../debug/session.ts';
import { WatchError } from '../debug/watch.ts';
import { type Command, CliError, EXIT, exitHelp, type Io, parse, parseCount, shown } from './io.ts';
import { DapConnection, openDap, readBlocking } from '../debug/dap-connection.ts';
import { runProgram } from './run.ts';
import { serveDap } from '../debug/dap.ts';

export const debugCommand: Command = {
  name: 'debug',
  summary: 'run a TypeScript program and debug its first run of a kernel',
  help: `usage: qpu debug PROGRAM.ts [--kernel NAME] [--target T] [--qpus N] [-O LEVEL]
                           [--max-steps N] [--break LINE]... [--commands FILE] [--dap]
                           [-- ARGS ...]

Runs PROGRAM.ts as qpu run does, and stops its first run of a kernel (the kernel --kernel
names) before its first statement, in the debugger: breakpoints on the kernel's lines with
conditions on lanes, steps forward and back, every variable's 16 lanes on every QPU, each QPU's
state, on the emulator its registers (docs/debugging.md). The session replays the run on copies
of the kernel's arrays; when it ends (quit, or the commands run out), the program's own run
goes on, and the program with it.

options:
      --kernel NAME   debug the first run of this kernel (its kernel name)
      --target T      interpreter (the default: steps are statements) or emulator (the
                      compiled code: steps are instructions; registers and flags show)
      --qpus N        run the kernel on N QPUs (1-${MAX_QPUS}) where the program's call sets
                      no count of its own (as qpu run's --qpus)
  -O, --opt LEVEL     the emulator: the code's optimization level (default the kernel's)
      --max-steps N   the step budget of the session's replays and of the program's kernel
                      runs (statements or instructions, all QPUs): for a kernel that never ends
      --break LINE    a breakpoint before the session starts: LINE or FILE:LINE, and
                      "LINE if COND" for a condition (may be given again)
      --commands FILE read the commands from FILE, one a line, instead of the terminal
      --dap           speak the Debug Adapter Protocol on standard input and output
                      (an editor starts this; the program's own output goes to standard
                      error). PROGRAM.ts and the options may come from the editor's launch
                      request instead: program, args, kernel, target, qpus, stopOnEntry
  -h, --help          this text

${exitHelp('PROGRAM.ts does not load, throws, runs no kernel, or a kernel run fails')}
examples:
  qpu debug examples/gcd.ts --kernel gcd --break 13
  qpu debug heat.ts --target emulator --qpus 4 --break "heat.ts:40 if x[3] > 100"
`,
  async run(args, io) {
    const { values, positionals } = parse(args, {
      kernel: { type: 'string' },
      target: { type: 'string' },
      qpus: { type: 'string' },
      opt: { type: 'string', short: 'O' },
      'max-steps': { type: 'string' },
      break: { type: 'string', multiple: true },
      commands: { type: 'string' },
      dap: { type: 'boolean' },
    });
    if (values.dap && values.commands !== undefined) throw new CliError('--dap or --commands: the editor sends the commands');
    // An editor says what to launch (and may set breakpoints) before the program runs.
    const conn = values.dap ? new DapConnection() : undefined;
    const opening = conn && openDap(conn);
    if (conn && !opening) return EXIT.OK;
    const launch = opening?.launch ?? {};
    const [path, ...programArgs] = positionals.length ? positionals : typeof launch.program === 'string' ? [launch.program, ...stringList(launch.args)] : [];
    if (path === undefined) {
      conn?.event('output', { category: 'stderr', output: 'qpu debug: which program? (the launch request\'s program, or PROGRAM.ts on the command line)\n' });
      conn?.terminated();
      throw new CliError('which program? (see --help)');
    }
    values.target ??= typeof launch.target === 'string' ? launch.target : undefined;
    values.kernel ??= typeof launch.kernel === 'string' ? launch.kernel : undefined;
    if (values.qpus === undefined && typeof launch.qpus === 'number') values.qpus = String(launch.qpus);
    const target = (values.target ?? 'interpreter') as DebugTarget;
    if (target !== 'interpreter' && target !== 'emulator') throw new CliError(`--target ${values.target}: the debugger runs on the interpreter or the emulator`);
    const qpus = values.qpus === undefined ? undefined : parseCount(values.qpus, 1, 1, MAX_QPUS, '--qpus');
    const opt = values.opt === undefined ? undefined : (parseCount(values.opt, 2, 0, 2, '-O') as OptLevel);
    const maxSteps = values['max-steps'] === undefined ? undefined : parseCount(values['max-steps'], 0, 1, Number.MAX_SAFE_INTEGER, '--max-steps');
    const script = values.commands === undefined ? undefined : readCommands(values.commands);
    let debugged = false;
    const restore = conn ? quietStdout() : () => {};
    try {
      return await runProgram(conn ? quietOut(io) : io, path, programArgs, {
        only: values.kernel,
        options: { qpus, maxSteps },
        command: 'debug',
        debugRun: (k, kernelArgs, runQpus) => {
          if (debugged) return;
          debugged = true;
          const session = new DebugSession(k.ast, kernelArgs, { target, qpus: runQpus, opt: opt ?? k.optLevel, maxSteps });
          if (conn) return serveDap(session, conn, opening!, values.break ?? []);
          converse(io, session, values.break ?? [], script);
        },
      });
    } finally {
      // The editor hears that the program is over, also when it ran no kernel or failed.
      if (conn) {
        conn.terminated();
        restore();
      }
    }
  },
};

const stringList = (x: unknown): string[] => (Array.isArray(x) ? x.map(String) : []);

/** With --dap, standard output carries the protocol: the program's own writes go to standard error until the command ends. */
function quietStdout(): () => void {
  const write = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return () => {
    process.stdout.write = write;
  };
}

/** The command-line session: the breakpoints given, then commands from the script or the terminal until quit or their end. */
function converse(io: Io, session: DebugSession, breaks: readonly string[], script: string[] | undefined): void {
  const con = new DebugConsole(session);
  for (const b of breaks) {
    const m = /^(\S+)(?:\s+if\s+(.+))?$/.exec(b.trim());
    try {
      if (!m) throw new DebugError('a breakpoint is LINE, FILE:LINE, or "LINE if COND"');
      const set = session.break(m[1]!, m[2]);
      io.out(`breakpoint ${set.id} at ${set.file ? `${set.file}:` : 'line '}${set.line}${set.condition ? ` if ${set.condition}` : ''}\n`);
    } catch (e) {
      if (e instanceof DebugError || e instanceof WatchError) throw new DebugError(`--break ${b}: ${e.message}`);
      throw e;
    }
  }
  io.out(con.start());
  const input = script ? scriptLines(script, io) : terminalLines(io);
  for (;;) {
    const line = input();
    if (line === undefined) break;
    const r = con.run(line);
    io.out(r.out);
    if (r.quit) break;
  }
  io.out(`the debugger is done; kernel ${session.ast.name} runs on\n`);
}

function readCommands(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n');
  } catch (e) {
    throw new CliError(`--commands ${shown(path)}: cannot read it (${(e as Error).message})`);
  }
}

/** The script's lines, each echoed after the prompt as a terminal would show it. */
function scriptLines(lines: string[], io: Io): () => string | undefined {
  let i = 0;
  return () => {
    while (i < lines.length && (lines[i]!.trim().startsWith('#') || (i === lines.length - 1 && !lines[i]!.trim()))) i++;
    if (i >= lines.length) return undefined;
    io.out(`(qpu) ${lines[i]}\n`);
    return lines[i++];
  };
}

/** Lines typed on standard input, read as they come (the kernel run waits meanwhile); undefined at its end. */
function terminalLines(io: Io): () => string | undefined {
  const fd = openSync('/dev/stdin', 'r');
  const buf = Buffer.alloc(4096);
  let pending = '';
  let ended = false;
  return () => {
    io.out('(qpu) ');
    for (;;) {
      const nl = pending.indexOf('\n');
      if (nl >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        return line;
      }
      if (ended) {
        const rest = pending;
        pending = '';
        return rest || undefined;
      }
      const n = readBlocking(fd, buf);
      if (n === 0) {
        ended = true;
        closeSync(fd);
      }
      else pending += buf.toString('utf8', 0, n);
    }
  };
}


/** With --dap, standard output carries the protocol: the program's output goes to standard error. */
function quietOut(io: Io): Io {
  return { ...io, out: (text) => io.err(text) };
}

