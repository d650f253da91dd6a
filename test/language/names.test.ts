// Errors and dumps name variables as the user's source does: `const q = Int(...)` is q, not v4;
// `Int(x, 'name')` names one explicitly; two variables of one name are told apart (i, i#2); a
// name that cannot be read falls back to v<id>. Every message that prints a statement (the
// checker's, the interpreter's, the emulator's through the kernel) uses these names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  any,
  CheckError,
  DslError,
  Float,
  For,
  gather,
  index,
  Int,
  InterpreterError,
  kernel,
  Ptr,
  receive,
  SharedArray,
  Var,
  While,
  type FloatVar,
  type IntVar,
  type PtrVar,
} from '../../src/index.ts';
import { EmulatorError } from '../../src/emulator/errors.ts';

/** The names the kernel's variables have in messages, by id (parameters first). */
const names = (k: { ast: { vars: readonly { userName?: string; name: string }[] } }) => k.ast.vars.map((v) => v.userName ?? v.name);

class Counter {
  readonly count = Int(0);
  readonly total: FloatVar;
  constructor() {
    this.total = Float(1.5);
  }
}

test('declarations name their variables: const, let, annotations, Ptr(...)(...), Var, class fields, this.x, a call on the next line', () => {
  const k = kernel([Ptr(Float)], function decl(x) {
    const q = Int(index());
    let done = Float(0);
    const p = Ptr(Float)(x.add(1));
    const n: IntVar = Int(3);
    const copy = Var(q.add(1));
    const w =
      Int(7);
    const c = new Counter();
    done = Float(done.add(c.total));
    void [p, n, copy, w];
  });
  assert.deepEqual(names(k), ['x', 'q', 'done', 'p', 'n', 'copy', 'w', 'count', 'total', 'done#2']);
});

test('elements of an array literal, pushes and later declarations on a line are named; anything else by where it was made', () => {
  const line = Number(/names\.test\.ts:(\d+)/.exec(new Error().stack!)![1]) + 2;
  const k = kernel([Ptr(Int)], function plain(p) {
    const [a, b] = [Int(1), Int(2)];
    const both = [Int(3), Int(4)];
    const first = Int(5), second = Int(6);
    const i = Int(7); const j = Int(8);
    const list: IntVar[] = [];
    for (let n = 0; n < 2; n++) list.push(Int(n));
    p.store(Int(a.add(b).add(both[0]!).add(both[1]!).add(first).add(second).add(i).add(j).add(list[1]!)));
  });
  assert.deepEqual(names(k), ['p', `Int@${line}:21`, `Int@${line}:29`, 'both[0]', 'both[1]', 'first', 'second', 'i', 'j', 'list[]', 'list[]#2', `Int@${line + 6}:13`]);
});

test('Int(x, name), Float(x, name), Ptr(...)(x, name) and Var(x, name) name a variable, over its declaration', () => {
  const k = kernel([Ptr(Int)], function explicit(p) {
    const a = Int(0, 'count');
    const f = Float(undefined, 'acc');
    const cursor = Ptr(Int)(p.add(16), 'row[1].cursor');
    const copy = Var(a, 'aCopy');
    const list = [Int(1, 'first'), Int(2, 'second')];
    void [f, cursor, copy, list];
  });
  assert.deepEqual(names(k), ['p', 'count', 'acc', 'row[1].cursor', 'aCopy', 'first', 'second']);
  assert.match(k.dump(), /^ {2}count = 0\n {2}row\[1\]\.cursor = p \+ 16\n {2}aCopy = count\n {2}first = 1\n {2}second = 2\n$/m);
});

