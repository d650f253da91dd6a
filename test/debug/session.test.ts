// The debugger (debug(k, args, options), src/debug): on the interpreter and on the emulator, a
// run stopped at breakpoints (with conditions on lanes), stepped forward and back, every QPU's
// state, variables as lanes and as grids of QPUs, Where's lanes, registers; the same values on
// both targets; a failing run stopped where it failed; the mistakes; the terminal commands, and
// `qpu debug` itself through a pseudo-terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { barrier, For, func, Int, index, kernel, me, Ptr, rotate, SharedArray, Where, While, any } from '../../src/index.ts';
import { debug, type DebugSession } from '../../src/debug/session.ts';
import { DebugConsole } from '../../src/debug/commands.ts';
import { QPU_PROCESS } from '../helpers/cli.ts';

const THIS = 'test/debug/session.test.ts';
const staged = kernel([Ptr(Int)], function staged(out) {
  const x = Int(index().add(me().mul(100)));
  Where(x.gt(105), () => x.set(x.sub(100)));
  barrier();
  const y = Int(x.mul(2));
  out.add(me().mul(16)).store(y);
});
const LINE = { x: 16, where: 17, barrier: 18, y: 19, store: 20 };

const gcd = kernel([Ptr(Int), Ptr(Int), Ptr(Int)], function gcd(p, q, r) {
  const a = Int(p.load());
  const b = Int(q.load());
  While(any(a.ne(b)), () => {
    Where(a.gt(b), () => a.set(a.sub(b)));
    Where(a.lt(b), () => b.set(b.sub(a)));
  });
  r.store(a);
});
const GCD_LINE = { sub: 28 };
const FUNC_LINE = { body: 174, call: 179, store: 180 };
const REDUCE_LINE = { load: 219, where: 220 };

const lanes = (s: DebugSession, name: string, q = s.qpu) => s.variables(q).find((v) => v.name === name)?.lanes;

for (const target of ['interpreter', 'emulator'] as const) {
  test(`${target}: a breakpoint, the QPUs' states, a variable as a grid, steps on a selected QPU, back to the start`, () => {
    const out = SharedArray.int32(32, 'out');
    const s = debug(staged, [out], { target, qpus: 2 });
    assert.equal(s.stopped.reason, 'entry');
    assert.equal(s.stopped.snapshot.event, 0);
    const b = s.break(`${THIS}:${LINE.y}`);
    const st = s.continue();
    assert.equal(st.reason, 'breakpoint');
    assert.equal(st.breakpoint, b);
    const stopped = st.snapshot.qpus[st.snapshot.qpu]!;
    assert.match(stopped.stmt!.loc!, new RegExp(`session\\.test\\.ts:${LINE.y}:`));
    // Each QPU's x: lanes above 105 lost 100 (QPU 1's lanes 6-15).
    const grid = s.grid('x');
    assert.deepEqual(grid[0]!.lanes, Array.from({ length: 16 }, (_, l) => l));
    assert.deepEqual(grid[1]!.lanes, Array.from({ length: 16 }, (_, l) => (l > 5 ? l : 100 + l)));
    assert.equal(s.evaluate('x[7] + qpu', 1).lanes[0], 8);
    // The other QPU waits at the barrier or is on its way there.
    const other = st.snapshot.qpus[1 - st.snapshot.qpu]!;
    assert.match(other.stmt!.loc!, new RegExp(`:(${LINE.barrier}|${LINE.y}):`));
    if (target === 'emulator') assert.ok(stopped.machine!.registers.get('ra0'), 'registers show');
    s.qpu = st.snapshot.qpu;
    const before = s.stopped.snapshot.event;
    s.next();
    assert.equal(s.stopped.snapshot.qpu, st.snapshot.qpu);
    const x = s.grid('x')[s.qpu]!.lanes!;
    if (target === 'interpreter') assert.deepEqual(lanes(s, 'y'), x.map((v) => 2 * v));
    // The compiled code writes x * 2 straight to the VPM: y has no register of its own.
    else assert.throws(() => s.evaluate('y'), /y: kept in no register: the compiler computes it where it is used/);
    s.back(true);
    assert.equal(s.stopped.snapshot.event, before, 'back to the statement it stepped from');
    assert.equal(s.finish().reason, 'end');
    assert.deepEqual([...out], new Array(32).fill(0), "the session's runs never touch the caller's arrays");
    assert.equal(s.restart().reason, 'entry');
  });

  test(`${target}: a condition on lanes stops where it first holds, with the values of the interpreter`, () => {
    const p = SharedArray.int32(16, 'p');
    const q = SharedArray.int32(16, 'q');
    const r = SharedArray.int32(16, 'r');
    p.set(Array.from({ length: 16 }, (_, i) => 90 + 7 * i));
    q.set(Array.from({ length: 16 }, (_, i) => 60 + 3 * i));
    const s = debug(gcd, [p, q, r], { target });
    s.break(GCD_LINE.sub, 'a[0] < 40');
    s.continue();
    const a = lanes(s, 'a')!;
    assert.ok(a[0]! < 40);
    // The same stop on the other target gives the same lanes.
    const t = debug(gcd, [p, q, r], { target: target === 'emulator' ? 'interpreter' : 'emulator' });
    t.break(GCD_LINE.sub, 'a[0] < 40');
    t.continue();
    assert.deepEqual(lanes(t, 'a'), a);
    assert.deepEqual(lanes(t, 'b'), lanes(s, 'b'));
  });
}

