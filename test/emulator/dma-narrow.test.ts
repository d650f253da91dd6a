// The DMA engines' 8- and 16-bit modes (Guide Tables 34 and 36, Figure 8; emulator/dma-narrow.ts):
// bytes and half-words between memory, at any element address, and packed sub-vectors of VPM
// rows; VPITCH stepping {Y[1:0], B}; the other bytes of memory and the other bits of VPM words
// left alone; what the guide leaves open refused, naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DMA_MODE_16, DMA_MODE_8, encodeVdrSetup, encodeVdwSetup, encodeVpmReadSetup } from '../../src/vc4/vpm-setup.ts';
import { emulatorError, END, runAsm } from '../helpers/emu.ts';

const hex = (v: number) => `0x${(v >>> 0).toString(16)}`;
const vdr = (o: { modew: number; rowLength?: number; rows?: number; vpitch?: number; y?: number; x?: number; vertical?: boolean; mpitch?: number }) =>
  hex(encodeVdrSetup({ modew: o.modew, mpitch: o.mpitch ?? 1, rowLength: o.rowLength ?? 16, rows: o.rows ?? 1, vpitch: o.vpitch ?? 1, vertical: o.vertical ?? false, y: o.y ?? 0, x: o.x ?? 0 }));
const vdw = (o: { modew: number; depth?: number; units?: number; row?: number; column?: number; horizontal?: boolean }) =>
  hex(encodeVdwSetup({ units: o.units ?? 1, depth: o.depth ?? 16, horizontal: o.horizontal ?? true, vpmBase: ((o.row ?? 0) << 4) | (o.column ?? 0), modew: o.modew }));
/** A VPM read of n 32-bit rows from row y into ra0.. (its words, to look at the packing). */
const readRows = (y: number, n: number) =>
  `ldi vr_setup, ${hex(encodeVpmReadSetup({ size: 32, horizontal: true, laned: false, stride: 1, count: n, addr: y }))}\nnop\nnop\n` +
  Array.from({ length: n }, (_, i) => `mov ra${i}, vpm`).join('\n');

const bytesOf = (words: number[]) => words.flatMap((w) => [w & 255, (w >>> 8) & 255, (w >>> 16) & 255, (w >>> 24) & 255]);
const wordsOf = (bytes: number[]) => Array.from({ length: bytes.length / 4 }, (_, i) => bytes[4 * i]! | (bytes[4 * i + 1]! << 8) | (bytes[4 * i + 2]! << 16) | (bytes[4 * i + 3]! << 24));

test('an 8-bit load from an odd address into byte sub-vector 1, two rows VPITCH 1 apart: B 1 then B 2 of the row', () => {
  const input = Array.from({ length: 64 }, (_, i) => (i * 7 + 3) & 255);
  const r = runAsm(
    `mov ra9, unif
    ldi r1, 3
    add r1, ra9, r1
    ldi vr_setup, ${vdr({ modew: DMA_MODE_8 + 1, rows: 2, mpitch: 1, y: 4 })}  # 8-bit, B = 1, 2 rows 16 bytes apart, VPM row 4
    mov vr_addr, r1
    read vr_wait
    ${readRows(4, 1)}
    ${END}`,
    { buffers: { in: wordsOf(input) }, uniforms: ['@in'] },
  );
  // Packed 8-bit: element e of sub-vector B is byte e % 4 of word 4B + e / 4 (Figure 8).
  const row = bytesOf(r.reg(0, 'ra0'));
  assert.deepEqual(row.slice(16, 32), input.slice(3, 19), 'row 0 (16 bytes from address 3) in words 4-7');
  assert.deepEqual(row.slice(32, 48), input.slice(19, 35), 'row 1 (16 bytes on: MPITCH 1 is 16 bytes) in words 8-11');
  assert.deepEqual(row.slice(0, 16), new Array(16).fill(0), 'words 0-3 untouched');
});

test('a 16-bit store of half-word sub-vector 1, 5 elements, from an address 2 bytes into a word: only those 10 bytes change', () => {
  const r = runAsm(
    `mov ra9, unif
    ldi vw_setup, 0xa00   # VPM write: horizontal 32-bit, row 0
    ldi r0, 0x12345678
    add r0, r0, elem_num
    mov vpm, r0
    ldi r1, 2
    add r1, ra9, r1
    ldi vw_setup, ${vdw({ modew: DMA_MODE_16 + 1, depth: 5 })}  # 16-bit, H = 1: words 8-15 of the row
    mov vw_addr, r1
    read vw_wait
    ${END}`,
    { buffers: { out: new Array(8).fill(-1) }, uniforms: ['@out'] },
  );
  const out = bytesOf(r.read('out'));
  // Element e of sub-vector 1 is half e % 2 of word 8 + e / 2: words 8, 8, 9, 9, 10.
  const halves = [0, 1, 2, 3, 4].map((e) => ((0x12345678 + 8 + (e >> 1)) >>> (16 * (e & 1))) & 0xffff);
  const want = new Array(32).fill(255);
  halves.forEach((h, e) => ((want[2 + 2 * e] = h & 255), (want[3 + 2 * e] = h >>> 8)));
  assert.deepEqual(out, want);
});

test('what the guide leaves open is refused: a VPM column, a vertical transfer, several store rows; a half-word at an odd address faults in strict runs', () => {
  const load = (setup: string) => `mov ra9, unif\nldi vr_setup, ${setup}\nmov vr_addr, ra9\nread vr_wait\n${END}`;
  const store = (setup: string, offset = 0) => `mov ra9, unif\nldi r1, ${offset}\nadd r1, ra9, r1\nldi vw_setup, ${setup}\nmov vw_addr, r1\nread vw_wait\n${END}`;
  const run = (src: string, aligned = false) => emulatorError(() => runAsm(src, { buffers: { buf: 64 }, uniforms: ['@buf'], aligned }));
  assert.match(run(load(vdr({ modew: DMA_MODE_8, x: 3 }))).message, /an 8-bit DMA load to VPM column 3: the guide does not say/);
  assert.match(run(load(vdr({ modew: DMA_MODE_16, vertical: true }))).message, /vertical 16-bit DMA load/);
  assert.match(run(store(vdw({ modew: DMA_MODE_8, units: 2 }))).message, /8-bit DMA store of 2 rows/);
  assert.match(run(store(vdw({ modew: DMA_MODE_8, depth: 20 }))).message, /20 elements a row/);
  const odd = run(store(vdw({ modew: DMA_MODE_16 }), 1), true);
  assert.equal(odd.kind, 'fault');
  runAsm(store(vdw({ modew: DMA_MODE_16 }), 2), { buffers: { buf: 64 }, uniforms: ['@buf'], aligned: true }); // an even address is fine
  assert.match(run(store(vdw({ modew: DMA_MODE_8 }), 250)).message, /DMA store at 0x[0-9a-f]+: .*past the end/);
});
