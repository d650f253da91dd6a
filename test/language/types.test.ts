// TypeScript catches type mistakes in kernels and in calls to them. The last test runs the
// TypeScript compiler on this file, with and without its @ts-expect-error comments: the line after
// each must be an error, and no other line may be (`npm test` type-checks it too, but a test run
// on its own does not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { Float, gather, Int, kernel, Ptr, receive, rotate, select, SharedArray, store, Where } from '../../src/index.ts';
import type { FloatType, HostArgs, Kernel, PtrType } from '../../src/index.ts';

/** Never called: the lines below only have to type-check (or fail to, where marked). */
export function typeChecks(): void {
  kernel([Int, Float, Ptr(Int), Ptr(Float)], (n, f, pi, pf) => {
    n.add(1);
    f.mul(0.5);
    // @ts-expect-error a Float where an Int is needed
    n.add(f);
    // @ts-expect-error comparing an Int with a Float
    n.lt(f);
    // @ts-expect-error assigning a Float to an Int variable
    n.set(f);
    // @ts-expect-error storing Floats through a Ptr(Int)
    pi.store(f);
    // @ts-expect-error a non-blocking store of Ints to a Ptr(Float)
    store(n, pf);
    // @ts-expect-error receive needs a variable, not an expression
    receive(n.add(1));
    // @ts-expect-error gather needs a pointer
    gather(n);
    // @ts-expect-error Where takes a vector condition, not a value
    Where(n, () => {});
    const g: typeof pf = pf;
    void g;
    rotate(f, 3).add(1.5);
    n.lane(3).shl(f.toInt().lane(n));
    f.lane(0).recip();
    n.mul(n).mul24(3).div(n).rem(7).udiv(n).urem(2);
    f.div(2).div(f).sqrt().add(1);
    pf.store(pf.load(n).add(1), n.sub(3));
    pi.load(5).add(pi.load());
    // @ts-expect-error a count is an Int, not a Float
    pf.load(f);
    f.sin().cos().tan().asin().acos().atan().atan2(f).pow(2).exp().exp2().log().log2().sinh().cosh().tanh().nativeExp2().nativeLog2();
    // @ts-expect-error atan2 of an Int
    f.atan2(n);
    // @ts-expect-error an Int divided by a Float
    n.div(f);
    // @ts-expect-error no unsigned division of Floats
    f.udiv(f);
    // @ts-expect-error Ints have no square root
    n.sqrt();
    // @ts-expect-error a lane number is an Int, not a Float
    n.lane(f);
    select(n.lt(0), n, 1).shl(2);
    select(f.lt(0), 0.5, f).recip();
    select(n.eq(0), pi, pi.add(1)).load().add(n);
    // @ts-expect-error select between an Int and a Float
    select(n.lt(0), n, f);
    // @ts-expect-error select of Ints is an Int, which a Float variable does not take
    f.set(select(n.lt(0), n, 1));
    // @ts-expect-error select needs a vector condition
    select(true, n, 1);
    // @ts-expect-error a pointer variable holds pointers of its own element type
    Ptr(Int)(pf);
  });
  const k = kernel([Ptr(Int), Float], (p, x) => {
    p.store(x.toInt());
  });
  k.interpretSync([SharedArray.int32(16), 1.5]);
  // @ts-expect-error a Float32Array for a Ptr(Int)
  k.interpretSync([SharedArray.float32(16), 1.5]);
  // @ts-expect-error a missing argument
  k.interpretSync([SharedArray.int32(16)]);
  // @ts-expect-error a string for a Float
  void k(SharedArray.int32(16), 'x');
  // The argument types by name: HostArgs, and Parameters<typeof k> (options last) for the sync calls.
  const args: HostArgs<[PtrType<'int'>, FloatType]> = [SharedArray.int32(16), 1.5];
  k.interpretSync(args);
  const all: Parameters<typeof k> = [SharedArray.int32(16), 2.5, { maxSteps: 100 }];
  k.interpretSync(all);
  k.emulateSync(all);
  const some: Parameters<Kernel<readonly [PtrType<'int'>, FloatType]>> = [SharedArray.int32(16), 2.5];
  k.emulateSync(some, { strict: false });
  // @ts-expect-error HostArgs is exact: a number for a Ptr(Int)
  const wrong: HostArgs<[PtrType<'int'>]> = [1];
  void wrong;
}

test('Parameters<typeof k> ends with options, which interpretSync and emulateSync take there', () => {
  const k = kernel([Ptr(Int), Float], function k(p, x) {
    p.store(x.toInt());
  });
  const p = SharedArray.int32(16);
  const all: Parameters<typeof k> = [p, 7.5, { maxSteps: 1000 }];
  assert.equal(k.interpretSync(all).target, 'interpreter');
  assert.equal(p[0], 7);
  assert.throws(() => k.interpretSync(all, { maxSteps: 5 }), /interpretSync was given options twice/);
  assert.throws(() => k.emulateSync([p, 1, { target: 'interpreter' }]), /emulate\(\) runs on the emulator, but the options say target 'interpreter'|target/);
});

const FILE = fileURLToPath(import.meta.url);
const DIRECTIVE = /^\s*\/\/ @ts-expect-error\b/;

/** The 1-based lines of `text` (standing for this file) where the TypeScript compiler finds an error, with its messages. */
function errorLines(text: string, options: ts.CompilerOptions): Map<number, string[]> {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === FILE ? ts.createSourceFile(name, text, version) : getSourceFile(name, version, ...rest);
  const program = ts.createProgram([FILE], options, host);
  const file = program.getSourceFile(FILE)!;
  const out = new Map<number, string[]>();
  for (const d of [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]) {
    const line = file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1;
    out.set(line, [...(out.get(line) ?? []), ts.flattenDiagnosticMessageText(d.messageText, ' ')]);
  }
  return out;
}

test('type mistakes are compile-time errors: the TypeScript compiler, run on this file, errs on each marked line and no other', () => {
  const config = ts.getParsedCommandLineOfConfigFile(join(dirname(FILE), '../../tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, ' ')),
  })!;
  const text = readFileSync(FILE, 'utf8');
  // As written: no error at all (a directive with no error after it is one: "Unused '@ts-expect-error' directive").
  const asWritten = errorLines(text, config.options);
  assert.deepEqual([...asWritten], [], 'errors in this file as written');
  // Without the directives (each line blanked, so the numbers stand): errors exactly where they were.
  const lines = text.split('\n');
  const marked = lines.flatMap((l, i) => (DIRECTIVE.test(l) ? [i + 2] : []));
  assert.ok(marked.length >= 10, `only ${marked.length} @ts-expect-error lines`);
  const bare = errorLines(lines.map((l) => (DIRECTIVE.test(l) ? '' : l)).join('\n'), config.options);
  const unexpected = [...bare].filter(([line]) => !marked.includes(line));
  assert.deepEqual(unexpected, [], 'errors on lines not marked @ts-expect-error');
  assert.deepEqual(marked.filter((line) => !bare.has(line)), [], 'lines marked @ts-expect-error that are no error');
  assert.equal(typeof typeChecks, 'function');
});