test('interpreter: inside a Where, the lanes it leaves out are marked; a step back from the start stays there', () => {
  const out = SharedArray.int32(32, 'out');
  const s = debug(staged, [out], { qpus: 2 });
  assert.equal(s.back().reason, 'entry');
  s.break(`${LINE.where}`);
  s.continue();
  s.next();
  const mask = s.stopped.snapshot.qpus[0]!.mask!;
  assert.deepEqual([...mask], new Array(16).fill(0), 'on QPU 0 no lane is above 105');
  s.qpu = 1;
  s.step();
  while (s.stopped.snapshot.qpus[1]!.stmt?.loc?.includes(`:${LINE.x}:`)) s.step();
  s.step();
  assert.deepEqual([...s.stopped.snapshot.qpus[1]!.mask!], Array.from({ length: 16 }, (_, l) => (l > 5 ? 1 : 0)));
});

test('a run that fails stops where it failed, with the kernel\'s message, on both targets', () => {
  const out = SharedArray.int32(32, 'out');
  const bad = kernel([Ptr(Int)], function bad(o) {
    o.add(1000).store(Int(1));
  });
  for (const target of ['interpreter', 'emulator'] as const) {
    const st = debug(bad, [out], { target }).continue();
    assert.equal(st.reason, 'error');
    assert.match(st.snapshot.error!, /kernel bad.*outside the arrays/);
  }
});

test('mistakes: a line with no statement, a condition that does not parse, an unknown variable, a bad target', () => {
  const out = SharedArray.int32(32, 'out');
  const s = debug(staged, [out]);
  assert.throws(() => s.break(3), /no statement of kernel staged is on line 3; its statements are on lines 16, 17, 18, 19, 20/);
  assert.throws(() => s.break(LINE.y, 'x +'), /the expression ends too soon/);
  assert.throws(() => s.break('here'), /a breakpoint is a line: 12, or file\.ts:12/);
  assert.throws(() => s.evaluate('nothing'), /no variable nothing here/);
  assert.throws(() => s.grid('nothing'), /kernel staged has no variable nothing/);
  assert.throws(() => debug(staged, [out], { target: 'pi' as never }), /runs on the interpreter or the emulator, not pi/);
  assert.throws(() => debug(staged, [42]), /argument 1 \(out\): expected a SharedArray of int32/);
});

