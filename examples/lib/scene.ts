// A picture to filter when the edges example is given none: three shaded spheres on a checked
// floor under a sky, ray-cast (one ray a pixel, Lambert shading, hard shadows), as RGBA8 bytes.
// Smooth shading, sharp outlines and a dim corner give the histogram and the edge filter work.

type V = [number, number, number];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: V, b: V) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const scale = (a: V, k: number): V => [a[0] * k, a[1] * k, a[2] * k];
const unit = (a: V): V => scale(a, 1 / Math.sqrt(dot(a, a)));

const SPHERES: { c: V; r: number; colour: V }[] = [
  { c: [-1.1, 0.7, 4.2], r: 0.7, colour: [220, 80, 60] },
  { c: [0.6, 0.9, 5.2], r: 0.9, colour: [70, 150, 220] },
  { c: [1.5, 0.4, 3.4], r: 0.4, colour: [240, 200, 70] },
];
const LIGHT = unit([-0.6, 1, -0.5]);

/** The nearest hit along a ray from `o` in direction `d`: distance, normal and colour, or none. */
function hit(o: V, d: V): { t: number; n: V; colour: V } | undefined {
  let best: { t: number; n: V; colour: V } | undefined;
  for (const s of SPHERES) {
    const oc = sub(o, s.c);
    const b = dot(oc, d);
    const disc = b * b - (dot(oc, oc) - s.r * s.r);
    if (disc < 0) continue;
    const t = -b - Math.sqrt(disc);
    if (t > 1e-4 && (!best || t < best.t)) best = { t, n: unit(sub([o[0] + d[0] * t, o[1] + d[1] * t, o[2] + d[2] * t], s.c)), colour: s.colour };
  }
  if (d[1] < 0) {
    const t = -o[1] / d[1];
    if (t > 1e-4 && (!best || t < best.t)) {
      const x = o[0] + d[0] * t;
      const z = o[2] + d[2] * t;
      const check = (Math.floor(x * 1.5) + Math.floor(z * 1.5)) & 1;
      best = { t, n: [0, 1, 0], colour: check ? [200, 200, 190] : [90, 90, 100] };
    }
  }
  return best;
}

/** The scene, `width` x `height` RGBA8 pixels (row by row, R first). */
export function scene(width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height * 4);
  const eye: V = [0, 1.2, 0];
  for (let py = 0; py < height; py++)
    for (let px = 0; px < width; px++) {
      const d = unit([(px - width / 2) / height, -(py - height / 2) / height - 0.15, 1]);
      const h = hit(eye, d);
      let rgb: V;
      if (!h) rgb = [120 + 80 * (1 - py / height), 160 + 60 * (1 - py / height), 230];
      else {
        const p: V = [eye[0] + d[0] * h.t, eye[1] + d[1] * h.t, eye[2] + d[2] * h.t];
        const lit = hit(p, LIGHT) ? 0 : Math.max(0, dot(h.n, LIGHT));
        rgb = scale(h.colour, 0.25 + 0.75 * lit);
      }
      out.set([...rgb.map((c) => Math.min(255, Math.round(c))), 255], 4 * (py * width + px));
    }
  return out;
}
