// JavaScript's operators on kernel values (`index() + 1`, `x * 2`, `x < y`, `${x}`) are one
// clear DslError at the user's line, saying which methods to write instead: never a TypeError
// from inside qpu-ts, a crash without a place, or a kernel built from "[object Object]1".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { any, DslError, Float, index, Int, kernel, Ptr, type IntVar } from '../../src/index.ts';

const SOURCE = readFileSync(new URL(import.meta.url).pathname, 'utf8').split('\n');
/** The line (from 1) that ends with the comment `// <marker>`. */
const lineOf = (marker: string) => SOURCE.findIndex((l) => l.endsWith(`// ${marker}`)) + 1;

/** What plain JavaScript (or a cast) lets through: a kernel value where a number is expected. */
const num = (x: unknown) => x as number;

/** Each case: its name, the marker ending its line here (where the error must point), what it does, the message. */
const CASES: [string, string, (p: IntVar) => unknown, RegExp][] = [
  ['Int(index() + 1)', 'plus', () => Int(num(index()) + 1), /an Int was used with \+ or == \(JavaScript operators\): JavaScript operators do not work on kernel values; write a\.add\(b\) for \+, a\.eq\(b\) for ==$/], // plus
  ['x * 2', 'times', (n) => Int(num(n) * 2), /an Int was used as a number \(an operator such as -, \*, \/, %, <, >, <= or >=\): .*write a\.sub\(b\) for -, a\.mul\(b\) for \*, a\.div\(b\) for \/, a\.rem\(b\) for %, a\.lt\(b\), a\.le\(b\), a\.gt\(b\), a\.ge\(b\) for <, <=, >, >=$/], // times
  ['`${x}`', 'template', (n) => `${n}`, /an Int was used as a string \(a template literal such as `\$\{x\}`, or String\(x\)\): a kernel value stands for code the kernel runs, not a value the host can print; print the whole kernel with k\.dump\(\)$/], // template
  ['x < y', 'less', (n) => num(n) < num(Int(1)), /an Int was used as a number \(an operator such as -, \*, \/, %, <, >, <= or >=\)/], // less
  ['a Float / 2', 'divide', () => Float(num(Float(1)) / 2), /a Float was used as a number .*write a\.sub\(b\) for -, a\.mul\(b\) for \*, a\.div\(b\) for \/, a\.lt\(b\)/], // divide
  ['a Ptr + 1', 'pointer', () => num(Ptr(Int)()) + 1, /a Ptr\(Int\) was used with \+ or == .*write p\.add\(n\) for the address n elements on$/], // pointer
  ['a condition + 1', 'condition', (n) => num(n.lt(1)) + 1, /a condition \(a comparison\) was used with \+ or == .*conditions combine with c\.and\(d\), c\.or\(d\), c\.not\(\)/], // condition
  ['-any(c)', 'any', (n) => -num(any(n.lt(1))), /any\(\.\.\.\) was used as a number/], // any
  ['x == 1', 'equals', (n) => (n as unknown) == 1, /an Int was used with \+ or ==/], // equals
  ['String(x)', 'string', (n) => String(n), /an Int was used as a string/], // string
];

for (const [name, marker, body, message] of CASES) {
  test(`JavaScript operators on kernel values: ${name}`, () => {
    const line = lineOf(marker);
    assert.ok(line > 0);
    assert.throws(
      () =>
        kernel([Int], function ops(n) {
          body(n);
        }),
      (e: unknown) =>
        e instanceof DslError && e.message.startsWith(`kernel ops (test/language/primitive.test.ts:${line}:`) && message.test(e.message),
    );
  });
}

test('a kernel value leaked out of its kernel is the same error, naming its kernel', () => {
  let leaked: IntVar | undefined;
  kernel([Int], function leaky(n) {
    leaked = n;
  });
  assert.throws(() => num(leaked) + 1, (e: unknown) => e instanceof DslError && /^kernel leaky \(.*primitive\.test\.ts:\d+:\d+\): an Int was used with \+/.test(e.message));
});

test('semaphore numbers and Var are checked before anything prints the value', async () => {
  const Q = await import('../../src/index.ts');
  const dsl = (re: RegExp) => (e: unknown) => e instanceof DslError && re.test(e.message);
  assert.throws(
    () => kernel([Int], function sema(n) {
      Q.semaInc(n as unknown as number);
    }),
    dsl(/^kernel sema \(.*\): semaInc takes a semaphore's number \(0 to 14, a host number\), not an IntVar$/),
  );
  assert.throws(
    () => kernel([Int], function copy() {
      Q.Var(num(index()) + 1 as never);
    }),
    dsl(/^kernel copy \(.*\): an Int was used with \+ or ==/),
  );
  assert.throws(
    () => kernel([Int], function copy2() {
      Q.Var('1' as never);
    }),
    dsl(/^kernel copy2 \(.*\): Var needs an Int, a Float or a Ptr to copy, not the string "1"$/),
  );
});
