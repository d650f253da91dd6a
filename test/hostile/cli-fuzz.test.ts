// The fuzz suite, the `qpu` command: random command lines made of real subcommands, flags,
// odd values and odd files. Every run returns an exit status of 0, 1 or 2, says what is wrong
// on stderr without a stack trace or "internal error", and ends within the hang bound.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main.ts';
import { type Io, nodeIo } from '../../src/cli/io.ts';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { programToBytes } from '../../src/vc4/codec.ts';
import { type Fuzz, fuzzLoop, PROTO_NAMES } from '../helpers/hostile.ts';

const dir = mkdtempSync(join(tmpdir(), 'qpu-cli-fuzz-'));
// Every path is inside the test's own folder, so that -o can only ever write there.
const files = {
  qasm: join(dir, 'hello.qasm'),
  bin: join(dir, 'hello.bin'),
  empty: join(dir, 'empty.bin'),
  odd: join(dir, 'odd.bin'),
  garbage: join(dir, 'garbage.qasm'),
  dir: join(dir, 'folder'),
  missing: join(dir, 'missing.bin'),
  out: join(dir, 'out.bin'),
  outInMissingDir: join(dir, 'nowhere', 'out.bin'),
};
writeFileSync(files.qasm, readFileSync(new URL('../../examples/asm/hello.qasm', import.meta.url)));
writeFileSync(files.bin, programToBytes(assemble(`nop\nnop.tend\nnop\nnop`).words));
writeFileSync(files.empty, new Uint8Array(0));
writeFileSync(files.odd, new Uint8Array([1, 2, 3, 4, 5, 6, 7]));
writeFileSync(files.garbage, new Uint8Array(Array.from({ length: 300 }, (_, i) => (i * 97 + 13) % 256)));
mkdirSync(files.dir, { recursive: true });

const COMMANDS = ['asm', 'disasm', 'validate', 'emu', 'compile', 'help', '--help', 'nope', '', '__proto__'];
const FLAGS = ['-o', '--hex', '--qpus', '--max-steps', '--uniforms', '--buffer', '--dump', '--stats', '--no-strict', '--kernel', '--json', '-h', '--', '-', '--qpus=3', '--bogus'];
const VALUES = ['1', '12', '13', '0', '-1', '1e1', '0x10', 'NaN', 'Infinity', '99999999999999999999', '', ' ', '3.5', 'out:16', 'out:67108864', 'out:0', 'x:-1', 'out:16:1,2,3', '@out', '%qpu', '1,2,@out', 'ir', 'asm', 'code', '\u0000', '\u{1F600}', ...PROTO_NAMES];
const PATHS = Object.values(files);

/** A command, usually an input file, then flags with values, now and then something out of place. */
function argv(f: Fuzz): string[] {
  const a = [f.chance(0.9) ? f.pick(COMMANDS.slice(0, 5)) : f.pick(COMMANDS)];
  if (f.chance(0.8)) a.push(f.pick(PATHS));
  for (let n = f.int(4); n > 0; n--) {
    a.push(f.pick(FLAGS));
    if (f.chance(0.7)) a.push(f.chance(0.3) ? f.pick(PATHS) : f.pick(VALUES));
  }
  if (f.chance(0.1)) a.push(f.pick(VALUES));
  return a;
}

test('fuzz: random command lines', async () => {
  const statuses = [0, 0, 0];
  const n = await fuzzLoop(60_000, 600, 30_000, async (f) => {
    const args = argv(f);
    let out = '';
    let err = '';
    const io: Io = { ...nodeIo, out: (t) => void (out += t), err: (t) => void (err += t) };
    let status: number;
    try {
      status = await main(args, io);
    } catch (e) {
      assert.fail(`qpu ${JSON.stringify(args)} threw ${(e as Error)?.stack ?? String(e)}`);
    }
    assert.ok([0, 1, 2].includes(status), `qpu ${JSON.stringify(args)}: exit status ${status}`);
    assert.doesNotMatch(err, /internal error|\n\s+at [\w.<>]+ \(/, `qpu ${JSON.stringify(args)} printed a stack trace:\n${err}`);
    if (status !== 0) assert.ok(err.trim().length > 0, `qpu ${JSON.stringify(args)} failed (${status}) without saying why`);
    void out;
    statuses[status]!++;
  });
  assert.ok(statuses[0]! > 10 && statuses[1]! + statuses[2]! > 10, `too few runs of each outcome: ${statuses.join(', ')}`);
  assert.ok(n >= 100, `only ${n} command lines ran`);
});
