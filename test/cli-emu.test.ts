// `qpu emu`: what it refuses before running (memory that cannot fit, counts that are not
// decimal, programs with no instructions), and errors from the emulator on one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runQpu } from './helpers/cli.ts';
import { GpuMemory } from '../src/common/memory.ts';

const hello = new URL('../examples/asm/hello.qasm', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'qpu-emu-'));
const helloRun = ['--uniforms', '100,@out', '--buffer', 'out:16'];

/** One line on standard error, no internal error, nothing on standard output. */
async function fails(code: number, args: string[], message: RegExp): Promise<string> {
  const r = await runQpu('emu', ...args);
  const what = args.join(' ');
  assert.equal(r.code, code, `${what}: ${r.err}`);
  assert.equal(r.out, '', what);
  assert.match(r.err, new RegExp(`^qpu emu: ${message.source}\\n$`), what);
  assert.doesNotMatch(r.err, /internal error|\n {4}at /, what);
  return r.err;
}

test('buffers that cannot fit in GPU memory are refused before the run, naming them and their sizes', async () => {
  const maxBytes = new GpuMemory().maxBytes;
  assert.equal(maxBytes, 256 * 1024 * 1024, 'the messages below assume the emulator has 256 MiB');
  const err = await fails(2, [hello, '--buffer', 'out:67108864', '--buffer', 'a:40000000', '--buffer', 'b:40000000', '--uniforms', '100,@out'], /the buffers do not fit .*/);
  assert.match(err, /the buffers do not fit in the emulator's 256 MiB of GPU memory: out 67108864 words \(256 MiB\), a 40000000 words \(152\.6 MiB\), b 40000000 words \(152\.6 MiB\) need \d+ bytes \(561\.2 MiB\) with the program \(80 bytes\) and the uniforms/);
  assert.match(err, /one buffer alone could have at most 67103744 words/);
  // That largest buffer runs; one word more does not.
  const ok = await runQpu('emu', hello, '--buffer', 'out:67103744', '--uniforms', '100,@out');
  assert.deepEqual([ok.code, ok.err], [0, '']);
  await fails(2, [hello, '--buffer', 'out:67103745', '--uniforms', '100,@out'], /the buffers do not fit .* at most 67103744 words/);
  // Each QPU's uniforms take memory too.
  await fails(2, [hello, '--qpus', '12', '--buffer', 'out:67103744', '--uniforms', '100,@out'], /the buffers do not fit .*/);
  // A size beyond all of GPU memory is a count out of range.
  await fails(2, [hello, '--buffer', 'out:67108865'], /--buffer out size 67108865: expected a whole number from 1 to 67108864, in decimal digits/);
});

test('every count of qpu emu takes decimal digits only, within range, with the same message', async () => {
  const bad = ['1e1', '0x10', '-1', '', ' 4', '4 ', '1.5', '+3', 'NaN', 'Infinity', '99999999999999999999', '9007199254740993', '٣', '1_000'];
  for (const v of bad) {
    await fails(2, [hello, ...helloRun, `--qpus=${v}`], /--qpus .*: expected a whole number from 1 to 12, in decimal digits/);
    await fails(2, [hello, ...helloRun, `--max-steps=${v}`], /--max-steps .*: expected a whole number from 1 to 9007199254740991, in decimal digits/);
    await fails(2, [hello, '--uniforms', '100,@out', '--buffer', `out:${v}`], /--buffer out size .*: expected a whole number from 1 to 67108864, in decimal digits/);
  }
  for (const v of ['0', '13']) await fails(2, [hello, ...helloRun, '--qpus', v], new RegExp(`--qpus ${v}: expected a whole number from 1 to 12, in decimal digits`));
  await fails(2, [hello, ...helloRun, '--max-steps', '0'], /--max-steps 0: expected a whole number from 1 to .*/);
  await fails(2, [hello, '--buffer', 'out:0'], /--buffer out size 0: expected a whole number from 1 to 67108864, in decimal digits/);
  await fails(2, [hello, "--qpus=''"], /--qpus '': expected .*/);
  // Leading zeros are still decimal; the largest step budget is accepted.
  const ok = await runQpu('emu', hello, ...helloRun, '--qpus', '002', '--max-steps', '9007199254740991', '--dump', 'out');
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /^out \(16 words at 0x[0-9a-f]{8}\):\n0x00001298 /);
  // A budget too small for the program ends the run with the emulator's error (the input's fault).
  await fails(1, [hello, ...helloRun, '--max-steps', '5'], /QPU 0, pc 5 \(.*\): the step budget .*ran out.*/);
});

