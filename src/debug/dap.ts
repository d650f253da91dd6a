// The Debug Adapter Protocol (https://microsoft.github.io/debug-adapter-protocol/) for a
// session: `qpu debug --dap PROGRAM.ts`, started by an editor, debugs the kernel in the user's
// own .ts file. Breakpoints are set in the editor (with conditions); QPUs are threads; each
// stop has one frame, the QPU's statement; its scopes are the variables (a variable's 16 lanes
// its children) and, on the emulator, the registers; evaluate reads watch expressions.
// Messages are framed by Content-Length headers on standard input and output; the program's own
// output goes to standard error meanwhile. Synchronous, as the session is: the kernel's run
// waits while the editor looks.

import { basename, resolve } from 'node:path';
import { type Body, CAPABILITIES, type DapConnection, type Message, type Opening } from './dap-connection.ts';
import { DebugError, type DebugSession, type Stopped, type VariableView } from './session.ts';
import { laneText } from './show.ts';
import { WatchError } from './watch.ts';

/** Variables a reference stands for: computed when the editor asks. */
type Children = () => { name: string; value: string; variablesReference: number }[];

/**
 * Serves the editor for a session, until it disconnects: the breakpoints given on the command
 * line and those the editor set before the kernel ran first, then its requests.
 */
export function serveDap(session: DebugSession, conn: DapConnection, opening: Opening, breaks: readonly string[]): void {
  new DapServer(session, conn, opening).serve(breaks);
}

class DapServer {
  private readonly refs = new Map<number, Children>();
  private nextRef = 1;
  private done = false;
  /** The session's breakpoint numbers by source path (setBreakpoints replaces a file's). */
  private readonly bySource = new Map<string, number[]>();
  private readonly stopOnEntry: boolean;

  constructor(
    private readonly s: DebugSession,
    private readonly conn: DapConnection,
    private readonly opening: Opening,
  ) {
    this.stopOnEntry = opening.launch.stopOnEntry === true;
  }

  serve(breaks: readonly string[]): void {
    for (const b of breaks) this.s.break(b.replace(/\s+if\s+.*$/, ''), /\s+if\s+(.+)$/.exec(b)?.[1]);
    // The editor's breakpoints from before: checked now; those that do not hold are shown as such.
    for (const [path, list] of this.opening.breakpoints) {
      const ids: number[] = [];
      for (const bp of list) {
        const verified = this.tryBreak(path, bp.line, bp.condition);
        if (typeof verified === 'number') ids.push(verified);
        else this.conn.event('breakpoint', { reason: 'changed', breakpoint: { id: bp.id, verified: false, line: bp.line, message: verified } });
      }
      this.bySource.set(path, ids);
    }
    if (this.opening.configured) this.stopped(this.stopOnEntry ? this.s.stopped : this.s.continue());
    while (!this.done) {
      let m: Message | undefined;
      try {
        m = this.conn.message();
      } catch (e) {
        if (!(e instanceof DebugError)) throw e;
        this.conn.event('output', { category: 'stderr', output: `qpu debug: ${e.message}\n` });
        continue;
      }
      if (!m) break;
      this.handle(m);
    }
  }

  /** A breakpoint set in the session: its number, or why it cannot be. */
  private tryBreak(path: string, line: number, condition: string | undefined): number | string {
    try {
      return this.s.break(`${path}:${line}`, condition || undefined).id;
    } catch (e) {
      if (e instanceof DebugError || e instanceof WatchError) return e.message;
      throw e;
    }
  }

  private respond(req: Message, body: Body = {}, error?: string): void {
    this.conn.respond(req, body, error);
  }

  private event(event: string, body: Body = {}): void {
    this.conn.event(event, body);
  }

