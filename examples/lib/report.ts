// What every example shares: its options and result (which the tour collects), timing a kernel
// run (the cycle model's estimate of a Pi's time beside the emulator's wall time), the tables and
// numbers the examples print, the bit-for-bit self-check, and running an example from the
// command line (exit status 1 when its check fails).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RunReport } from 'qpu-ts';

/** How an example is run: by the tour and the tests (quiet, pictures elsewhere) or from the command line. */
export interface ExampleOptions {
  /** Where the example's lines go (default console.log). */
  readonly log?: (line: string) => void;
  /** The folder pictures go to (default `out` in the current directory). */
  readonly outDir?: string;
  /** false: no progress bars (default: drawn on a terminal, not under CI). */
  readonly progress?: boolean;
  /** Fewer lines of results (the tour's). */
  readonly brief?: boolean;
}

/** One kernel run: the estimated time on a Pi beside how long the emulator took here. */
export interface Timing {
  readonly kernel: string;
  readonly qpus: number;
  /** The cycle model's estimate of a Pi's time (report.run.seconds). */
  readonly piSeconds: number;
  /** The emulator's wall time for the run, on this computer. */
  readonly wallSeconds: number;
  readonly instructions: number;
}

/** What an example computed, for the tour's summary. */
export interface ExampleResult {
  readonly name: string;
  /** One line: what was computed and checked. */
  readonly summary: string;
  readonly pictures: readonly string[];
  readonly timings: readonly Timing[];
  /** The run the tour's summary shows (the fastest, or the whole job). */
  readonly headline: Timing;
  /** The whole example's wall time, checks and pictures included. */
  readonly wallSeconds: number;
}

/** A result that differs from the plain TypeScript version: the example's check failed. */
export class SelfCheckError extends Error {
  override readonly name = 'SelfCheckError';
}

/** Throws a SelfCheckError unless `ok`. */
export function check(ok: boolean, message: () => string): asserts ok {
  if (!ok) throw new SelfCheckError(message());
}

const bitsOf = (a: Int32Array | Float32Array) => (a instanceof Int32Array ? a : new Int32Array(a.slice().buffer));

/** Checks that `got` holds exactly `want`'s bits (floats compared as patterns), naming the first difference. */
export function checkSameBits(what: string, got: Int32Array | Float32Array, want: Int32Array | Float32Array): void {
  check(got.length === want.length, () => `${what}: ${got.length} values, expected ${want.length}`);
  const [g, w] = [bitsOf(got), bitsOf(want)];
  let first = -1;
  let count = 0;
  for (let i = 0; i < g.length; i++)
    if (g[i] !== w[i]) {
      if (first < 0) first = i;
      count++;
    }
  check(first < 0, () => `${what}: ${count} of ${g.length} values differ from the plain TypeScript version; the first at [${first}]: ${got[first]}, expected ${want[first]}`);
}

/** Seconds since `start` (a performance.now() reading). */
export const since = (start: number): number => (performance.now() - start) / 1e3;

/** A Timing from a kernel's report and the wall time its run took. */
export function timing(kernel: string, report: RunReport, wallSeconds: number): Timing {
  return { kernel, qpus: report.qpus, piSeconds: report.seconds, wallSeconds, instructions: report.run.total.instructions };
}

/** Runs `f` (a kernel call) and times it: its report and the Timing. */
export async function timed(kernel: string, f: () => Promise<RunReport> | RunReport): Promise<{ report: RunReport; timing: Timing }> {
  const start = performance.now();
  const report = await f();
  return { report, timing: timing(kernel, report, since(start)) };
}

/** The timing with the least Pi time (of equals, the last). */
export const fastest = (timings: readonly Timing[]): Timing => timings.reduce((a, b) => (b.piSeconds <= a.piSeconds ? b : a));

/** A duration, to 3 significant digits: "41.2 us", "8.64 ms", "1.23 s". */
export function seconds(s: number): string {
  const fmt = (v: number, unit: string) => `${v >= 100 ? v.toFixed(0) : v.toPrecision(3)} ${unit}`;
  if (s >= 1) return fmt(s, 's');
  if (s >= 1e-3) return fmt(s * 1e3, 'ms');
  return fmt(s * 1e6, 'us');
}

