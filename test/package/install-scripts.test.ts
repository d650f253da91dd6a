// npm 11 skips a dependency's install scripts unless package.json's allowScripts covers it, and
// warns at every `npm ci`. Every dependency that has one (package-lock.json's hasInstallScript)
// has a decision in allowScripts, which README explains; npm 10 ignores the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (name: string) => JSON.parse(readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8'));

test('every dependency with an install script is covered by allowScripts, and README says why', () => {
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
  const withScripts = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && p.hasInstallScript)
    .map(([path]) => path.replace(/^.*node_modules\//, ''));
  assert.ok(withScripts.length > 0, 'esbuild and koffi have install scripts');
  const allowed = (read('package.json') as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
  for (const name of withScripts) assert.equal(typeof allowed[name], 'boolean', `allowScripts has no entry for ${name}`);
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const name of withScripts) assert.match(readme, new RegExp(`allowScripts[^]*${name}`), `README explains ${name}'s entry`);
});
