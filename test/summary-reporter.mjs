// A node:test reporter that ends `npm test` with its counts: how many tests ran in how many
// files, passed, failed, were skipped or left to do, and how long it took. It runs beside the
// dot reporter (package.json), which draws the progress and prints each failure in full.
// Plain JavaScript: Node loads reporters before tsx can load TypeScript.

/** @param {AsyncIterable<{ type: string, data: { file?: string, skip?: unknown, todo?: unknown, details?: { type?: string } } }>} source */
export default async function* summary(source) {
  const files = new Set();
  const count = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  const started = performance.now();
  for await (const e of source) {
    if (e.type !== 'test:pass' && e.type !== 'test:fail') continue;
    if (e.data.details?.type === 'suite') continue; // describe() blocks: their tests count
    if (e.data.file) files.add(e.data.file);
    if (e.data.skip) count.skipped++;
    else if (e.data.todo) count.todo++;
    else if (e.type === 'test:pass') count.passed++;
    else count.failed++;
  }
  const total = count.passed + count.failed + count.skipped + count.todo;
  const parts = [`${count.passed} passed`, `${count.failed} failed`, `${count.skipped} skipped`, ...(count.todo ? [`${count.todo} to do`] : [])];
  yield `\n${total} test${total === 1 ? '' : 's'} in ${files.size} file${files.size === 1 ? '' : 's'}: ${parts.join(', ')} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`;
}
