// The new constructs' arguments as plain JavaScript can pass them: select's condition and values,
// x.lane(n)'s lane, and the Int methods that take an operand (umin, umax, ult, ...), each given
// every kind of junk: nothing, strings, objects, fractions, NaN, lanes out of range, booleans,
// values of another kernel, values forged with Object.create, a Float where an Int goes; and
// division, atan2, pow and the counts of loads and stores likewise; the scatters, the 8- and
// 16-bit pointers and Int.byte, Int.half and packBytes too. Each
// kernel() call ends in a kernel or in a DslError naming the kernel and the user's line; never a
// TypeError from inside qpu-ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as Q from '../../src/index.ts';
import { DslError } from '../../src/dsl/builder.ts';

const { Float, index, Int, kernel, Ptr, select } = Q;
const HERE = /construct-args\.test\.ts:\d+:\d+/;

let leaked: unknown;
kernel([Ptr(Int)], () => {
  leaked = index();
});

/** Junk, made inside the kernel being built (so that its own values can be among it). */
const junk = (): [string, unknown][] => [
  ['undefined', undefined],
  ['null', null],
  ['a string', 'x'],
  ['an object', {}],
  ['an array', [1]],
  ['NaN', NaN],
  ['1.5', 1.5],
  ['-1', -1],
  ['16', 16],
  ['2^40', 2 ** 40],
  ['true', true],
  ['another kernel\'s value', leaked],
  ['a forged Int', Object.create(Object.getPrototypeOf(Int(0)))],
  ['a Float', Float(1.5)],
  ['a condition', index().lt(3)],
];

