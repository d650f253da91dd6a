// Pictures for the examples: an RGB image in memory, written as a PNG (by pngjs) into the
// examples' output folder (`out/` in the current directory unless told otherwise), and the
// colour maps the examples paint with: a heat map (black, red, yellow, white) and a cyclic
// palette for escape counts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PNG } from 'pngjs';

export type Rgb = readonly [number, number, number];

/** An image of `width` x `height` pixels, opaque black to start with. */
export class Image {
  readonly data: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.data = new Uint8Array(width * height * 4);
    for (let i = 3; i < this.data.length; i += 4) this.data[i] = 255;
  }

  /** Paints pixel (x, y), (0, 0) at the top left; outside the image, nothing. */
  set(x: number, y: number, [r, g, b]: Rgb): void {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    const i = 4 * (y * this.width + x);
    this.data[i] = r;
    this.data[i + 1] = g;
    this.data[i + 2] = b;
  }

  /** Copies `other` in with its top left corner at (x, y). */
  paste(other: Image, x: number, y: number): void {
    for (let row = 0; row < other.height; row++) {
      const from = 4 * row * other.width;
      const to = 4 * ((y + row) * this.width + x);
      this.data.set(other.data.subarray(from, from + 4 * other.width), to);
    }
  }
}

/** The folder pictures go to: `dir`, or `out` in the current directory; made if missing. */
export function outputDir(dir?: string): string {
  const d = dir ?? 'out';
  mkdirSync(d, { recursive: true });
  return d;
}

/** Writes `image` as `dir/name` (a PNG) and returns its path, relative to the current directory when inside it. */
export function writePng(image: Image, name: string, dir?: string): string {
  const png = new PNG({ width: image.width, height: image.height });
  png.data.set(image.data);
  const path = join(outputDir(dir), name);
  writeFileSync(path, PNG.sync.write(png));
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

/** Reads a PNG back: its size and RGBA pixels (for the tests). */
export function readPng(bytes: Uint8Array): { width: number; height: number; data: Uint8Array } {
  const png = PNG.sync.read(Buffer.from(bytes));
  return { width: png.width, height: png.height, data: png.data };
}

const mix = (a: Rgb, b: Rgb, t: number): Rgb => [0, 1, 2].map((c) => Math.round(a[c]! + (b[c]! - a[c]!) * t)) as unknown as Rgb;

/** The colour at `t` (0 to 1, clamped) along a ramp of evenly spaced colours. */
export function ramp(stops: readonly Rgb[], t: number): Rgb {
  const u = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(u));
  return mix(stops[i]!, stops[i + 1]!, u - i);
}

const HEAT: readonly Rgb[] = [
  [0, 0, 0],
  [40, 0, 90],
  [170, 0, 60],
  [235, 70, 0],
  [255, 180, 0],
  [255, 240, 120],
  [255, 255, 255],
];

/** A heat map: black (cold) through purple, red, orange and yellow to white (hottest), for t from 0 to 1. */
export const heatColour = (t: number): Rgb => ramp(HEAT, t);

const BANDS: readonly Rgb[] = [
  [0, 7, 100],
  [32, 107, 203],
  [237, 255, 255],
  [255, 170, 0],
  [120, 40, 0],
  [0, 7, 100],
];

/** A cyclic palette for escape counts (blue, white, orange), repeating every `period` counts. */
export function bandColour(n: number, period = 64): Rgb {
  return ramp(BANDS, (n % period) / period);
}
