// How accurate the language's float functions are: the largest error in ulps against the
// correctly rounded result (the exact value, computed in double, rounded to float32 to nearest),
// over a dense sweep of float32 inputs in each function's domain, with the exact SFU and with the
// chip model (vc4/sfu-model.ts). The functions are the operators' meanings (source/ops.ts), which
// the compiled code matches bit for bit on every target. docs/language.md quotes the figures.
// Run: npm run bench:accuracy [-- --json out.json] [--quick] [--only sin,cos]
import { writeFileSync } from 'node:fs';
import { binaryImpl, type Sfu, type UnOp, unaryRow } from '../src/source/ops.ts';
import { sfu } from '../src/vc4/arith.ts';
import { sfuChip } from '../src/vc4/sfu-model.ts';

const quick = process.argv.includes('--quick');
const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);
const toF = (bits: number) => ((i32[0] = bits), f32[0]!);
const fromF = (x: number) => ((f32[0] = x), i32[0]!);
/** A pattern's place in the order of floats: ulps between two patterns are the difference of their places. */
const place = (bits: number) => (bits < 0 ? -(bits & 0x7fffffff) : bits);
const NORMAL_MIN = 2 ** -126;
/** The largest |x| sin and cos are measured to (their range reduction is exact below about 2^13 pi). */
const TRIG_LIMIT = 25000;
const normal = (x: number) => Number.isFinite(x) && (x === 0 || Math.abs(x) >= NORMAL_MIN) && Math.abs(x) <= 3.4028234663852886e38;

interface Case {
  readonly name: string;
  /** The domain, in words. */
  readonly domain: string;
  /** The inputs: each a list of patterns. */
  inputs(): Iterable<number[]>;
  fn(args: number[], sfu: Sfu): number;
  exact(args: number[]): number;
}

/** Every `stride`-th pattern from lo to hi (patterns of positive floats are in order). */
function* patterns(lo: number, hi: number, stride: number): Iterable<number> {
  for (let b = lo; b <= hi; b += stride) yield b;
}

let seed = 2401;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) | 0), (seed >>> 8) / 2 ** 24);

const CASES: Case[] = [
  {
    name: 'Float div',
    domain: 'a and b normal, |b| < 2^126, |a / b| from 2^-125 to 2^126 (beyond, a r may flush or overflow first)',
    *inputs() {
      // Every divisor mantissa (or every 16th) against a random dividend, then random pairs over all exponents.
      for (const b of patterns(fromF(1), fromF(2) - 1, quick ? 97 : 1)) yield [fromF(1 + random()), b];
      for (let i = 0; i < (quick ? 100_000 : 2_000_000); i++) {
        const a = fromF((1 + random()) * 2 ** Math.floor(random() * 200 - 100)) | (random() < 0.5 ? 0x80000000 : 0);
        const b = fromF((1 + random()) * 2 ** Math.floor(random() * 200 - 100)) | (random() < 0.5 ? 0x80000000 : 0);
        yield [a, b];
      }
    },
    fn: ([a, b], s) => binaryImpl('div', 'float')!.fn(a!, b!, s),
    exact: ([a, b]) => toF(a!) / toF(b!),
  },
  {
    name: 'Float sqrt',
    domain: 'x normal, x >= 0',
    *inputs() {
      for (const x of patterns(fromF(NORMAL_MIN), fromF(3.4028234663852886e38), quick ? 4099 : 61)) yield [x];
    },
    fn: ([x], s) => unaryRow('sqrt')!.fn(x!, s),
    exact: ([x]) => Math.sqrt(toF(x!)),
  },
  ...(['sin', 'cos'] as const).map((name) => ({
    name: `Float ${name}`,
    domain: `|x| <= ${TRIG_LIMIT} (x normal)`,
    *inputs() {
      for (const x of patterns(fromF(NORMAL_MIN), fromF(TRIG_LIMIT), quick ? 4099 : 307)) {
        yield [x];
        yield [x | 0x80000000];
      }
    },
    fn: ([x]: number[], s: Sfu) => unaryRow(name)!.fn(x!, s),
    exact: ([x]: number[]) => Math[name](toF(x!)),
  })),
  {
    name: 'Float exp',
    domain: 'x from -87.33 to 88.72 (the result normal)',
    *inputs() {
      for (const x of patterns(fromF(NORMAL_MIN), fromF(88.72), quick ? 1021 : 131)) yield [x];
      for (const x of patterns(fromF(NORMAL_MIN), fromF(87.33), quick ? 1021 : 131)) yield [x | 0x80000000];
    },
    fn: ([x], s) => unaryRow('exp')!.fn(x!, s),
    exact: ([x]) => Math.exp(toF(x!)),
  },
  {
    name: 'Float log',
    domain: 'x normal, x > 0',
    *inputs() {
      for (const x of patterns(fromF(NORMAL_MIN), fromF(3.4028234663852886e38), quick ? 4099 : 307)) yield [x];
    },
    fn: ([x], s) => unaryRow('log')!.fn(x!, s),
    exact: ([x]) => Math.log(toF(x!)),
  },
  unaryCase('tan', `|x| from 2^-125 to ${TRIG_LIMIT} (nearer 0, x r may flush to 0 with the chip's SFU)`, Math.tan, [2 ** -125, TRIG_LIMIT], true, 307),
  unaryCase('asin', '|x| <= 1', Math.asin, [NORMAL_MIN, 1], true, 31),
  unaryCase('acos', '|x| <= 1', Math.acos, [NORMAL_MIN, 1], true, 31),
  unaryCase('atan', '|x| from 2^-125 up (nearer 0, x r may flush to 0 with the chip\'s SFU)', Math.atan, [2 ** -125, 3.4e38], true, 307),
  unaryCase('exp2', 'x from -126 to 127.99 (the result normal)', (x) => 2 ** x, [NORMAL_MIN, 127.99], false, 131, 126),
  unaryCase('log2', 'x normal, x > 0', Math.log2, [NORMAL_MIN, 3.4e38], false, 307),
  unaryCase('sinh', '|x| <= 88.7', Math.sinh, [NORMAL_MIN, 88.7], true, 131),
  unaryCase('cosh', '|x| <= 88.7', Math.cosh, [NORMAL_MIN, 88.7], true, 131),
  unaryCase('tanh', 'x normal', Math.tanh, [NORMAL_MIN, 3.4e38], true, 307),
  {
    name: 'Float atan2',
    domain: 'y and x normal',
    *inputs() {
      for (let i = 0; i < (quick ? 100_000 : 3_000_000); i++) {
        const y = fromF((1 + random()) * 2 ** Math.floor(random() * 60 - 30)) | (random() < 0.5 ? 0x80000000 : 0);
        const x = fromF((1 + random()) * 2 ** Math.floor(random() * 60 - 30)) | (random() < 0.5 ? 0x80000000 : 0);
        yield [y, x];
      }
    },
    fn: ([y, x], s) => binaryImpl('atan2', 'float')!.fn(y!, x!, s),
    exact: ([y, x]) => Math.atan2(toF(y!), toF(x!)),
  },
  {
    name: 'Float pow',
    domain: 'x > 0 normal, |y log2 x| <= 30 (the result from 2^-30 to 2^30)',
    *inputs() {
      for (let i = 0; i < (quick ? 100_000 : 3_000_000); i++) {
        const x = fromF((1 + random()) * 2 ** Math.floor(random() * 40 - 20));
        const y = fromF((random() * 2 - 1) * 30 / Math.max(Math.abs(Math.log2(toF(x))), 1));
        yield [x, y];
      }
    },
    fn: ([x, y], s) => binaryImpl('pow', 'float')!.fn(x!, y!, s),
    exact: ([x, y]) => Math.pow(toF(x!), toF(y!)),
  },
];

