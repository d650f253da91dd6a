// The cycle model against timings published for real Pis (docs/timing.md, "The model against
// the Pi"): other people's machine code, run on the emulator as its own host program runs it,
// its results checked, its modelled time set beside the published one.
//
//   npm run bench:published -- --qpulib DIR --sha256 FILE [--json out.json]
//
// --qpulib DIR: rot3d_v1.bin, rot3d_v2.bin, rot3d_v3.bin and heat_step.bin, QPULib's own code for
//   its Rot3D and HeatMap examples (bench/qpulib/dump.cpp writes them). Published (QPULib's
//   README): rot3D on 192,000 vertices v1 40 ms, v2 18 ms (1 QPU), v3 16 ms (2 QPUs); heat,
//   2000 steps, 49.34 s, 24.91 s and 20.36 s on 1, 2 and 4 QPUs.
// --sha256 FILE: the SHA-256 series' `final` program (QPU/SHA-256/final, its assembler's .bin,
//   or its source after m4, assembled here with --syntax series). Published: 3.1 Mhash/s on 12
//   QPUs. Neither program is part of qpu-ts: they are other projects' code (the series' has no
//   licence), so they are read from where the user put them.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Machine, type RunResult } from '../src/emulator/machine.ts';
import { type Allocation, GpuMemory } from '../src/common/memory.ts';
import { STALL_CAUSES } from '../src/emulator/qpu.ts';
import { PI_TIMING } from '../src/emulator/timing.ts';
import { assemble } from '../src/vc4/asm/assembler.ts';

interface Figure {
  name: string;
  published: string;
  modelled: string;
  /** Modelled over published, of times (a rate's ratio is inverted so that above 1 is slower). */
  ratio: number;
  detail: string;
}

const bits = (x: number) => new Int32Array(new Float32Array([x]).buffer)[0]!;
const words = (file: string) => {
  const b = readFileSync(file);
  return new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
};

/** Runs `program` on `qpus` QPUs, QPU q reading `uniforms(q)`, after `setup` has filled memory. */
function launch(program: Uint32Array, qpus: number, setup: (m: Machine) => (q: number) => number[]) {
  const m = new Machine(new GpuMemory(64 * 1024 * 1024));
  const loaded = m.load(program);
  const uniforms = setup(m);
  const addrs = Array.from({ length: qpus }, (_, q) => {
    const u = uniforms(q);
    const a = m.memory.alloc(4 * u.length, `uniforms${q}`);
    u.forEach((w, i) => m.memory.writeWord(a.address + 4 * i, w | 0));
    return a.address;
  });
  return { m, r: m.run(loaded, addrs, { maxSteps: Infinity }) };
}

const stalls = (r: RunResult) => STALL_CAUSES.filter((c) => r.total.stalls[c]).map((c) => `${c} ${r.total.stalls[c]}`).join(', ') || 'none';

// ---------------------------------------------------------------- QPULib

const floats = (m: Machine, a: Allocation, n: number) => m.memory.floats.slice(m.memory.index(a.address), m.memory.index(a.address) + n);
/** Largest relative difference from a float64 reference (QPU floats round toward zero). */
const worst = (got: Float32Array, want: (i: number) => number) => got.reduce((w, g, i) => Math.max(w, Math.abs(g - want(i)) / Math.max(1, Math.abs(want(i)))), 0);

