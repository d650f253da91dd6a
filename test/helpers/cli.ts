// Runs the `qpu` command in-process with its output recorded.
import { main } from '../../src/cli/main.ts';
import { type Io, nodeIo } from '../../src/cli/io.ts';

export async function runQpu(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: Io = { ...nodeIo, out: (t) => void (out += t), err: (t) => void (err += t) };
  const code = await main(argv, io);
  return { code, out, err };
}
