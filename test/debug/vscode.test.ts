// The VS Code extension (editors/vscode): it declares the debug type `qpu` with the launch
// attributes `qpu debug --dap` reads, finds the qpu command of the project a program is in, and
// the adapter it starts debugs a kernel as VS Code would drive it (Microsoft's DAP client).
// VS Code's API is a stand-in here: the extension gets it as an argument (activateWith).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';

const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
const ext = createRequire(import.meta.url)(join(root, 'editors/vscode/extension.cjs')) as {
  activateWith(vscode: unknown, context: { subscriptions: unknown[] }): void;
  qpuArgs(from: string): string[] | undefined;
};
const manifest = JSON.parse(readFileSync(join(root, 'editors/vscode/package.json'), 'utf8'));

test("the manifest declares the debug type qpu with the launch request's attributes qpu debug reads", () => {
  const [debuggerEntry] = manifest.contributes.debuggers;
  assert.equal(debuggerEntry.type, 'qpu');
  const props = Object.keys(debuggerEntry.configurationAttributes.launch.properties).sort();
  assert.deepEqual(props, ['args', 'kernel', 'program', 'qpus', 'stopOnEntry', 'target']);
  // Each is a field src/cli/debug.ts takes from the launch request.
  const cli = readFileSync(join(root, 'src/cli/debug.ts'), 'utf8') + readFileSync(join(root, 'src/debug/dap.ts'), 'utf8');
  for (const p of props) assert.ok(cli.includes(`launch.${p}`) || cli.includes(`.${p} ===`) || cli.includes(`launch.${p} `), `qpu debug reads ${p}`);
  assert.deepEqual(manifest.contributes.breakpoints, [{ language: 'typescript' }]);
});

test('the qpu command is found from the program up: an installed qpu-ts, or this checkout', () => {
  assert.deepEqual(ext.qpuArgs(join(root, 'examples')), ['--import', 'tsx', join(root, 'src/cli/bin.ts')]);
  const project = mkdtempSync(join(tmpdir(), 'qpu-vscode-'));
  try {
    mkdirSync(join(project, 'node_modules/qpu-ts'), { recursive: true });
    writeFileSync(join(project, 'node_modules/qpu-ts/package.json'), JSON.stringify({ name: 'qpu-ts', bin: { qpu: './bin/qpu.js' } }));
    mkdirSync(join(project, 'src/deep'), { recursive: true });
    assert.deepEqual(ext.qpuArgs(join(project, 'src/deep')), [join(project, 'node_modules/qpu-ts/bin/qpu.js')]);
    assert.equal(ext.qpuArgs(tmpdir()), undefined);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test('the adapter the extension starts debugs a kernel as VS Code drives it', { timeout: 120_000 }, async () => {
  // VS Code's API, as far as the extension uses it.
  class DebugAdapterExecutable {
    constructor(
      readonly command: string,
      readonly args: string[],
      readonly options: { cwd: string },
    ) {}
  }
  let factory: { createDebugAdapterDescriptor(s: unknown): DebugAdapterExecutable } | undefined;
  const vscode = { DebugAdapterExecutable, debug: { registerDebugAdapterDescriptorFactory: (type: string, f: typeof factory) => (assert.equal(type, 'qpu'), (factory = f), {}) } };
  const context = { subscriptions: [] as unknown[] };
  ext.activateWith(vscode, context);
  assert.equal(context.subscriptions.length, 1);
  const program = join(root, 'examples/gcd.ts');
  const exe = factory!.createDebugAdapterDescriptor({ configuration: { type: 'qpu', request: 'launch', program }, workspaceFolder: { uri: { fsPath: root } } });
  assert.equal(exe.command, 'node');
  assert.deepEqual(exe.args.slice(-2), ['debug', '--dap']);
  // The client runs one executable: a script that runs the extension's command line.
  const dir = mkdtempSync(join(tmpdir(), 'qpu-vscode-'));
  const script = join(dir, 'adapter.sh');
  writeFileSync(script, `cd ${JSON.stringify(exe.options.cwd)} && exec ${JSON.stringify(process.execPath)} ${exe.args.map((a) => JSON.stringify(a)).join(' ')}\n`);
  const dc = new DebugClient('/bin/sh', script, 'qpu', { env: { ...process.env, CI: '1' } });
  dc.defaultTimeout = 60_000;
  await dc.start();
  try {
    await dc.hitBreakpoint({ program, kernel: 'gcd' } as never, { path: program, line: 13 });
    const frame = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0]!;
    assert.equal(frame.line, 13);
    await dc.setBreakpointsRequest({ source: { path: program }, breakpoints: [] });
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  } finally {
    await dc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