  private handle(req: Message): void {
    const a = req.arguments ?? {};
    if (typeof req.arguments !== 'object' || req.arguments === null) req.arguments = {};
    try {
      switch (req.command) {
        case 'initialize':
          this.respond(req, CAPABILITIES);
          return this.event('initialized');
        case 'launch':
        case 'attach':
          return this.respond(req);
        case 'setBreakpoints':
          return this.respond(req, { breakpoints: this.setBreakpoints(a) });
        case 'setExceptionBreakpoints':
          return this.respond(req, { breakpoints: [] });
        case 'configurationDone':
          this.respond(req);
          return this.stopped(this.stopOnEntry ? this.s.stopped : this.s.continue());
        case 'threads':
          return this.respond(req, { threads: this.s.stopped.snapshot.qpus.map((q) => ({ id: q.id + 1, name: `QPU ${q.id}` })) });
        case 'stackTrace':
          return this.respond(req, this.stackTrace(this.qpuOf(a.threadId, 'threadId')));
        case 'scopes':
          return this.respond(req, { scopes: this.scopes(this.qpuOf(a.frameId, 'frameId')) });
        case 'variables':
          return this.respond(req, { variables: this.refs.get(Number(a.variablesReference))?.() ?? [] });
        case 'continue':
          return this.move(req, () => this.s.continue(), { allThreadsContinued: true });
        case 'next':
          return this.move(req, () => this.s.next());
        case 'stepOut':
          return this.move(req, () => this.s.out());
        case 'stepIn':
          return this.move(req, () => this.s.step());
        case 'stepBack':
          return this.move(req, () => this.s.back(this.s.target === 'emulator'));
        case 'restart':
          this.respond(req);
          return this.stopped(this.s.restart());
        case 'evaluate':
          return this.respond(req, this.evaluate(String(a.expression ?? ''), a.frameId === undefined ? this.s.qpu : this.qpuOf(a.frameId, 'frameId')));
        case 'disconnect':
        case 'terminate':
          this.done = true;
          return this.respond(req);
        default:
          return this.respond(req, {}, `qpu debug does not do ${req.command}`);
      }
    } catch (e) {
      // A request the session cannot answer fails; the session goes on.
      this.respond(req, {}, e instanceof DebugError || e instanceof WatchError ? e.message : `${req.command}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** The QPU a thread or frame id names (QPU q is thread and frame q + 1). */
  private qpuOf(id: unknown, what: string): number {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > this.s.qpus) throw new DebugError(`${what} ${String(id)}: the threads are QPUs 1 to ${this.s.qpus}`);
    return id - 1;
  }

  /** A request that moves the run: on the thread it names, answered, then where it stopped. */
  private move(req: Message, go: () => Stopped, body: Body = {}): void {
    this.select(req.arguments ?? {});
    this.respond(req, body);
    this.stopped(go());
  }

  private select(a: Body): void {
    if (a.threadId !== undefined) this.s.qpu = this.qpuOf(a.threadId, 'threadId');
  }

  /** Tells the editor where the run stopped (or that it ended). */
  private stopped(st: Stopped): void {
    this.refs.clear();
    if (st.reason === 'end') {
      this.event('output', { category: 'console', output: `kernel ${this.s.ast.name}: the run has ended\n` });
      return this.conn.terminated();
    }
    const reason = st.reason === 'error' ? 'exception' : st.reason;
    this.event('stopped', { reason, threadId: st.snapshot.qpu + 1, allThreadsStopped: true, ...(st.snapshot.error ? { text: st.snapshot.error, description: st.snapshot.error } : {}) });
  }

  private setBreakpoints(a: Body): Body[] {
    const path = String((a.source as { path?: string } | undefined)?.path ?? '');
    for (const id of this.bySource.get(path) ?? []) this.s.delete(id);
    const ids: number[] = [];
    const list = Array.isArray(a.breakpoints) ? (a.breakpoints as { line: number; condition?: string }[]) : [];
    const out = list.map((bp) => {
      const b = this.tryBreak(path, bp.line, bp.condition);
      if (typeof b === 'string') return { verified: false, line: bp.line, message: b };
      ids.push(b);
      return { id: b, verified: true, line: bp.line };
    });
    this.bySource.set(path, ids);
    return out;
  }

  private stackTrace(q: number): Body {
    const snap = this.s.stopped.snapshot;
    const qpu = snap.qpus[q];
    const loc = qpu?.stmt?.loc && /^(.*):(\d+):(\d+)$/.exec(qpu.stmt.loc);
    if (!qpu || !loc) return { stackFrames: [{ id: q + 1, name: `kernel ${this.s.ast.name} (start or end)`, line: 0, column: 0 }], totalFrames: 1 };
    const pc = qpu.pc !== undefined ? ` (pc ${qpu.pc})` : '';
    const name = `${this.s.ast.name}: QPU ${q}${qpu.state === 'waiting' ? `, waiting for ${qpu.waitingFor}` : ''}${pc}`;
    return { stackFrames: [{ id: q + 1, name, source: { path: resolve(loc[1]!), name: basename(loc[1]!) }, line: Number(loc[2]), column: Number(loc[3]) }], totalFrames: 1 };
  }

  private scopes(q: number): Body[] {
    const scopes = [{ name: 'Variables', variablesReference: this.ref(() => this.variables(q)), expensive: false }];
    const regs = this.s.stopped.snapshot.qpus[q]?.machine;
    if (regs)
      scopes.push({
        name: 'Registers',
        variablesReference: this.ref(() => [...regs.registers].filter(([, v]) => v.some((x) => x !== 0)).map(([name, v]) => this.lanes(name, 'hex', Array.from(v)))),
        expensive: false,
      });
    return scopes;
  }

  private variables(q: number) {
    return this.s.variables(q).map((v: VariableView) => (v.lanes ? this.lanes(v.name, v.ty, v.lanes) : { name: v.name, value: `(${v.unavailable})`, variablesReference: 0 }));
  }

  /** A variable with its 16 lanes as children. */
  private lanes(name: string, ty: string, lanes: readonly number[]) {
    const text = (x: number) => (ty === 'hex' ? `0x${(x >>> 0).toString(16)}` : laneText(ty, x));
    const same = lanes.every((x) => Object.is(x, lanes[0]));
    const value = same ? `${text(lanes[0]!)} (every lane)` : `[${lanes.map(text).join(', ')}]`;
    return { name, value, variablesReference: this.ref(() => lanes.map((x, l) => ({ name: `lane ${l}`, value: text(x), variablesReference: 0 }))) };
  }

  private ref(children: Children): number {
    const id = this.nextRef++;
    this.refs.set(id, children);
    return id;
  }

  private evaluate(expr: string, q: number): Body {
    const v = this.s.evaluate(expr, q);
    const value = v.lanes.length === 1 ? laneText(v.ty, v.lanes[0]!) : `[${v.lanes.map((x) => laneText(v.ty, x)).join(', ')}]`;
    return { result: value, variablesReference: v.lanes.length > 1 ? this.ref(() => v.lanes.map((x, l) => ({ name: `lane ${l}`, value: laneText(v.ty, x), variablesReference: 0 }))) : 0 };
  }
}
