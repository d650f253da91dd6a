import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  bytesToProgram,
  decode,
  decodeHiLo,
  encode,
  encodeHiLo,
  encodeProgram,
  EncodeError,
  formatWord,
  ProgramBytesError,
  programToBytes,
} from '../../src/vc4/codec.ts';
import { ignoredMask, isCanonical, nonCanonicalReasons, splitIgnored } from '../../src/vc4/canonical.ts';
import { ldiInstr, nopInstr } from '../../src/vc4/instr.ts';
import { arbInstr, arbWord } from '../helpers/arbitrary.ts';

test("Mesa's known words", () => {
  assert.equal(encode(nopInstr()), 0x100009e7_009e7000n);
  assert.equal(encode(nopInstr(3)), 0x300009e7_009e7000n);
  // load_imm r0 = 1.0f: the add ALU writes r0 (address 32), the mul ALU writes nothing.
  assert.equal(encode(ldiInstr(0x3f800000, { waddrAdd: 32 })), 0xe0024827_3f800000n);
  assert.deepEqual(decode(0x100009e7_009e7000n), nopInstr());
});

test('decode(encode(i)) = i for every instruction the model can express', () => {
  fc.assert(
    fc.property(arbInstr(), (i) => {
      assert.deepEqual(decodeHiLo(...encodeHiLo(i)), i);
    }),
    { numRuns: 20000 },
  );
});

test('encode(decode(w)) = w for every 64-bit word, canonical or not', () => {
  fc.assert(
    fc.property(arbWord, ([hi, lo]) => {
      assert.deepEqual(encodeHiLo(decodeHiLo(hi, lo)), [hi, lo]);
    }),
    { numRuns: 20000 },
  );
});

test('bigint and hi/lo forms agree', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (w) => {
      assert.equal(encode(decode(w)), w);
    }),
  );
});

test('words with ignored bits set decode, and the bits are found', () => {
  // A branch with bits 59:56 set: the hardware ignores them.
  const b = decodeHiLo(0xf5f00000, 0x00000010);
  assert.equal(b.kind, 'branch');
  assert.deepEqual(ignoredMask(b), [0x0f03c000, 0]);
  assert.deepEqual(splitIgnored(b).bits, [0x05000000, 0]);
  assert.equal(isCanonical(b), true);
  // A semaphore with bits 31:5 set.
  const s = decodeHiLo(0xe80009e7, 0x00000123);
  assert.equal(s.kind, 'sema');
  assert.deepEqual(splitIgnored(s).bits, [0, 0x120]);
  assert.deepEqual(splitIgnored(s).rest, { ...s, rest: 0 });
  // Reserved load-immediate mode 2 and reserved add opcode 9 still decode.
  assert.equal(decodeHiLo(0xe4000000, 0).kind, 'ldi');
  assert.match(nonCanonicalReasons(decodeHiLo(0xe4000000, 0)).join(), /mode 2 is not defined/);
  assert.match(nonCanonicalReasons(decodeHiLo(0x100009e7, 0x099e7000)).join(), /add opcode 9 is reserved/);
});

test('encode rejects fields out of range', () => {
  assert.throws(() => encodeHiLo({ ...nopInstr(), waddrAdd: 64 }), EncodeError);
  assert.throws(() => encodeHiLo({ ...nopInstr(), sig: 1.5 }), /not an integer/);
  assert.throws(() => encodeHiLo(ldiInstr(0, { mode: 8 })), /mode = 8 does not fit in 3 bits/);
});

test('programs are little-endian, low word first', () => {
  const words = encodeProgram([nopInstr(), nopInstr(3)]);
  const bytes = programToBytes(words);
  assert.deepEqual([...bytes.slice(0, 8)], [0x00, 0x70, 0x9e, 0x00, 0xe7, 0x09, 0x00, 0x10]);
  assert.deepEqual(bytesToProgram(bytes), words);
  assert.throws(() => bytesToProgram(new Uint8Array(12)), ProgramBytesError);
  assert.equal(formatWord(0x100009e7, 0x009e7000), '0x100009E7_009E7000');
});
