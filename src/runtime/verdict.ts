// What bounds a profiled run, and how it would scale with the QPU count. Every QPU-cycle of the
// run (QPUs times the run's length) goes to one kind: issuing instructions, spill code (its
// issue and its waits), a stall by cause (TMU, DMA, VPM, semaphores, mutex), or idle (a QPU that
// has ended while others run on). The verdict is the largest kind, with its share. The scaling
// is a model, and says so: the work a QPU does divides among the QPUs, but the one DMA load
// engine and the one DMA store engine serve them all (Guide p. 53-57: the VPM's DMA is one
// unit per direction), so their busy time is a floor no QPU count goes below. The TMU's waits
// count as this run measured them: with fewer QPUs sharing each TMU they may be shorter.

import { STALL_CAUSES, type StallCause } from '../emulator/report.ts';
import { MAX_QPUS } from '../vc4/chip.ts';
import { CYCLES_PER_INSTR } from '../emulator/timing.ts';

/** Where a run's QPU-cycles go. */
export type Bound = 'issue' | 'spills' | StallCause | 'idle';

export interface Verdict {
  /** What takes the largest share of the QPU-cycles. */
  readonly bound: Bound;
  /** Each kind's share of the QPU-cycles (0 to 1); they add up to 1. */
  readonly shares: Readonly<Record<Bound, number>>;
  /** The verdict in a sentence, with the figure that shows it. */
  readonly text: string;
  /** Modelled run lengths in cycles for QPU counts 1, 2, 4, 8 and 12, and what bounds each. */
  readonly scaling: readonly { readonly qpus: number; readonly cycles: number; readonly by: 'work' | 'dma load' | 'dma store' }[];
  /** The scaling in a sentence. */
  readonly scalingText: string;
}

/** What the verdict reads of a profile (profile.ts): the run, its totals, each instruction's cycles and stalls. */
interface Profiled {
  readonly qpus: number;
  readonly cycles: number;
  readonly total: { readonly instructions: number; readonly cycles: number; readonly spillCycles: number; readonly spillInstructions: number; readonly slots: { readonly both: number } };
  readonly instructions: readonly { readonly spill: boolean; readonly cycles: number; readonly stalls: Readonly<Record<StallCause, number>> }[];
  readonly dmaBusy?: { readonly load: number; readonly store: number };
  /** Whether the kernel shares its work out (it reads me() or numQPUs()): otherwise every QPU does all of it. */
  readonly divides: boolean;
}

const SCALE_QPUS = [1, 2, 4, 8, MAX_QPUS];
const DESCRIBED: Record<Bound, string> = {
  issue: 'instruction issue: the QPUs issue instructions (spill code aside) in',
  spills: 'spills: stores and reloads of spilled registers take',
  tmu: 'TMU latency: the QPUs wait for loads (the TMU) in',
  dma: 'DMA: the QPUs wait for the VPM\'s DMA engines (one for loads and one for stores, shared by all QPUs) in',
  vpm: 'VPM reads: the QPUs wait for the VPM in',
  semaphore: 'waiting for other QPUs: the QPUs wait on semaphores (barriers, hand-offs) in',
  mutex: 'the mutex: the QPUs wait for it in',
  icache: 'instruction fetch: the QPUs wait for their slice\'s instruction cache to fetch code (cold at the start of a run; every pass for code larger than its 512 instructions) in',
  uniforms: 'uniform reads: the QPUs wait for their slice\'s uniforms cache to fetch the uniform stream (cold at the start of a run, and a line every 16 words a stream reads) in',
  idle: 'uneven work: QPUs sit ended, waiting for the others, in',
};

