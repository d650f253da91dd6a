// The pi target on a real Raspberry Pi 1/2/3/Zero: QPULib's gcd and the heat example's step,
// compiled by qpu-ts, run on the Pi's QPUs and on the emulator with the same inputs, and their
// results compared bit for bit; the hand-written hello.qasm through `qpu pi` and `qpu emu`. The
// time measured on the Pi is printed beside the cycle model's estimate, to be reported.
// Needs: a Pi that detectBoard() (src/pi/board.ts) says the pi target can use (VideoCore IV,
// legacy graphics stack, /dev/vcio, root for /dev/mem) and koffi installed; everywhere else every
// test is skipped with detectBoard's reason. Run: sudo node --import tsx --test test/pi/on-pi.test.ts
// Guarantees: the GPU memory and the QPUs are given back at the end (endPiSession reports nothing).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { type RunReport, SharedArray } from '../../src/index.ts';
import { gcd, gcdInputs } from '../../examples/gcd.ts';
import { heatGrid, step } from '../../examples/heat.ts';
import { glibcRand } from '../../examples/lib/rand.ts';
import { detectBoard } from '../../src/pi/board.ts';
import { endPiSession } from '../../src/pi/session.ts';
import { runQpu } from '../helpers/cli.ts';

const found = detectBoard();
const onPi = found.ok
  ? {}
  : { skip: `not a Raspberry Pi 1/2/3/Zero with /dev/vcio, root and the legacy graphics stack: ${found.reason}` };
if (found.ok) console.log(`on a ${found.board.model} (${found.board.soc}, peripherals at 0x${found.board.peripheralBase.toString(16)})`);

/** Runs on the Pi per kernel and QPU count; the fastest is reported (the first includes the Pi's cold caches). */
const PI_RUNS = 3;
/** QPULib's plate, whose times on a Pi its README gives (24.7 ms a step on 1 QPU, 12.5 on 2, 10.2 on 4). */
const PLATE = 512;
const HEAT_QPUS = [1, 2, 4, 12];

after(() => {
  if (found.ok) assert.deepEqual(endPiSession(), [], 'the GPU memory released and the QPUs disabled');
});

const bits = (a: Int32Array | Float32Array): number[] => Array.from(new Int32Array(a.slice().buffer));

/**
 * Zeroes an array one aligned word at a time: on a Pi a SharedArray is uncached device memory
 * mapped from /dev/mem, where fill()'s memset may use instructions that fault there (arm64's DC ZVA).
 */
function zero(a: Int32Array | Float32Array): void {
  for (let i = 0; i < a.length; i++) a[i] = 0;
}

/** One line of the timing table: what ran, measured on the Pi, the cycle model's estimate. */
function timing(what: string, measured: number, estimate: number | undefined): string {
  const ms = (s: number) => `${(s * 1e3).toFixed(3)} ms`;
  const ratio = estimate ? ` (measured / model: ${(measured / estimate).toFixed(2)})` : '';
  return `${what.padEnd(22)} measured on the Pi ${ms(measured).padStart(12)}, cycle model ${estimate === undefined ? 'n/a' : ms(estimate).padStart(12)}${ratio}`;
}

/**
 * Runs `run` on the Pi PI_RUNS times (the first with the cycle model's estimate) and once on the
 * emulator, checks each Pi result bit for bit against the emulator's, and returns the timing line.
 */
async function compare(what: string, out: () => Int32Array | Float32Array, run: (target: 'pi' | 'emulator', estimate: boolean) => Promise<RunReport>): Promise<string> {
  const emulator = await run('emulator', false);
  const want = bits(out());
  let best = Infinity;
  let estimate: number | undefined;
  for (let i = 0; i < PI_RUNS; i++) {
    zero(out());
    const r = await run('pi', i === 0);
    assert.equal(r.target, 'pi');
    assert.deepEqual(bits(out()), want, `${what}, run ${i + 1} on the Pi: not the emulator's result`);
    // report.pi.seconds is the measured time of the execute-QPU call; report.run.seconds the
    // cycle model's estimate (with { estimate: true }; no budget: a Pi emulates slowly).
    assert.ok(r.pi && r.pi.seconds > 0, 'a measured time');
    best = Math.min(best, r.pi.seconds);
    estimate ??= r.run?.seconds;
  }
  return timing(what, best, estimate ?? emulator.run?.seconds);
}

test("QPULib's gcd on 1 QPU: the Pi's QPUs compute the emulator's 16 results", onPi, async () => {
  const { a, b } = gcdInputs();
  const r = SharedArray.int32(16, 'r');
  console.log(await compare('gcd, 1 QPU', () => r, (target, estimate) => gcd(a, b, r, { target, qpus: 1, estimate, maxSteps: Infinity })));
});

test(`the heat step on a ${PLATE}x${PLATE} plate on ${HEAT_QPUS.join(', ')} QPUs: the Pi's floats are the emulator's, bit for bit`, onPi, async () => {
  const grid = heatGrid(PLATE, PLATE, glibcRand(0));
  const out = SharedArray.float32(grid.length, 'out');
  const args = [PLATE + 16, PLATE, PLATE] as const;
  for (const qpus of HEAT_QPUS) {
    const line = await compare(`heat step, ${qpus} QPU${qpus > 1 ? 's' : ''}`, () => out, (target, estimate) => step(grid, out, ...args, { target, qpus, estimate, maxSteps: Infinity }));
    console.log(line);
  }
});

test('hello.qasm through `qpu pi` writes what `qpu emu` writes: 16 words of 100 + 0x1234', onPi, async () => {
  const argv = ['examples/asm/hello.qasm', '--uniforms', '100,@out', '--buffer', 'out:16', '--dump', 'out'];
  const values = (text: string) => text.split('\n').filter((l) => /^(0x[0-9a-f]{8} ?)+$/.test(l.trim()));
  const emu = await runQpu('emu', ...argv);
  assert.equal(emu.code, 0, emu.err);
  const pi = await runQpu('pi', ...argv);
  assert.equal(pi.code, 0, pi.err);
  assert.deepEqual(values(pi.out), values(emu.out));
  assert.deepEqual(values(pi.out).join(' ').split(/\s+/), Array<string>(16).fill('0x00001298'));
  console.log(pi.out.trimEnd());
});