test('an explicit name must be a short string without spaces or backquotes', () => {
  for (const [bad, shown] of [
    ['', 'the string ""'],
    ['a b', 'the string "a b"'],
    ['x`y', 'the string "x`y"'],
    ['n'.repeat(65), `the string "${'n'.repeat(40)}..."`],
    [5, '5'],
    [null, 'null'],
    [{}, 'an object'],
  ] as const)
    assert.throws(
      () =>
        kernel([], function named() {
          Int(0, bad as string);
        }),
      (e: unknown) =>
        e instanceof DslError &&
        e.message.startsWith('kernel named (test/language/names.test.ts:') &&
        e.message.endsWith(`): Int(init, name): a variable's name is a string of 1 to 64 characters without spaces or backquotes, not ${shown}`),
      String(bad),
    );
});

test('names are unique in a kernel: the second i is i#2, a helper called three times makes c, c#2, c#3', () => {
  const counter = () => {
    const c = Int(0);
    return c;
  };
  const k = kernel([Int, Ptr(Int)], function twice(n, p) {
    const i = Int(0);
    For(i.lt(n), () => i.set(i.add(1)), () => {
      const i = Int(n);
      p.store(i);
    });
    counter();
    counter();
    counter();
    const v5 = Int(1); // the name a fallback would have: the fallback gets #2
    const [x] = [Int(2)];
    const q = Int(0, 'p'); // a parameter's name
    void [v5, x, q];
  });
  assert.deepEqual(names(k).map((n) => n.replace(/@\d+:\d+$/, '@L:C')), ['n', 'p', 'i', 'i#2', 'c', 'c#2', 'c#3', 'v5', 'Int@L:C', 'p#2']);
  assert.match(k.dump(), /\n {2}for any\(i < n\)\n {4}i#2 = n\n {4}\*p = i#2\n {2}step\n {4}i = i \+ 1\n/);
});

test('a kernel whose source cannot be read names its variables by where they were made, and builds as before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-names-'));
  const file = join(dir, 'gone.ts');
  const index = pathToFileURL(join(process.cwd(), 'src/index.ts')).href;
  writeFileSync(
    file,
    `import { Int, kernel, Ptr } from ${JSON.stringify(index)};\n` +
      `export const make = () => kernel([Ptr(Int)], function gone(p) {\n  const q = Int(1);\n  p.store(q);\n});\n`,
  );
  const { make } = (await import(pathToFileURL(file).href)) as { make: () => { ast: { vars: { userName?: string; name: string }[] }; dump(): string } };
  rmSync(dir, { recursive: true });
  const k = make();
  assert.deepEqual(names(k), ['p', 'Int@3:13']);
  assert.equal(k.dump(), 'kernel gone(p: int*)\n  Int@3:13 = 1\n  *p = Int@3:13\n');
  // A function made from a string has no file at all.
  const built = new Function('kernel', 'Int', 'Ptr', 'return kernel([Ptr(Int)], function made(p) { const q = Int(2); p.store(q); })')(kernel, Int, Ptr);
  assert.deepEqual(names(built), ['p', 'Int@3:56']); // in the function's own text (V8 puts two lines before a new Function's body)
});

test("the checker's messages name the user's variables", () => {
  assert.throws(
    () =>
      kernel([Ptr(Int)], function none(p) {
        const q = Int(0);
        receive(q);
        p.store(q);
      }),
    (e: unknown) => e instanceof CheckError && /^kernel none \(.*names\.test\.ts:\d+:\d+\): `receive\(q\)`: receive with nothing gathered$/.test(e.message),
  );
});

/** The issue's kernel: a gather past the array, and a loop on `done`. */
const issue = kernel([Ptr(Int)], function issue(p) {
  const q = Int(p.add(index()).load());
  const done = Int(0);
  While(any(done.eq(0)), () => {
    q.set(q.add(1));
  });
  gather(p.add(q));
  receive(q);
});

