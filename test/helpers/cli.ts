// Runs the `qpu` command in-process with its output recorded, or names the command line that
// runs it as a process from the sources (bin/qpu.js runs the built files: test/package/).
import { join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { type Io, nodeIo } from '../../src/cli/io.ts';

export async function runQpu(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: Io = { ...nodeIo, out: (t) => void (out += t), err: (t) => void (err += t) };
  const code = await main(argv, io);
  return { code, out, err };
}

/** The command line (program and leading arguments) of `qpu` run from the sources as a process. */
export const QPU_PROCESS: readonly string[] = [process.execPath, '--import', 'tsx', join(new URL('../..', import.meta.url).pathname, 'src/cli/bin.ts')];
