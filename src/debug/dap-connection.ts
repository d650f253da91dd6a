// The Debug Adapter Protocol's wire (https://microsoft.github.io/debug-adapter-protocol/): JSON
// messages framed by Content-Length headers, read and written synchronously (the kernel run
// waits while the editor looks), and the opening of a session: what an editor asks before
// anything runs (initialize, launch, its breakpoints, configurationDone), answered and kept until
// the program runs its first kernel (dap.ts then takes over).

import { readSync, writeSync } from 'node:fs';
import { DebugError } from './session.ts';

export type Message = { seq: number; type: string; command?: string; arguments?: Record<string, unknown> };
export type Body = Record<string, unknown>;

/** Where the protocol's bytes come from and go to. */
export interface DapIo {
  /** Reads some bytes into buf (0 at the end of input). */
  read(buf: Buffer): number;
  write(text: string): void;
}

/** Standard input and output (output with writeSync: the program's own writes are sent to standard error meanwhile). */
export function stdio(): DapIo {
  return { read: (buf) => readBlocking(0, buf), write: (text) => void writeSync(1, text) };
}

/** A read that waits for input (a pipe Node has made non-blocking answers EAGAIN until data comes): the debugger's session is synchronous. */
export function readBlocking(fd: number, buf: Buffer): number {
  for (;;) {
    try {
      return readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

export class DapConnection {
  private seq = 1;
  private pending = Buffer.alloc(0);
  private readonly buf = Buffer.alloc(65536);

  constructor(private readonly io: DapIo = stdio()) {}

  /** The next message, or undefined at the end of input. */
  message(): Message | undefined {
    for (;;) {
      const head = this.pending.indexOf('\r\n\r\n');
      if (head >= 0) {
        const length = Number(/Content-Length:\s*(\d+)/i.exec(this.pending.subarray(0, head).toString('ascii'))?.[1]);
        if (!Number.isFinite(length)) {
          this.pending = this.pending.subarray(head + 4); // skipped: the next message may be sound
          throw new DebugError('a Debug Adapter Protocol message without a Content-Length header');
        }
        if (this.pending.length >= head + 4 + length) {
          const body = this.pending.subarray(head + 4, head + 4 + length).toString('utf8');
          this.pending = this.pending.subarray(head + 4 + length);
          let m: unknown;
          try {
            m = JSON.parse(body);
          } catch {
            throw new DebugError(`a Debug Adapter Protocol message that is not JSON: ${body.slice(0, 60)}`);
          }
          if (typeof m !== 'object' || m === null || Array.isArray(m)) throw new DebugError(`a Debug Adapter Protocol message that is not an object: ${body.slice(0, 60)}`);
          return m as Message;
        }
      }
      const n = this.io.read(this.buf);
      if (n === 0) return undefined;
      this.pending = Buffer.concat([this.pending, this.buf.subarray(0, n)]);
    }
  }

  send(m: Body): void {
    const text = JSON.stringify({ seq: this.seq++, ...m });
    this.io.write(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  }

  respond(req: Message, body: Body = {}, error?: string): void {
    this.send({ type: 'response', request_seq: req.seq, command: req.command, success: !error, ...(error ? { message: error } : {}), body });
  }

  event(event: string, body: Body = {}): void {
    this.send({ type: 'event', event, body });
  }

  private ended = false;
  /** Tells the editor the debuggee is over (once). */
  terminated(): void {
    if (!this.ended) this.event('terminated');
    this.ended = true;
  }
}

export const CAPABILITIES: Body = {
  supportsConfigurationDoneRequest: true,
  supportsConditionalBreakpoints: true,
  supportsStepBack: true,
  supportsEvaluateForHovers: true,
  supportsRestartRequest: true,
  supportsTerminateRequest: true,
};

/** A breakpoint an editor set before the kernel ran: checked once it does. */
export interface EarlyBreakpoint {
  readonly id: number;
  readonly path: string;
  readonly line: number;
  readonly condition?: string;
}

/** What the editor asked before the program ran its first kernel. */
export interface Opening {
  /** The launch request's arguments: `program`, `kernel`, `target`, `qpus`, `args`, `stopOnEntry`. */
  readonly launch: Record<string, unknown>;
  readonly breakpoints: Map<string, EarlyBreakpoint[]>;
  configured: boolean;
  /** Ids for breakpoints set before the kernel ran (the session numbers its own). */
  nextId: number;
}

/** Answers the editor until it launches (or leaves: undefined). */
export function openDap(conn: DapConnection): Opening | undefined {
  const opening: Opening = { launch: {}, breakpoints: new Map(), configured: false, nextId: 10_000 };
  for (;;) {
    let req: Message | undefined;
    try {
      req = conn.message();
    } catch (e) {
      if (!(e instanceof DebugError)) throw e;
      conn.event('output', { category: 'stderr', output: `qpu debug: ${e.message}\n` });
      continue;
    }
    if (!req) return undefined;
    if (typeof req.arguments !== 'object' || req.arguments === null) req.arguments = {};
    const a = req.arguments ?? {};
    switch (req.command) {
      case 'initialize':
        conn.respond(req, CAPABILITIES);
        conn.event('initialized');
        break;
      case 'launch':
      case 'attach':
        conn.respond(req);
        return { ...opening, launch: a };
      case 'setBreakpoints':
        conn.respond(req, { breakpoints: earlyBreakpoints(opening, a) });
        break;
      case 'setExceptionBreakpoints':
        conn.respond(req, { breakpoints: [] });
        break;
      case 'configurationDone':
        opening.configured = true;
        conn.respond(req);
        break;
      case 'threads':
        conn.respond(req, { threads: [] });
        break;
      case 'disconnect':
      case 'terminate':
        conn.respond(req);
        return undefined;
      default:
        conn.respond(req, {}, `${req.command}: no kernel runs yet`);
    }
  }
}

/** Breakpoints of a file set before the kernel ran: kept, shown as set, checked when it runs. */
function earlyBreakpoints(o: Opening, a: Body): Body[] {
  const path = String((a.source as { path?: string } | undefined)?.path ?? '');
  const list = (Array.isArray(a.breakpoints) ? (a.breakpoints as { line: number; condition?: string }[]) : []).map((bp) => ({ id: o.nextId++, path, line: bp.line, ...(bp.condition ? { condition: bp.condition } : {}) }));
  o.breakpoints.set(path, list);
  return list.map((b) => ({ id: b.id, verified: true, line: b.line }));
}