test("the interpreter's messages name the user's variables", () => {
  const a = SharedArray.int32(16);
  assert.throws(
    () => issue.interpretSync([a], { maxSteps: 100 }),
    (e: unknown) => e instanceof InterpreterError && /^kernel issue, QPU 0 \(.*names\.test\.ts:\d+:\d+, `(q = q \+ 1|while any\(done == 0\))`\): the step budget/.test(e.message),
  );
  const stop = kernel([Ptr(Int)], function stop(p) {
    const q = Int(p.add(index()).load());
    gather(p.add(q));
    receive(q);
  });
  a.fill(1000);
  assert.throws(
    () => stop.interpretSync([a]),
    (e: unknown) => e instanceof InterpreterError && /^kernel stop, QPU 0 \(.*names\.test\.ts:\d+:\d+, `gather\(p \+ q\)`\): a read of lane 0 .*\(p at 0x[0-9a-f]{8}, 64 bytes\)$/.test(e.message),
  );
});

test("the emulator's messages name the user's variables and the kernel's parameters", () => {
  const a = SharedArray.int32(16);
  assert.throws(
    () => issue.emulateSync([a], { maxSteps: 1000 }),
    (e: unknown) =>
      e instanceof EmulatorError && e.kind === 'budget' && /^kernel issue in .*names\.test\.ts:\d+:\d+ `(q = q \+ 1|while any\(done == 0\))`: QPU 0, pc \d+/.test(e.message),
  );
  const past = kernel([Ptr(Int)], function past(p) {
    const q = Int(p.load());
    p.add(16).store(q);
  });
  assert.throws(
    () => past.emulateSync([a]),
    (e: unknown) =>
      e instanceof EmulatorError &&
      e.kind === 'fault' &&
      /^kernel past in .*names\.test\.ts:\d+:\d+ `\*\(p \+ 16\) = q`: QPU 0, pc \d+ .*: DMA store at 0x[0-9a-f]{8}: just past the end of p, outside the arrays kernel past was given \(p at 0x[0-9a-f]{8}, 64 bytes\)$/.test(
        e.message,
      ),
  );
});

test('k.dump() names variables as the source does; the compiler keeps its internal names', () => {
  const k = kernel([Ptr(Int)], function shown(p) {
    const total = Int(0);
    const at: PtrVar<'int'> = Ptr(Int)(p);
    total.set(total.add(at.load()));
    p.store(total);
  });
  assert.equal(k.dump(), ['kernel shown(p: int*)', '  total = 0', '  at = p', '  total = total + *at', '  *p = total', ''].join('\n'));
  assert.match(k.code().dump('pipeline'), /pipeline is off|v1/);
});

// Top-level names that the kernels' parameters below share: tsx (esbuild) renames such
// parameters in the code it runs (x becomes x2), so their names are read from this file.
const x = SharedArray.int32(16);
const scale = 3;

test('parameters keep the names the source gives them when a tool renames them (shared with top-level names)', () => {
  const k = kernel([Ptr(Int), Int], function scaled(x, scale) {
    x.store(x.load().mul(scale));
  });
  assert.equal(k.dump().split('\n')[0], 'kernel scaled(x: int*, scale: int)');
  const arrow = kernel([Ptr(Int), Int], (x, scale) => x.store(Int(scale)), { name: 'arrow' });
  assert.equal(arrow.dump().split('\n')[0], 'kernel arrow(x: int*, scale: int)');
  void [x, scale];
});

test('a load the compiler turned into a gather is shown as the user wrote it in emulator errors', () => {
  const k = kernel([Int, Ptr(Float), Ptr(Float)], function copy(n, src, dst) {
    const i = Int(0);
    For(any(i.lt(n)), () => i.set(i.add(16)), () => {
      const value = Float(src.add(i).load());
      dst.add(i).store(value);
    });
  });
  assert.throws(
    () => k.emulateSync([64, SharedArray.float32(16), SharedArray.float32(64)]),
    (e: unknown) => e instanceof EmulatorError && /^kernel copy in .*names\.test\.ts:\d+:\d+ `value = \*\(src \+ i\)`: QPU 0, pc \d+ .*TMU0 lookup/.test(e.message),
  );
});