/** Builds a kernel whose body uses `use`; returns 'ok', or fails unless it is a located DslError. */
function attempt(what: string, use: () => void): 'ok' | 'refused' {
  try {
    kernel([Ptr(Int)], function junky(p) {
      use();
      p.store(index());
    });
    return 'ok';
  } catch (e) {
    if (!(e instanceof DslError) || !/^kernel junky \(/.test(e.message) || !HERE.test(e.message)) assert.fail(`${what}: unexpected ${(e as Error)?.stack ?? e}`);
    return 'refused';
  }
}

test('select, lane and the operand-taking methods refuse every kind of junk at the user\'s line', () => {
  const calls: [string, (x: unknown) => unknown][] = [
    ['select(x, 1, 2)', (x) => select(x as Q.BoolValue, 1, 2)],
    ['select(c, x, 2)', (x) => select(index().lt(3), x as number, 2)],
    ['select(c, Int, x)', (x) => select(index().lt(3), index(), x as number)],
    ['Int.lane(x)', (x) => index().lane(x as number)],
    ['Float.lane(x)', (x) => index().toFloat().lane(x as number)],
    ['Int.umin(x)', (x) => index().umin(x as number)],
    ['Int.ult(x)', (x) => index().ult(x as number)],
  ];
  const outcomes = new Map<string, string>();
  const kinds = 15; // junk() makes 15 kinds (it needs a kernel being built to run)
  for (const [name, call] of calls)
    for (let i = 0; i < kinds; i++) {
      let label = '';
      const got = attempt(name, () => {
        const [l, x] = junk()[i]!;
        label = l;
        call(x);
      });
      outcomes.set(`${name} with ${label}`, got);
    }
  assert.equal(outcomes.size, calls.length * kinds);
  // What builds: a 32-bit integer where an Int goes, a Float chosen beside a number, a condition where one goes.
  const built = [...outcomes].filter(([, v]) => v === 'ok').map(([k]) => k);
  const expected = [
    ...['select(c, x, 2)', 'select(c, Int, x)', 'Int.umin(x)', 'Int.ult(x)'].flatMap((n) => [`${n} with -1`, `${n} with 16`]),
    'select(c, x, 2) with a Float',
    'select(x, 1, 2) with a condition',
  ];
  assert.deepEqual(built.sort(), expected.sort());
});

test('division, the math library\'s two-operand functions and counted loads and stores refuse junk at the user\'s line', () => {
  const calls: [string, (x: unknown) => unknown][] = [
    ['Int.div(x)', (x) => index().div(x as number)],
    ['Int.urem(x)', (x) => index().urem(x as number)],
    ['Int.mul24(x)', (x) => index().mul24(x as number)],
    ['Float.div(x)', (x) => index().toFloat().div(x as number)],
    ['Float.atan2(x)', (x) => index().toFloat().atan2(x as number)],
    ['Float.pow(x)', (x) => index().toFloat().pow(x as number)],
    ['Ptr.load(x)', (x) => Ptr(Int)().load(x as number)],
    ['Ptr.store(1, x)', (x) => Ptr(Int)().store(1, x as number)],
  ];
  const built: string[] = [];
  const kinds = 15;
  for (const [name, call] of calls)
    for (let i = 0; i < kinds; i++) {
      let label = '';
      if (attempt(name, () => {
        const [l, x] = junk()[i]!;
        label = l;
        call(x);
      }) === 'ok') built.push(`${name} with ${label}`);
    }
  const ints = ['Int.div(x)', 'Int.urem(x)', 'Int.mul24(x)', 'Ptr.load(x)', 'Ptr.store(1, x)'].flatMap((n) => [`${n} with -1`, `${n} with 16`]);
  const floats = ['Float.div(x)', 'Float.atan2(x)', 'Float.pow(x)'].flatMap((n) => [`${n} with 1.5`, `${n} with -1`, `${n} with 16`, `${n} with 2^40`, `${n} with a Float`]); // NaN is no literal
  // A count left out is a load or store of all 16 lanes.
  const whole = ['Ptr.load(x) with undefined', 'Ptr.store(1, x) with undefined'];
  assert.deepEqual(built.sort(), [...ints, ...floats, ...whole].sort());
});

test('scatters, 8- and 16-bit pointers and the bytes of words refuse junk at the user\'s line', () => {
  const calls: [string, (x: unknown) => unknown][] = [
    ['scatter(x, 1)', (x) => Q.scatter(x as Q.PtrExpr<'int'>, 1)],
    ['scatter(p, x)', (x) => Q.scatter(Ptr(Int)(), x as number)],
    ['scatterAdd(p, x)', (x) => Q.scatterAdd(Ptr(Float)(), x as number)],
    ['atomicAdd(x, 1)', (x) => Q.atomicAdd(x as Q.PtrExpr<'int'>, 1)],
    ['Int.byte(x)', (x) => index().byte(x as number)],
    ['Int.half(x)', (x) => index().half(x as number)],
    ['packBytes(x, 1, 2, 3)', (x) => Q.packBytes(x as number, 1, 2, 3)],
    ['Ptr(Uint8).load(x)', (x) => Ptr(Q.Uint8)().load(x as number)],
    ['Ptr(Int16).store(x)', (x) => Ptr(Q.Int16)().store(x as number)],
    ['Ptr(Uint8).add(x)', (x) => Ptr(Q.Uint8)().add(x as number)],
  ];
  const built: string[] = [];
  for (const [name, call] of calls)
    for (let i = 0; i < 15; i++) {
      let label = '';
      if (attempt(name, () => {
        const [l, x] = junk()[i]!;
        label = l;
        call(x);
      }) === 'ok') built.push(`${name} with ${label}`);
    }
  const ints = ['scatter(p, x)', 'packBytes(x, 1, 2, 3)', 'Ptr(Uint8).load(x)', 'Ptr(Int16).store(x)', 'Ptr(Uint8).add(x)'].flatMap((n) => [`${n} with -1`, `${n} with 16`]);
  const floats = ['scatterAdd(p, x) with 1.5', 'scatterAdd(p, x) with -1', 'scatterAdd(p, x) with 16', 'scatterAdd(p, x) with 2^40', 'scatterAdd(p, x) with a Float'];
  const whole = ['Ptr(Uint8).load(x) with undefined']; // a load of all 16
  assert.deepEqual(built.sort(), [...ints, ...floats, ...whole].sort());
  assert.throws(() => Q.SharedArray.uint8(0), /a whole number of elements above 0, not 0/);
  assert.throws(() => Q.SharedArray.int16('3' as never), /not the string "3"/);
});
