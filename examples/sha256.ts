// SHA-256 of 16 messages on each QPU, one message a lane: the job of the "Hacking The GPU"
// series' hand-written kernel (3,575 instructions a pass of 16 hashes), in the language. Each
// message is one 512-bit block (at most 55 bytes, padded). A loop runs the 64 rounds 8 at a
// time: TypeScript unrolls the 8 and renames the eight working variables instead of moving them
// (after 8 rounds the names come round again), and the message schedule keeps its 16 words in
// registers, 8 new ones an iteration. Unrolled whole (sha256Unrolled), the kernel is 2,417
// instructions, which outgrow each slice's 512-instruction cache: one QPU waits for code almost
// as long as it issues (docs/timing.md). With the loop it is 511 (518 on 12 QPUs).
// Run on 1 to 12 QPUs (16 messages each), every hash checked against node:crypto, and timed.
// Run: npx tsx examples/sha256.ts [--qpus 1,2,4,8,12] [MESSAGE...]
import { createHash } from 'node:crypto';
import { For, If, Int, kernel, me, Ptr, SharedArray, type IntExpr, type IntVar } from 'qpu-ts';
import { check, type ExampleOptions, type ExampleResult, qpuList, qpusText, runIfMain, seconds, since, table, type Timing, timed, UsageError } from './lib/report.ts';

/** The initial hash: the first 32 bits of the fractional parts of the square roots of the first 8 primes. */
export const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** The round constants: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
export const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

const s0 = (x: IntExpr) => x.ror(7).xor(x.ror(18)).xor(x.ushr(3));
const s1 = (x: IntExpr) => x.ror(17).xor(x.ror(19)).xor(x.ushr(10));
const S0 = (x: IntExpr) => x.ror(2).xor(x.ror(13)).xor(x.ror(22));
const S1 = (x: IntExpr) => x.ror(6).xor(x.ror(11)).xor(x.ror(25));

/** Rounds an iteration of the kernel's loop: the eight working variables' names come round again after 8. */
const ROUNDS_A_PASS = 8;

/**
 * `blocks`: for QPU q, word j of the 16 messages is the 16 ints from blocks + (16 q + j) * 16
 * (lane l: message 16 q + l). `hashes`: word k of those messages' hashes, likewise from
 * hashes + (8 q + k) * 16. `k`: the round constants K (roundConstants()).
 */
export const sha256 = kernel([Ptr(Int), Ptr(Int), Ptr(Int)], function sha256(blocks, hashes, k) {
  // w holds message-schedule words i to i + 15 at the start of the iteration of rounds i to i + 7.
  const w: IntVar[] = [];
  for (let j = 0; j < 16; j++) w.push(Int(blocks.add(me().shl(8)).add(16 * j).load()));
  const state = H0.map((h) => Int(h | 0));
  const i = Int(0);
  For(i.lt(64), () => i.set(i.add(ROUNDS_A_PASS)), () => {
    const ki = Int(k.add(i).load()); // lane j: K[i + j]
    let [a, b, c, d, e, f, g, h] = state as [IntVar, IntVar, IntVar, IntVar, IntVar, IntVar, IntVar, IntVar];
    for (let j = 0; j < ROUNDS_A_PASS; j++) {
      const t1 = Int(h.add(S1(e)).add(e.and(f).xor(e.not().and(g))).add(ki.lane(j)).add(w[j]!));
      const t2 = S0(a).add(a.and(b).xor(a.and(c)).xor(b.and(c)));
      d.set(d.add(t1));
      h.set(t1.add(t2));
      [a, b, c, d, e, f, g, h] = [h, a, b, c, d, e, f, g];
    }
    // The next 8 words, w[n] = s1(w[n-2]) + w[n-7] + s0(w[n-15]) + w[n-16], while the last rounds
    // still need any; the window moves on 8 words.
    If(i.lt(64 - 16), () => {
      const next: IntVar[] = [];
      const at = (n: number) => (n < 16 ? w[n]! : next[n - 16]!);
      for (let n = 16; n < 24; n++) next.push(Int(at(n - 16).add(s0(at(n - 15))).add(at(n - 7)).add(s1(at(n - 2)))));
      for (let n = 0; n < 8; n++) w[n]!.set(w[n + 8]!);
      for (let n = 0; n < 8; n++) w[n + 8]!.set(next[n]!);
    }).Else(() => {
      for (let n = 0; n < 8; n++) w[n]!.set(w[n + 8]!);
    });
  });
  const out = hashes.add(me().shl(7));
  state.forEach((v, n) => out.add(16 * n).store(v.add(H0[n]! | 0)));
});

