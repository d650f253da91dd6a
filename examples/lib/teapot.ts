// A teapot made of points, for the rot3D example: body, lid, knob, spout and handle as surfaces
// of revolution and tubes, covered evenly by as many points as asked for (each with its surface
// normal, for shading), and a renderer that draws such a cloud of points as a shaded picture,
// seen orthographically from a little above, nearer points hiding farther ones.
import { Image, type Rgb } from './png.ts';

/** Points and their unit normals; y is up, z points at the viewer. */
export interface PointCloud {
  readonly x: Float32Array;
  readonly y: Float32Array;
  readonly z: Float32Array;
  readonly nx: Float32Array;
  readonly ny: Float32Array;
  readonly nz: Float32Array;
}

type Vec = [number, number, number];

/** A surface over (u, v) in [0, 1] x [0, 1): where each point is, its normal, and the area about u. */
interface Surface {
  at(u: number, v: number): { p: Vec; n: Vec };
  /** How much area a small step of u covers (up to a constant factor shared by every surface). */
  density(u: number): number;
}

const H = 1e-4;
const len = (x: number, y: number, z = 0) => Math.hypot(x, y, z);

/** The surface swept by a profile (radius, height) turning about the y axis; normals face out of a profile that rises or widens. */
function revolution(profile: (s: number) => [number, number]): Surface {
  const slope = (s: number) => {
    const [r0, y0] = profile(Math.max(0, s - H));
    const [r1, y1] = profile(Math.min(1, s + H));
    return [r1 - r0, y1 - y0] as const;
  };
  return {
    at(s, v) {
      const [r, y] = profile(s);
      const [dr, dy] = slope(s);
      const [c, sn] = [Math.cos(2 * Math.PI * v), Math.sin(2 * Math.PI * v)];
      const l = len(dr, dy) || 1;
      return { p: [r * c, y, r * sn], n: [(dy * c) / l, -dr / l, (dy * sn) / l] };
    },
    density: (s) => profile(s)[0] * len(...slope(s)),
  };
}

/** A tube of radius `radius(t)` about a centre line in the z = 0 plane. */
function tube(centre: (t: number) => [number, number], radius: (t: number) => number): Surface {
  const tangent = (t: number) => {
    const [x0, y0] = centre(Math.max(0, t - H));
    const [x1, y1] = centre(Math.min(1, t + H));
    return [x1 - x0, y1 - y0] as const;
  };
  return {
    at(t, v) {
      const [cx, cy] = centre(t);
      const [tx, ty] = tangent(t);
      const l = len(tx, ty);
      const [c, s] = [Math.cos(2 * Math.PI * v), Math.sin(2 * Math.PI * v)];
      const n: Vec = [(c * ty) / l, (-c * tx) / l, s];
      const r = radius(t);
      return { p: [cx + r * n[0], cy + r * n[1], r * n[2]], n };
    },
    density: (t) => radius(t) * len(...tangent(t)),
  };
}

const bezier = (a: number, b: number, c: number, t: number) => (1 - t) * (1 - t) * a + 2 * (1 - t) * t * b + t * t * c;

/** The teapot's parts; about 6.3 units from spout to handle and 3.3 high, standing on y = 0. */
const PARTS: readonly Surface[] = [
  revolution((s) => [1.5 * s, 0]), // the bottom
  revolution((s) => [1.5 + 0.7 * Math.sin(0.95 * Math.PI * s) - 0.25 * s, 2.3 * s]), // the body
  revolution((s) => [0.15 + 1.21 * Math.cos((Math.PI / 2) * s), 2.3 + 0.55 * Math.sin((Math.PI / 2) * s)]), // the lid
  revolution((s) => [0.28 * Math.sin(Math.PI * s), 3.05 - 0.28 * Math.cos(Math.PI * s)]), // the knob
  tube((t) => [bezier(1.6, 3.0, 3.3, t), bezier(0.6, 0.8, 2.4, t)], (t) => 0.5 - 0.3 * t), // the spout
  tube((t) => [-1.85 - 1.1 * Math.sin(Math.PI * t), 1.95 - 0.7 * (1 - Math.cos(Math.PI * t))], () => 0.16), // the handle
];

/** The cumulative density of a surface at `steps` + 1 points of u, and its total. */
function cumulative(s: Surface, steps = 2000): Float64Array {
  const c = new Float64Array(steps + 1);
  for (let i = 1; i <= steps; i++) c[i] = c[i - 1]! + s.density((i - 0.5) / steps);
  return c;
}

/** The u at which the cumulative density reaches `target` (linear between the steps). */
function inverse(c: Float64Array, target: number): number {
  let lo = 0;
  let hi = c.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (c[mid]! < target) lo = mid;
    else hi = mid;
  }
  const span = c[hi]! - c[lo]! || 1;
  return (lo + (target - c[lo]!) / span) / (c.length - 1);
}

/**
 * `n` points spread evenly over the teapot, each part getting its share of the area: on each
 * part, u follows the area and v turns by the golden ratio (a Fibonacci lattice). The teapot is
 * centred on the origin in x and y, so that turning it about the z axis keeps it in view.
 */
