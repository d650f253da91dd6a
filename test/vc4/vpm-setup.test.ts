// The VPM and DMA setup words (src/vc4/vpm-setup.ts): every word decodes to what encodes back
// to it, the compiler's setups say what they are meant to, and each word's format is told by its ID.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decodeVdrPitch,
  decodeVdrSetup,
  decodeVdwSetup,
  decodeVdwStride,
  decodeVpmSetup,
  encodeVdrPitch,
  encodeVdrSetup,
  encodeVdwSetup,
  encodeVdwStride,
  encodeVpmReadSetup,
  encodeVpmWriteSetup,
  readSetupKind,
  VpmFormatError,
  writeSetupKind,
} from '../../src/vc4/vpm-setup.ts';
import { DMA_LOAD_ROW, DMA_STORE_ROW, VPM_READ_ROW, VPM_WRITE_ROW } from '../../src/compiler/lower-words.ts';

const word = fc.integer({ min: 0, max: 0xffffffff });

test('a VPM read or write setup decodes to what encodes back to it (the ID and unused bits aside)', () => {
  fc.assert(
    fc.property(word, (v) => {
      const read = v & 0xf3ffff; // ID 0; bits 29:24 unused
      if (((read >>> 8) & 3) === 3) return;
      assert.equal(encodeVpmReadSetup(decodeVpmSetup(read, true)), read);
      const write = v & 0x3ffff; // no vector count
      assert.equal(encodeVpmWriteSetup(decodeVpmSetup(write, false)), write);
    }),
  );
  assert.throws(() => decodeVpmSetup(0x300, true), (e) => e instanceof VpmFormatError && /reserved size 3/.test(e.message));
});

test('DMA setups, strides and pitches decode to what encodes back to them', () => {
  fc.assert(
    fc.property(word, (v) => {
      const vdw = ((v & 0x3fff7fff) | 0x80000000) >>> 0; // ID 2; bit 15 aside
      assert.equal(encodeVdwSetup(decodeVdwSetup(vdw)), vdw);
      const vdr = ((v & 0x7ffffbff) | 0x80000000) >>> 0; // bit 31 set; bit 10 aside
      assert.equal(encodeVdrSetup(decodeVdrSetup(vdr)), vdr);
      assert.equal(decodeVdwStride(encodeVdwStride(v & 0xffff)), v & 0xffff);
      assert.equal(decodeVdrPitch(encodeVdrPitch(v & 0x3fff)), v & 0x3fff); // 14 bits on chips (Idein/qmkl), 13 in Table 37
    }),
  );
});

test("the compiler's one-row setups are the words the guide's tables give", () => {
  assert.equal(VPM_WRITE_ROW, 0xa00);
  assert.equal(VPM_READ_ROW, 0x00101a00);
  assert.equal(DMA_STORE_ROW, 0x80904000);
  assert.equal(DMA_LOAD_ROW, 0x80011000);
  assert.deepEqual(decodeVpmSetup(VPM_READ_ROW, true), { size: 32, horizontal: true, laned: false, stride: 1, count: 1, addr: 0 });
  assert.deepEqual(decodeVdwSetup(DMA_STORE_ROW), { units: 1, depth: 16, horizontal: true, vpmBase: 0, modew: 0 });
  assert.equal(decodeVdrSetup(DMA_LOAD_ROW).rowLength, 16);
});

test('the ID tells what a word written to vr_setup or vw_setup sets up', () => {
  assert.equal(readSetupKind(VPM_READ_ROW), 'vpm');
  assert.equal(readSetupKind(DMA_LOAD_ROW), 'dma');
  assert.equal(readSetupKind(encodeVdrPitch(64)), 'pitch');
  assert.equal(readSetupKind(0x40000000), undefined);
  assert.equal(writeSetupKind(VPM_WRITE_ROW), 'vpm');
  assert.equal(writeSetupKind(DMA_STORE_ROW), 'dma');
  assert.equal(writeSetupKind(encodeVdwStride(64)), 'stride');
  assert.equal(writeSetupKind(0x40000000), undefined);
  assert.throws(() => encodeVdwStride(0x10000), RangeError);
});