/**
 * The same job with all 64 rounds unrolled (K as constants): 2,411 instructions executed a QPU
 * where the loop executes 2,563, but code that outgrows the instruction cache, so that on 12
 * QPUs it takes 1.3 times as long (npm run bench). Kept to compare, and to time the compiler
 * on a long kernel.
 */
export const sha256Unrolled = kernel([Ptr(Int), Ptr(Int)], function sha256Unrolled(blocks, hashes) {
  const w: IntVar[] = [];
  for (let j = 0; j < 16; j++) w.push(Int(blocks.add(me().shl(8)).add(16 * j).load()));
  const state = H0.map((h) => Int(h | 0));
  let [a, b, c, d, e, f, g, h] = state as [IntVar, IntVar, IntVar, IntVar, IntVar, IntVar, IntVar, IntVar];
  for (let i = 0; i < 64; i++) {
    const wi = w[i % 16]!;
    // The message schedule, 16 words at a time: w[i] = s1(w[i-2]) + w[i-7] + s0(w[i-15]) + w[i-16].
    if (i >= 16) wi.set(wi.add(s0(w[(i + 1) % 16]!)).add(w[(i + 9) % 16]!).add(s1(w[(i + 14) % 16]!)));
    const t1 = Int(h.add(S1(e)).add(e.and(f).xor(e.not().and(g))).add(K[i]! | 0).add(wi));
    const t2 = S0(a).add(a.and(b).xor(a.and(c)).xor(b.and(c)));
    d.set(d.add(t1));
    h.set(t1.add(t2));
    [a, b, c, d, e, f, g, h] = [h, a, b, c, d, e, f, g];
  }
  // After 64 rounds the names have come round to where they started.
  const out = hashes.add(me().shl(7));
  state.forEach((v, k) => out.add(16 * k).store(v.add(H0[k]! | 0)));
});

/** The round constants as the kernel reads them: K, then 8 words that the last iteration's 16-word load reads and does not use. */
export function roundConstants(): Int32Array {
  const k = SharedArray.int32(K.length + ROUNDS_A_PASS, 'K');
  K.forEach((x, n) => (k[n] = x | 0));
  return k;
}

/** Messages padded to one block each, laid out for the kernel: `blocks` and their expected hashes. */
export function sha256Inputs(messages: readonly Uint8Array[]): { blocks: Int32Array; expected: string[] } {
  if (messages.length % 16) throw new RangeError('16 messages a QPU');
  const blocks = SharedArray.int32(messages.length * 16, 'blocks');
  messages.forEach((m, n) => {
    if (m.length > 55) throw new RangeError(`message ${n} has ${m.length} bytes; one block holds 55`);
    const block = new Uint8Array(64);
    block.set(m);
    block[m.length] = 0x80;
    new DataView(block.buffer).setUint32(60, m.length * 8);
    const [q, l] = [Math.floor(n / 16), n % 16];
    for (let j = 0; j < 16; j++) blocks[(16 * q + j) * 16 + l] = new DataView(block.buffer).getInt32(4 * j);
  });
  return { blocks, expected: messages.map((m) => createHash('sha256').update(m).digest('hex')) };
}

/** The hash of message n from the kernel's output, in hex. */
export function hashOf(hashes: Int32Array, n: number): string {
  const [q, l] = [Math.floor(n / 16), n % 16];
  return Array.from({ length: 8 }, (_, k) => (hashes[(8 * q + k) * 16 + l]! >>> 0).toString(16).padStart(8, '0')).join('');
}

