// The tour (`npm start`) at its quick sizes: every example runs, every self-check passes, and the
// summary names each example, its pictures and where to read more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stops, tour } from '../../examples/tour.ts';

test('the quick tour runs every example, all checked, and ends with a summary', async () => {
  const outDir = mkdtempSync(join(tmpdir(), 'qpu-tour-'));
  try {
    const lines: string[] = [];
    const { results, failures } = await tour({ quick: true, log: (l) => lines.push(l), outDir, progress: false });
    assert.deepEqual(failures, []);
    assert.deepEqual(results.map((r) => r.name), ['gcd', 'rot3D', 'heat', 'mandelbrot', 'edges', 'sha256']);
    assert.equal(results.length, stops(true).length);
    const text = lines.join('\n');
    for (const r of results) assert.match(text, new RegExp(`^${r.name} +${r.summary.replace(/[()]/g, '\\$&')}`, 'm'));
    const pictures = results.flatMap((r) => r.pictures);
    assert.equal(pictures.length, 5);
    for (const p of pictures) assert.ok(existsSync(p) && p.startsWith(outDir), p);
    assert.match(text, /Every self-check passed/);
    assert.match(text, /docs\/language\.md/);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});
