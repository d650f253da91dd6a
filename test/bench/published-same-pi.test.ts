// bench:published's second table (bench/published-same-pi.ts): vc4asm's FFT over GPU_FFT 3.0 on
// one Pi. The models here are stand-ins that give fixed times, as the real ones need the two
// programs' directories.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { samePiFigures } from '../../bench/published-same-pi.ts';
import type { ReleaseModel } from '../../bench/published-gpu-fft.ts';

const model = (us: (log2n: number, batch: number) => number) => ({ perTransformUs: us }) as unknown as ReleaseModel;

test("maazl's table: 2^8 to 2^16 points in batches of 1 and 10, ratios of vc4asm's time to 3.0's", () => {
  const figures = samePiFigures(model(() => 50), model(() => 100));
  assert.equal(figures.length, 18);
  const at = (log2n: number, batch: number) => figures.find((f) => f.name === `vc4asm's GPU_FFT / GPU_FFT 3.0, 2^${log2n} points, batch ${batch}`)!;
  // 2^12 in batches of 1: 241 us against 230, 1.05; the stand-ins' 0.5 is 0.48 of it.
  assert.equal(at(12, 1).published, '1.05 (241 us / 230 us)');
  assert.equal(at(12, 1).modelled, '0.50 (50.0 us / 100 us)');
  assert.ok(Math.abs(at(12, 1).ratio - 0.5 / (241 / 230)) < 1e-12);
  assert.ok(figures.every((f) => !f.fitted));
  // His unstable times carry his asterisk.
  assert.equal(at(8, 1).published, '0.80 (20.0 us* / 25.0 us)');
  assert.match(at(16, 10).published, /^0\.91 \(5\.38 ms\* \/ 5\.93 ms\)$/);
  assert.match(at(16, 10).detail, /unstable/);
  assert.doesNotMatch(at(13, 1).detail, /unstable/);
});

test('a model that gives his times gives ratios of 1', () => {
  const times: Record<string, number> = {};
  const figures = samePiFigures(
    model((n, b) => (times[`v${n}:${b}`] ??= 10 * n + b)),
    model((n, b) => (times[`g${n}:${b}`] ??= 10 * n + b)),
  );
  assert.ok(figures.every((f) => f.modelled.startsWith('1.00 ')));
});
