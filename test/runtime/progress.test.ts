// Progress bars: drawn on a terminal only, never under CI or into a pipe or file; and the time
// format the bars and `qpu run --stats` use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { formatSeconds, progressBar, progressShown } from '../../src/runtime/progress.ts';

/** A stream that says it is a terminal and records what is written to it. */
function fakeTerminal(): NodeJS.WriteStream & { text: string } {
  const s = new Writable({
    write(chunk, _enc, done) {
      s.text += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream & { text: string };
  Object.assign(s, { text: '', isTTY: true, columns: 120, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  return s;
}

test('a bar draws on a terminal, not under CI, not elsewhere', () => {
  const ci = process.env.CI;
  try {
    delete process.env.CI;
    const tty = fakeTerminal();
    assert.equal(progressShown(tty), true);
    const bar = progressBar('heat', 200, { unit: 'steps', stream: tty });
    assert.equal(bar.shown, true);
    bar.update(100, '1.5 ms on a Pi');
    bar.stop();
    bar.stop(); // a second stop does nothing
    assert.match(tty.text, /heat \[#+\.+\]  50% \| 100\/200 steps \| 1\.5 ms on a Pi/);
    const endless = fakeTerminal();
    const count = progressBar('spin', Infinity, { unit: 'instructions', stream: endless });
    count.update(123456789);
    count.stop();
    assert.match(endless.text, /spin \| 123,456,789 instructions/);
    assert.doesNotMatch(endless.text, /Infinity|∞|%/);
    process.env.CI = 'true';
    assert.equal(progressShown(fakeTerminal()), false);
    const quiet = fakeTerminal();
    const none = progressBar('heat', 200, { stream: quiet });
    none.update(50);
    none.stop();
    assert.deepEqual([none.shown, quiet.text], [false, '']);
  } finally {
    if (ci === undefined) delete process.env.CI;
    else process.env.CI = ci;
  }
  const pipe = fakeTerminal();
  (pipe as { isTTY: boolean }).isTTY = false;
  assert.equal(progressShown(pipe), false);
});

test('seconds print with three significant digits in us, ms or s', () => {
  assert.deepEqual([1.056e-5, 2.5e-4, 0.0136, 0.999, 2.36, 123.4].map(formatSeconds), ['10.6 us', '250 us', '13.6 ms', '999 ms', '2.36 s', '123 s']);
});
