// Program size: machine-code files with no instructions or more than MAX_PROGRAM_INSTRUCTIONS
// are refused by every subcommand that reads them, on one line, quickly, without building
// anything for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runQpu } from './helpers/cli.ts';
import { MAX_PROGRAM_INSTRUCTIONS } from '../src/vc4/codec.ts';

const dir = mkdtempSync(join(tmpdir(), 'qpu-size-'));
const empty = join(dir, 'empty.bin');
const huge = join(dir, 'huge.bin');
writeFileSync(empty, new Uint8Array(0));
// NOPs (0x100009E7_009E7000), one more than the limit.
const words = new Uint32Array(2 * (MAX_PROGRAM_INSTRUCTIONS + 1));
for (let i = 0; i < words.length; i += 2) [words[i], words[i + 1]] = [0x009e7000, 0x100009e7];
writeFileSync(huge, new Uint8Array(words.buffer));

for (const cmd of ['disasm', 'validate', 'emu'])
  test(`qpu ${cmd} refuses programs with no instructions or more than the limit`, async () => {
    const e = await runQpu(cmd, empty);
    assert.equal(e.code, 1, e.err);
    assert.match(e.err, new RegExp(`^qpu ${cmd}: .*empty\\.bin: .*no instructions.*\\n$`));
    const t = performance.now();
    const h = await runQpu(cmd, huge);
    assert.equal(h.code, 1, h.err);
    assert.equal(h.out, '');
    assert.match(h.err, new RegExp(`^qpu ${cmd}: .*huge\\.bin: the program has ${MAX_PROGRAM_INSTRUCTIONS + 1} instructions .* at most ${MAX_PROGRAM_INSTRUCTIONS} \\(8 MiB`));
    assert.ok(performance.now() - t < 5000, 'refused before doing any work on it');
  });