export function teapot(n: number): PointCloud {
  const cloud: PointCloud = { x: new Float32Array(n), y: new Float32Array(n), z: new Float32Array(n), nx: new Float32Array(n), ny: new Float32Array(n), nz: new Float32Array(n) };
  const sums = PARTS.map((p) => cumulative(p));
  const total = sums.reduce((t, c) => t + c[c.length - 1]!, 0);
  const golden = (Math.sqrt(5) - 1) / 2;
  let i = 0;
  PARTS.forEach((part, k) => {
    const c = sums[k]!;
    const share = k === PARTS.length - 1 ? n - i : Math.round((n * c[c.length - 1]!) / total);
    for (let j = 0; j < share; j++, i++) {
      const { p, n: nv } = part.at(inverse(c, ((j + 0.5) / share) * c[c.length - 1]!), (j * golden) % 1);
      [cloud.x[i], cloud.y[i], cloud.z[i]] = p;
      [cloud.nx[i], cloud.ny[i], cloud.nz[i]] = nv;
    }
  });
  centre(cloud.x);
  centre(cloud.y);
  return cloud;
}

/** Shifts values so that their range is centred on 0. */
function centre(a: Float32Array): void {
  let [lo, hi] = [Infinity, -Infinity];
  for (const v of a) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
  const mid = (lo + hi) / 2;
  for (let i = 0; i < a.length; i++) a[i] = a[i]! - mid;
}

/** The cloud's normals turned by `theta` about the z axis, as its points are by rot3D (for shading only). */
export function turnNormals(c: PointCloud, theta: number): PointCloud {
  const [cos, sin] = [Math.cos(theta), Math.sin(theta)];
  return { ...c, nx: c.nx.map((x, i) => x * cos - c.ny[i]! * sin), ny: c.ny.map((y, i) => y * cos + c.nx[i]! * sin) };
}

/** The largest distance of a point from the z axis. */
export function radius(c: PointCloud): number {
  let r = 0;
  for (let i = 0; i < c.x.length; i++) r = Math.max(r, Math.hypot(c.x[i]!, c.y[i]!));
  return r;
}

const LIGHT = normalise([-0.45, 0.65, 0.6]);
const HALF = normalise([LIGHT[0], LIGHT[1], LIGHT[2] + 1]);
function normalise([x, y, z]: Vec): Vec {
  const l = len(x, y, z);
  return [x / l, y / l, z / l];
}

/** The colour of porcelain whose normal (in view space) is `n`: ambient, diffuse and a highlight. */
function shade(n: Vec, base: Rgb): Rgb {
  const dot = (a: Vec) => Math.max(0, n[0] * a[0] + n[1] * a[1] + n[2] * a[2]);
  const diffuse = 0.22 + 0.78 * dot(LIGHT);
  const spec = 0.5 * dot(HALF) ** 40;
  return base.map((b) => Math.min(255, Math.round(b * diffuse + 255 * spec))) as unknown as Rgb;
}

/**
 * The cloud drawn into a `size` x `size` picture: orthographic, seen from `elevation` radians
 * above, the z axis through the centre, `scale` pixels a unit; back-facing points are left out
 * and the nearest point of each pixel wins.
 */
export function render(c: PointCloud, size: number, scale: number, base: Rgb, elevation = 0.35): Image {
  const img = new Image(size, size);
  for (let p = 0; p < size * size; p++) img.set(p % size, Math.floor(p / size), [18, 20, 28]);
  const depth = new Float64Array(size * size).fill(-Infinity);
  const [ce, se] = [Math.cos(elevation), Math.sin(elevation)];
  for (let i = 0; i < c.x.length; i++) {
    const n: Vec = [c.nx[i]!, c.ny[i]! * ce - c.nz[i]! * se, c.ny[i]! * se + c.nz[i]! * ce];
    if (n[2] < 0) continue;
    const y = c.y[i]! * ce - c.z[i]! * se;
    const z = c.y[i]! * se + c.z[i]! * ce;
    const px = Math.round(size / 2 + c.x[i]! * scale);
    const py = Math.round(size / 2 - y * scale);
    if (px < 0 || py < 0 || px >= size || py >= size || depth[py * size + px]! >= z) continue;
    depth[py * size + px] = z;
    img.set(px, py, shade(n, base));
  }
  fillPinholes(img, depth);
  return img;
}

/** Paints each empty pixel that has points on at least three of its four sides with their mean colour. */
function fillPinholes(img: Image, depth: Float64Array): void {
  const { width: w, height: h, data } = img;
  const holes: [number, number[]][] = [];
  for (let y = 1; y < h - 1; y++)
    for (let x = 1; x < w - 1; x++) {
      const p = y * w + x;
      if (depth[p] !== -Infinity) continue;
      const around = [p - 1, p + 1, p - w, p + w].filter((q) => depth[q] !== -Infinity);
      if (around.length >= 3) holes.push([p, around]);
    }
  for (const [p, around] of holes)
    for (let ch = 0; ch < 3; ch++) data[4 * p + ch] = Math.round(around.reduce((t, q) => t + data[4 * q + ch]!, 0) / around.length);
}
