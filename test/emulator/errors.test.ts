// Runs end with a clear error, never a hang or a crash: broken rules (strict mode), faults,
// deadlocks, the step budget, words the emulator does not run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { encodeProgram } from '../../src/vc4/codec.ts';
import { nopInstr } from '../../src/vc4/instr.ts';
import { Machine } from '../../src/emulator/machine.ts';
import { END, type EmuOptions, runAsm } from '../helpers/emu.ts';

function fails(src: string, opts: EmuOptions = {}): EmulatorError {
  try {
    runAsm(src, opts);
  } catch (e) {
    assert.ok(e instanceof EmulatorError, String(e));
    return e;
  }
  assert.fail('expected the run to fail');
}

test('strict mode stops at a broken rule, naming the QPU, the pc, the rule and the instruction', () => {
  const e = fails(`mov ra1, 1\nadd r0, ra1, 1${END}`);
  assert.equal(e.kind, 'rule');
  assert.equal(e.rule, 'regfile-read-after-write');
  assert.equal(e.message, 'QPU 0, pc 1 (add r0, ra1, 1): [regfile-read-after-write] reads ra1, which the previous instruction writes');
  // The same program runs when strict mode is off (the read sees the new value).
  assert.deepEqual(runAsm(`mov ra1, 1\nadd r0, ra1, 1${END}`, { strict: false }).reg(0, 'r0')[0], 2);
});

test('every rule between instructions is checked as executed, including across taken branches', () => {
  const cases: [string, string][] = [
    ['mov sfu_recip, r0\nmov r1, r4', 'r4-after-sfu'],
    ['mov tmu0_s, r0; mov sfu_recip, r1', 'one-peripheral'],
    ['mov r0, 1; mov r0, 1', 'double-write'],
    ['mov r5rep, 1\nnop; mov r1, r0 >> r5', 'rotate-after-r5-write'],
    ['mov r0, 1\nnop; mov r1, r0 >> 1', 'rotate-after-write'],
    ['mov unif_addr, r0\nmov r1, unif', 'uniform-after-unif-addr'],
    ['mov tmu_noswap, 1\nmov tmu0_s, r0', 'tmu-noswap-too-late'],
    ['brr -, x\nbrr -, x\nnop\nnop\nx: nop', 'branch-in-delay-slot'],
  ];
  for (const [src, rule] of cases) assert.equal(fails(src + END).rule, rule, src);
  // Both ALUs writing r0 under opposite conditions is legal: each lane takes one write.
  const select = runAsm(`mov r1, elem_num\nldi r2, 100\nand.setf -, r1, 1\nmov.zs r0, r2; mov.zc r0, r1 >> 1${END}`);
  assert.deepEqual(select.reg(0, 'r0').slice(0, 4), [100, 0, 100, 2]);
  // A regfile write in the last delay slot, read at the branch target.
  const across = fails(`mov r0, 3\ntop: add r1, ra2, 1\nsub.setf r0, r0, 1\nbrr.anynz -, top\nnop\nnop\nmov ra2, 5${END}`);
  assert.equal(across.rule, 'regfile-read-after-write');
  assert.match(across.message, /pc 1 \(add r1, ra2, 1\)/);
  // Program end: a uniform read in a delay slot, a regfile write by the end instruction.
  assert.equal(fails('nop.tend\nmov r0, unif\nnop').rule, 'end-io');
  assert.equal(fails('mov.tend ra1, r0\nnop\nnop').rule, 'end-writes-regfile');
  assert.equal(fails('nop.tend\nnop\nmov r0, ra14').rule, 'end-reg14');
  assert.equal(fails(`mov r1, unif\nmov.zs tmu0_s, r1\nldtmu0${END}`, { buffers: { a: 16 }, uniforms: ['@a'] }).rule, 'conditional-fifo-write');
});

