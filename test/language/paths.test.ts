// The language finds the user's line, and the user's names, wherever qpu-ts lives: in a folder
// whose path has a space (file URLs encode it as %20, stack frames do not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

test('a kernel built from a copy of qpu-ts in a folder with a space names the user\'s line and variables', () => {
  // Inside the repository, so that the copy finds the packages it imports (node_modules).
  const dir = join(new URL('../..', import.meta.url).pathname, 'test', `.tmp-paths with space ${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    cpSync(new URL('../../src', import.meta.url), join(dir, 'my lib', 'src'), { recursive: true });
    const user = join(dir, 'my lib', 'user.ts');
    writeFileSync(
      user,
      [
        `import { any, Int, kernel, Ptr, SharedArray, While } from './src/index.ts';`,
        `const spin = kernel([Ptr(Int)], function spin(p) {`,
        `  const counter = Int(0);`,
        `  While(any(counter.ge(0)), () => counter.set(counter.add(1)));`,
        `  p.store(counter);`,
        `});`,
        `try { spin.interpretSync([SharedArray.int32(16)], { maxSteps: 1000 }); } catch (e) { console.log((e as Error).message); }`,
      ].join('\n'),
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', user], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /user\.ts:4:\d+/);
    assert.match(r.stdout, /`counter = counter \+ 1`/);
    assert.doesNotMatch(r.stdout, /builder\.ts|stack/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
