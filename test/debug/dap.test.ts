// `qpu debug --dap` through Microsoft's own protocol client (@vscode/debugadapter-testsupport),
// as VS Code talks to it: a breakpoint in the user's file, QPUs as threads, a variable's lanes
// as its children, watch expressions, steps forward and back, a line with no statement, and the
// run going on to the program's end once the editor lets it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { QPU_PROCESS } from '../helpers/cli.ts';

const root = new URL('../..', import.meta.url).pathname;
const gcd = join(root, 'examples', 'gcd.ts');

/** A client of `qpu debug --dap ARGS` (the client runs one executable: a script that starts it). */
async function client(extra = 'examples/gcd.ts --kernel gcd'): Promise<{ dc: DebugClient; done: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'qpu-dap-'));
  const script = join(dir, 'adapter.sh');
  writeFileSync(script, `cd ${JSON.stringify(root)} && exec ${QPU_PROCESS.map((x) => JSON.stringify(x)).join(' ')} debug --dap ${extra}\n`);
  const dc = new DebugClient('/bin/sh', script, 'qpu', { env: { ...process.env, CI: '1' } });
  dc.defaultTimeout = 60_000;
  await dc.start();
  return {
    dc,
    done: async () => {
      await dc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('an editor stops at a breakpoint in the kernel, reads lanes, steps forward and back, and lets the run go on', { timeout: 120_000 }, async () => {
  const { dc, done } = await client();
  try {
    await dc.hitBreakpoint({ program: gcd } as never, { path: gcd, line: 13 });
    const threads = await dc.threadsRequest();
    assert.deepEqual(threads.body.threads, [{ id: 1, name: 'QPU 0' }]);
    const stack = await dc.stackTraceRequest({ threadId: 1 });
    const frame = stack.body.stackFrames[0]!;
    assert.equal(frame.line, 13);
    assert.equal(frame.source?.path, gcd);
    const scopes = await dc.scopesRequest({ frameId: frame.id });
    assert.deepEqual(scopes.body.scopes.map((s) => s.name), ['Variables']);
    const vars = (await dc.variablesRequest({ variablesReference: scopes.body.scopes[0]!.variablesReference })).body.variables;
    const a = vars.find((v) => v.name === 'a')!;
    assert.match(a.value, /^\[183, 177, 193, /);
    const lanes = (await dc.variablesRequest({ variablesReference: a.variablesReference })).body.variables;
    assert.equal(lanes.length, 16);
    assert.deepEqual(lanes[0], { name: 'lane 0', value: '183', variablesReference: 0 });
    assert.match(vars.find((v) => v.name === 'p')!.value, /^0x[0-9a-f]+ \(every lane\)$/);
    assert.equal((await dc.evaluateRequest({ expression: 'a[0] - b[0]', frameId: frame.id })).body.result, '-3');
    await Promise.all([dc.nextRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
    assert.equal((await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0]!.column, 28);
    await Promise.all([dc.stepBackRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
    assert.equal((await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0]!.column, 5);
    // A line with no statement is not verified, and says why; a condition on lanes holds later.
    const set = await dc.setBreakpointsRequest({ source: { path: gcd }, breakpoints: [{ line: 3 }, { line: 14, condition: 'b[3] < 10' }] });
    assert.equal(set.body.breakpoints[0]!.verified, false);
    assert.match(set.body.breakpoints[0]!.message!, /no statement of kernel gcd is on line .*gcd\.ts:3/);
    assert.equal(set.body.breakpoints[1]!.verified, true);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.assertStoppedLocation('breakpoint', { path: gcd, line: 14 })]);
    assert.ok(Number((await dc.evaluateRequest({ expression: 'b[3]', frameId: 1 })).body.result) < 10);
    const bad = await dc.evaluateRequest({ expression: 'a +', frameId: 1 }).catch((e: Error) => e);
    assert.match(String(bad), /the expression ends too soon/);
    await dc.setBreakpointsRequest({ source: { path: gcd }, breakpoints: [] });
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  } finally {
    await done();
  }
});

test('as VS Code starts it: the program, kernel and target in the launch request; breakpoints set before the kernel runs are checked when it does', { timeout: 120_000 }, async () => {
  const { dc, done } = await client('');
  try {
    // This client configures first, then launches: the breakpoints come before any kernel runs.
    await Promise.all([dc.initializeRequest(), dc.waitForEvent('initialized')]);
    const set = await dc.setBreakpointsRequest({ source: { path: gcd }, breakpoints: [{ line: 2 }, { line: 13 }] });
    assert.deepEqual(set.body.breakpoints.map((b) => b.verified), [true, true], 'kept until the kernel runs');
    await dc.configurationDoneRequest();
    const changed = dc.waitForEvent('breakpoint');
    await dc.launchRequest({ program: 'examples/gcd.ts', kernel: 'gcd', target: 'emulator' } as never);
    // Line 2 holds no statement: once the kernel runs, the editor hears so.
    const event = (await changed) as unknown as { body: { breakpoint: { id: number; verified: boolean; message: string } } };
    assert.equal(event.body.breakpoint.id, set.body.breakpoints[0]!.id);
    assert.equal(event.body.breakpoint.verified, false);
    assert.match(event.body.breakpoint.message, /no statement of kernel gcd is on line/);
    await dc.assertStoppedLocation('breakpoint', { path: gcd, line: 13 });
    // The emulator: registers as a scope, and the frame names the instruction.
    const frame = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0]!;
    assert.match(frame.name, /^gcd: QPU 0 \(pc \d+\)$/);
    const scopes = (await dc.scopesRequest({ frameId: frame.id })).body.scopes;
    assert.deepEqual(scopes.map((s) => s.name), ['Variables', 'Registers']);
    const regs = (await dc.variablesRequest({ variablesReference: scopes[1]!.variablesReference })).body.variables;
    assert.ok(regs.some((r) => /^r[a-b]?\d+$/.test(r.name)));
    await dc.setBreakpointsRequest({ source: { path: gcd }, breakpoints: [] });
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  } finally {
    await done();
  }
});

/** The adapter's replies to raw bytes written all at once (stdin then closed). */
function rawSession(input: string): Promise<{ messages: Record<string, any>[]; err: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(QPU_PROCESS[0]!, [...QPU_PROCESS.slice(1), 'debug', '--dap', 'examples/gcd.ts', '--kernel', 'gcd'], { cwd: root, env: { ...process.env, CI: '1' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => void (out += d));
    child.stderr.on('data', (d) => void (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const messages: Record<string, any>[] = [];
      for (const m of out.matchAll(/Content-Length: (\d+)\r\n\r\n/g)) {
        const start = m.index! + m[0].length;
        messages.push(JSON.parse(Buffer.from(out.slice(start)).subarray(0, Number(m[1])).toString('utf8')));
      }
      resolve({ messages, err, code });
    });
    child.stdin.end(input);
  });
}

const frame = (m: object | string): string => {
  const text = typeof m === 'string' ? m : JSON.stringify(m);
  return `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
};

test('bad input from an editor: a message that is not JSON, one without a length, unknown frames, threads and references get an answer, never an end of the session', { timeout: 120_000 }, async () => {
  let seq = 1;
  const req = (command: string, args: object = {}) => frame({ seq: seq++, type: 'request', command, arguments: args });
  const input = [
    frame('{not json'),
    'X-Header: 1\r\n\r\n',
    frame('[1, 2]'),
    req('initialize', { adapterID: 'qpu' }),
    req('launch', {}),
    req('setBreakpoints', { source: { path: gcd }, breakpoints: [{ line: 13 }] }),
    req('configurationDone'),
    req('scopes', { frameId: 99 }),
    req('stackTrace', { threadId: 'x' }),
    req('variables', { variablesReference: 12345 }),
    req('evaluate', { expression: 'nosuch + 1', frameId: 1 }),
    req('fly'),
    req('threads'),
    req('disconnect'),
  ].join('');
  const { messages, err, code } = await rawSession(input);
  assert.equal(code, 0, err);
  assert.doesNotMatch(err, /\n\s+at /, 'no stack trace');
  const output = messages.filter((m) => m.event === 'output').map((m) => m.body.output).join('');
  assert.match(output, /a Debug Adapter Protocol message that is not JSON: \{not json/);
  assert.match(output, /a Debug Adapter Protocol message without a Content-Length header/);
  assert.match(output, /a Debug Adapter Protocol message that is not an object/);
  const reply = (command: string) => messages.find((m) => m.type === 'response' && m.command === command)!;
  assert.equal(reply('initialize').success, true);
  assert.ok(messages.some((m) => m.event === 'stopped' && m.body.reason === 'breakpoint'));
  assert.equal(reply('scopes').success, false);
  assert.match(reply('scopes').message, /frameId/);
  assert.equal(reply('stackTrace').success, false);
  assert.match(reply('stackTrace').message, /threadId/);
  assert.deepEqual(reply('variables').body, { variables: [] });
  assert.equal(reply('evaluate').success, false);
  assert.match(reply('evaluate').message, /nosuch/);
  assert.equal(reply('fly').success, false);
  assert.match(reply('fly').message, /qpu debug does not do fly/);
  assert.deepEqual(reply('threads').body.threads, [{ id: 1, name: 'QPU 0' }]);
  assert.equal(reply('disconnect').success, true);
});