test('the mutex read by its holder, or written by a QPU that does not hold it, stops any run', () => {
  for (const strict of [true, false]) {
    const relock = fails(`mov r0, mutex\nmov r0, mutex${END}`, { strict });
    assert.equal(relock.rule, 'mutex-relock');
    assert.match(relock.message, /^QPU 0, pc 1 \(.*mutex.*\): \[mutex-relock\] this QPU locks the mutex it already holds/);
    assert.equal(fails(`mov mutex, 1${END}`, { strict }).rule, 'mutex-unlock-unheld');
  }
  // Another QPU's release does not free it either: QPU 1 writes it while QPU 0 holds it.
  const e = fails(`mov r0, qpu_num\nmov.setf -, r0\nbrr.anyz -, a\nnop\nnop\nnop\nmov mutex, 1\nbrr -, b\nnop\nnop\nnop\na: mov r1, mutex\nnop\nnop\nmov mutex, 1\nb: nop${END}`, { qpus: 2 });
  assert.equal(e.rule, 'mutex-unlock-unheld');
});

test('the TMU FIFO: a fifth outstanding request, and ldtmu with none', () => {
  const five = fails('mov tmu0_s, r0\n'.repeat(5) + END, { buffers: {} , init: (q) => q.R.fill(0) });
  assert.ok(five.kind === 'rule' || five.kind === 'fault');
  const loop = fails(`mov r1, unif\nmov r0, 10\ntop: mov tmu0_s, r1\nsub.setf r0, r0, 1\nbrr.anynz -, top\nnop\nnop\nnop${END}`, {
    buffers: { a: 16 },
    uniforms: ['@a'],
  });
  assert.equal(loop.rule, 'tmu-fifo-overrun');
  assert.match(loop.message, /a TMU0 request with 4 already outstanding/);
  assert.equal(fails(`ldtmu0${END}`).rule, 'tmu-read-empty');
});

test('memory faults name the lane and the address, and what is near it', () => {
  const e = fails(`mov r1, unif\nshl r0, elem_num, 2\nadd r0, r0, r1\nadd tmu0_s, r0, 4\nldtmu0${END}`, { buffers: { a: 16 }, uniforms: ['@a'] });
  assert.equal(e.kind, 'fault');
  assert.match(e.message, /QPU 0, pc 3 \(add tmu0_s, r0, 4\): TMU0 lookup, lane 15, address 0x[0-9a-f]{8}: just past the end of a \(0x[0-9a-f]{8}, 64 bytes\)/);
  assert.match(fails(`mov r0, unif\nmov tmu0_s, r0\nldtmu0${END}`, { uniforms: [0x1000] }).message, /address 0x00001000: no GPU memory is allocated there/);
  assert.match(fails(`mov r0, unif\nmov r0, unif${END}`).message, /uniform read at 0x[0-9a-f]+: just past the end of uniforms0/);
  const dma = fails(`ldi vw_setup, 0x80904000\nldi r0, 0x12345678\nmov vw_addr, r0\nread vw_wait${END}`);
  assert.match(dma.message, /DMA store at 0x12345678: no GPU memory is allocated there/);
});

test('a branch outside the program and running off its end are faults', () => {
  assert.match(fails(`brr -, 800\nnop\nnop\nnop${END}`).message, /branch to 0x[0-9a-f]+, which is not an instruction of the program/);
  const off = fails('nop\nnop');
  assert.equal(off.kind, 'fault');
  assert.match(off.message, /the program counter left the program/);
});

test('a deadlock says who waits on what', () => {
  const e = fails(`sema down, 3${END}`, { qpus: 2 });
  assert.equal(e.kind, 'deadlock');
  assert.match(e.message, /QPU 0 at pc 0 waits for semaphore 3 to be above 0 \(it is 0\); QPU 1 at pc 0 waits for semaphore 3/);
  const m = fails(`read mutex\nnop${END}`, { qpus: 2 }); // QPU 0 ends holding the mutex
  assert.match(m.message, /QPU 1 at pc 0 waits for the mutex, held by QPU 0/);
});

test('a deadlock lists every QPU in order, those that finished too', () => {
  // QPU 0 (uniform 0) ends at once; QPUs 1 and 2 (uniform 1) wait on semaphore 3 forever.
  const src = `mov.setf -, unif\nbrr.allz -, done\nnop\nnop\nnop\nsema down, 3\ndone: nop.tend\nnop\nnop\n`;
  const e = fails(src, { qpus: 3, uniforms: (q) => [q === 0 ? 0 : 1] });
  assert.equal(e.kind, 'deadlock');
  assert.match(e.message, /waits on another\. QPU 0 finished; QPU 1 at pc 5 waits for semaphore 3 to be above 0 \(it is 0\); QPU 2 at pc 5 waits for semaphore 3/);
  assert.deepEqual(e.finished, [0]);
  assert.deepEqual(e.blocked?.map((b) => b.qpu), [1, 2]);
});

