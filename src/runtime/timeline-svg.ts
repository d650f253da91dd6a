// A profile's timelines as an SVG picture: one band per QPU, time from left to right, each
// band's height shared at every moment between issuing (busy) and the stall causes, stacked,
// and blank where the QPU has ended. A band is one filled path per kind, so the picture stays
// small whatever the run's length (emulator/profile.ts bins the timeline).

import { CYCLE_KINDS, type CycleKind } from '../emulator/profile.ts';
import { formatSeconds } from '../emulator/report.ts';
import { PI_TIMING } from '../emulator/timing.ts';
import type { KernelProfile } from './profile.ts';

const COLOURS: Record<CycleKind, string> = {
  busy: '#3c8d2f',
  tmu: '#2f6fb5',
  dma: '#d9822b',
  vpm: '#9b59b6',
  semaphore: '#c0392b',
  mutex: '#7f6000',
  icache: '#7a7a7a',
  uniforms: '#b0a030',
};
const NAMES: Record<CycleKind, string> = { busy: 'issuing', tmu: 'TMU', dma: 'DMA', vpm: 'VPM', semaphore: 'semaphores', mutex: 'mutex', icache: 'instruction cache', uniforms: 'uniforms cache' };

const LEFT = 70;
const PLOT = 800;
const BAND = 36;
const GAP = 8;
const TOP = 66;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const f = (x: number) => (Math.round(x * 10) / 10).toString();

/** The timelines of a profiled run as an SVG document. */
export function timelineSvg(p: KernelProfile, clockHz = PI_TIMING.clockHz): string {
  const { width: binWidth, bins: sample } = p.perQpu[0]!.timeline;
  const kinds = CYCLE_KINDS.length;
  const nBins = Math.max(1, Math.min(sample.length / kinds, Math.ceil(p.cycles / binWidth)));
  // The axis ends where the run does; the last bin is as wide as the cycles left in it.
  const span = Math.max(1, p.cycles);
  const x = (cycle: number) => LEFT + (PLOT * Math.min(cycle, span)) / span;
  const binCycles = (b: number) => Math.max(1, Math.min(binWidth, span - b * binWidth));
  const height = TOP + p.qpus * (BAND + GAP) + 50;
  const width = LEFT + PLOT + 20;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${esc(`kernel ${p.kernel}: each QPU's cycles over the run, issuing or stalled by cause`)}</title>`,
    // An opaque background, so that the text shows on a dark page too.
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="16" font-size="14">${esc(`kernel ${p.kernel} on ${p.qpus} QPU${p.qpus === 1 ? '' : 's'}: ${p.cycles.toLocaleString('en-US')} cycles (${formatSeconds(p.cycles / clockHz)} on a Pi)`)}</text>`,
    ...wrapped(p.verdict.text, 130).map((line, i) => `<text x="${LEFT}" y="${32 + 14 * i}" fill="#555">${esc(line)}</text>`),
  ];
  p.perQpu.forEach((q, i) => {
    const y0 = TOP + i * (BAND + GAP);
    out.push(`<text x="${LEFT - 8}" y="${y0 + BAND / 2 + 4}" text-anchor="end">QPU ${i}</text>`);
    out.push(`<rect x="${LEFT}" y="${y0}" width="${PLOT}" height="${BAND}" fill="#f4f4f4"/>`);
    // The stack's running top at each bin's edges, kind after kind.
    const below = new Float64Array(nBins);
    for (let k = 0; k < kinds; k++) {
      const top: number[] = [];
      let any = false;
      for (let b = 0; b < nBins; b++) {
        const share = q.timeline.bins[b * kinds + k]! / binCycles(b);
        if (share > 0) any = true;
        top.push(below[b]! + share);
      }
      if (any) out.push(bandPath(top, below, y0, (b) => x(b * binWidth), COLOURS[CYCLE_KINDS[k]!]));
      top.forEach((t, b) => (below[b] = t));
    }
  });
  const axisY = TOP + p.qpus * (BAND + GAP);
  out.push(`<line x1="${LEFT}" y1="${axisY}" x2="${LEFT + PLOT}" y2="${axisY}" stroke="#333"/>`);
  for (let t = 0; t <= 4; t++) {
    const c = (span * t) / 4;
    out.push(`<text x="${f(x(c))}" y="${axisY + 14}" text-anchor="${t === 0 ? 'start' : t === 4 ? 'end' : 'middle'}">${esc(formatSeconds(c / clockHz))}</text>`);
  }
  CYCLE_KINDS.forEach((k, i) => {
    const lx = LEFT + i * 100;
    out.push(`<rect x="${lx}" y="${axisY + 26}" width="12" height="12" fill="${COLOURS[k]}"/><text x="${lx + 16}" y="${axisY + 36}">${NAMES[k]}</text>`);
  });
  const ended = LEFT + CYCLE_KINDS.length * 100;
  out.push(`<rect x="${ended}" y="${axisY + 26}" width="12" height="12" fill="#f4f4f4" stroke="#999"/><text x="${ended + 16}" y="${axisY + 36}">ended</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** Text in lines of at most `width` characters, broken at spaces (the first two lines). */
function wrapped(text: string, width: number): string[] {
  const lines = [''];
  for (const word of text.split(' ')) {
    const last = lines[lines.length - 1]!;
    if (last && last.length + 1 + word.length > width) lines.push(word);
    else lines[lines.length - 1] = last ? `${last} ${word}` : word;
  }
  return lines.slice(0, 2);
}

/** A filled path between two stacked lines (shares of a band, from 0 at its bottom to 1 at its top). */
function bandPath(top: readonly number[], below: Float64Array, y0: number, xOf: (bin: number) => number, colour: string): string {
  const y = (share: number) => f(y0 + BAND * (1 - Math.min(1, share)));
  const pts: string[] = [];
  // A step per bin; a run of bins at one height is one step.
  const steps = (ys: readonly string[], from: number, to: number, dir: 1 | -1) => {
    for (let b = from; b !== to; ) {
      let e = b + dir;
      while (e !== to && ys[e] === ys[b]) e += dir;
      pts.push(`${f(xOf(dir > 0 ? b : b + 1))},${ys[b]}`, `${f(xOf(dir > 0 ? e : e + 1))},${ys[b]}`);
      b = e;
    }
  };
  steps(top.map(y), 0, top.length, 1);
  steps(Array.from(below, y), top.length - 1, -1, -1);
  return `<path d="M${pts.join('L')}Z" fill="${colour}"/>`;
}
