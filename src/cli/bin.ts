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

process.exitCode = await main(process.argv.slice(2));
