import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { EmulatorError } from '../../src/emulator/errors.ts';
import { Machine } from '../../src/emulator/machine.ts';
import { assemble } from '../../src/vc4/asm/assembler.ts';
import { decodeHiLo } from '../../src/vc4/codec.ts';
import { RULES, type RuleName } from '../../src/vc4/rules.ts';
import { validate } from '../../src/vc4/validate.ts';

const END = '\nnop.tend\nnop\nnop';
/** Findings of a program (a clean ending is appended), as "index rule". */
const check = (src: string, end = END) => validate(assemble(src + end).instrs).map((f) => `${f.index} ${f.rule}`);
const has = (src: string, rule: RuleName, index: number, end = END) =>
  assert.ok(check(src, end).includes(`${index} ${rule}`), `${rule} at ${index} in:\n${src}\n${check(src, end)}`);
const clean = (src: string) => assert.deepEqual(check(src), [], src);

test('the hello world breaks no rule', () => {
  const p = assemble(readFileSync(new URL('../../examples/asm/hello.qasm', import.meta.url), 'utf8'));
  assert.deepEqual(validate(p.instrs), []);
});

test('regfile-read-after-write', () => {
  has('mov ra1, 1\nadd r0, ra1, 1', 'regfile-read-after-write', 1);
  has('mov rb1, 1\nadd r0, r0, rb1', 'regfile-read-after-write', 1);
  clean('mov ra1, 1\nnop\nadd r0, ra1, 1');
  clean('mov ra1, 1\nadd r0, r1, 1'); // reading something else
  clean('mov.never ra1, 1\nadd r0, ra1, 1'); // a write that never happens
  // Along a branch: the last delay slot writes, the target reads.
  has('top: add r0, ra2, 1\nbrr -, top\nnop\nnop\nmov ra2, 3', 'regfile-read-after-write', 0);
});

test('r4-after-sfu: reads and writes of r4 in the two instructions after an SFU write', () => {
  has('mov sfu_recip, r0\nmov r1, r4', 'r4-after-sfu', 1);
  has('mov sfu_recip, r0\nnop\nmov r1, r4', 'r4-after-sfu', 2);
  has('mov sfu_exp2, r0\nmov sfu_log2, r0', 'r4-after-sfu', 1);
  has('mov tmu0_s, r1\nmov sfu_recipsqrt, r0\nnop.ldtmu0', 'r4-after-sfu', 2);
  clean('mov sfu_recip, r0\nnop\nnop\nmov r1, r4');
});

test('one-peripheral and double-write', () => {
  has('mov tmu0_s, r0; mov sfu_recip, r1', 'one-peripheral', 0);
  has('mov sfu_recip, r0; mov sfu_log2, r1', 'one-peripheral', 0);
  has('mov r0, mutex; ldtmu0', 'one-peripheral', 0);
  has('mov r0, r1; mov r0, r2', 'double-write', 0);
  // Opposite conditions write each lane once (Broadcom's FFT shaders; guide p. 19).
  clean('mov.zs r0, r2; mov.zc r0, r1 >> 1');
  clean('mov.nc r3, r2; mov.ns r3, r1');
  clean('mov.cs r1, r2; mov.cc r1, r1');
  has('mov.zs r0, r2; mov.ns r0, r1', 'double-write', 0); // both can hold
  has('mov.zs r0, r2; mov r0, r1', 'double-write', 0);
  has('mov.zs tmu0_s, r2; mov.zc tmu0_s, r1', 'double-write', 0); // a peripheral takes both
  has('mov.zs r5rep, r2; mov.zc r5quad, r1', 'double-write', 0); // replicating writes
  clean('mov r0, r1; mov r2, r3');
  clean('mov vr_setup, r0; mov vw_setup, r1'); // address 49 differs between the files
  has('mov.zs tmu0_s, r0\nldtmu0', 'conditional-fifo-write', 0);
  has('mov.never vpm, r0', 'conditional-fifo-write', 0);
});