test('the terminal commands: break, continue, print, watch, vars, qpus, regs, help, and an unknown command', () => {
  const out = SharedArray.int32(32, 'out');
  const c = new DebugConsole(debug(staged, [out], { target: 'emulator', qpus: 2 }));
  assert.match(c.start(), /^debugging kernel staged on 2 QPUs, the emulator, by instruction/);
  assert.match(c.run(`b ${LINE.y} if x[0] > 50`).out, /^breakpoint 1 at line 19 if x\[0\] > 50\n$/);
  assert.match(c.run('watch y').out, /^watch 1: y\n/);
  const stop = c.run('c').out;
  assert.match(stop, /^stopped at breakpoint 1 \(if x\[0\] > 50\): QPU 1, step \d+ of the run\n  pc \d+ `.*` in .*session\.test\.ts:19:\d+ `y = x \* 2`\n/);
  assert.match(c.run('p x').out, /^x = \[100, 101, 102, 103, 104, 105, 6, 7,/);
  assert.match(c.run('vars').out, /out = 0x[0-9a-f]+ in every lane\nlane +0 +1/);
  assert.match(c.run('qpus').out, /\* QPU 1: running/);
  assert.match(c.run('regs').out, /^QPU 1, pc \d+, cycle [\d,]+, TMU results waiting: 0 on TMU0, 0 on TMU1; registers in hex/);
  assert.match(c.run('help').out, /break LINE \[if COND\]/);
  // QPU 0 wrote its y (x * 2) to its store row, row 0 of the VPM, before the barrier's wait.
  assert.match(c.run('vpm 0 1').out, /^the VPM's rows of 16 words .*\nword +0 .*\nrow 0 +0 +2 +4 +6 /);
  assert.match(c.run('vpm 99').out, /ROW is 0 to 63/);
  assert.match(c.run('frobnicate').out, /no command "frobnicate": help lists them/);
  assert.deepEqual(c.run('quit'), { out: '', quit: true });
});

test('qpu debug through a pseudo-terminal: commands typed, the session, then the program goes on', () => {
  const qpu = QPU_PROCESS.map((x) => `'${x}'`).join(' ');
  const root = new URL('../..', import.meta.url).pathname;
  // script(1) gives the command a terminal; the typed lines arrive as a user's would.
  const r = spawnSync('script', ['-qfec', `cd '${root}' && ${qpu} debug examples/gcd.ts --kernel gcd`, '/dev/null'], {
    input: 'b 13\nc\np a[0]\nq\n',
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, CI: '1' },
  });
  const text = r.stdout.replace(/\r/g, '');
  assert.equal(r.status, 0, text + r.stderr);
  assert.match(text, /\(qpu\) breakpoint 1 at line 13\n\(qpu\) stopped at breakpoint 1: QPU 0, step 3 of the run\n/);
  assert.match(text, /\(qpu\) a\[0\] = 183\n/);
  assert.match(text, /the debugger is done; kernel gcd runs on\ngcd\(183, 186\) = 3\n/);
});

test('counts, next over a func and out of it, the QPU checked, stable watch numbers', () => {
  const sq = func([Int], (a) => {
    const b = Int(a.mul(a));
    return [b.add(1)];
  }, { name: 'sq' });
  const k = kernel([Ptr(Int)], function usesFunc(p) {
    const x = Int(index());
    const [y] = sq(x);
    p.store(y);
  });
  const out = SharedArray.int32(16);
  for (const target of ['interpreter', 'emulator'] as const) {
    const s = debug(k, [out], { target, opt: 0 });
    s.break(`${THIS}:${FUNC_LINE.call}`);
    s.continue();
    // next runs the func through: the next stop is the store, with y set.
    s.next();
    assert.match(s.stopped.snapshot.qpus[0]!.stmt!.loc!, new RegExp(`:${FUNC_LINE.store}:`));
    assert.deepEqual(s.grid('y')[0]!.lanes!.slice(0, 3), [1, 2, 5]);
    // Into it with step, out of it with out.
    s.restart();
    s.continue();
    while (!s.stopped.snapshot.qpus[0]!.stmt?.loc?.includes(`:${FUNC_LINE.body}:`)) s.step();
    s.out();
    assert.match(s.stopped.snapshot.qpus[0]!.stmt!.loc!, new RegExp(`:(${FUNC_LINE.call}|${FUNC_LINE.store}):`));
  }
  const s = debug(k, [out]);
  const first = s.step(2).snapshot.event;
  assert.equal(s.back(false, 2).snapshot.event, 0);
  assert.equal(s.step(2).snapshot.event, first);
  assert.throws(() => (s.qpu = 1), /qpu is 0 to 0, not 1/);
  assert.throws(() => s.step(0), /a count is a whole number from 1, not 0/);
  assert.throws(() => s.break(FUNC_LINE.store, 'nosuch > 1'), /kernel usesFunc has no variable nosuch/);
  const c = new DebugConsole(s);
  c.run('watch x');
  c.run('watch y');
  assert.match(c.run('unwatch 1').out, /watch 1 removed/);
  assert.match(c.run('step').out, /\n  2: y/);
  assert.match(c.run('step 2').out, /^stopped at/);
  assert.match(c.run('step two').out, /a count is a whole number from 1, not "two"/);
});

test('on the emulator at -O0 a line stops once a pass, as on the interpreter', () => {
  const reduce = kernel([Ptr(Int), Ptr(Int), Int], function reduce(a, out, n) {
    const acc = Int(0);
    const i = Int(0);
    For(i.lt(n.sub(16)), () => i.set(i.add(16)), () => {
      const v = Int(a.add(i).load());
      Where(index().add(i).lt(n), () => acc.set(acc.add(v)));
    });
    out.store(Int(acc.sumLanes()));
  });
  const a = SharedArray.int32(112);
  const out = SharedArray.int32(16);
  for (const line of [REDUCE_LINE.load, REDUCE_LINE.where]) {
    const hits = (['interpreter', 'emulator'] as const).map((target) => {
      const s = debug(reduce, [a, out, 100], { target, opt: 0 });
      s.break(line);
      let n = 0;
      while (s.continue().reason === 'breakpoint') n++;
      return n;
    });
    assert.deepEqual(hits, [6, 6], `line ${line}`);
  }
});

// n lives in r0 (pass scratch) until the rotations, whose inputs emit.ts copies to r0 first.
const inR0 = kernel([Int, Ptr(Int), Ptr(Int)], function inR0(n, p, q) {
  const s = Int(p.load());
  const t = Int(p.add(16).load());
  const i = Int(0);
  For(i.lt(n), () => i.set(i.add(1)), () => (s.set(s.add(t)), t.set(t.sub(s))));
  const w = Int(rotate(s, 1));
  const x = Int(rotate(t, 2));
  q.store(w.add(x));
  q.add(16).store(x.add(t));
});
const IN_R0_LINE = { last: 247 };

test('emulator: a variable whose register an instruction wrote with something else (a copy to r0) is not read from it', () => {
  const p = SharedArray.int32(64);
  p.set(Array.from({ length: 64 }, (_, i) => i * 3 + 1));
  for (const target of ['interpreter', 'emulator'] as const) {
    const s = debug(inR0, [5, p, SharedArray.int32(64)], { target, qpus: 1 });
    s.break(`${THIS}:${IN_R0_LINE.last}`);
    assert.equal(s.continue().reason, 'breakpoint');
    const n = s.variables().find((v) => v.name === 'n')!;
    if (target === 'interpreter') assert.deepEqual(n.lanes, Array(16).fill(5));
    else assert.equal(n.unavailable, 'not in a register here (r0 holds another value now)');
  }
});

// At -O2, t = i + 7 goes into the delay slots of the loop's branch back (loop-slots.ts).
const ahead = kernel([Ptr(Int), Int], function ahead(out, n) {
  const i = Int(0);
  const s = Int(0);
  const t = Int(0);
  While(any(i.lt(n)), () => {
    t.set(i.add(7));
    s.set(s.add(t));
    i.set(i.add(1));
  });
  out.store(s.add(i));
});
const AHEAD_LINE = { head: 270, after: 274 };

test("emulator: a loop head's instruction in the branch's slots stops once a pass, as on the interpreter, and counts only if the branch jumps", () => {
  const hits = (target: 'interpreter' | 'emulator') => {
    const s = debug(ahead, [SharedArray.int32(16), 5], { target, qpus: 1 });
    s.break(`${THIS}:${AHEAD_LINE.head}`);
    const seen: number[] = [];
    while (s.continue().reason === 'breakpoint') seen.push(lanes(s, 'i')![0]!);
    return seen;
  };
  assert.match(ahead.code().asm, /loop0_1:/);
  assert.deepEqual(hits('emulator'), hits('interpreter'));
  const s = debug(ahead, [SharedArray.int32(16), 5], { target: 'emulator', qpus: 1 });
  s.break(`${THIS}:${AHEAD_LINE.after}`);
  assert.equal(s.continue().reason, 'breakpoint');
  assert.deepEqual(lanes(s, 'i'), Array(16).fill(5));
  // The copy ran once more on the way out: t's register holds no value of the kernel's now.
  assert.match(s.variables().find((v) => v.name === 't')!.unavailable ?? '', /holds another value now/);
});
