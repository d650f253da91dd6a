// What 8-bit pixels cost against 32-bit words (cycle model, 12 QPUs, -O2): a 3x3 filter
// ([1 2 1; 2 4 2; 1 2 1] / 16) over a 1024x1024 RGBA8 picture, its pixels read as words and
// taken apart with Int.byte (packBytes puts them back), against the same filter over four
// arrays of one 32-bit word a channel. Counts and modelled times, not timings of this machine;
// both results are checked against the same filter computed in JavaScript.
// Run: npm run bench:pixels [-- --json out.json] [--size N]
import { writeFileSync } from 'node:fs';
import { For, Int, type IntExpr, kernel, me, numQPUs, packBytes, Ptr, type PtrExpr, SharedArray } from '../src/index.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const SIZE = Number(arg('--size') ?? 1024);
const QPUS = 12;
const W = SIZE;
const H = SIZE;
const WEIGHTS = [1, 2, 1, 2, 4, 2, 1, 2, 1];

/** The filtered value at a pixel from its 3x3 neighbourhood's values (the 9 loads, in row order). */
function filter(at: (dy: number, dx: number) => IntExpr): IntExpr {
  let sum: IntExpr | undefined;
  for (let dy = -1; dy <= 1; dy++)
    for (let dx = -1; dx <= 1; dx++) {
      const w = WEIGHTS[(dy + 1) * 3 + dx + 1]!;
      const v = at(dy, dx);
      const t = w === 1 ? v : v.shl(Math.log2(w));
      sum = sum ? sum.add(t) : t;
    }
  return sum!.shr(4);
}

/** Rows 2 to H-3 (the neighbours of row 1's first pixel and of row H-2's last lie outside the picture), a QPU's rows numQPUs() apart, 16 pixels at a time: `row` computes and stores one vector. */
function overRows(width: IntExpr, height: IntExpr, row: (at: IntExpr) => void): void {
  const y = Int(me().add(2));
  For(y.lt(height.sub(2)), () => y.set(y.add(numQPUs())), () => {
    const x = Int(0);
    For(x.lt(width), () => x.set(x.add(16)), () => row(y.mul(width).add(x)));
  });
}

const rgba8 = kernel([Ptr(Int), Ptr(Int), Int, Int], function rgba8(src, dst, width, height) {
  overRows(width, height, (at) => {
    const px: IntExpr[] = [];
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) px.push(Int(src.add(at.add(width.mul(dy)).add(dx)).load()));
    const channel = (c: number) => filter((dy, dx) => px[(dy + 1) * 3 + dx + 1]!.byte(c));
    dst.add(at).store(packBytes(channel(0), channel(1), channel(2), channel(3)));
  });
}).setNumQPUs(QPUS);

const planes = kernel([Ptr(Int), Ptr(Int), Ptr(Int), Ptr(Int), Ptr(Int), Ptr(Int), Ptr(Int), Ptr(Int), Int, Int], function planes(r, g, b, a, r2, g2, b2, a2, width, height) {
  overRows(width, height, (at) => {
    const ins: PtrExpr<'int'>[] = [r, g, b, a];
    const outs: PtrExpr<'int'>[] = [r2, g2, b2, a2];
    ins.forEach((p, c) => {
      const v: IntExpr[] = [];
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) v.push(Int(p.add(at.add(width.mul(dy)).add(dx)).load()));
      outs[c]!.add(at).store(filter((dy, dx) => v[(dy + 1) * 3 + dx + 1]!));
    });
  });
}).setNumQPUs(QPUS);

// A picture: smooth gradients and noise in each channel.
const n = W * H;
const channels = [0, 1, 2, 3].map((c) => Array.from({ length: n }, (_, i) => ((i % W) * (c + 1) + ((i / W) | 0) * (3 - c) + ((Math.imul(i, 2654435761) >>> (24 + c)) & 15)) & 255));
const expected = channels.map((ch) => {
  const out = new Int32Array(n);
  for (let y = 2; y < H - 2; y++)
    for (let x = 0; x < W; x++) {
      let s = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) s += WEIGHTS[(dy + 1) * 3 + dx + 1]! * ch[(y + dy) * W + x + dx]!;
      out[y * W + x] = s >> 4;
    }
  return out;
});

const picture = SharedArray.int32(n);
for (let i = 0; i < n; i++) picture[i] = channels[0]![i]! | (channels[1]![i]! << 8) | (channels[2]![i]! << 16) | (channels[3]![i]! << 24);
const filtered = SharedArray.int32(n);
const r8 = rgba8.emulateSync([picture, filtered, W, H], { maxSteps: Infinity });
const ok8 = expected.every((e, c) => e.every((v, i) => ((filtered[i]! >>> (8 * c)) & 255) === v));

const ins = channels.map((ch) => SharedArray.from(ch, 'int32'));
const outs = channels.map(() => SharedArray.int32(n));
const r32 = planes.emulateSync([ins[0]!, ins[1]!, ins[2]!, ins[3]!, outs[0]!, outs[1]!, outs[2]!, outs[3]!, W, H], { maxSteps: Infinity });
const ok32 = expected.every((e, c) => e.every((v, i) => outs[c]![i] === v));

const row = (name: string, r: typeof r8, ok: boolean) =>
  console.log(`  ${name.padEnd(34)} ${String(r.run.cycles).padStart(11)} cycles  ${(r.seconds * 1000).toFixed(1).padStart(7)} ms on a Pi  ${String(r.steps).padStart(10)} instructions${ok ? '' : '  WRONG'}`);
console.log(`3x3 filter over a ${W}x${H} RGBA picture on ${QPUS} QPUs (cycle model, -O2):`);
row('RGBA8 (a word a pixel, Int.byte)', r8, ok8);
row('32-bit words, one array a channel', r32, ok32);
const ratio = r8.run.cycles / r32.run.cycles;
console.log(`  RGBA8 / 32-bit: ${ratio.toFixed(2)} (the issue's bound: at most 1.5)`);
const json = arg('--json');
if (json) writeFileSync(json, JSON.stringify({ width: W, height: H, qpus: QPUS, rgba8: { cycles: r8.run.cycles, instructions: r8.steps, correct: ok8 }, words: { cycles: r32.run.cycles, instructions: r32.steps, correct: ok32 }, ratio }, null, 2));
if (!ok8 || !ok32) process.exitCode = 1;
