// Misuse of the `qpu` command: what a minute of random flags, missing values, odd numbers,
// unreadable files, directories, binary garbage as assembly and assembly as machine code found,
// and a small seeded run of the same fuzzing that must stay free of stack traces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runQpu } from './helpers/cli.ts';

const root = new URL('..', import.meta.url).pathname;
const hello = join(root, 'examples/asm/hello.qasm');
const gcd = join(root, 'examples/gcd.ts');
const dir = mkdtempSync(join(tmpdir(), 'qpu-misuse-'));

/** No stack trace, no internal error; a status of 0, 1 or 2. */
function sane(r: { code: number; err: string }, what: string): void {
  assert.ok([0, 1, 2].includes(r.code), `${what}: status ${r.code}\n${r.err}`);
  assert.doesNotMatch(r.err, /internal error|\n {4}at /, what);
}

test('a device that never ends is refused at 256 MiB instead of read until memory runs out', { skip: !existsSync('/dev/zero') && 'no /dev/zero' }, async () => {
  for (const cmd of ['disasm', 'validate', 'emu']) {
    const r = await runQpu(cmd, '/dev/zero');
    assert.deepEqual([r.code, r.err], [1, `qpu ${cmd}: /dev/zero is larger than 256 MiB, more than any QPU program or source can be\n`]);
  }
});

test("Node's option errors come out on one line", async () => {
  for (const args of [
    ['asm', hello, '-o', '--hex'],
    ['emu', hello, '--qpus', '--trace'],
    ['compile', gcd, '--kernel', '--dump'],
  ]) {
    const r = await runQpu(...args);
    assert.equal(r.code, 2);
    assert.match(r.err, /^qpu \w+: Option '[-\w]+' argument is ambiguous\. Did you forget to specify the option argument for '[-\w]+'\? To specify .* \(see --help\)\n$/);
  }
  const missing = await runQpu('emu', hello, '--qpus');
  assert.deepEqual([missing.code, missing.err], [2, "qpu emu: Option '--qpus <value>' argument missing (see --help)\n"]);
});

test('binary garbage as assembly, assembly as machine code, directories and empty files: errors, never a crash', async () => {
  const garbage = new Uint8Array(4096).map((_, i) => (i * 2654435761) >>> 24);
  const asGarbage = join(dir, 'garbage.qasm');
  writeFileSync(asGarbage, garbage);
  const binGarbage = join(dir, 'garbage.bin');
  writeFileSync(binGarbage, garbage);
  const asmAsBin = join(dir, 'hello-text.bin');
  copyFileSync(hello, asmAsBin);
  const folder = join(dir, 'folder.bin');
  mkdirSync(folder);
  const empty = join(dir, 'empty.qasm');
  writeFileSync(empty, '');
  for (const cmd of ['asm', 'disasm', 'validate', 'emu'])
    for (const file of [asGarbage, binGarbage, asmAsBin, folder, empty, '/dev/null']) {
      const args = cmd === 'asm' ? [cmd, file, '--hex'] : [cmd, file];
      sane(await runQpu(...args), args.join(' '));
    }
  // Assembly text has a size that is rarely a whole number of instructions; when it is, it decodes.
  const r = await runQpu('disasm', asmAsBin);
  sane(r, 'disasm hello-text.bin');
});

test('npm run fuzz takes its counts as qpu does: decimal digits only, one message shape, status 2', () => {
  for (const [args, message] of [
    [['--count', '1e1'], /^fuzz: --count 1e1: expected a whole number from 0 to \d+, in decimal digits\n/],
    [['--jobs', '0x2'], /^fuzz: --jobs 0x2: expected a whole number from 0 to 1024, in decimal digits\n/],
    [['--qpus', '1,13'], /^fuzz: --qpus 1,13: QPU count 13: expected a whole number from 1 to 12, in decimal digits\n/],
    [['--count'], /^fuzz: --count needs a value\n/],
    [['--seed', ''], /^fuzz: --seed '': expected a whole number/],
    [['--frob'], /^fuzz: unknown option '--frob'\n\nusage: npm run fuzz/],
    [['--simd', 'fast'], /^fuzz: --simd fast: expected hot, always or off\n/],
  ] as const) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/fuzz.ts', ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});

test('a seeded run of random misuse prints no stack trace and exits 0, 1 or 2', async () => {
  let seed = 20240611;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const bin = join(dir, 'hello.bin');
  assert.equal((await runQpu('asm', hello, '-o', bin)).code, 0);
  const files = [hello, bin, gcd, join(dir, 'garbage.qasm'), join(dir, 'garbage.bin'), join(dir, 'missing.bin'), join(dir, 'folder.bin'), dir, '', '/dev/null'];
  const values = ['1', '0', '12', '13', '-1', '1e1', '0x10', '', '1.5', 'NaN', '99999999999999999999', '007', 'out:16', 'out:1e1', 'a:2=1,2,3', '100,@out', '@nope,%qpu', 'gcd', 'ir', 'x'];
  const options = ['-o', '--hex', '--numeric', '--addresses', '--rules', '--qpus', '--buffer', '--uniforms', '--dump', '--stats', '--trace', '--max-steps', '--no-strict', '--kernel', '--frob', '--', '-'];
  for (let run = 0; run < 400; run++) {
    const args = [pick(['asm', 'disasm', 'validate', 'emu', 'compile'])];
    for (let n = Math.floor(rnd() * 6); n > 0; n--) {
      const r = rnd();
      if (r < 0.35) args.push(pick(files));
      else if (r < 0.75) {
        const o = pick(options);
        args.push(o === '-o' ? '-o' : o, o === '-o' ? join(dir, 'out.bin') : pick(values));
      } else args.push(pick(values));
    }
    sane(await runQpu(...args), args.join(' '));
  }
});

test('control characters in file names and arguments are shown escaped, on one line', async () => {
  const r = await runQpu('disasm', '/nonexistent/a\nb\u001b[31mred.bin');
  assert.equal(r.code, 2);
  assert.equal(r.err, "qpu disasm: cannot read '/nonexistent/a\\x0Ab\\x1B[31mred.bin': no such file or directory (ENOENT)\n");
  const u = await runQpu('\u001b[2Jx');
  assert.match(u.err, /^qpu: unknown command '\\x1B\[2Jx'\n/);
});