test('a program with no instructions or a partial one is refused when it is loaded', async () => {
  const empty = join(dir, 'empty.bin');
  writeFileSync(empty, new Uint8Array(0));
  await fails(1, [empty], new RegExp(`${empty}: the program has no instructions`));
  const emptyAsm = join(dir, 'empty.qasm');
  writeFileSync(emptyAsm, '# nothing but a comment\n');
  // The assembler finds it, and says so as qpu asm does: file:line:col.
  const r = await runQpu('emu', emptyAsm);
  assert.equal(r.code, 1);
  assert.match(r.err, new RegExp(`^${emptyAsm}:1:1: error: no instructions.*\nqpu emu: 1 error in the assembly; nothing was run\n$`));
  for (const n of [1, 7, 12, 81]) {
    const odd = join(dir, `odd${n}.bin`);
    writeFileSync(odd, new Uint8Array(n));
    await fails(1, [odd], new RegExp(`${odd}: a QPU program is a sequence of 8-byte instructions, but this one has ${n} bytes \\(${n % 8} left over\\)`));
  }
});

test('errors from the emulator and from the uniforms and buffers come out as one line', async () => {
  // A memory fault: the hello world reads two uniforms, given one.
  await fails(1, [hello, '--uniforms', '100'], /QPU 0, pc \d+ \(.*\): uniform read at 0x[0-9a-f]{8}: just past the end of uniforms of QPU 0 .*/);
  // A deadlock, a broken rule, an unsupported word.
  const wait = join(dir, 'wait.qasm');
  writeFileSync(wait, 'sacq 0\nnop.tend\nnop\nnop\n');
  await fails(1, [wait], /deadlock: every QPU still running waits on another\. .*/);
  const rule = join(dir, 'rule.qasm');
  writeFileSync(rule, 'mov ra1, 1\nadd r0, ra1, 1\nnop.tend\nnop\nnop\n');
  await fails(1, [rule], /QPU 0, pc 1 \(.*\): \[regfile-read-after-write\] .*/);
  const bkpt = join(dir, 'bkpt.bin');
  writeFileSync(bkpt, new Uint8Array(8));
  await fails(1, [bkpt], /QPU 0, pc 0 \(.*\): .*/);
  // The command line's uniforms and buffers.
  await fails(2, [hello, '--uniforms', '100,@nope', '--buffer', 'out:16'], /--uniforms: @nope names no buffer \(the buffers are: out\)/);
  await fails(2, [hello, '--qpus', '3', '--uniforms', '1,@out', '--uniforms', '2,@out', '--buffer', 'out:16'], /--uniforms is given 2 times for 3 QPUs: give one list for all, or one per QPU/);
  await fails(2, [hello, '--uniforms', '4294967296,@out', '--buffer', 'out:16'], /--uniforms: 4294967296 does not fit in 32 bits .*/);
  await fails(2, [hello, ...helloRun, '--buffer', 'out:4'], /--buffer out is given twice/);
  await fails(2, [hello, '--buffer', 'a:2=1,2,3'], /--buffer a: 3 values for 2 words/);
  await fails(2, [hello, '--buffer', 'a:2=@out'], /--buffer a: only numbers can fill a buffer/);
  await fails(2, [hello, '--buffer', '1a:2'], /--buffer 1a:2: write NAME:WORDS, NAME:WORDS=V,V,\.\.\., NAME:@FILE or NAME:WORDS@FILE/);
  // A buffer filled with values: they are there after the run.
  const filled = await runQpu('emu', hello, '--uniforms', '100,@out', '--buffer', 'out:16', '--buffer', 'in:3=1,0x10,-1', '--dump', 'in');
  assert.equal(filled.code, 0, filled.err);
  assert.equal(filled.out.split('\n')[1], '0x00000001 0x00000010 0xffffffff');
});

