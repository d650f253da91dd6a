// What each of the language's newer constructs costs in compiled code: instructions executed per
// 16 results at -O2, in a loop of N iterations applying it CHAIN times in a row, measured as the
// difference from the same loop around plain adds or fmuls (the loop's own instructions cancel;
// a chain keeps the loop's spare slots from hiding the cost). Counts, not timings.
// Run: npm run bench:constructs [-- --json out.json]
import { writeFileSync } from 'node:fs';
import { Float, For, index, Int, kernel, Ptr, select, SharedArray } from '../src/index.ts';
import type { FloatVar, IntVar } from '../src/index.ts';

const N = 64;
const CHAIN = 4;

type Body = { int?: (r: IntVar, i: IntVar) => void; float?: (r: FloatVar, i: IntVar) => void };

/** Instructions executed by QPU 0 for a loop of N iterations running `body` on r (i is the counter). */
function executed(body: Body): number {
  const k = kernel([Ptr(Int), Ptr(Float)], (pi, pf) => {
    const r = Int(index());
    const f = Float(index().toFloat().add(0.25));
    const i = Int(0);
    For(i.lt(N), () => i.set(i.add(1)), () => {
      for (let c = 0; c < CHAIN; c++) {
        body.int?.(r, i);
        body.float?.(f, i);
      }
    });
    pi.store(r);
    pf.store(f);
  });
  const report = k.emulateSync([SharedArray.int32(16), SharedArray.float32(16)]);
  return report.stepsPerQpu[0]!;
}

/** A construct's name, its body, and how many times the body applies it (default once). */
const CASES: [string, Body, number?][] = [
  ['select (Int, on a comparison)', { int: (r, i) => r.set(select(r.lt(i), r.add(i), i)) }],
  ['x.lane(5)', { int: (r) => r.set(r.lane(5).add(r)) }],
  ['x.lane(i) (an Int)', { int: (r, i) => r.set(r.lane(i).add(r)) }],
  ['x.sumLanes() (Int)', { int: (r) => r.set(r.sumLanes().add(r)) }],
  ['x.maxLanes() (Float)', { float: (r) => r.set(r.maxLanes().mul(r)) }],
  ['x.scanLanes() (Int)', { int: (r) => r.set(r.scanLanes().add(r)) }],
  ['two independent sumLanes, each', { int: (r) => r.set(r.sumLanes().add(r.xor(5).sumLanes())) }, 2],
  ['umin', { int: (r, i) => r.set(r.umin(i).add(r)) }],
  ['Int abs', { int: (r, i) => r.set(r.sub(i).abs()) }],
  ['Int mul (32-bit, operands unknown)', { int: (r, i) => r.set(r.mul(r.add(i))) }],
  ['Int mul (one operand < 2^24)', { int: (r, i) => r.set(r.mul(i.and(0xffff))) }],
  ['Int div by an Int', { int: (r, i) => r.set(r.div(i)) }],
  ['Int udiv by an Int', { int: (r, i) => r.set(r.udiv(i)) }],
  ['Int rem by an Int', { int: (r, i) => r.set(r.rem(i)) }],
  ['Int urem by an Int', { int: (r, i) => r.set(r.urem(i)) }],
  ['Int div by 8', { int: (r, i) => r.set(r.sub(i).div(8)) }],
  ['Int udiv by 10, dividend < 2^16', { int: (r, i) => r.set(r.and(0xffff).udiv(10).add(i)) }],
  ['Int div by 10, dividend any', { int: (r, i) => r.set(r.sub(i).div(10)) }],
  ['Int rem by 10, dividend any', { int: (r, i) => r.set(r.sub(i).rem(10)) }],
  ['Int udiv by 10, dividend any', { int: (r, i) => r.set(r.sub(i).udiv(10)) }],
  ['Float div', { float: (f) => f.set(f.div(f.add(1.5))) }],
  ['Float sqrt', { float: (f) => f.set(f.sqrt()) }],
  ['Float sin', { float: (f) => f.set(f.sin()) }],
  ['Float cos', { float: (f) => f.set(f.cos()) }],
  ['Float exp', { float: (f) => f.set(f.mul(0.001).exp()) }],
  ['Float log', { float: (f) => f.set(f.log()) }],
  ['Float tan', { float: (f) => f.set(f.tan()) }],
  ['Float atan', { float: (f) => f.set(f.atan()) }],
  ['Float asin', { float: (f) => f.set(f.mul(0.001).asin()) }],
  ['Float atan2', { float: (f) => f.set(f.atan2(f.add(1.5))) }],
  ['Float exp2', { float: (f) => f.set(f.mul(0.001).exp2()) }],
  ['Float log2', { float: (f) => f.set(f.log2()) }],
  ['Float pow', { float: (f) => f.set(f.pow(f.mul(0.001))) }],
  ['Float sinh', { float: (f) => f.set(f.mul(0.001).sinh()) }],
  ['Float cosh', { float: (f) => f.set(f.mul(0.001).cosh()) }],
  ['Float tanh', { float: (f) => f.set(f.tanh()) }],
  ['Float trunc', { float: (f) => f.set(f.mul(1.5).trunc()) }],
  ['Float floor', { float: (f) => f.set(f.mul(1.5).floor()) }],
  ['Float round', { float: (f) => f.set(f.mul(1.5).round()) }],
];
/** The same loops around one add or one fmul, whose cost is subtracted. */
const BASE: Record<'int' | 'float', Body> = {
  int: { int: (r, i) => r.set(r.add(i)) },
  float: { float: (f) => f.set(f.mul(1.5)) },
};

const base = { int: executed(BASE.int), float: executed(BASE.float) };
const records = CASES.map(([name, body, times = 1]) => {
  const kind = body.int ? 'int' : 'float';
  const perIteration = (executed(body) - base[kind]) / (N * CHAIN * times);
  return { construct: name, instructionsPer16: perIteration };
});
console.log(`instructions executed per 16 results at -O2, beyond one add (Int) or one fmul (Float), ${CHAIN} in a row in a loop of ${N}:`);
for (const r of records) console.log(`  ${r.construct.padEnd(32)} ${r.instructionsPer16.toFixed(2)}`);
const at = process.argv.indexOf('--json');
if (at > 0 && process.argv[at + 1]) writeFileSync(process.argv[at + 1]!, JSON.stringify(records, null, 2) + '\n');
