// The `qpu` command as a real process: standard output or error that cannot be written (a full
// device, a closed pipe), usage on standard error when no command is given, and internal errors
// reported as bugs. Exit statuses: src/cli/main.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QPU_PROCESS, runQpu } from './helpers/cli.ts';
import { nodeIo } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';

const root = new URL('..', import.meta.url).pathname;
const [node, ...qpu] = QPU_PROCESS as [string, ...string[]];
const hello = join(root, 'examples/asm/hello.qasm');
const dir = mkdtempSync(join(tmpdir(), 'qpu-stdio-'));
const haveFull = existsSync('/dev/full');

/** Runs `qpu args` with standard output and/or error on /dev/full (every write fails with ENOSPC). */
function run(args: string[], { out = 'pipe', err = 'pipe' }: { out?: 'pipe' | 'full'; err?: 'pipe' | 'full' } = {}) {
  const full = openSync('/dev/full', 'w');
  try {
    const r = spawnSync(node, [...qpu, ...args], {
      cwd: root,
      stdio: ['ignore', out === 'full' ? full : 'pipe', err === 'full' ? full : 'pipe'],
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: r.status, signal: r.signal, out: r.stdout ?? '', err: r.stderr ?? '' };
  } finally {
    closeSync(full);
  }
}

test('every subcommand whose standard output fails says so in one line and exits 2', { skip: !haveFull && 'no /dev/full' }, async () => {
  const bin = join(dir, 'hello.bin');
  assert.equal((await runQpu('asm', hello, '-o', bin)).code, 0);
  const cases: [string, string[]][] = [
    ['asm', ['asm', hello, '--hex']],
    ['disasm', ['disasm', bin]],
    ['validate', ['validate', bin]],
    ['validate', ['validate', '--rules']],
    ['emu', ['emu', bin, '--uniforms', '100,@out', '--buffer', 'out:16', '--dump', 'out']],
    ['emu', ['emu', hello, '--uniforms', '100,@out', '--buffer', 'out:16', '--trace']],
    ['compile', ['compile', 'examples/gcd.ts', '--kernel', 'gcd']],
  ];
  for (const [name, args] of cases) {
    const r = run(args, { out: 'full' });
    assert.deepEqual([r.status, r.err], [2, `qpu ${name}: cannot write to standard output: no space left on device (ENOSPC)\n`], args.join(' '));
  }
  for (const [prefix, args] of [['qpu', ['--help']], ['qpu emu', ['emu', '--help']]] as const) {
    const r = run([...args], { out: 'full' });
    assert.deepEqual([r.status, r.err], [2, `${prefix}: cannot write to standard output: no space left on device (ENOSPC)\n`], args.join(' '));
  }
});

test('a standard error that fails makes the exit status non-zero, and never a crash', { skip: !haveFull && 'no /dev/full' }, () => {
  // The error message itself cannot be written: the status still says what went wrong.
  const missing = run(['asm', join(dir, 'missing.qasm'), '--hex'], { err: 'full' });
  assert.deepEqual([missing.status, missing.out], [2, '']);
  // A success that only cannot tell what it wrote is not a success.
  const compiled = run(['compile', 'examples/gcd.ts', '--kernel', 'gcd', '-o', join(dir, 'gcd.bin')], { err: 'full' });
  assert.deepEqual([compiled.status, compiled.out], [2, '']);
  // Both gone: nothing to say, status 2.
  const both = run(['disasm', '--help'], { out: 'full', err: 'full' });
  assert.equal(both.status, 2);
  const none = run([], { err: 'full' });
  assert.equal(none.status, 2);
});

test('a reader that closes the pipe early is not an error: silent, status 0', () => {
  // Enough output to fill the pipe, so that the write is refused after `head` has gone.
  const src = join(dir, 'long.qasm');
  writeFileSync(src, 'nop\n'.repeat(20_000) + 'nop.tend\nnop\nnop\n');
  const bin = join(dir, 'long.bin');
  for (const args of [
    ['asm', src, '-o', bin],
    ['disasm', '--addresses', bin],
    ['emu', src, '--trace'],
  ]) {
    const line = [...QPU_PROCESS, ...args].map((a) => JSON.stringify(a)).join(' ');
    const r = spawnSync('bash', ['-c', `${line} | head -c 10 >/dev/null; echo "status \${PIPESTATUS[0]}"`], { encoding: 'utf8', timeout: 60_000 });
    assert.deepEqual([r.stdout, r.stderr], ['status 0\n', ''], args.join(' '));
  }
});

test('qpu with no command prints the usage on standard error with status 2; --help on standard output with 0', async () => {
  const none = await runQpu();
  assert.equal(none.code, 2);
  assert.equal(none.out, '');
  assert.match(none.err, /^qpu: which command\?\n\nqpu: program .*\n\nusage: qpu <command> \[options\]\n/s);
  assert.match(none.err, /\nexit status:\n {2}0 {2}success\n {2}1 {2}the input is wrong\n {2}2 {2}the command line is wrong/);
  for (const h of ['--help', '-h', 'help']) {
    const r = await runQpu(h);
    assert.deepEqual([r.code, r.err], [0, '']);
    assert.match(r.out, /^qpu: program .*usage: qpu <command>.*exit status:\n {2}0 {2}success/s);
  }
  const help = await runQpu('help', 'emu');
  assert.deepEqual([help.code, help.err], [0, '']);
  assert.match(help.out, /^usage: qpu emu /);
  const helpUnknown = await runQpu('help', 'frob');
  assert.deepEqual([helpUnknown.code, helpUnknown.out], [2, '']);
  assert.match(helpUnknown.err, /^qpu help: unknown command 'frob'\n\n.*usage: qpu <command>/s);
  const unknown = await runQpu('frobnicate');
  assert.deepEqual([unknown.code, unknown.out], [2, '']);
  assert.match(unknown.err, /^qpu: unknown command 'frobnicate'\n\n.*usage: qpu <command>/s);
});

test('an internal error says it is a bug in qpu-ts and how to report it, then the stack; status 3', async () => {
  const bin = join(dir, 'bug.bin');
  assert.equal((await runQpu('asm', hello, '-o', bin)).code, 0);
  let err = '';
  const code = await main(['disasm', bin], {
    ...nodeIo,
    out: () => {
      throw new TypeError('a bug');
    },
    err: (t) => void (err += t),
  });
  assert.equal(code, 3);
  assert.match(err, /^qpu disasm: internal error \(this is a bug in qpu-ts, not a problem with your input: please report it as an issue of qpu-ts, with the command line, the input files and the lines below\):\nTypeError: a bug\n {4}at /);
});