export function verdictOf(p: Profiled): Verdict {
  const capacity = p.qpus * p.cycles;
  const spent: Record<Bound, number> = { issue: 0, spills: p.total.spillCycles, tmu: 0, dma: 0, vpm: 0, semaphore: 0, mutex: 0, icache: 0, uniforms: 0, idle: 0 };
  for (const i of p.instructions) {
    if (i.spill) continue;
    spent.issue += i.cycles - STALL_CAUSES.reduce((s, c) => s + i.stalls[c], 0);
    for (const c of STALL_CAUSES) spent[c] += i.stalls[c];
  }
  spent.idle = Math.max(0, capacity - p.total.cycles);
  const shares = Object.fromEntries(Object.entries(spent).map(([k, v]) => [k, capacity ? v / capacity : 0])) as Record<Bound, number>;
  const largest = (Object.keys(spent) as Bound[]).reduce((a, b) => (spent[b] > spent[a] ? b : a), 'issue');
  // A DMA engine busy nearly all the run bounds it, however the QPUs' cycles divide: waiting less would not end the run sooner.
  const engine = busiestEngine(p);
  const byEngine = engine.share >= ENGINE_BOUND;
  const bound = byEngine ? 'dma' : largest;
  const both = p.total.instructions ? p.total.slots.both / p.total.instructions : 0;
  let text =
    !byEngine
      ? `bound by ${DESCRIBED[bound]} ${percent(shares[bound])} of their cycles`
      : `bound by the DMA ${engine.name} engine, which all QPUs share: it was busy ${percent(engine.share)} of the run (${engine.busy.toLocaleString('en-US')} of ${p.cycles.toLocaleString('en-US')} cycles); the QPUs wait for DMA in ${percent(shares.dma)} of their cycles`;
  if (bound === 'issue') text += `; ${percent(both)} of the instructions executed use both ALUs`;
  if (bound === 'spills' && p.qpus > 1) text += `; their DMA goes through the engines all ${p.qpus} QPUs share, so more QPUs make it worse`;
  const { scaling, scalingText } = scalingOf(p, spent);
  return { bound, shares, text, scaling, scalingText };
}

/** How far the model may miss the run's own cycles before it says it is only a rough guide. */
const MODEL_TOLERANCE = 0.25;

/** A DMA engine's share of the run above which it bounds the run. */
const ENGINE_BOUND = 0.9;

/** The DMA engine busier in the run, and its share of the run. */
function busiestEngine(p: Profiled): { name: 'load' | 'store'; busy: number; share: number } {
  const load = p.dmaBusy?.load ?? 0;
  const store = p.dmaBusy?.store ?? 0;
  const [name, busy] = load > store ? (['load', load] as const) : (['store', store] as const);
  return { name, busy, share: p.cycles ? busy / p.cycles : 0 };
}

/**
 * The model's run lengths for other QPU counts: each QPU's work (issuing, spill code's issue,
 * the TMU's and the VPM's waits as this run measured them) and the DMA transfers it waits for, divided
 * over the QPUs, or the busier DMA engine's time, whichever is longer.
 */
function scalingOf(p: Profiled, spent: Record<Bound, number>): Pick<Verdict, 'scaling' | 'scalingText'> {
  const load = p.dmaBusy?.load ?? 0;
  const store = p.dmaBusy?.store ?? 0;
  // Spill code's issue only: its DMA waits are among the transfers.
  const work = spent.issue + p.total.spillInstructions * CYCLES_PER_INSTR + spent.tmu + spent.vpm + load + store;
  const floor = Math.max(load, store);
  const scaling = SCALE_QPUS.map((qpus) => {
    const share = work / qpus;
    return { qpus, cycles: Math.round(Math.max(share, floor)), by: share >= floor ? ('work' as const) : load >= store ? ('dma load' as const) : ('dma store' as const) };
  });
  const listed = scaling.map((s) => `${s.qpus} QPU${s.qpus === 1 ? '' : 's'} ${s.cycles.toLocaleString('en-US')}`).join(', ');
  const floored = scaling.find((s) => s.by !== 'work');
  const why = floored
    ? `from ${floored.qpus} QPU${floored.qpus === 1 ? '' : 's'} on, the DMA ${floored.by === 'dma load' ? 'load' : 'store'} engine's ${floor.toLocaleString('en-US')} busy cycles bound it`
    : `the work divides all the way to ${MAX_QPUS}`;
  const modelled = SCALE_QPUS.includes(p.qpus) ? ` (this run: ${p.qpus} QPU${p.qpus === 1 ? '' : 's'}, ${p.cycles.toLocaleString('en-US')} cycles)` : '';
  if (!p.divides)
    return { scaling, scalingText: `every QPU does all the work (the kernel reads neither me() nor numQPUs()): more QPUs repeat it, they do not share it` };
  // A model that misses this run by much says so, rather than mislead about other QPU counts.
  const own = Math.max(work / p.qpus, floor);
  const off = p.cycles ? Math.abs(own - p.cycles) / p.cycles : 0;
  const fit = off > MODEL_TOLERANCE ? `; the model is ${percent(off)} off on this run (it leaves out waits for semaphores and the mutex, and TMU contention): take it as a rough guide` : '';
  return { scaling, scalingText: `modelled cycles if the work divided evenly: ${listed}${modelled}; ${why}${fit}` };
}

const percent = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)}%`;
