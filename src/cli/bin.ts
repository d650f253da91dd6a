// Entry point of the `qpu` command (bin/qpu.js loads it through tsx).
import { completeWrites, nodeIo, OutputError, outputFailed, reportedOutputErrors } from './io.ts';
import { main } from './main.ts';

// A write to standard output or error that fails is mostly seen by the write itself (nodeIo
// throws an OutputError, which main reports); this catches those Node reports later, e.g. when a
// pipe's reader goes away while queued output is still being written. A broken pipe (output
// piped into `head`, closed early) ends the process quietly with success; anything else (a full
// disk, an I/O error) is one line on standard error and exit status 2. Without these listeners
// Node would crash with a stack trace.
for (const [stream, name] of [
  [process.stdout, 'standard output'],
  [process.stderr, 'standard error'],
] as const) {
  completeWrites(stream);
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (reportedOutputErrors.has(e)) return;
    const status = outputFailed(new OutputError(name, e), 'qpu', nodeIo);
    process.exit(status === 0 ? (process.exitCode ?? 0) : status);
  });
}

const status = await main(process.argv.slice(2));
// The command's work is done: it ends now, once its output is written, whatever the user's module
// left running (a timer, a server), which Node would wait for. qpu run's main has settled by now.
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(status);

/** Resolves once everything written to the stream so far has gone out (or the stream has failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    try {
      stream.write('', () => resolve());
    } catch {
      resolve();
    }
  });
}
