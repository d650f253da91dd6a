// The `qpu` command: dispatches to subcommands. Each subcommand is a file in this folder with
// its own --help. Exit status: 0 success, 1 the input is wrong (assembly errors, broken rules),
// 2 the command line is wrong or a file cannot be read.

import { asmCommand } from './asm.ts';
import { compileCommand } from './compile.ts';
import { disasmCommand } from './disasm.ts';
import { emuCommand } from './emu.ts';
import { type Command, CliError, type Io, nodeIo } from './io.ts';
import { validateCommand } from './validate.ts';

export const COMMANDS: readonly Command[] = [asmCommand, disasmCommand, validateCommand, emuCommand, compileCommand];

const HELP = `qpu: program the Raspberry Pi's VideoCore IV QPUs

usage: qpu <command> [options]

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Run 'qpu <command> --help' for a command's options. The assembly language is described in
docs/asm.md.
`;

export async function main(argv: readonly string[], io: Io = nodeIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(HELP);
    return name === undefined ? 2 : 0;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    io.err(`qpu: unknown command '${name}'\n\n${HELP}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(cmd.help);
    return 0;
  }
  try {
    return await cmd.run(rest, io);
  } catch (e) {
    if (e instanceof CliError) {
      io.err(`qpu ${cmd.name}: ${e.message}\n`);
      return e.status;
    }
    io.err(`qpu ${cmd.name}: internal error: ${(e as Error).stack ?? String(e)}\n`);
    return 2;
  }
}
