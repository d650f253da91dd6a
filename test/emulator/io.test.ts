// Register-mapped I/O: TMU, SFU, VPM, DMA, semaphores, mutex, host interrupts; and the cycle model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bits, END, float, lanes, runAsm } from '../helpers/emu.ts';
import { encodeVdrPitch } from '../../src/vc4/vpm-setup.ts';

test('TMU: 16 per-lane addresses, results in order through r4, the FIFO depth and the latency stall', () => {
  const src = `
    mov r1, unif
    shl r0, elem_num, 2
    add r2, r1, r0            # &a[lane]
    sub r3, r1, r0            # a reversed: &a[15 - lane] comes from the last element
    add r3, r3, 15
    add r3, r3, 15
    add r3, r3, 15
    add r3, r3, 15
    mov tmu0_s, r2
    mov tmu0_s, r3
    ldtmu0
    mov ra1, r4; ldtmu0
    mov ra2, r4
    ${END}`;
  const a = lanes((l) => 100 + l);
  const r = runAsm(src, { buffers: { a }, uniforms: ['@a'] });
  assert.deepEqual(r.reg(0, 'ra1'), a);
  assert.deepEqual(r.reg(0, 'ra2'), lanes((l) => 115 - l));
  const s = r.result.total;
  assert.equal(s.tmuLoads, 2);
  assert.ok(s.stalls.tmu > 0, 'an ldtmu right after its request waits for the data');
  assert.equal(s.cycles, 4 * s.instructions + s.stalls.tmu);
});

test('SFU: the result is in r4 three instructions after the write; r4 before that is unchanged', () => {
  const src = `
    itof r0, elem_num
    add r0, r0, 1.0 # hmm
    ${END}`;
  void src;
  const r = runAsm(`
    itof r0, elem_num
    fadd r0, r0, 1.0
    mov sfu_recip, r0
    nop
    nop
    mov r1, r4
    mov sfu_exp2, r0
    nop
    nop
    mov r2, r4
    mov sfu_log2, r0
    nop
    nop
    mov r3, r4
    mov sfu_recipsqrt, r0
    nop
    nop
    mov ra3, r4${END}`);
  const x = Array.from({ length: 16 }, (_, l) => l + 1);
  assert.deepEqual(r.reg(0, 'r1').map(float), x.map((v) => Math.fround(1 / v)));
  assert.deepEqual(r.reg(0, 'r2').map(float), x.map((v) => Math.fround(2 ** v)));
  assert.deepEqual(r.reg(0, 'r3').map(float), x.map((v) => Math.fround(Math.log2(v))));
  assert.deepEqual(r.reg(0, 'ra3').map(float), x.map((v) => Math.fround(1 / Math.sqrt(v))));
  assert.equal(r.result.total.sfuOps, 4);
  // Not strict: reading r4 one instruction early sees the old r4.
  const early = runAsm(`mov sfu_recip, 1.0\nmov r1, r4${END}`, { strict: false });
  assert.deepEqual(early.reg(0, 'r1'), lanes(() => 0));
});

test('VPM: horizontal and vertical 32-bit writes and reads, with stride and count', () => {
  const src = `
    ldi vw_setup, 0xa00         # write: horizontal, 32-bit, row 0, stride 64 (0 means 64)
    mov vpm, elem_num
    ldi vw_setup, 0x1a01        # write: horizontal, row 1, stride 1
    add vpm, elem_num, 1
    add vpm, elem_num, 2         # row 2
    ldi vr_setup, 0x201a01      # read 2 vectors, stride 1, horizontal, 32-bit, from row 1
    nop
    nop
    mov r0, vpm
    mov r1, vpm
    ldi vr_setup, 0x100202      # read 1 vector, vertical, 32-bit, column 2 of rows 0-15
    nop
    nop
    mov r2, vpm
    ${END}`;
  const r = runAsm(src);
  assert.deepEqual(r.reg(0, 'r0'), lanes((l) => l + 1));
  assert.deepEqual(r.reg(0, 'r1'), lanes((l) => l + 2));
  assert.deepEqual(r.reg(0, 'r2'), lanes((l) => (l < 3 ? l + 2 : 0)));
});

