// VS Code's side of `qpu debug --dap`: VS Code starts a debug adapter only for a debug type an
// extension declares, so this one declares "qpu" (package.json) and starts the adapter: the qpu
// command of the qpu-ts the debugged program's project uses, found from the program's folder up
// (its node_modules, or a checkout of qpu-ts itself, whose sources run through tsx). The program,
// kernel, target and the rest come to the adapter in the launch request (docs/debugging.md).
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join, resolve } = require('node:path');

/** The arguments for `node` that run the qpu command of the qpu-ts nearest `from`, or undefined. */
function qpuArgs(from) {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const installed = join(dir, 'node_modules', 'qpu-ts', 'package.json');
    if (existsSync(installed)) return [join(dirname(installed), JSON.parse(readFileSync(installed, 'utf8')).bin.qpu)];
    const own = join(dir, 'package.json');
    if (existsSync(own) && JSON.parse(readFileSync(own, 'utf8')).name === 'qpu-ts' && existsSync(join(dir, 'src', 'cli', 'bin.ts')))
      return ['--import', 'tsx', join(dir, 'src', 'cli', 'bin.ts')];
    if (dirname(dir) === dir) return undefined;
  }
}

/** The adapter for a debug session: `node ... debug --dap` in the program's folder. */
function adapterFor(vscode, session) {
  const program = session.configuration && session.configuration.program;
  const folder = session.workspaceFolder ? session.workspaceFolder.uri.fsPath : program ? dirname(program) : process.cwd();
  const args = qpuArgs(program ? dirname(program) : folder) || qpuArgs(folder);
  if (!args) throw new Error(`qpu-ts is not installed for ${program || folder}: npm install qpu-ts in its project`);
  return new vscode.DebugAdapterExecutable('node', [...args, 'debug', '--dap'], { cwd: folder });
}

/** Registers the adapter with `vscode` (the module VS Code gives extensions). */
function activateWith(vscode, context) {
  context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('qpu', { createDebugAdapterDescriptor: (session) => adapterFor(vscode, session) }));
}

module.exports = {
  activate: (context) => activateWith(require('vscode'), context),
  deactivate: () => {},
  activateWith,
  qpuArgs,
};
