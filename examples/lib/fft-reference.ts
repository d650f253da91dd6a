// What FFTs on the QPUs are measured against: a float64 FFT, the relative RMS error, and the two
// signals GPU_FFT's test program (hello_fft.c) and qpu-ts's FFT example transform. Used by
// examples/fft.ts and by bench/gpu-fft.ts, which runs GPU_FFT's own shaders; values are split
// arrays of real and imaginary parts (GPU_FFT's interleaved ones are split before they come here).

/** The DFT of (re, im) in float64, y_u = sum over t of x_t e^(-2 pi i t u / n): radix 2, on copies. */
export function fft64(re: ArrayLike<number>, im: ArrayLike<number>): { re: Float64Array; im: Float64Array } {
  const n = re.length;
  const [xr, xi] = [Float64Array.from(re), Float64Array.from(im)];
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) [xr[i], xr[j], xi[i], xi[j]] = [xr[j]!, xr[i]!, xi[j]!, xi[i]!];
  }
  for (let len = 2; len <= n; len *= 2) {
    const angle = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len)
      for (let k = 0; k < len / 2; k++) {
        const [c, s] = [Math.cos(angle * k), Math.sin(angle * k)];
        const [a, b] = [i + k, i + k + len / 2];
        const tr = xr[b]! * c - xi[b]! * s;
        const ti = xr[b]! * s + xi[b]! * c;
        [xr[b], xi[b]] = [xr[a]! - tr, xi[a]! - ti];
        [xr[a], xi[a]] = [xr[a]! + tr, xi[a]! + ti];
      }
  }
  return { re: xr, im: xi };
}

/** How far (re, im) is from (wantRe, wantIm): the relative RMS error, sqrt(sum |got - want|^2 / sum |want|^2), and the worst point's error over the largest |want|. */
export function fftErrors(re: ArrayLike<number>, im: ArrayLike<number>, wantRe: ArrayLike<number>, wantIm: ArrayLike<number>): { relRms: number; worst: number } {
  let [err, ref, worst, peak] = [0, 0, 0, 0];
  for (let i = 0; i < re.length; i++) {
    const d = (re[i]! - wantRe[i]!) ** 2 + (im[i]! - wantIm[i]!) ** 2;
    const w = wantRe[i]! ** 2 + wantIm[i]! ** 2;
    [err, ref, worst, peak] = [err + d, ref + w, Math.max(worst, d), Math.max(peak, w)];
  }
  return { relRms: Math.sqrt(err / ref), worst: Math.sqrt(worst / peak) };
}

/** hello_fft.c's signal (its first job's): 0.5 at points 1 and N - 1, whose transform, either way, is cos(2 pi i / N). */
export function helloSignal(re: Float32Array, im: Float32Array): void {
  re.fill(0);
  im.fill(0);
  re[1] = re[re.length - 1] = 0.5;
}

/** The exact transform of helloSignal: cos(2 pi i / N) and 0. */
export function helloTransform(n: number): { re: Float64Array; im: Float64Array } {
  return { re: Float64Array.from({ length: n }, (_, i) => Math.cos((2 * Math.PI * i) / n)), im: new Float64Array(n) };
}

/** Pseudo-random values in [-1, 1) in both parts, the same every run (a 32-bit xorshift). */
export function randomSignal(re: Float32Array, im: Float32Array): void {
  let s = 0x9e3779b9;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 31 - 1;
  };
  for (let i = 0; i < re.length; i++) [re[i], im[i]] = [next(), next()];
}

/** Beyond this relative RMS error a result is wrong, not rounded: FFTs in float32 are accurate to a few parts per million. */
export const WRONG_FFT = 1e-4;