function rot3D(dir: string, v: number, qpus: number, publishedMs: number): Figure {
  const n = 192_000;
  const [c, s] = [Math.fround(Math.cos(3.14159)), Math.fround(Math.sin(3.14159))];
  let x!: Allocation, y!: Allocation;
  // QPULib's uniforms: the QPU's index, the QPU count, then the arguments in reverse order
  // (rot3D(n, cos, sin, x, y)). Its v2 and v3 prefetch one vector past the end: 64 words spare.
  const { m, r } = launch(words(`${dir}/rot3d_v${v}.bin`), qpus, (m) => {
    x = m.memory.alloc(4 * (n + 64), 'x');
    y = m.memory.alloc(4 * (n + 64), 'y');
    for (let i = 0; i < n; i++) {
      m.memory.floats[m.memory.index(x.address) + i] = i;
      m.memory.floats[m.memory.index(y.address) + i] = Math.fround(i / 2 - 1000);
    }
    return (q) => [q, qpus, y.address, x.address, bits(s), bits(c), n];
  });
  const err = worst(floats(m, x, n), (i) => i * c - (i / 2 - 1000) * s);
  if (err > 1e-5) throw new Error(`QPULib rot3D v${v}: wrong result (relative error ${err})`);
  const ms = r.seconds * 1e3;
  return { name: `QPULib rot3D v${v}, ${qpus} QPU${qpus > 1 ? 's' : ''}`, published: `${publishedMs} ms`, modelled: `${ms.toFixed(1)} ms`, ratio: ms / publishedMs, detail: stalls(r) };
}

function heat(dir: string, qpus: number, published2000: number): Figure {
  const [w, h, pitch] = [496, 504, 512];
  let map!: Allocation, out!: Allocation;
  const init = (i: number) => ((i * 2654435761) >>> 0) % 1000;
  const { m, r } = launch(words(`${dir}/heat_step.bin`), qpus, (m) => {
    // Rows 0 and h + 1 are borders; the kernel reads a vector past the last row: 64 words spare.
    map = m.memory.alloc(4 * ((h + 2) * pitch + 64), 'map');
    out = m.memory.alloc(4 * ((h + 2) * pitch + 64), 'mapOut');
    const f = m.memory.floats;
    for (let y = 1; y <= h; y++) for (let x = 0; x < w; x++) f[m.memory.index(map.address) + y * pitch + x] = init(y * pitch + x);
    return (q) => [q, qpus, h, w, pitch, out.address, map.address];
  });
  const at = (y: number, x: number) => (x < 0 || x >= w || y < 1 || y > h ? 0 : Math.fround(init(y * pitch + x)));
  const want = (i: number) => {
    const [y, x] = [Math.floor(i / pitch), i % pitch];
    if (y < 1 || y > h || x >= w) return 0;
    let sum = 0;
    for (const [dy, dx] of [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]] as const) sum += at(y + dy, x + dx);
    return at(y, x) - 0.25 * (at(y, x) - sum / 8);
  };
  const err = worst(floats(m, out, (h + 2) * pitch), want);
  if (err > 1e-5) throw new Error(`QPULib heat: wrong result (relative error ${err})`);
  const ms = r.seconds * 1e3;
  const pub = (published2000 / 2000) * 1e3;
  return { name: `QPULib heat step, ${qpus} QPU${qpus > 1 ? 's' : ''}`, published: `${pub.toFixed(2)} ms`, modelled: `${ms.toFixed(2)} ms`, ratio: ms / pub, detail: stalls(r) };
}

// ---------------------------------------------------------------- the SHA-256 series

const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
/** SHA-256's round constants: the fractional parts of the cube roots of the first 64 primes. */
const K = (() => {
  const primes: number[] = [];
  for (let p = 2; primes.length < 64; p++) if (primes.every((q) => p % q)) primes.push(p);
  return primes.map((p) => {
    const r = Math.cbrt(p);
    return Number((BigInt(Math.floor(r * 2 ** 48)) >> 16n) & 0xffffffffn);
  });
})();

