// Heat flowing across a 2D surface, one time step: QPULib's third example, with its Cursor
// class written as a TypeScript class that generates code. Run: npx tsx examples/heat.ts
import {
  Float,
  type FloatVar,
  For,
  gather,
  index,
  Int,
  kernel,
  me,
  numQPUs,
  Ptr,
  type PtrExpr,
  receive,
  rotate,
  SharedArray,
  store,
  Where,
} from 'qpu-ts';
import { qadd, qmul, qsub } from 'qpu-ts/float';

/** The heat dissipation constant. */
export const K = 0.25;

/**
 * A window of three consecutive vectors of a row, prev, current and next, that slides right one
 * vector at a time, gathering ahead so that memory and computation overlap.
 */
class Cursor {
  readonly addr = Ptr(Float)();
  readonly prev = Float();
  readonly current = Float();
  readonly next = Float();

  /** Points the cursor at p and fetches the first vector. */
  init(p: PtrExpr<'float'>): void {
    gather(p);
    this.current.set(0);
    this.addr.set(p.add(16));
  }

  /** Receives the first vector and fetches the second. */
  prime(): void {
    receive(this.next);
    gather(this.addr);
  }

  /** Slides right: receives the next vector and fetches another. */
  advance(): void {
    this.addr.set(this.addr.add(16));
    this.prev.set(this.current);
    gather(this.addr);
    this.current.set(this.next);
    receive(this.next);
  }

  /** Receives the last vector and fetches no more. */
  finish(): void {
    receive(this.next);
  }

  /** The current vector shifted left one element, the next vector's first coming in. */
  shiftLeft(result: FloatVar): void {
    result.set(rotate(this.current, 15));
    const nextRot = Float(rotate(this.next, 15));
    Where(index().eq(15), () => result.set(nextRot));
  }

  /** The current vector shifted right one element, the previous vector's last coming in. */
  shiftRight(result: FloatVar): void {
    result.set(rotate(this.current, 1));
    const prevRot = Float(rotate(this.prev, 1));
    Where(index().eq(0), () => result.set(prevRot));
  }
}

export const step = kernel([Ptr(Float), Ptr(Float), Int, Int, Int], function step(grid, gridOut, pitch, width, height) {
  const row = [new Cursor(), new Cursor(), new Cursor()];
  grid.set(grid.add(pitch.mul(me())).add(index()));

  // Skip the first row of the output grid.
  gridOut.set(gridOut.add(pitch));

  const y = Int(me());
  For(y.lt(height), () => y.set(y.add(numQPUs())), () => {
    // Point p at the output row.
    const p = Ptr(Float)(gridOut.add(y.mul(pitch)));

    // Three cursors for the three input rows.
    for (let i = 0; i < 3; i++) row[i]!.init(grid.add(pitch.mul(i)));
    for (let i = 0; i < 3; i++) row[i]!.prime();

    // One output row.
    const x = Int(0);
    For(x.lt(width), () => x.set(x.add(16)), () => {
      for (let i = 0; i < 3; i++) row[i]!.advance();

      const left = [Float(), Float(), Float()];
      const right = [Float(), Float(), Float()];
      for (let i = 0; i < 3; i++) {
        row[i]!.shiftLeft(right[i]!);
        row[i]!.shiftRight(left[i]!);
      }

      const sum = left[0]!.add(row[0]!.current).add(right[0]!).add(left[1]!).add(right[1]!).add(left[2]!).add(row[2]!.current).add(right[2]!);

      store(row[1]!.current.sub(row[1]!.current.sub(sum.mul(0.125)).mul(K)), p);
      p.set(p.add(16));
    });

    // The cursors are done with this row.
    for (let i = 0; i < 3; i++) row[i]!.finish();

    // Move to the next input rows.
    grid.set(grid.add(pitch.mul(numQPUs())));
  });
});

/** The scalar version, in float32 as the QPU rounds (toward zero); columns outside read as 0. */
export function stepScalar(grid: Float32Array, out: Float32Array, pitch: number, width: number, height: number): void {
  const at = (y: number, x: number) => (x < 0 || x >= pitch ? 0 : grid[y * pitch + x]!);
  for (let y = 1; y <= height; y++)
    for (let x = 0; x < width; x++) {
      let s = 0;
      for (const [dy, dx] of [
        [-1, -1],
        [-1, 0],
        [-1, 1],
        [0, -1],
        [0, 1],
        [1, -1],
        [1, 0],
        [1, 1],
      ] as const)
        s = qadd(s, at(y + dy, x + dx));
      const c = at(y, x);
      out[y * pitch + x] = qsub(c, qmul(qsub(c, qmul(s, 0.125)), K));
    }
}

/**
 * A grid of `height` + 2 rows of `pitch` = width + 16 floats (zero columns on the right, a zero
 * row above and below), with hot spots as QPULib's HeatMap test injects them, plus 16 spare
 * floats: the cursors gather one vector past the end of the last row.
 */
export function heatGrid(width: number, height: number, rand: () => number, spots = 10): Float32Array {
  const pitch = width + 16;
  const g = SharedArray.float32((height + 2) * pitch + 16, 'grid');
  for (let i = 0; i < spots; i++) {
    const t = rand() % 256;
    const x = rand() % width;
    const y = 1 + (rand() % height);
    g[y * pitch + x] = 1000 * t;
  }
  return g;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { glibcRand } = await import('./rand.ts');
  const width = 64;
  const height = 16;
  const a = heatGrid(width, height, glibcRand(0));
  const b = SharedArray.float32(a.length, 'out');
  for (let s = 0; s < 10; s++) await (s % 2 ? step(b, a, width + 16, width, height) : step(a, b, width + 16, width, height));
  let total = 0;
  for (const v of a) total += v;
  console.log(`heat left after 10 steps on a ${width}x${height} grid: ${total.toFixed(1)}`);
}