test('rotation rules', () => {
  has('mov r5rep, r0\nnop; mov r1, r0 >> r5', 'rotate-after-r5-write', 1);
  has('mov r0, 1\nnop; mov r1, r0 >> 2', 'rotate-after-write', 1);
  clean('mov r0, 1\nnop\nnop; mov r1, r0 >> 2');
  const w = validate(assemble('nop; mov r1, ra3 >> 2' + END).instrs);
  assert.deepEqual(w.map((f) => [f.rule, f.severity]), [['rotate-within-quad', 'warning']]);
});

test('uniform-after-unif-addr', () => {
  has('mov unif_addr, r0\nnop\nmov r1, unif', 'uniform-after-unif-addr', 2);
  clean('mov unif_addr, r0\nnop\nnop\nmov r1, unif');
});

test('program end: regfile writes, I/O, address 14, delay slots, TLB Z', () => {
  const v = (src: string) => validate(assemble(src).instrs).map((f) => `${f.index} ${f.rule}`);
  assert.ok(v('mov.tend ra3, r0\nnop\nnop').includes('0 end-writes-regfile'));
  assert.ok(v('nop.tend\nmov r0, unif\nnop').includes('1 end-io'));
  assert.ok(v('nop.tend\nnop\nmov vpm, r0').includes('2 end-io')); // Mesa misses the second delay slot
  assert.ok(v('mov.tend r0, vpm\nnop\nnop').includes('0 end-io'));
  assert.ok(v('nop.tend\nnop\nmov r0, ra14').includes('2 end-reg14'));
  assert.ok(v('nop.tend\nnop\nmov tlb_z, r0').includes('2 end-tlb-z'));
  assert.ok(v('nop\nnop.tend\nnop').includes('1 end-missing-delay-slots'));
  assert.ok(v('nop\nnop').includes('1 falls-off-end'));
  assert.deepEqual(v('mov r0, unif\nnop.tend\nnop\nnop'), []);
});

test('branches: delay slots and targets', () => {
  has('brr -, x\nbrr -, x\nnop\nnop\nx: nop\nnop', 'branch-in-delay-slot', 1);
  has('brr -, x\nnop\nbrr -, x\nnop\nnop\nx: nop\nnop', 'branch-in-delay-slot', 2);
  clean('brr -, x\nnop\nnop\nbrr -, x\nnop\nnop\nnop\nx: nop'); // a branch in the third slot is fine
  assert.ok(check('brr -, 800\nnop\nnop\nnop').includes('0 branch-target-outside'));
  assert.ok(check('brr -, 4\nnop\nnop\nnop').includes('0 branch-target-outside'));
  // Messages speak of bytes and instructions, each named.
  const far = validate(assemble('brr -, 800\nnop\nnop\nnop').instrs).find((f) => f.rule === 'branch-target-outside')!;
  assert.equal(far.message, "branch offset of 800 bytes (100 instructions from PC + 4) lands at instruction 104, outside the program's instructions 0-3");
  const odd = validate(assemble('brr -, 4\nnop\nnop\nnop').instrs).find((f) => f.rule === 'branch-target-outside')!;
  assert.equal(odd.message, 'branch offset of 4 bytes is not a whole number of instructions (8 bytes each)');
  const w = validate(assemble('bra -, ZERO, ra3\nnop\nnop\nnop' + END).instrs);
  assert.deepEqual(w.map((f) => f.rule), ['branch-sets-flags']);
});