test('DMA: a load to the VPM and a store back, horizontal and vertical, with pitch and stride', () => {
  const src = `
    mov ra0, unif             # in
    mov ra1, unif             # out
    ldi vr_setup, 0x82021000  # DMA load: 32-bit, pitch 32 bytes, 2 rows of 16 words to VPM rows 0, 1
    mov vr_addr, ra0
    read vr_wait
    ldi vw_setup, 0x81104000  # DMA store: 2 rows (units) of 16 words, horizontal, from row 0
    ldi vw_setup, 0xc0000010  # stride: 16 bytes between rows
    mov vw_addr, ra1
    read vw_wait
    ${END}`;
  const input = Array.from({ length: 32 }, (_, i) => 1000 + i);
  const r = runAsm(src, { buffers: { in: input, out: 40 }, uniforms: ['@in', '@out'] });
  const out = r.read('out');
  // VDR: MPITCH 2 -> 32-byte pitch: row 0 is in[0..15], row 1 is in[8..23].
  assert.deepEqual(out.slice(0, 16), input.slice(0, 16));
  assert.deepEqual(out.slice(16, 20), [0, 0, 0, 0], 'the 16-byte stride');
  assert.deepEqual(out.slice(20, 36), input.slice(8, 24));
  assert.equal(r.result.total.dmaLoadBytes, 128);
  assert.equal(r.result.total.dmaStoreBytes, 128);
  assert.ok(r.result.total.stalls.dma > 0);

  // The extended load pitch is 14 bits on chips (the Guide says 13; src/vc4/vpm-setup.ts has the
  // sources): 12,288 bytes (bit 13 set, qmkl's SGEMM at R = 3072) steps 12,288 bytes, and
  // 16,384 + 64 (bit 14, where qmkl went wrong at R = 4608) steps 64.
  const pitched = (setup: number) => `
    mov ra0, unif
    mov ra1, unif
    ldi vr_setup, 0x${(setup >>> 0).toString(16)}  # extended pitch
    ldi vr_setup, 0x80021000  # DMA load: 32-bit, extended pitch, 2 rows of 16 words to VPM rows 0, 1
    mov vr_addr, ra0
    read vr_wait
    ldi vw_setup, 0x81104000  # DMA store: 2 rows of 16 words, horizontal, from row 0
    mov vw_addr, ra1
    read vw_wait
    ${END}`;
  const big = Array.from({ length: 3072 + 16 }, (_, i) => i);
  const far = runAsm(pitched(encodeVdrPitch(12_288)), { buffers: { in: big, out: 32 }, uniforms: ['@in', '@out'] }).read('out');
  assert.deepEqual(far, [...big.slice(0, 16), ...big.slice(3072, 3088)]);
  const wrapped = runAsm(pitched(encodeVdrPitch(64) | (1 << 14)), { buffers: { in: big, out: 32 }, uniforms: ['@in', '@out'], strict: false }).read('out');
  assert.deepEqual(wrapped, big.slice(0, 32));
  // Strict runs refuse it (rule dma-pitch-width): on a chip such loads went wrong.
  assert.throws(
    () => runAsm(pitched(encodeVdrPitch(64) | (1 << 14)), { buffers: { in: big, out: 32 }, uniforms: ['@in', '@out'] }),
    (e: Error & { rule?: string }) => e.rule === 'dma-pitch-width' && /pitch word 0x90004040 sets bits 0x00004000 past its 14-bit pitch: a chip keeps only 64 bytes/.test(e.message),
  );

  // A vertical load goes down one VPM column; a vertical store reads columns back as rows.
  const vsrc = `
    mov ra0, unif
    mov ra1, unif
    ldi vr_setup, 0x83010803  # DMA load: pitch 64, 1 row of 16 words, vertical, column 3
    mov vr_addr, ra0
    read vr_wait
    ldi vr_setup, 0x100203    # VPM read: vertical, column 3
    nop
    nop
    mov r0, vpm
    ldi vw_setup, 0x80900018  # DMA store: 1 unit of 16 words, vertical, column 3
    mov vw_addr, ra1
    read vw_wait
    ${END}`;
  const v = runAsm(vsrc, { buffers: { in: lanes((l) => 7 * l), out: 16 }, uniforms: ['@in', '@out'] });
  assert.deepEqual(v.reg(0, 'r0'), lanes((l) => 7 * l));
  assert.deepEqual(v.read('out'), lanes((l) => 7 * l));
});

test('DMA: a horizontal load row wraps within its VPM row, as stores do', () => {
  const src = `
    mov ra0, unif
    ldi vr_setup, 0x83011028  # DMA load: 1 row of 16 words, horizontal, VPM row 2 from column 8
    mov vr_addr, ra0
    read vr_wait
    ldi vr_setup, 0x201a02    # VPM read: 2 horizontal 32-bit vectors from row 2
    nop
    nop
    mov r0, vpm
    mov r1, vpm
    ${END}`;
  const r = runAsm(src, { buffers: { in: lanes((l) => 100 + l) }, uniforms: ['@in'] });
  assert.deepEqual(r.reg(0, 'r0'), lanes((l) => 100 + ((l - 8) & 15)));
  assert.deepEqual(r.reg(0, 'r1'), lanes(() => 0), 'row 3 is untouched');
});

