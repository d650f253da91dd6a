// What scatters cost (modelled on the emulator's cycle model, at -O2): instructions and cycles a
// scatter, scatterAdd and atomicAdd of 16 lanes takes on one QPU, and a histogram on 12 QPUs two
// ways: every QPU's atomicAdd into one set of counters (the mutex serialises them), or each QPU
// counting into counters of its own with scatterAdd, merged at the end by QPU 0 after a
// semaphore hand-off. Counts and modelled times, not timings of this machine.
// Run: npm run bench:scatter [-- --json out.json]
import { writeFileSync } from 'node:fs';
import { atomicAdd, For, index, Int, kernel, me, numQPUs, Ptr, scatter, scatterAdd, SharedArray } from '../src/index.ts';
import { mergeCounters } from '../examples/lib/counters.ts';

const N = 32;
type Op = 'none' | 'scatter' | 'scatterAdd' | 'atomicAdd';

/** Instructions and cycles of QPU 0 for N iterations of `op` on 16 lanes at addresses 5 words apart. */
function perScatter(op: Op): { steps: number; cycles: number } {
  const k = kernel([Ptr(Int)], (out) => {
    const i = Int(0);
    const at = Int(index().mul(5));
    For(i.lt(N), () => i.set(i.add(1)), () => {
      const p = out.add(at.add(i));
      if (op === 'scatter') scatter(p, i);
      if (op === 'scatterAdd') scatterAdd(p, i);
      if (op === 'atomicAdd') atomicAdd(p, i);
      if (op === 'none') at.set(at.add(0));
    });
  });
  const r = k.emulateSync([SharedArray.int32(16 * 5 + N)]);
  return { steps: r.stepsPerQpu[0]!, cycles: r.run.cycles };
}

const BINS = 64;
const QPUS = 12;
const VALUES = 16 * QPUS * 32;

/** A histogram of VALUES values into BINS bins on 12 QPUs: atomicAdd, or private counters merged. */
function histogram(how: 'atomic' | 'private'): { cycles: number; correct: boolean } {
  const k = kernel([Ptr(Int), Ptr(Int), Int], (data, hist, n) => {
    const i = Int(me().mul(16));
    const mine = hist.add(me().mul(how === 'private' ? BINS : 0));
    For(i.lt(n), () => i.set(i.add(numQPUs().mul(16))), () => {
      const v = Int(data.add(i).load());
      if (how === 'atomic') atomicAdd(mine.add(v), Int(1));
      else scatterAdd(mine.add(v), Int(1));
    });
    if (how === 'private') mergeCounters(hist, BINS);
  }).setNumQPUs(QPUS);
  const values = Array.from({ length: VALUES }, (_, j) => ((j * 2654435761) >>> 0) % BINS);
  const hist = SharedArray.int32(BINS * (how === 'private' ? QPUS : 1));
  const r = k.emulateSync([SharedArray.from<Int32Array>(values), hist, VALUES]);
  const want = new Array(BINS).fill(0);
  for (const v of values) want[v]++;
  const correct = want.every((w, b) => hist[b] === w);
  return { cycles: r.run.cycles, correct };
}

const base = perScatter('none');
const rows = (['scatter', 'scatterAdd', 'atomicAdd'] as const).map((op) => {
  const m = perScatter(op);
  return { construct: op, instructionsPer16: (m.steps - base.steps) / N, cyclesPer16: (m.cycles - base.cycles) / N };
});
console.log('One QPU, 16 lanes at distinct addresses, at -O2 (cycle model):');
for (const r of rows) console.log(`  ${r.construct.padEnd(11)} ${r.instructionsPer16.toFixed(1).padStart(6)} instructions, ${r.cyclesPer16.toFixed(0).padStart(5)} cycles`);
const atomic = histogram('atomic');
const priv = histogram('private');
console.log(`Histogram of ${VALUES} values into ${BINS} bins on ${QPUS} QPUs (cycle model):`);
console.log(`  atomicAdd into shared counters          ${atomic.cycles} cycles${atomic.correct ? '' : '  WRONG'}`);
console.log(`  scatterAdd into private counters, merged ${priv.cycles} cycles${priv.correct ? '' : '  WRONG'}  (${(atomic.cycles / priv.cycles).toFixed(2)}x faster)`);
const json = process.argv.indexOf('--json');
if (json > 0) writeFileSync(process.argv[json + 1]!, JSON.stringify({ perScatter: rows, histogram: { values: VALUES, bins: BINS, qpus: QPUS, atomicCycles: atomic.cycles, privateCycles: priv.cycles } }, null, 2));
