// print(label, x, ...) in kernels: the same lines on the interpreter and on compiled code at -O0
// and -O2 (each QPU's prints in its program order, QPU after QPU; a value the same in every lane
// shown once), the log's bound and the count of prints dropped, what was printed before an error,
// prints in a parallelFor, and the mistakes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assert as kassert, For, index, Int, kernel, me, parallelFor, print, Ptr, type RunReport, SharedArray, Where } from '../../src/index.ts';

/** The lines each run printed: the interpreter's, then the emulator's at -O0 and -O2 (console output muted). */
function printedOn(k: { interpretSync(a: never): RunReport; emulateSync(a: never): RunReport; setOptLevel(o: 0 | 2): unknown }, args: () => unknown[]): string[][] {
  const log = console.log;
  console.log = () => {};
  try {
    return [() => k.interpretSync(args() as never), () => (k.setOptLevel(0), k.emulateSync(args() as never)), () => (k.setOptLevel(2), k.emulateSync(args() as never))].map((run) => [...run().printed]);
  } finally {
    console.log = log;
  }
}

test('each QPU\'s prints in its program order, QPU after QPU, the same on every target', () => {
  const k = kernel([Ptr(Int)], function shows(p) {
    const x = Int(index().mul(me().add(1)));
    print('start', x);
    const i = Int(0);
    For(i.lt(2), () => i.set(i.add(1)), () => print('loop', { i, half: x.toFloat().mul(0.5) }, p));
  }).setNumQPUs(2);
  const [interpreted, o0, o2] = printedOn(k, () => [SharedArray.int32(16)]);
  assert.equal(interpreted!.length, 6);
  assert.equal(interpreted![0], 'QPU 0: start: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15');
  assert.equal(interpreted![1], 'QPU 0: loop: i = 0 (every lane); half = 0 0.5 1 1.5 2 2.5 3 3.5 4 4.5 5 5.5 6 6.5 7 7.5; ' + interpreted![1]!.split('; ')[2]);
  assert.match(interpreted![1]!, /; 0x[0-9a-f]+ \(every lane\)$/);
  assert.equal(interpreted![3], 'QPU 1: start: 0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30');
  // The arrays' addresses differ between runs; the rest is the same.
  const strip = (ls: string[]) => ls.map((l) => l.replace(/0x[0-9a-f]+/g, 'ADDR'));
  assert.deepEqual(strip(o0!), strip(interpreted!));
  assert.deepEqual(strip(o2!), strip(interpreted!));
});

test('a QPU keeps 64 rows of prints and says how many more it dropped; what it printed shows with an error that stops the run', () => {
  const k = kernel([Ptr(Int)], function many(p) {
    const i = Int(0);
    For(i.lt(40), () => i.set(i.add(1)), () => print('i', i));
    p.store(i);
  });
  const runs = printedOn(k, () => [SharedArray.int32(16)]);
  for (const lines of runs) {
    assert.equal(lines.length, 33);
    assert.equal(lines[31], 'QPU 0: i: 31 (every lane)');
    assert.equal(lines[32], 'QPU 0: 8 more prints dropped (each QPU keeps 64 rows: a row a print and one a value)');
  }
  const failing = kernel([Int], function failing(n) {
    print('n', n);
    kassert(n.lt(3), 'small');
  });
  for (const run of [() => failing.interpretSync([7]), () => failing.emulateSync([7])])
    assert.throws(run, (e: Error) => /assertion failed.*: small\n {2}QPU 0, lanes 0 1 .* 15\nprinted before the run stopped:\n {2}QPU 0: n: 7 \(every lane\)$/s.test(e.message));
});

test('prints in a parallelFor show the last block\'s lanes too', () => {
  const k = kernel([Int, Ptr(Int)], function parallel(n, p) {
    parallelFor(n, (i) => {
      print('i', i);
      p.add(i).store(i);
    });
  }).setNumQPUs(2);
  const [a, b, c] = printedOn(k, () => [20, SharedArray.int32(20)]);
  assert.deepEqual(a, ['QPU 0: i: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15', 'QPU 1: i: 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31']);
  assert.deepEqual(b, a);
  assert.deepEqual(c, a);
});

test('mistakes: a print in a Where, a label that is no string, a value that is no Int, Float or Ptr', () => {
  assert.throws(() => kernel([Int], (n) => Where(n.gt(0), () => print('x', n))), /print inside Where/);
  assert.throws(() => kernel([Int], (n) => print(3 as never, n)), /print\(label, \.\.\.\): the label is a string, not 3/);
  assert.throws(() => kernel([Int], (n) => print('n', n, 'x' as never)), /print\("n", \.\.\.\): value 2 is not an Int, a Float or a Ptr but the string "x"/);
});