/** A unary function measured from lo to hi (and from -lo to -hi with `signed`), every `stride`-th pattern (x 16 with --quick). */
function unaryCase(name: UnOp, domain: string, exact: (x: number) => number, [lo, hi]: [number, number], signed: boolean, stride: number, negativeTo?: number): Case {
  return {
    name: `Float ${name}`,
    domain,
    *inputs() {
      for (const x of patterns(fromF(lo), fromF(hi), quick ? stride * 16 + 1 : stride)) {
        yield [x];
        if (signed) yield [x | 0x80000000];
      }
      if (negativeTo !== undefined) for (const x of patterns(fromF(lo), fromF(negativeTo), quick ? stride * 16 + 1 : stride)) yield [x | 0x80000000];
    },
    fn: ([x], s) => unaryRow(name)!.fn(x!, s),
    exact: ([x]) => exact(toF(x!)),
  };
}

interface Measured {
  readonly name: string;
  readonly domain: string;
  readonly inputs: number;
  readonly maxUlpExact: number;
  readonly maxUlpChip: number;
  readonly worst: { readonly exact: number[]; readonly chip: number[] };
}

function measure(c: Case): Measured {
  let n = 0;
  const most = { exact: 0, chip: 0 };
  const worst = { exact: [] as number[], chip: [] as number[] };
  for (const args of c.inputs()) {
    const want = c.exact(args);
    if (!normal(want) || !args.every((a) => normal(toF(a)))) continue;
    if (c.name === 'Float div' && (Math.abs(toF(args[1]!)) >= 2 ** 126 || Math.abs(want) < 2 ** -125 || Math.abs(want) > 2 ** 126)) continue;
    n++;
    const w = place(fromF(want));
    for (const [mode, s] of [['exact', sfu], ['chip', sfuChip]] as const) {
      const e = Math.abs(place(c.fn(args, s)) - w);
      if (e > most[mode]) {
        most[mode] = e;
        worst[mode] = args.map(toF);
      }
    }
  }
  return { name: c.name, domain: c.domain, inputs: n, maxUlpExact: most.exact, maxUlpChip: most.chip, worst };
}

// --only NAME[,NAME...]: measure those functions alone (their names without "Float ").
const only = process.argv.indexOf('--only');
const chosen = only > 0 ? CASES.filter((c) => process.argv[only + 1]!.split(',').includes(c.name.replace('Float ', ''))) : CASES;
const records = chosen.map(measure);
console.log('largest error in ulps against the correctly rounded result, over each domain (exact SFU / chip model):');
for (const r of records)
  console.log(`  ${r.name.padEnd(12)} ${String(r.maxUlpExact).padStart(6)} / ${String(r.maxUlpChip).padEnd(6)} ${r.inputs.toLocaleString('en-US')} inputs: ${r.domain}`);
const at = process.argv.indexOf('--json');
if (at > 0 && process.argv[at + 1]) writeFileSync(process.argv[at + 1]!, JSON.stringify(records, null, 2) + '\n');