/** "1 QPU", "12 QPUs". */
export const qpusText = (n: number): string => (n === 1 ? '1 QPU' : `${n} QPUs`);

/** A count with thousands separators. */
export const count = (n: number): string => n.toLocaleString('en-US');

/** A number, perhaps with a unit: "1,234", "8.64 ms", "1.99x", "0.34 Mhash/s". */
const NUMBER = /^-?[\d.,]+(x| [a-zA-Z/]+)?$/;

/** Rows of cells as lines of aligned columns: text left, numbers right. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const numeric = header.map((_, c) => rows.length > 0 && rows.every((r) => NUMBER.test(r[c] ?? '')));
  const line = (cells: readonly string[]) => cells.map((s, c) => (numeric[c] ? s.padStart(widths[c]!) : s.padEnd(widths[c]!))).join('   ').trimEnd();
  return [line(header), ...rows.map(line)];
}

/** The timings as a table: kernel, QPUs, the Pi's estimated time, the emulator's wall time, instructions. */
export function timingTable(timings: readonly Timing[], extra?: { header: string; cell: (t: Timing) => string }): string[] {
  const header = ['kernel', 'QPUs', 'Pi time (cycle model)', 'emulator (wall)', 'instructions'];
  const rows = timings.map((t) => [t.kernel, String(t.qpus), seconds(t.piSeconds), seconds(t.wallSeconds), count(t.instructions)]);
  if (extra) {
    header.push(extra.header);
    timings.forEach((t, i) => rows[i]!.push(extra.cell(t)));
  }
  return table(header, rows);
}

/** A list of QPU counts from the command line: "1,2,4,8,12". */
export function qpuList(text: string): number[] {
  const qpus = text.split(',').map(Number);
  if (!qpus.length || qpus.some((q) => !Number.isInteger(q) || q < 1 || q > 12)) throw new UsageError(`--qpus ${text}: QPU counts from 1 to 12, separated by commas`);
  return qpus;
}

/** A whole number from the command line, at least `min`. */
export function wholeNumber(name: string, text: string, min = 1): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} ${text}: a whole number from ${min} up`);
  return n;
}

/** A command line the example cannot run with. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Flags = Record<string, { type: 'string' | 'boolean'; short?: string }>;
type Values = Record<string, string | boolean | undefined>;

/** Whether the module at `url` is the script Node was asked to run (`examples/gcd.ts`, or `examples/gcd` as tsx allows). */
export function isMainModule(url: string, script: string): boolean {
  const path = fileURLToPath(url);
  const asked = resolve(script);
  return path === asked || path.replace(/\.[cm]?ts$/, '') === asked;
}

/**
 * Runs an example when its file is the program being run (`npx tsx examples/NAME.ts`): parses
 * the command line's `flags` (and words after them, if `positionals`), calls `run`, and exits
 * with 1 when the self-check fails (2 for a bad command line), the message on standard error.
 */
export async function runIfMain(
  url: string,
  usage: string,
  flags: Flags,
  run: (values: Values, positionals: string[]) => Promise<unknown>,
  opts: { positionals?: boolean } = {},
): Promise<void> {
  if (!process.argv[1] || !isMainModule(url, process.argv[1])) return;
  try {
    const { values, positionals } = parseArgs({ options: { ...flags, help: { type: 'boolean', short: 'h' } }, allowPositionals: opts.positionals ?? false });
    if (values.help) return console.log(`usage: ${usage}`);
    await run(values, positionals);
  } catch (e) {
    if (e instanceof SelfCheckError) {
      console.error(`self-check FAILED: ${e.message}`);
      process.exitCode = 1;
    } else if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(e as Error).message}\nusage: ${usage}`);
      process.exitCode = 2;
    } else if (e instanceof Error && e.message.startsWith('kernel ')) {
      // What qpu-ts says of a kernel (a run, a compilation, a check): the message names the kernel and where.
      console.error(e.message);
      process.exitCode = 1;
    } else throw e;
  }
}
