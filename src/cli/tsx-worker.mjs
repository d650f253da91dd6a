// Entry point of a worker thread that runs a TypeScript module: Node applies `--import tsx` to
// the main thread only, so the worker registers tsx itself, then imports workerData.module.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);
