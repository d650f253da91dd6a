#!/usr/bin/env node
// The `qpu` command, from the built files (dist/, made by `npm run build`, which `npm pack`
// runs: an installed package has them). tsx is registered so that the command can load the user's
// own TypeScript (`qpu run kernel.ts`, `qpu compile kernel.ts`): Node 20 cannot run .ts files.
// It reads no tsconfig.json, so `import ... from 'qpu-ts'` in those files is this package as
// Node resolves it, the same copy as the command's (not a `paths` alias to other sources).
// In a checkout that has not been built, `npm run qpu -- ARGS` runs the sources instead.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { register } from 'tsx/esm/api';

const built = new URL('../dist/cli/bin.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write('qpu: dist/ is missing: run `npm run build` first (or `npm run qpu -- ARGS` to run the sources)\n');
  process.exit(2);
}
warnIfStale(built);
register({ tsconfig: false });
await import(built.href);

/**
 * In a checkout (src/ beside dist/; the package ships no src/), says so when a source file is
 * newer than the build: the command would run old code.
 */
function warnIfStale(builtFile) {
  const src = new URL('../src/', import.meta.url);
  if (!existsSync(src)) return;
  const builtAt = statSync(builtFile).mtimeMs;
  const newer = readdirSync(src, { recursive: true }).find((f) => String(f).endsWith('.ts') && statSync(new URL(String(f), src)).mtimeMs > builtAt);
  if (newer) process.stderr.write(`qpu: src/${newer} is newer than dist/: run \`npm run build\` (or \`npm run qpu -- ARGS\` to run the sources)\n`);
}
