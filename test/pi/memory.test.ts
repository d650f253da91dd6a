// The Pi's GPU memory (src/pi/memory.ts) against the recording test device: freeing an
// allocation really gives it back to the firmware (unmapped, unlocked, released, and the
// firmware's memory free again), so allocating and freeing forever, and running kernels forever
// on the pi target, keep the Pi's GPU memory use flat.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { index, Int, kernel, Ptr, SharedArray } from '../../src/index.ts';
import { Mailbox } from '../../src/pi/mailbox.ts';
import { PiMemory } from '../../src/pi/memory.ts';
import { endPiSession, piSession, usePiDevice } from '../../src/pi/session.ts';
import { TestPiDevice } from '../helpers/pi-test-device.ts';

after(() => usePiDevice(undefined));

test('20,000 allocations and frees of Pi GPU memory: each released to the firmware, whose memory stays where the first reached', () => {
  const d = new TestPiDevice(); // 64 MiB of firmware memory: 8,192 of these allocations if none were released
  const memory = new PiMemory(d, new Mailbox(d));
  for (let i = 0; i < 20_000; i++) {
    const a = memory.alloc(4096 * (1 + (i % 3)), `a${i}`);
    const words = memory.words(a);
    words[0] = i;
    assert.equal(d.memory.readWord(a.address), i, 'the firmware memory itself');
    memory.free(a);
    assert.throws(() => memory.words(a), /not live GPU memory of this Pi/);
  }
  assert.equal(d.held, 0, 'every handle released');
  assert.equal(d.mapped, 0, 'every mapping ended');
  assert.deepEqual(memory.allocations, []);
  assert.equal(d.memory.use.top, 0, 'the firmware has all its memory back');
  assert.ok(d.memory.use.highWater <= 4 * 4096, `the firmware's memory reached ${d.memory.use.highWater} bytes`);
  const kinds = d.calls.slice(-4).map((c) => c.split(' ')[0]);
  assert.deepEqual(kinds, ['map', 'unmap', 'unlock', 'release']);
});

test('2,000 kernel runs on the pi target leave the Pi\'s GPU memory as it was', async () => {
  const d = new TestPiDevice();
  usePiDevice(() => d);
  try {
    const k = kernel([Ptr(Int), Int], function count(p, n) {
      p.store(Int(index()).add(n));
    });
    const out = SharedArray.int32(16);
    await k(out, 0, { target: 'pi' });
    const held = d.held;
    const top = d.memory.use.top;
    for (let i = 1; i <= 2000; i++) await k(out, i, { target: 'pi' });
    assert.equal(out[5], 2005);
    assert.equal(d.held, held);
    assert.equal(d.memory.use.top, top);
    assert.deepEqual(piSession().memory.allocations, []);
  } finally {
    assert.deepEqual(endPiSession(), []);
  }
});
