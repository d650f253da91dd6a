// Output cut short by the system: a file-size limit (`ulimit -f`) makes a write to a file return
// short, then fail with EFBIG (Node ignores SIGXFSZ). Every output of every subcommand, standard
// output redirected to a file and the files -o writes, must then fail with one line and exit 2,
// never exit 0 with the output truncated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QPU_PROCESS, runQpu } from './helpers/cli.ts';

const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'qpu-short-'));
const big = join(dir, 'big.qasm');
writeFileSync(big, 'nop\n'.repeat(4000) + 'nop.tend\nnop\nnop\n');
const bigBin = join(dir, 'big.bin');

/** Runs `qpu args` with files limited to `kib` KiB and standard output into a file; its status, stderr and the output's size. */
export function limited(kib: number, args: readonly string[]): { status: number | null; err: string; outBytes: number } {
  const out = join(dir, `out-${process.hrtime.bigint()}.txt`);
  const line = [...QPU_PROCESS, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('bash', ['-c', `ulimit -f ${kib} && exec ${line} > '${out}'`], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, err: r.stderr, outBytes: statSync(out).size };
}

const EFBIG = 'file too large (EFBIG)';

test('standard output redirected to a file past a size limit: status 2 and one line, never a truncated success', async () => {
  assert.equal((await runQpu('asm', big, '-o', bigBin)).code, 0);
  const cases: [string, string[]][] = [
    ['asm', ['asm', big, '--hex']],
    ['disasm', ['disasm', bigBin]],
    ['compile', ['compile', 'examples/gcd.ts', '--kernel', 'gcd', '--dump', 'code']],
    ['emu', ['emu', bigBin, '--buffer', 'out:4096', '--dump', 'out:i32']],
  ];
  for (const [name, args] of cases) {
    const r = limited(1, args);
    assert.deepEqual([r.status, r.err], [2, `qpu ${name}: cannot write to standard output: ${EFBIG}\n`], args.join(' '));
    assert.equal(r.outBytes, 1024, 'the limit was reached');
  }
});

test('-o files past a size limit: status 2 and one line naming the file', () => {
  for (const [name, args] of [
    ['asm', ['asm', big, '-o', join(dir, 'limited.bin')]],
    ['compile', ['compile', 'examples/gcd.ts', '--kernel', 'gcd', '-O', '0', '-o', join(dir, 'limited-gcd.bin')]],
  ] as const) {
    const r = limited(0, args);
    assert.equal(r.status, 2, r.err);
    assert.equal(r.err, `qpu ${name}: cannot write ${args.at(-1)}: ${EFBIG}\n`);
  }
});

test('qpu run: a program whose output is cut short fails with status 2', () => {
  // One long line: a single write, which the limit cuts short (console.log itself never fails).
  const program = join(dir, 'loud.mts');
  const qpuTs = join(root, 'src/index.ts');
  writeFileSync(
    program,
    `import { Int, index, kernel, Ptr, SharedArray } from '${qpuTs}';\n` +
      `const k = kernel([Ptr(Int)], (p) => p.store(Int(index())));\n` +
      `await k(SharedArray.int32(16));\n` +
      `console.log('x'.repeat(5000));\n`,
  );
  const r = limited(1, ['run', program]);
  assert.equal(r.status, 2, r.err);
  assert.equal(r.err, `qpu: cannot write to standard output: ${EFBIG}\n`);
});
