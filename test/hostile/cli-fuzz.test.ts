// The fuzz suite, the `qpu` command: random command lines made of real subcommands, flags,
// odd values and odd files. Every run returns an exit status of 0, 1 or 2, says what is wrong
// on stderr without a stack trace or "internal error", and ends within the hang bound. Partial
// writes: command lines with a lot of output run as processes under a tiny file-size limit or
// into /dev/full either succeed with all of their output or fail with status 2 and one line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main.ts';
import { type Io, nodeIo } from '../../src/cli/io.ts';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { programToBytes } from '../../src/vc4/codec.ts';
import { Fuzz, fuzzLoop, PROTO_NAMES } from '../helpers/hostile.ts';
import { QPU_PROCESS } from '../helpers/cli.ts';

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

// Partial writes. Outputs of every kind (standard output, -o files) and size (a few hundred bytes
// to a few hundred KB), each compared with what the same command line writes in-process.
const root = new URL('../..', import.meta.url).pathname;
const bigQasm = join(dir, 'big.qasm');
writeFileSync(bigQasm, 'nop\n'.repeat(3000) + 'nop.tend\nnop\nnop\n');
const bigBin = join(dir, 'big.bin');
writeFileSync(bigBin, programToBytes(assemble(readFileSync(bigQasm, 'utf8')).words));
const gcd = join(root, 'examples/gcd.ts');
const WRITERS: readonly (readonly string[])[] = [
  ['asm', bigQasm, '--hex'],
  ['asm', bigQasm, '-o', files.out],
  ['disasm', '--addresses', bigBin],
  ['validate', '--rules'],
  ['emu', files.qasm, '--uniforms', '100,@out', '--buffer', 'out:3000', '--dump', 'out:f32'],
  ['emu', files.qasm, '--uniforms', '100,@out', '--buffer', 'out:16', '--trace', '--stats'],
  ['compile', gcd, '--kernel', 'gcd', '--dump', 'code'],
  ['compile', gcd, '--kernel', 'gcd', '-o', files.out],
  ['--help'],
];

/** What the command line writes in-process: its status, standard output and -o file. */
async function reference(args: readonly string[]): Promise<{ status: number; out: string; file?: Buffer }> {
  rmSync(files.out, { force: true });
  let out = '';
  const status = await main(args, { ...nodeIo, out: (t) => void (out += t), err: () => {} });
  return { status, out, file: existsSync(files.out) ? readFileSync(files.out) : undefined };
}

test('fuzz: partial writes (a tiny file-size limit, /dev/full) fail with status 2, never a truncated success', { skip: !existsSync('/dev/full') && 'no /dev/full' }, async () => {
  const start = performance.now();
  let runs = 0;
  let failed = 0;
  for (let seed = 70_000; runs < 12 && (runs < 6 || performance.now() - start < 10_000); seed++, runs++) {
    const f = new Fuzz(seed);
    const args = f.pick(WRITERS);
    const want = await reference(args);
    assert.equal(want.status, 0, `${args.join(' ')} fails on its own`);
    rmSync(files.out, { force: true });
    // Standard output into a file under a limit of 0-16 KiB, or into /dev/full; standard error kept.
    const full = f.chance(0.25);
    const kib = f.int(17);
    const sink = join(dir, 'stdout.txt');
    const line = [...QPU_PROCESS, ...args].map((a) => `'${a}'`).join(' ');
    const fd = full ? openSync('/dev/full', 'w') : undefined;
    const r = spawnSync('bash', ['-c', full ? `exec ${line}` : `ulimit -f ${kib} && exec ${line} > '${sink}'`], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', fd ?? 'pipe', 'pipe'],
    });
    if (fd !== undefined) closeSync(fd);
    const what = `seed ${seed}: ${full ? '> /dev/full' : `ulimit -f ${kib}`}: qpu ${args.join(' ')}`;
    assert.equal(r.signal, null, `${what}: killed`);
    if (r.status === 0) {
      // A success wrote everything.
      if (!full) assert.equal(readFileSync(sink, 'utf8'), want.out, `${what}: exit 0 with standard output cut short`);
      else assert.equal(want.out, '', `${what}: exit 0 though its output went to /dev/full`);
      if (want.file) assert.deepEqual(readFileSync(files.out), want.file, `${what}: exit 0 with the -o file cut short`);
    } else {
      failed++;
      assert.equal(r.status, 2, `${what}: status ${r.status}: ${r.stderr}`);
      assert.match(r.stderr, /^qpu( \w+)?: cannot write( to standard output| \S+): .*\n$/, `${what}: ${r.stderr}`);
    }
  }
  assert.ok(failed > 0 && failed < runs, `${failed} of ${runs} runs failed: the limits should sometimes bite and sometimes not`);
});
