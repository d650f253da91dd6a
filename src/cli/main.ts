// The `qpu` command: dispatches to subcommands. Each subcommand is a file in this folder with
// its own --help. Exit status (EXIT in io.ts), the same for every subcommand:
//   0  success
//   1  the input is wrong (assembly errors, a machine-code file of the wrong size, broken rules,
//      an emulator error, a kernel that does not compile or a module that does not load)
//   2  the command line is wrong, or a file cannot be read or written (standard output and
//      standard error included; a reader closing a pipe early is not an error)
//   3  a bug in qpu-ts (an internal error, printed with its stack to report it)
// Every error is one line on standard error that says where, except an internal error.

import { readFileSync } from 'node:fs';
import { asmCommand } from './asm.ts';
import { compileCommand } from './compile.ts';
import { disasmCommand } from './disasm.ts';
import { emuCommand } from './emu.ts';
import { runCommand } from './run.ts';
import { debugCommand } from './debug.ts';
import { piCommand } from './pi.ts';
import { type Command, CliError, EXIT, exitHelp, type Io, nodeIo, OutputError, outputFailed, quietly } from './io.ts';
import { oneLineEscaped } from '../vc4/asm/text.ts';
import { validateCommand } from './validate.ts';

export const COMMANDS: readonly Command[] = [runCommand, debugCommand, compileCommand, emuCommand, piCommand, asmCommand, disasmCommand, validateCommand];

const HELP = `qpu: program the Raspberry Pi's VideoCore IV QPUs

usage: qpu <command> [options]
       qpu --version

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Run 'qpu <command> --help' or 'qpu help <command>' for a command's options. The assembly
language is described in docs/asm.md.

${exitHelp()}`;

/** How to report a bug, printed before an internal error's stack. */
export const BUG_REPORT =
  'this is a bug in qpu-ts, not a problem with your input: please report it as an issue of qpu-ts, ' +
  'with the command line, the input files and the lines below';

/** The package's version, from its package.json (two folders up from src/cli and dist/cli). */
export function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export async function main(argv: readonly string[], io: Io = nodeIo): Promise<number> {
  const [name, ...rest] = argv;
  let prefix = 'qpu';
  try {
    if (name === '--help' || name === '-h' || name === 'help') {
      // qpu help COMMAND: that command's help.
      const of = name === 'help' && rest.length ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
      if (name === 'help' && rest.length && !of) {
        io.err(`qpu help: unknown command '${oneLineEscaped(rest[0]!)}'\n\n${HELP}`);
        return EXIT.USAGE;
      }
      io.out(of ? of.help : HELP);
      return EXIT.OK;
    }
    if (name === '--version' || name === '-v') {
      io.out(`qpu-ts ${version()}\n`);
      return EXIT.OK;
    }
    if (name === undefined) {
      // Not asked for: the usage goes where errors go.
      io.err(`qpu: which command?\n\n${HELP}`);
      return EXIT.USAGE;
    }
    const cmd = COMMANDS.find((c) => c.name === name);
    if (!cmd) {
      io.err(`qpu: unknown command '${oneLineEscaped(name)}'\n\n${HELP}`);
      return EXIT.USAGE;
    }
    prefix = `qpu ${cmd.name}`;
    // Words after -- are not the command's (qpu run passes them to the program).
    const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    if (own.includes('--help') || own.includes('-h')) {
      io.out(cmd.help);
      return EXIT.OK;
    }
    return await cmd.run(rest, io);
  } catch (e) {
    if (e instanceof OutputError) return outputFailed(e, prefix, io);
    if (e instanceof CliError) {
      // File names and arguments reach the message as typed: a newline or an escape sequence in them is shown, not obeyed.
      quietly(io, `${prefix}: ${oneLineEscaped(e.message)}\n`);
      return e.status;
    }
    quietly(io, `${prefix}: internal error (${BUG_REPORT}):\n${e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e)}\n`);
    return EXIT.BUG;
  }
}
