// The same kind of failure gets the same exit status and the same one-line message shape from
// every subcommand (src/cli/main.ts: 0 success, 1 the input is wrong, 2 the command line is
// wrong or a file cannot be read or written), and -o never overwrites the input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runQpu } from './helpers/cli.ts';

const root = new URL('..', import.meta.url).pathname;
const hello = join(root, 'examples/asm/hello.qasm');
const gcd = join(root, 'examples/gcd.ts');
const dir = mkdtempSync(join(tmpdir(), 'qpu-exit-'));
const isRoot = process.getuid?.() === 0;

/** One line on standard error, prefixed with the subcommand; nothing on standard output. */
async function fails(code: number, args: string[], message: RegExp): Promise<void> {
  const r = await runQpu(...args);
  const what = args.join(' ');
  assert.equal(r.code, code, `${what}: ${r.err}`);
  assert.equal(r.out, '', what);
  assert.match(r.err, new RegExp(`^qpu ${args[0]}: ${message.source}\\n$`), what);
  assert.doesNotMatch(r.err, /internal error|\n {4}at /, what);
}

test('a file that cannot be read is status 2 for every subcommand, with the reason in words', async () => {
  const missing = join(dir, 'missing');
  const folder = join(dir, 'folder.qasm');
  mkdirSync(folder);
  for (const [cmd, extra] of [
    ['asm', ['--hex']],
    ['disasm', []],
    ['validate', []],
    ['emu', []],
    ['compile', []],
  ] as const) {
    for (const ext of ['.qasm', '.bin', '.ts'])
      await fails(2, [cmd, missing + ext, ...extra], new RegExp(`cannot read ${missing}\\${ext}: no such file or directory \\(ENOENT\\)`));
    await fails(2, [cmd, folder, ...extra], new RegExp(`cannot read ${folder}: illegal operation on a directory \\(EISDIR\\)`));
    if (!isRoot) {
      const locked = join(dir, `locked-${cmd}.qasm`);
      writeFileSync(locked, 'nop\n');
      chmodSync(locked, 0);
      await fails(2, [cmd, locked, ...extra], new RegExp(`cannot read ${locked}: permission denied \\(EACCES\\)`));
    }
  }
});

test('an output file that cannot be written is status 2 for asm and compile, said once', async () => {
  for (const args of [
    ['asm', hello, '-o'],
    ['compile', gcd, '--kernel', 'gcd', '-o'],
  ]) {
    await fails(2, [...args, '/nonexistent/x.bin'], /cannot write \/nonexistent\/x\.bin: no such file or directory \(ENOENT\)/);
    await fails(2, [...args, dir], new RegExp(`cannot write ${dir}: illegal operation on a directory \\(EISDIR\\)`));
  }
});

test('input that is wrong is status 1 for every subcommand', async () => {
  const odd = join(dir, 'odd.bin');
  writeFileSync(odd, new Uint8Array(12));
  const bad = join(dir, 'bad.qasm');
  writeFileSync(bad, 'frob r0\n');
  for (const cmd of ['disasm', 'validate', 'emu'])
    await fails(1, [cmd, odd], new RegExp(`${odd}: a QPU program is a sequence of 8-byte instructions, but this one has 12 bytes \\(4 left over\\)`));
  const asm = await runQpu('asm', bad, '--hex');
  assert.equal(asm.code, 1);
  assert.match(asm.err, new RegExp(`^${bad}:1:1: error: unknown operation 'frob'.*\\nqpu asm: 1 error; no output written\\n$`));
  // Assembly errors one a line, then the command's summary (as qpu asm prints them).
  const emu = await runQpu('emu', bad);
  assert.equal(emu.code, 1);
  assert.match(emu.err, new RegExp(`^${bad}:1:1: error: unknown operation 'frob'.*\nqpu emu: 1 error in the assembly; nothing was run\n$`));
  const v = await runQpu('validate', bad);
  assert.equal(v.code, 1);
  assert.match(v.err, new RegExp(`^${bad}:1:1: error: unknown operation 'frob'.*\\n$`));
  const throws = join(dir, 'throws.mts');
  writeFileSync(throws, "throw new Error('not a kernel');\n");
  await fails(1, ['compile', throws], new RegExp(`cannot load ${throws}: not a kernel \\(at ${throws}:1:\\d+\\)`));
  const none = join(dir, 'none.mts');
  writeFileSync(none, 'export const x = 1;\n');
  await fails(1, ['compile', none], /.* exports no kernel \(make one with kernel\(\.\.\.\) and export it\)/);
});