test('the step budget stops an endless loop', () => {
  const e = fails(`top: brr -, top\nnop\nnop\nnop${END}`, { maxSteps: 10000 });
  assert.equal(e.kind, 'budget');
  assert.match(e.message, /the step budget of 10,000 instructions ran out after 10,000 instructions, \d[\d,]* cycles \([\d.]+ µs on a Pi\): an endless loop\? pass maxSteps \(or --max-steps\) to allow more$/);
});

test('a step budget that is not a number is refused, not an endless run', () => {
  assert.throws(() => runAsm(`top: brr -, top\nnop\nnop\nnop${END}`, { maxSteps: NaN }), RangeError);
  assert.throws(() => runAsm(END, { maxSteps: -1 }), RangeError);
});

test('after an error, each QPU\'s figures are where it stopped', () => {
  let qpu: import('../../src/emulator/qpu.ts').Qpu | undefined;
  assert.throws(() => runAsm(`mov r0, 1\nmov r1, unif\nmov r2, unif${END}`, { uniforms: [5], init: (q) => (qpu = q) }));
  assert.equal(qpu!.stats.instructions, 2);
  assert.equal(qpu!.stats.cycles, 8);
});

test('words the emulator does not run say so when executed', () => {
  assert.match(fails(`nop.thrsw${END}`).message, /thread-switch, scoreboard or tile-buffer signal/);
  assert.match(fails(`mov tlb_z, r0${END}`, { strict: false }).message, /tile-buffer or fragment register/);
  assert.match(fails(`mov tmu0_t, r0${END}`).message, /writes tmu0_t: texture lookups are not supported/);
  assert.match(fails(`mov tmu0_r, r0${END}`).message, /writes tmu0_r: texture lookups/);
  assert.match(fails(`mov tmu1_b, r0${END}`).message, /writes tmu1_b: texture lookups/);
  assert.match(fails(`mov tlb_z, r0${END}`, { strict: false }).message, /writes tlb_z, a tile-buffer/);
  assert.match(fails(`mov r0, vary${END}`, { strict: false }).message, /varyings/);
  assert.match(fails(`nop.bkpt${END}`).message, /breakpoint/);
  const m = new Machine();
  const p = m.load(encodeProgram([{ ...nopInstr(), opAdd: 9 }, nopInstr(3), nopInstr(), nopInstr()]));
  assert.throws(() => m.run(p, [m.memory.alloc(4).address]), /add opcode 9 is reserved/);
});

test('an ALU whose opcode is nop but which writes is not run, in either mode (addendum: the mul ALU writes its last result)', () => {
  for (const strict of [true, false]) {
    const tmu = fails(`nop.always tmu0_s, elem_num, elem_num\nnop.ldtmu0${END}`, { strict });
    assert.equal(tmu.kind, 'unsupported');
    assert.equal(tmu.where?.pc, 0);
    assert.match(tmu.message, /add ALU's opcode is nop but it writes address 56/);
    const mul = fails(`nop; nop.always r2, r0, r0${END}`, { strict });
    assert.match(mul.message, /last result of elements 12-15/);
  }
  // With condition never (what the assembler gives `nop ra1, r0, r0`) nothing is written.
  assert.deepEqual(runAsm(`nop ra1, r0, r0\nnop${END}`).reg(0, 'ra1'), new Array(16).fill(0));
  // py-videocore's nop gives r0 what it reads from r0, and its SGEMM relies on r0 staying as it
  // was (a countdown across one in delay slots; effects.ts): it runs, keeping r0.
  for (const strict of [true, false]) {
    const kept = runAsm(`mov r0, elem_num\nnop.always r0, r0, r0\nadd r1, r0, 1${END}`, { strict });
    assert.deepEqual(kept.reg(0, 'r1'), Array.from({ length: 16 }, (_, l) => l + 1));
    assert.match(fails(`nop.always r1, r0, r0${END}`, { strict }).message, /add ALU's opcode is nop but it writes address 33/);
  }
});
