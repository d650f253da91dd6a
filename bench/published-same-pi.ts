// Two FFTs timed on one Pi, for bench:published (bench/published.ts): vc4asm's optimised GPU_FFT
// against GPU_FFT 3.0, as its author timed both (maazl/vc4asm, doc/index.html, the table under
// "hello_fft", unchanged since commit 26483e2, 2015-04-15). His Pi was "slightly overclocked",
// by how much he does not say, so his times cannot be set beside the model's; but the two
// programs ran on the same Pi, so the ratio of their times says how much faster one is than the
// other there, which its clocks move far less than the times. The model's ratio is a prediction
// of his: no parameter was fitted to it (though his table was read before the system cache's
// figure was chosen: docs/timing.md). The sample's shaders at 26483e2 differ from those run here,
// at 6e64cfd, in one pair of instructions of fft_16 made conditional; its host's
// GPU_FFT_MIN_BUFF_SIZE was 1 << 19, not 1 << 14, which gives a transform of more than two
// passes two buffers where 6e64cfd's gives one, even in batches of 1 (the model runs 6e64cfd's).
import { type Figure, RELEASE_3_0, RELEASE_VC4ASM, type ReleaseModel } from './published-gpu-fft.ts';

/** maazl's medians in us per transform, [GPU_FFT 3.0, vc4asm's], by batch size and log2 N; a `*` in his table (timing "unstable, reason unknown") in UNSTABLE. */
export const MAAZL_US: Readonly<Record<number, Readonly<Record<number, readonly [number, number]>>>> = {
  1: { 8: [25, 20], 9: [39, 32], 10: [57, 49], 11: [102, 92], 12: [230, 241], 13: [598, 649], 14: [1120, 1310], 15: [3080, 2820], 16: [6050, 5520] },
  10: { 8: [16.0, 13.0], 9: [28.0, 22.9], 10: [48.0, 39.9], 11: [100.6, 82.7], 12: [250, 245], 13: [612, 655], 14: [1148, 1306], 15: [2960, 2696], 16: [5930, 5380] },
};
/** His unstable times: `batch:log2n:program`, 0 for 3.0 and 1 for vc4asm's. */
const UNSTABLE = new Set(['1:8:1', '1:10:0', '1:11:1', '10:15:0', '10:16:1']);

const us = (t: number) => (t >= 1000 ? `${(t / 1e3).toPrecision(3)} ms` : `${t.toPrecision(3)} us`);

/** vc4asm's time over 3.0's at each size and batch of maazl's table, his and the model's (`vc` and `g3`, the two releases' models). */
export function samePiFigures(vc: ReleaseModel, g3: ReleaseModel): Figure[] {
  if (vc.release !== RELEASE_VC4ASM || g3.release !== RELEASE_3_0) throw new Error(`samePiFigures needs vc4asm's and GPU_FFT 3.0's models, not ${vc.release.name}'s and ${g3.release.name}'s`);
  return Object.entries(MAAZL_US).flatMap(([b, row]) =>
    Object.entries(row).map(([n, [t3, tv]]) => {
      const [batch, log2n] = [Number(b), Number(n)];
      const [m3, mv] = [g3.perTransformUs(log2n, batch), vc.perTransformUs(log2n, batch)];
      const star = (p: number) => (UNSTABLE.has(`${batch}:${log2n}:${p}`) ? '*' : '');
      return {
        name: `vc4asm's GPU_FFT / GPU_FFT 3.0, 2^${log2n} points, batch ${batch}`,
        published: `${(tv / t3).toFixed(2)} (${us(tv)}${star(1)} / ${us(t3)}${star(0)})`,
        modelled: `${(mv / m3).toFixed(2)} (${us(mv)} / ${us(m3)})`,
        ratio: mv / m3 / (tv / t3),
        fitted: false,
        detail: `one Pi, "slightly overclocked" (maazl/vc4asm doc/index.html)${star(0) || star(1) ? '; * his "timing is unstable, reason unknown"' : ''}`,
      };
    }),
  );
}
