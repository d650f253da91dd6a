// Entry point of the `qpu` command (bin/qpu.js loads it through tsx).
import { main } from './main.ts';

// Output piped into `head` and closed early is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

process.exitCode = await main(process.argv.slice(2));