test('TMU FIFO: overrun and reading an empty FIFO, along every path', () => {
  const five = 'mov tmu0_s, r0\n'.repeat(5);
  has(five, 'tmu-fifo-overrun', 4);
  clean('mov tmu0_s, r0\n'.repeat(4) + 'ldtmu0\n'.repeat(4));
  clean('mov tmu0_s, r0\nmov tmu1_s, r0\n'.repeat(4) + 'ldtmu0\nldtmu1\n'.repeat(4)); // two FIFOs
  has('ldtmu0', 'tmu-read-empty', 0);
  // A balanced loop stays clean. Where paths join with the same count, counting goes on.
  clean('top: mov tmu0_s, r0\nnop\nldtmu0\nsub.setf r1, r1, 1\nbrr.anynz -, top\nnop\nnop\nnop');
  has('mov tmu0_s, r0\nbrr.anyz -, j\nnop\nnop\nnop\nnop\nj: ' + 'mov tmu0_s, r0\n'.repeat(4), 'tmu-fifo-overrun', 9);
  // Where paths disagree the count is unknown and nothing is reported statically: the
  // emulator, which counts the requests a run really makes, reports such overruns.
  clean('top: mov tmu0_s, r0\nsub.setf r1, r1, 1\nbrr.anynz -, top\nnop\nnop\nnop');
});

test('VPM, tmu_noswap, TLB Z', () => {
  has('mov vr_setup, r0\nnop\nmov r1, vpm', 'vpm-read-too-early', 2);
  clean('mov vr_setup, r0\nnop\nnop\nmov r1, vpm');
  has('mov tmu_noswap, 1\nnop\nmov tmu0_s, r0\nldtmu0', 'tmu-noswap-too-late', 2);
  clean('mov tmu_noswap, 1\nnop\nnop\nmov tmu0_s, r0\nldtmu0');
  has('mov tlb_z, r0\nmov r1, ms_flags', 'tlb-z-then-ms-flags', 1);
});

test('reserved encodings and fragment-only signals', () => {
  const reserved = validate([decodeHiLo(0x100009e7, 0x099e7000), ...assemble(END).instrs]);
  assert.equal(reserved[0]!.rule, 'reserved-encoding');
  assert.deepEqual(check('nop.thrsw').map((s) => s.split(' ')[1]), ['fragment-only']);
  assert.deepEqual(check('mov r0, ra40').map((s) => s.split(' ')[1]), ['unmapped-read']);
});

test('an ALU whose opcode is nop but which writes: a warning (the write happens; the emulator does not run it)', () => {
  assert.deepEqual(check('nop.always tmu0_s, elem_num, elem_num\nnop.ldtmu0'), ['0 nop-opcode-write']);
  assert.deepEqual(check('nop; nop.always r2, r0, r0'), ['0 nop-opcode-write']);
  clean('nop ra1, r0, r0\nnop; nop r2, r0, r0'); // condition never: no write
  // py-videocore's nop gives r0 what it reads from r0: it changes nothing either way (effects.ts).
  clean('nop.always r0, r0, r0\nnop.always r3, r3, r3');
  assert.deepEqual(check('nop.always r1, r0, r0'), ['0 nop-opcode-write']);
});

test('every rule has a severity, a summary and a source', () => {
  for (const [name, r] of Object.entries(RULES)) {
    assert.ok(r.summary.length > 10 && r.source.length > 3, name);
  }
});

test('a branch in the last delay slot of another: its delay slots are the first target and the two after it', () => {
  // The validator follows the flow the emulator runs (vc4asm's addendum: "you can enqueue the next
  // branch"): A, A+1, A+2, then B. A+2 writes ra1, B reads it.
  const queued = 'brr -, a\nnop\nnop\nbrr -, b\nnop\nnop\nnop\na: nop\nnop\nmov ra1, 1\nnop.tend\nnop\nnop\nb: mov r0, ra1';
  has(queued, 'regfile-read-after-write', 13);
  // The two instructions after A+2 are not on that path.
  clean('brr -, a\nnop\nnop\nbrr -, b\nnop\nnop\nnop\na: nop\nnop\nnop\nmov ra1, 1\nnop.tend\nnop\nnop\nb: mov r0, ra1');
  // When the first branch may not be taken, the second's own delay slots lead to b too.
  has('brr.anyz -, a\nnop\nnop\nbrr -, b\nnop\nnop\nmov ra1, 1\na: nop\nnop\nnop.tend\nnop\nnop\nb: mov r0, ra1', 'regfile-read-after-write', 12);
  // Code no path reaches cannot run off the end (without jumps through a register).
  assert.deepEqual(check('brr -, a\nnop\nnop\nbrr -, b\nnop\nnop\nnop\nb: nop.tend\nnop\nnop\na: nop\nnop\nnop\nnop', ''), []);
});

