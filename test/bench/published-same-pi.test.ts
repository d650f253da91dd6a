// bench:published's second table (bench/published-same-pi.ts): vc4asm's FFT over GPU_FFT 3.0 on
// one Pi. The models here are stand-ins that give fixed times, as the real ones need the two
// programs' directories.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAAZL_US, samePiFigures } from '../../bench/published-same-pi.ts';
import { type Release, RELEASE_2_0, RELEASE_3_0, RELEASE_VC4ASM, type ReleaseModel } from '../../bench/published-gpu-fft.ts';

const model = (release: Release, us: (log2n: number, batch: number) => number) => ({ release, perTransformUs: us }) as unknown as ReleaseModel;
const vc = (us: (log2n: number, batch: number) => number) => model(RELEASE_VC4ASM, us);
const g3 = (us: (log2n: number, batch: number) => number) => model(RELEASE_3_0, us);

test("maazl's table: 2^8 to 2^16 points in batches of 1 and 10, ratios of vc4asm's time to 3.0's", () => {
  const figures = samePiFigures(vc(() => 50), g3(() => 100));
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
  const figures = samePiFigures(
    vc((n, b) => MAAZL_US[b]![n]![1]),
    g3((n, b) => MAAZL_US[b]![n]![0]),
  );
  assert.ok(figures.every((f) => Math.abs(f.ratio - 1) < 1e-12 && f.modelled.split(' ')[0] === f.published.split(' ')[0]));
});

test('it takes only the two programs it compares', () => {
  assert.throws(() => samePiFigures(model(RELEASE_2_0, () => 1), g3(() => 1)), /needs vc4asm's and GPU_FFT 3\.0's models, not GPU_FFT 2\.0's/);
});
