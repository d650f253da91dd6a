// Exhaustive checks of the SIMD float arithmetic (src/emulator/wasm/float.ts) against arith.ts,
// too long for `npm test` (minutes): run by hand after changing float.ts.
//   node --import tsx test/exhaustive/wasm-float.ts [itof|ftoi|fadd|fsub|fmul ...]
// itof and ftoi: every one of the 2^32 inputs. fadd, fsub, fmul: every pattern of a (2^32)
// against each of 7 values of b chosen where rounding, flushing and overflow decide the result
// (LIMIT=N in the environment checks only the first N patterns of a).
// Lanes the SIMD code marks rare are recomputed by arith in the emulator; they are counted.
import * as arith from '../../src/vc4/arith.ts';
import { encodeModule, FunctionBuilder } from '../../src/emulator/wasm/encoder.ts';
import { emitFaddSub, emitFmul, emitFtoi, emitItof } from '../../src/emulator/wasm/float.ts';

type Op = 'fadd' | 'fsub' | 'fmul' | 'itof' | 'ftoi';
const BATCH = 1 << 14;
const LIMIT = Number(process.env.LIMIT ?? 2 ** 32);

/** A function running `op` over BATCH lanes: a at 0, b at 4 * BATCH, results at 8 * BATCH, rare at 12 * BATCH. */
function build(op: Op): { run: () => void; mem: Int32Array } {
  const f = new FunctionBuilder(op, []);
  const [a, b, out, rare] = ['a', 'b', 'out', 'rare'].map((n) => f.local('v128', n)) as [number, number, number, number];
  const p = f.local('i32', 'p');
  // A loop over the batch, four lanes a turn (block/loop/br_if written as bytes).
  f.code.push(0x02, 0x40, 0x03, 0x40);
  f.get(p).load(0).set(a);
  f.get(p).load(4 * BATCH).set(b);
  f.v128i32([0, 0, 0, 0]).set(rare);
  if (op === 'fadd' || op === 'fsub') emitFaddSub(f, a, b, op === 'fsub', out, rare);
  else if (op === 'fmul') emitFmul(f, a, b, out, rare);
  else if (op === 'itof') emitItof(f, a, out);
  else emitFtoi(f, a, out);
  f.get(p).get(out).store(8 * BATCH);
  f.get(p).get(rare).store(12 * BATCH);
  f.get(p).i32(16).op('i32.add').tee(p).i32(4 * BATCH).op('i32.ne');
  f.code.push(0x0d, 0x00, 0x0b, 0x0b); // br_if 0 (the loop), end loop, end block
  const memory = new WebAssembly.Memory({ initial: Math.ceil((16 * BATCH) / 65536) });
  const inst = new WebAssembly.Instance(new WebAssembly.Module(encodeModule([], [f], Math.ceil((16 * BATCH) / 65536))), { js: { memory } });
  return { run: inst.exports[op] as () => void, mem: new Int32Array(memory.buffer) };
}

const bits = (x: number) => new Int32Array(new Float32Array([x]).buffer)[0]!;
const B_VALUES = [bits(1), bits(-1.5), 0x00800000, 0xff7fffff | 0, 0x3f7fffff, 0x00ffffff, 0x5f800000];

function check(op: Op): void {
  const { run, mem } = build(op);
  const ref = arith[op] as (a: number, b: number) => number;
  const bs = op === 'itof' || op === 'ftoi' ? [0] : B_VALUES;
  const t0 = performance.now();
  let wrong = 0;
  let rare = 0;
  for (const b of bs) {
    for (let base = 0; base < LIMIT; base += BATCH) {
      for (let i = 0; i < BATCH; i++) [mem[i], mem[BATCH + i]] = [(base + i) | 0, b];
      run();
      for (let i = 0; i < BATCH; i++) {
        if (mem[3 * BATCH + i] !== 0) {
          rare++;
          continue;
        }
        const a = (base + i) | 0;
        if (mem[2 * BATCH + i] !== (ref(a, b) | 0) && wrong++ < 5)
          console.log(`  ${op}(0x${(a >>> 0).toString(16)}, 0x${(b >>> 0).toString(16)}) = 0x${(mem[2 * BATCH + i]! >>> 0).toString(16)}, arith 0x${(ref(a, b) >>> 0).toString(16)}`);
      }
    }
  }
  const lanes = bs.length * LIMIT;
  console.log(`${op}: ${lanes.toLocaleString('en')} inputs, ${wrong} wrong, ${rare.toLocaleString('en')} rare (to arith), ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  if (wrong) process.exitCode = 1;
}

const ops = (process.argv.slice(2).length ? process.argv.slice(2) : ['itof', 'ftoi', 'fadd', 'fsub', 'fmul']) as Op[];
for (const op of ops) check(op);