function sha256(file: string): Figure {
  const program = file.endsWith('.bin') ? words(file) : assemble(readFileSync(file, 'utf8'), { syntax: 'series', file }).words;
  const [qpus, perQpu] = [12, 16];
  // 192 messages of 10 to 55 bytes, each padded into one 512-bit block.
  const messages = Array.from({ length: qpus * perQpu }, (_, i) => Buffer.from(`message ${i} `.padEnd(10 + (i % 46), 'x')));
  const blocks = messages.map((msg) => {
    const b = Buffer.alloc(64);
    msg.copy(b);
    b[msg.length] = 0x80;
    b.writeBigUInt64BE(BigInt(msg.length * 8), 56);
    return Array.from({ length: 16 }, (_, j) => b.readUInt32BE(4 * j));
  });
  // The host's layout: K, then each QPU's 16 hashes (8 words each), then its 16 blocks. The
  // uniforms: K, this QPU's hashes, its blocks, and how many passes to make.
  let data!: Allocation;
  const run = (passes: number) =>
    launch(program, qpus, (m) => {
      data = m.memory.alloc(4 * (64 + (128 + 256) * qpus), 'data');
      const at = (i: number) => data.address + 4 * i;
      K.forEach((k, i) => m.memory.writeWord(at(i), k | 0));
      blocks.forEach((blk, j) => {
        H0.forEach((v, i) => m.memory.writeWord(at(64 + 8 * j + i), v | 0));
        blk.forEach((v, i) => m.memory.writeWord(at(64 + 128 * qpus + 16 * j + i), v | 0));
      });
      return (q) => [at(0), at(64 + 128 * q), at(64 + 128 * qpus + 256 * q), passes];
    });
  // One pass hashes each message once: check every hash.
  const once = run(1).m;
  messages.forEach((msg, j) => {
    const got = Array.from({ length: 8 }, (_, i) => (once.memory.readWord(data.address + 4 * (64 + 8 * j + i)) >>> 0).toString(16).padStart(8, '0')).join('');
    if (got !== createHash('sha256').update(msg).digest('hex')) throw new Error(`SHA-256 series: message ${j} hashes to ${got}`);
  });
  // Per pass: the difference between runs of 5 and 20 passes (the QPUs settle within a few).
  const [a, b] = [run(5).r, run(20).r];
  const cycles = (b.cycles - a.cycles) / 15;
  const mhash = (qpus * perQpu) / (cycles / PI_TIMING.clockHz) / 1e6;
  const instrs = (b.qpus[0]!.instructions - a.qpus[0]!.instructions) / 15;
  return {
    name: 'SHA-256 series, 12 QPUs',
    published: '3.1 Mhash/s',
    modelled: `${mhash.toFixed(2)} Mhash/s`,
    ratio: 3.1 / mhash,
    detail: `${instrs} instructions and ${cycles.toFixed(0)} cycles a pass per QPU; ${stalls(b)} (20 passes)`,
  };
}

// ---------------------------------------------------------------- main

function main(argv: string[]): void {
  const opt = (name: string) => {
    const i = argv.indexOf(name);
    if (i >= 0 && !argv[i + 1]) throw new Error(`${name} needs a value`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const [dir, sha, json] = [opt('--qpulib'), opt('--sha256'), opt('--json')];
  if (!dir && !sha) {
    console.log('usage: npm run bench:published -- --qpulib DIR --sha256 FILE [--json out.json]  (see the top of bench/published.ts)');
    return;
  }
  const figures: Figure[] = [];
  if (dir) {
    figures.push(rot3D(dir, 1, 1, 40), rot3D(dir, 2, 1, 18), rot3D(dir, 3, 2, 16));
    for (const [qpus, s] of [[1, 49.34], [2, 24.91], [4, 20.36]] as const) figures.push(heat(dir, qpus, s));
  }
  if (sha) figures.push(sha256(sha));
  console.log('| program | published | modelled | modelled time / published | stall cycles (all QPUs) |\n|---|---:|---:|---:|---|');
  for (const f of figures) console.log(`| ${f.name} | ${f.published} | ${f.modelled} | ${f.ratio.toFixed(2)} | ${f.detail} |`);
  if (json) writeFileSync(json, JSON.stringify({ timing: PI_TIMING, figures }, null, 2) + '\n');
}

main(process.argv.slice(2));
