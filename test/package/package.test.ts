// The package as another project gets it: `npm pack` (which builds dist/), the tarball installed
// into a fresh project, a kernel run from a plain .mjs through every entry point, a TypeScript
// consumer type-checked under `tsc --init`'s defaults (module and moduleResolution nodenext),
// and the `qpu` command from the installed files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const sh = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });

const CONSUMER_MJS = `
import { Int, kernel, Ptr, SharedArray, index } from 'qpu-ts';
import { assemble, disassemble, validate } from 'qpu-ts/asm';
import { Machine } from 'qpu-ts/emulator';
import { qadd } from 'qpu-ts/float';

const square = kernel([Ptr(Int)], function square(p) {
  const x = Int(index());
  p.store(x.mul(x));
});
const out = SharedArray.int32(16);
const report = await square(out);
console.log('squares', Array.from(out).join(' '));
console.log('cycles', report.run.cycles > 0);

const words = assemble('nop; thrend\\nnop\\nnop\\n').words;
console.log('asm', disassemble(words).split('\\n')[0].trim(), validate(words).length);
const m = new Machine();
const r = m.run(m.load(words), [m.memory.alloc(64, 'u').address]);
console.log('emulator', r.total.instructions);
console.log('float', qadd(1, 2 ** -30) === 1);
`;

const CONSUMER_TS = `
import { any, Float, For, Int, kernel, Ptr, SharedArray, type FloatType, type Kernel, type PtrType } from 'qpu-ts';
import { assemble, type AsmProgram } from 'qpu-ts/asm';
import { Machine, type RunResult } from 'qpu-ts/emulator';
import { qmul } from 'qpu-ts/float';

const scale: Kernel<readonly [PtrType<'float'>, FloatType]> = kernel([Ptr(Float), Float], function scale(p, s) {
  const i = Int(0);
  For(any(i.lt(4)), () => i.set(i.add(1)), () => {
    p.store(p.load().mul(s));
  });
});
const a: Float32Array = SharedArray.float32(16);
const done: Promise<unknown> = scale(a, 2);
const program: AsmProgram = assemble('nop; thrend\\nnop\\nnop\\n');
const m = new Machine();
const result: RunResult = m.run(m.load(program.words), [0]);
const x: number = qmul(3, 4);
export { done, result, x };
`;

test('the packed package installs in a fresh project and works from .mjs, from TypeScript (nodenext) and as the qpu command', { timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-package-'));
  try {
    const packed = JSON.parse(sh(npm, ['pack', '--json', '--pack-destination', dir], root)) as { filename: string; files: { path: string }[] }[];
    const files = packed[0]!.files.map((f) => f.path);
    assert.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts') && files.includes('bin/qpu.js') && files.includes('LICENSE'), files.join(' '));
    assert.deepEqual(files.filter((f) => /^(test|bench|src|examples)\//.test(f)), [], 'the tarball ships no tests, benchmarks, sources or examples');

    const project = join(dir, 'consumer');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
    sh(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, packed[0]!.filename)], project);

    writeFileSync(join(project, 'run.mjs'), CONSUMER_MJS);
    const out = sh(process.execPath, ['run.mjs'], project);
    const squares = Array.from({ length: 16 }, (_, i) => i * i).join(' ');
    assert.equal(out, `squares ${squares}\ncycles true\nasm nop.tend 0\nemulator 3\nfloat true\n`);

    sh(process.execPath, [tsc, '--init'], project);
    writeFileSync(join(project, 'consumer.ts'), CONSUMER_TS);
    const config = readFileSync(join(project, 'tsconfig.json'), 'utf8');
    assert.match(config, /"module": "nodenext"/);
    sh(process.execPath, [tsc, '--noEmit', '-p', '.'], project); // throws with tsc's messages on a type error

    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    assert.equal(sh(join(project, 'node_modules/.bin/qpu'), ['--version'], project), `qpu-ts ${version}\n`);
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    throw new Error(`${(e as Error).message}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