test('a program end in the delay slots of another is an error, and does not extend them', () => {
  has('nop.tend\nnop.tend\nnop', 'end-in-end-delay-slot', 1, '');
  has('nop.tend\nnop\nnop.tend', 'end-in-end-delay-slot', 2, '');
  // The QPU stops two instructions after the first: what follows is not a delay slot.
  assert.deepEqual(check('nop.tend\nnop\nnop.tend\nmov r0, unif\nnop', '').filter((s) => s.endsWith('end-io')), []);
});

test('random programs: every rule strict mode stops at, the validator reports at that instruction', () => {
  // Writes and reads of ra1, flag changes, program ends and relative branches anywhere, so that
  // branches land in and queue behind delay slots.
  const n = 20;
  const vocab = ['mov ra1, 1', 'mov r0, ra1', 'nop', 'nop', 'sub.setf r1, r1, 1', 'mov r2, unif', 'mov sfu_recip, r1', 'mov r3, r4', 'nop.tend'];
  fc.assert(
    fc.property(
      fc.array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...vocab) }, { weight: 1, arbitrary: fc.tuple(fc.constantFrom('brr', 'brr.anyz', 'brr.allnz'), fc.nat(n - 1)).map(([b, t]) => `${b} -, l${t}`) }), {
        minLength: n,
        maxLength: n,
      }),
      (lines) => {
        const src = lines.map((l, k) => `l${k}: ${l}`).join('\n') + END;
        const instrs = assemble(src).instrs;
        const m = new Machine();
        const prog = m.load(instrs);
        const u = m.memory.alloc(64, 'u');
        try {
          m.run(prog, [u.address], { maxSteps: 500 });
        } catch (e) {
          if (!(e instanceof EmulatorError) || e.kind !== 'rule') return;
          const found = validate(instrs).map((f) => `${f.index} ${f.rule}`);
          assert.ok(found.includes(`${e.where!.pc} ${e.rule}`), `${e.message}\n${src}\nvalidator: ${found.join(', ')}`);
        }
      },
    ),
    { seed: 7, numRuns: 600 },
  );
});

test('branch-on-unset-flags: a conditional branch that no flag-setting instruction reaches', () => {
  // The SHA-256 series' loop, in the default syntax: sub without .setf never sets the flags.
  const loop = (sub: string) => `ldi ra1, 16\nnop\nloop: ${sub} ra1, ra1, 1\nnop\nbrr.ze -, loop\nnop\nnop\nnop`;
  has(loop('sub'), 'branch-on-unset-flags', 4);
  const w = validate(assemble(loop('sub') + END).instrs).find((f) => f.rule === 'branch-on-unset-flags')!;
  assert.equal(w.severity, 'warning');
  assert.match(w.message, /branches on the flags \(\.allnz\), but no instruction on any path to it sets them/);
  clean(loop('sub.setf'));
  // Set on one path is enough; an unconditional branch needs none.
  clean('a: nop\nbrr.anyz -, b\nnop\nnop\nnop\nmov.setf r1, 1\nbrr -, a\nnop\nnop\nnop\nb: nop'); // set on the way round
  clean('brr -, a\nnop\nnop\nnop\na: nop');
  has('mov r0, 1\nbrr.anyz -, a\nnop\nnop\nnop\na: nop', 'branch-on-unset-flags', 1);
});
