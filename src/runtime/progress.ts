// A progress bar for long runs, on standard error while it is a terminal: emulator runs of many
// instructions, interpreter runs, the steps of an example, the fuzzer's programs. Quiet (nothing
// written at all) when standard error is not a terminal or under CI (the CI variable set), so
// logs and pipes get no control characters. Drawn by cli-progress, at most 10 times a second.

import cliProgress from 'cli-progress';

/** A run's progress bar appears once it has run this long: shorter runs draw nothing. */
export const BAR_AFTER_MS = 300;

export interface ProgressBar {
  /** Sets how much is done (of `total`) and an optional detail shown after the count. */
  update(done: number, detail?: string): void;
  /** Ends the bar, leaving its last state on the terminal (a no-op when quiet or already stopped). */
  stop(): void;
  /** Whether the bar draws anything. */
  readonly shown: boolean;
}

/** Where a bar draws: a Node stream such as process.stderr (this much of one, so that the package's types need no @types/node). */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressBarOptions {
  /** What is counted, after the count ("instructions", "steps"). */
  readonly unit?: string;
  /** Where to draw (default standard error); nothing is drawn unless it is a terminal. */
  readonly stream?: ProgressStream;
}

/** Whether a progress bar would draw on `stream`: a terminal, and not under CI. */
export function progressShown(stream: ProgressStream = process.stderr): boolean {
  return stream.isTTY === true && !process.env.CI;
}

/** A bar labelled `label` counting to `total`; quiet unless `progressShown`. */
export function progressBar(label: string, total: number, opts: ProgressBarOptions = {}): ProgressBar {
  const stream = opts.stream ?? process.stderr;
  if (!progressShown(stream)) return { update() {}, stop() {}, shown: false };
  const bar = new cliProgress.SingleBar(
    {
      stream: stream as NodeJS.WritableStream, // a terminal's stream, which cli-progress moves the cursor on
      fps: 10,
      // Without a finite total (a run given maxSteps: Infinity) there is no bar, only the count.
      format: Number.isFinite(total) ? `${label} [{bar}] {percentage}% | {count} ${opts.unit ?? ''}{detail}` : `${label} | {count} ${opts.unit ?? ''}{detail}`,
      barCompleteChar: '#',
      barIncompleteChar: '.',
      hideCursor: true,
      formatValue: (v, _o, type) => (type === 'percentage' ? String(v).padStart(3) : String(v)),
    },
    cliProgress.Presets.legacy,
  );
  const count = (n: number) => (Number.isFinite(total) ? `${n.toLocaleString('en-US')}/${total.toLocaleString('en-US')}` : n.toLocaleString('en-US'));
  const end = Number.isFinite(total) ? Math.max(total, 1) : Number.MAX_SAFE_INTEGER;
  bar.start(end, 0, { count: count(0), detail: '' });
  let stopped = false;
  return {
    shown: true,
    update(done, detail) {
      if (!stopped) bar.update(Math.min(done, end), { count: count(done), detail: detail ? ` | ${detail}` : '' });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}

/** Seconds as us, ms or s with three significant digits. */
export function formatSeconds(s: number): string {
  if (s < 1e-3) return `${Number((s * 1e6).toPrecision(3))} us`;
  if (s < 1) return `${Number((s * 1e3).toPrecision(3))} ms`;
  return `${Number(s.toPrecision(3))} s`;
}