test('uniforms and buffer values are numbers as the assembler reads them: no silent +Inf, 0 or denormal', async () => {
  await fails(2, [hello, '--uniforms', '1.5e39,@out', '--buffer', 'out:16'], /--uniforms: 1\.5e39 does not fit in a 32-bit float .*/);
  await fails(2, [hello, '--uniforms', '1e-50,@out', '--buffer', 'out:16'], /--uniforms: 1e-50 is too small for a 32-bit float.*/);
  await fails(2, [hello, '--uniforms', '1e-400,@out', '--buffer', 'out:16'], /--uniforms: 1e-400 is too small for a 32-bit float.*/);
  await fails(2, [hello, '--uniforms', '1,@out', '--buffer', 'out:8=1.4e-45'], /--buffer out: 1\.4e-45 is too small for a 32-bit float.*/);
  const ok = await runQpu('emu', hello, '--uniforms', '1.5,@out', '--buffer', 'out:16', '--dump', 'out');
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /\n0x3fc01234 /);
});

test('qpu emu --dump-js and --dump-wasm print the translation of the blocks that ran', async () => {
  const mandel = new URL('../examples/asm/mandel.qasm', import.meta.url).pathname;
  const run = ['--uniforms=-2.0,0.1875,0.1,200,@out,0', '--buffer', 'out:16'];
  const js = await runQpu('emu', mandel, ...run, '--dump-js');
  assert.equal(js.code, 0, js.err);
  assert.match(js.out, /^\/\/ block at pc 12\n.*function block_12_27\(q\)/m);
  assert.match(js.out, /W\.lanes_12\(q\.base, q\.id\);/);
  const wasm = await runQpu('emu', mandel, ...run, '--dump-wasm');
  assert.equal(wasm.code, 0, wasm.err);
  assert.match(wasm.out, /^;; block at pc 12\n\(func \$lanes_12 \(param \$base i32\) \(param \$qpu i32\)/m);
  assert.match(wasm.out, /;; pc 13, lanes 0-3\n/);
  assert.match(wasm.out, /;; fmul: the exact binary64 product, narrowed toward zero\n/);
  assert.match(wasm.out, /v128\.load offset=\d+ ;; r1\n/);
  // A program with no lane arithmetic for SIMD says so.
  const hello = new URL('../examples/asm/hello.qasm', import.meta.url).pathname;
  const none = await runQpu('emu', hello, '--uniforms', '100,@out', '--buffer', 'out:16', '--dump-wasm');
  assert.equal(none.code, 0, none.err);
  assert.match(none.out, /no block of this run had lane arithmetic for SIMD/);
});

test('--interleave SEED runs the QPUs in a random interleaving: a racy barrier deadlocks for some seeds; bad seeds are refused', async () => {
  // QPU 0 (%qpu 0) waits for QPU 1's arrival and raises the semaphore again; QPU 1 raises it and
  // lowers it at once, so it may take back its own arrival: in time order it never does.
  const racy = join(dir, 'racy.qasm');
  // (QPU 0's path stays in the program's first line of code: QPU 1's branch away waits for the
  // instruction cache to fetch the second, so in time order QPU 0 is waiting before QPU 1 arrives.)
  writeFileSync(racy, 'mov.setf -, unif\nbrr.anynz -, second\nnop\nnop\nnop\nsema down, 0\nsema up, 0\nbrr -, done\nnop\nnop\nnop\nsecond: sema up, 0\nsema down, 0\ndone: nop.tend\nnop\nnop\n');
  const run = ['--qpus', '2', '--uniforms', '%qpu'];
  assert.equal((await runQpu('emu', racy, ...run)).code, 0);
  const codes: number[] = [];
  for (let seed = 0; seed < 12; seed++) {
    const r = await runQpu('emu', racy, ...run, '--interleave', String(seed));
    codes.push(r.code);
    if (r.code) assert.match(r.err, /^qpu emu: deadlock: every QPU still running waits on another\. QPU 0 at pc 5 waits for semaphore 0 to be above 0 \(it is 0\); QPU 1 finished\n$/);
  }
  assert.ok(codes.includes(0) && codes.includes(1), codes.join(' '));
  for (const v of ['-1', '4294967296', '1.5', 'x'])
    await fails(2, [racy, ...run, '--interleave', v], /--interleave .*: expected a whole number from 0 to 4294967295, in decimal digits/);
});