test('semaphores order two QPUs; the mutex serialises; host interrupts are counted', () => {
  // QPU 1 waits on semaphore 0 until QPU 0 has written its value and raised it.
  const src = `
    mov r0, qpu_num
    sub.setf nop, r0, 1
    brr.anyz -, consumer
    nop
    nop
    nop
    mov r1, unif              # producer: write 42 to the buffer through the VPM row 0
    ldi vw_setup, 0xa00
    mov vpm, 15
    ldi vw_setup, 0x80904000
    mov vw_addr, r1
    read vw_wait
    sema up, 0
    brr -, done
    nop
    nop
    nop
  consumer:
    sema down, 0
    mov r1, unif
    shl r0, elem_num, 2
    add tmu0_s, r1, r0
    ldtmu0
    mov r2, r4
  done:
    mov host_int, 1
    ${END}`;
  // The consumer reads with the TMU what the producer stored in this run: strict runs stop it
  // (rule gather-after-store: on a Pi the TMU's cache may hold the old value); these read memory.
  assert.throws(() => runAsm(src, { qpus: 2, buffers: { buf: 16 }, uniforms: ['@buf'] }), /\[gather-after-store\]/);
  const r = runAsm(src, { qpus: 2, buffers: { buf: 16 }, uniforms: ['@buf'], strict: false });
  assert.deepEqual(r.reg(1, 'r2'), lanes(() => 15));
  assert.equal(r.result.total.hostInterrupts, 2);
  assert.ok(r.result.qpus[1]!.stalls.semaphore > 0, 'the consumer waited');

  // Four QPUs each add their number to a shared word under the mutex.
  const mutex = `
    mov r3, unif
    read mutex
    shl r0, elem_num, 2
    add tmu0_s, r3, r0
    ldtmu0
    mov r1, qpu_num
    add r1, r4, r1
    ldi vw_setup, 0xa00
    mov vpm, r1
    ldi vw_setup, 0x80904000
    mov vw_addr, r3
    read vw_wait
    mov mutex, 0
    ${END}`;
  const m = runAsm(mutex, { qpus: 4, buffers: { sum: 16 }, uniforms: ['@sum'], strict: false });
  assert.deepEqual(m.read('sum'), lanes(() => 0 + 1 + 2 + 3));
  assert.ok(m.result.total.stalls.mutex > 0);
});

test('cycle model: 4 cycles an instruction, QPUs in parallel, one DMA engine shared', () => {
  const r = runAsm(`nop\nnop\nnop${END}`, { qpus: 3 });
  assert.equal(r.result.cycles, 4 * 6);
  assert.equal(r.result.total.instructions, 18);
  assert.equal(r.result.total.nops, 15);
  // Two QPUs storing at once: the second DMA waits for the first.
  const store = `
    mov r1, unif
    ldi vw_setup, 0x80904000
    mov vw_addr, r1
    read vw_wait
    ${END}`;
  const one = runAsm(store, { qpus: 1, buffers: { o: 32 }, uniforms: ['@o'] });
  const two = runAsm(store, { qpus: 2, buffers: { o: 32 }, uniforms: (q) => [q === 0 ? '@o' : '@o'] });
  assert.ok(two.result.cycles > one.result.cycles, `${two.result.cycles} > ${one.result.cycles}`);
  assert.ok(Math.abs(two.result.seconds - two.result.cycles / 250e6) < 1e-12);
  void bits;
});

test('VPM: 16- and 8-bit vectors, laned and packed (Guide Figures 8 and 9)', () => {
  const src = `
    ldi vw_setup, 0xa00         # 32-bit horizontal, row 0: clear it
    mov vpm, 0
    ldi vw_setup, 0x901         # 16-bit horizontal packed, row 0, half 1: words 8-15
    add vpm, elem_num, 1
    ldi vw_setup, 0xc06         # 8-bit laned horizontal (0x800 | 0x400), row 1, byte 2
    add vpm, elem_num, 7
    ldi vr_setup, 0x100a00      # read row 0 as 32-bit
    ldi vr_setup, 0x100c06      # read row 1, byte 2, laned 8-bit
    nop
    nop
    mov r0, vpm
    mov r1, vpm
    ${END}`;
  const r = runAsm(src);
  // Packed 16-bit, half 1: element e in word 8 + e/2, half e % 2.
  assert.deepEqual(r.reg(0, 'r0'), lanes((w) => (w < 8 ? 0 : ((2 * (w - 8) + 2) << 16) | (2 * (w - 8) + 1))));
  assert.deepEqual(r.reg(0, 'r1'), lanes((l) => l + 7));
  const vpm = r.machine.vpm;
  assert.equal(vpm[16 + 3], (3 + 7) << 16, 'byte 2 of row 1, the rest zero');
});