test('a wrong command line is status 2 for every subcommand', async () => {
  const bin = join(dir, 'cl.bin');
  assert.equal((await runQpu('asm', hello, '-o', bin)).code, 0);
  const input = { asm: hello, disasm: bin, validate: bin, emu: bin, compile: gcd };
  for (const [cmd, file] of Object.entries(input)) {
    await fails(2, [cmd, file, '--frob'], /unknown option --frob; the options are --.* \(see --help\)/);
    await fails(2, [cmd], /which .*\? \(see --help\)/);
    await fails(2, [cmd, file, '--qpu'], cmd === 'asm' || cmd === 'disasm' || cmd === 'validate' ? /unknown option --qpu; the options are .* \(see --help\)/ : /unknown option --qpu \(--qpus\?\); the options are .* \(see --help\)/);
    await fails(2, [cmd, file, file], /one .* at a time, not 2/);
  }
  // An option's value that starts with a dash: Node's three-line message, on one line.
  await fails(2, ['asm', hello, '-o', '--hex'], /Option '-o' argument is ambiguous\. Did you forget .* \(see --help\)/);
  await fails(2, ['asm', hello], /say where the code goes: -o OUT\.bin, or --hex to print it/);
  await fails(2, ['emu', bin, '--dump', 'out'], /--dump out: there is no buffer out/);
  await fails(2, ['compile', gcd, '--kernel', 'nope'], /--kernel nope: .* has no such kernel; it exports: gcd, gcdUnrolled/);
  await fails(2, ['compile', gcd, '--kernel', 'gcd', '--dump', 'x'], /--dump x: the stages are ast, pipeline, induction, ir, .*/);
});

test('-o naming the input file is refused before anything is written, under any name', async () => {
  const src = join(dir, 'self.qasm');
  const text = readFileSync(hello, 'utf8');
  writeFileSync(src, text);
  const sym = join(dir, 'self-symlink.bin');
  symlinkSync(src, sym);
  const hard = join(dir, 'self-hardlink.bin');
  linkSync(src, hard);
  for (const out of [src, join(dir, '.', 'self.qasm'), sym, hard])
    await fails(2, ['asm', src, '-o', out], new RegExp(`the output file ${out.replace(/[.]/g, '\\.')} is the input file ${src}: writing it would destroy the input; choose another output file`));
  assert.equal(readFileSync(src, 'utf8'), text);
  // Through the long option too, and for compile.
  await fails(2, ['asm', src, '--output', src], /the output file .* is the input file .*/);
  const mod = join(dir, 'gcd-copy.ts');
  const modText = readFileSync(gcd, 'utf8');
  writeFileSync(mod, modText);
  await fails(2, ['compile', mod, '--kernel', 'gcd', '-o', mod], /the output file .* is the input file .*gcd-copy\.ts: writing it would destroy the input.*/);
  assert.equal(readFileSync(mod, 'utf8'), modText);
  // Another file is fine, and so is one that does not exist yet.
  const other = join(dir, 'other.bin');
  assert.equal((await runQpu('asm', src, '-o', other)).code, 0);
  assert.equal((await runQpu('asm', src, '-o', other)).code, 0, 'an existing other file is overwritten');
});

test('each --help states the exit statuses', async () => {
  for (const args of [['--help'], ...['asm', 'disasm', 'validate', 'emu', 'compile'].map((c) => [c, '--help'])]) {
    const r = await runQpu(...args);
    assert.equal(r.code, 0);
    assert.match(
      r.out,
      /\nexit status:\n {2}0 {2}success\n {2}1 {2}the input is wrong.*\n {2}2 {2}the command line is wrong, or a file cannot be read or written .*\n {2}3 {2}a bug in qpu-ts /s,
      args[0],
    );
    for (const line of r.out.split('\n')) assert.ok(line.length <= 100, `${args[0]} --help: a line of ${line.length} characters: ${line}`);
  }
});