/** `count` messages of 0 to 55 bytes, different from each other. */
export function sampleMessages(count: number): Uint8Array[] {
  return Array.from({ length: count }, (_, n) => new TextEncoder().encode(`message ${n}: ${'abcdefghijklmnopqrstuvwxyz0123456789'.slice(0, n % 37)}`.slice(0, 55)));
}

export interface Sha256Options extends ExampleOptions {
  /** The QPU counts to run on (default 1, 2, 4, 8 and 12), hashing 16 messages a QPU. */
  readonly qpus?: readonly number[];
  /** Messages to hash first (at most 55 bytes each in UTF-8); sampleMessages fills the rest. */
  readonly messages?: readonly string[];
}

/** The messages for `qpus` QPUs: the user's, then sample messages, 16 a QPU. */
function messagesFor(qpus: number, own: readonly Uint8Array[]): Uint8Array[] {
  if (own.length > 16 * qpus) throw new UsageError(`sha256: ${own.length} messages; ${qpusText(qpus)} hash ${16 * qpus} at a time`);
  return [...own, ...sampleMessages(16 * qpus).slice(own.length)];
}

/** Hashes 16 messages a QPU on each QPU count, checks every hash against node:crypto, prints some and the times. */
export async function main(opts: Sha256Options = {}): Promise<ExampleResult> {
  const log = opts.log ?? console.log;
  const start = performance.now();
  const { qpus = [1, 2, 4, 8, 12] } = opts;
  const own = (opts.messages ?? []).map((m) => new TextEncoder().encode(m));
  const bad = own.findIndex((m) => m.length > 55);
  if (bad >= 0) throw new UsageError(`sha256: message ${bad + 1} has ${own[bad]!.length} bytes; one block holds 55`);
  const timings: Timing[] = [];
  let shown: string[] = [];
  for (const q of qpus) {
    const messages = messagesFor(q, own);
    const { blocks, expected } = sha256Inputs(messages);
    const hashes = SharedArray.int32(messages.length * 8, 'hashes');
    const k = roundConstants();
    sha256.setNumQPUs(q).code(); // compiled before the clock starts
    timings.push((await timed('sha256', () => sha256(blocks, hashes, k))).timing);
    const wrong = messages.findIndex((_, n) => hashOf(hashes, n) !== expected[n]);
    check(wrong < 0, () => `on ${qpusText(q)}, message ${wrong} ("${new TextDecoder().decode(messages[wrong])}"): ${hashOf(hashes, wrong)}, node:crypto says ${expected[wrong]}`);
    const decode = (n: number) => new TextDecoder().decode(messages[n]);
    shown = Array.from({ length: Math.max(3, own.length) }, (_, n) => `sha256("${decode(n)}") = ${hashOf(hashes, n)}`);
    SharedArray.free(blocks);
    SharedArray.free(hashes);
    SharedArray.free(k);
  }
  for (const line of shown) log(line);
  log(`Every hash agrees with node:crypto. 16 messages a QPU, one a lane:`);
  const rows = timings.map((t) => [String(t.qpus), String(16 * t.qpus), seconds(t.piSeconds), `${((16 * t.qpus) / t.piSeconds / 1e6).toFixed(2)} Mhash/s`, seconds(t.wallSeconds)]);
  for (const line of table(['QPUs', 'hashes', 'Pi time (cycle model)', 'Pi rate', 'emulator (wall)'], rows)) log(`  ${line}`);
  log(`  (published for the "Hacking The GPU" series' hand-written kernel: 3.1 Mhash/s on a Pi's 12 QPUs)`);
  const total = timings.reduce((t, x) => t + 16 * x.qpus, 0);
  return { name: 'sha256', summary: `${total} hashes, all equal to node:crypto's`, pictures: [], timings, headline: timings[timings.length - 1]!, wallSeconds: since(start) };
}

await runIfMain(
  import.meta.url,
  'npx tsx examples/sha256.ts [--qpus 1,2,4,8,12] [MESSAGE...]: SHA-256 of 16 messages a QPU (yours first), checked against node:crypto',
  { qpus: { type: 'string' } },
  (v, messages) => main({ qpus: v.qpus === undefined ? undefined : qpuList(v.qpus as string), messages }),
  { positionals: true },
);
