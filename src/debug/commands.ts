// The debugger's commands, as `qpu debug` reads them from a terminal (gdb's names and their
// one-letter forms): each command line in, its text out. Kept apart from the terminal so that
// tests and other front ends run the same commands.

import { DebugError, type DebugSession } from './session.ts';
import { gridText, laneText, qpusText, registersText, sourceLine, stopText, variablesText, vpmText } from './show.ts';
import { parseWatch, WatchError } from './watch.ts';

export const HELP = `commands (a blank line repeats the last step, continue or back):
  break LINE [if COND]   b: stop where a QPU reaches LINE (file.ts:LINE or LINE), if COND
                         holds in some lane (COND: an expression, as print takes)
  delete N               remove breakpoint N; info breaks lists them
  continue               c: run to the next breakpoint, or the end
  step                   s: the selected QPU's next statement (interpreter) or instruction (emulator)
  next                   n: the selected QPU's next statement (on the emulator, its next
                         instruction of another statement)
  back                   the selected QPU's step before this one (the run is replayed)
  restart                back to the start; finish: on to the end
  qpu N                  select QPU N: steps and views are its
  print EXPR             p: EXPR in every lane of the selected QPU: x, x[3], a - b, x > 0 && y < 2,
                         index (the lane), qpu
  grid NAME              a variable on every QPU: one row a QPU
  vars                   the selected QPU's variables (info locals); vars all: unset ones too
  watch EXPR             print EXPR at every stop; unwatch N
  qpus                   every QPU: running, waiting (for what) or done, and where
  regs [all]             the selected QPU's registers and flags (emulator)
  vpm [ROW [COUNT]]      the VPM's rows (emulator; default 0 and 8)
  list                   the source around the selected QPU's line
  where                  where the run stopped
  quit                   q: end the session (the program's own run goes on)`;

export class DebugConsole {
  private readonly watches: string[] = [];
  private last = '';

  constructor(readonly session: DebugSession) {}

  /** What the session shows when it starts. */
  start(): string {
    const s = this.session;
    const on = s.target === 'emulator' ? 'the emulator, by instruction' : 'the interpreter, by statement';
    return `debugging kernel ${s.ast.name} on ${s.qpus} QPU${s.qpus === 1 ? '' : 's'}, ${on}; help lists the commands\n${this.stop()}`;
  }

  /** Runs one command line: its output, and whether the session is over. */
  run(line: string): { out: string; quit?: true } {
    let text = line.trim();
    if (!text && /^(s|step|n|next|c|continue|back)$/.test(this.last)) text = this.last;
    const [cmd = '', ...rest] = text.split(/\s+/);
    const arg = text.slice(cmd.length).trim();
    this.last = cmd;
    try {
      return this.command(cmd, arg, rest);
    } catch (e) {
      if (e instanceof DebugError || e instanceof WatchError) return { out: `${e.message}\n` };
      throw e;
    }
  }

  private command(cmd: string, arg: string, rest: string[]): { out: string; quit?: true } {
    const s = this.session;
    switch (cmd) {
      case '':
        return { out: '' };
      case 'help':
      case 'h':
        return { out: `${HELP}\n` };
      case 'break':
      case 'b': {
        const m = /^(\S+)(?:\s+if\s+(.+))?$/.exec(arg);
        if (!m) return { out: 'break LINE [if COND]\n' };
        const b = s.break(m[1]!, m[2]);
        return { out: `breakpoint ${b.id} at ${b.file ? `${b.file}:` : 'line '}${b.line}${b.condition ? ` if ${b.condition}` : ''}\n` };
      }
      case 'delete':
      case 'd':
        return { out: s.delete(Number(arg)) ? `breakpoint ${arg} deleted\n` : `no breakpoint ${arg}\n` };
      case 'info':
        if (rest[0] === 'breaks' || rest[0] === 'breakpoints' || rest[0] === 'b')
          return { out: s.breakpoints.map((b) => `${b.id}: ${b.file ? `${b.file}:` : 'line '}${b.line}${b.condition ? ` if ${b.condition}` : ''}\n`).join('') || 'no breakpoints\n' };
        if (rest[0] === 'locals') return this.command('vars', '', []);
        if (rest[0] === 'qpus' || rest[0] === 'threads') return this.command('qpus', '', []);
        return { out: 'info breaks, info locals, info qpus\n' };
      case 'continue':
      case 'c':
        s.continue();
        return { out: this.stop() };
      case 'step':
      case 's':
        s.step();
        return { out: this.stop() };
      case 'next':
      case 'n':
        s.next();
        return { out: this.stop() };
      case 'back':
      case 'rs':
        s.back();
        return { out: this.stop() };
      case 'restart':
        s.restart();
        return { out: this.stop() };
      case 'finish':
        s.finish();
        return { out: this.stop() };
      case 'qpu':
      case 'thread': {
        const q = Number(arg);
        if (!/^\d+$/.test(arg) || q >= s.qpus) return { out: `qpu N: N is 0 to ${s.qpus - 1}\n` };
        s.qpu = q;
        return { out: qpusText(s) };
      }
      case 'print':
      case 'p': {
        const v = s.evaluate(arg);
        return { out: `${arg} = ${v.lanes.length === 1 ? laneText(v.ty, v.lanes[0]!) : `[${v.lanes.map((x) => laneText(v.ty, x)).join(', ')}]`}\n` };
      }
      case 'grid':
        return { out: gridText(arg, s.grid(arg)) };
      case 'vars':
        return { out: variablesText(s.variables(s.qpu, arg === 'all'), s.stopped.snapshot.qpus[s.qpu]?.mask) };
      case 'watch':
        parseWatch(arg); // refused now if it does not parse; a variable not set yet shows later
        this.watches.push(arg);
        return { out: `watch ${this.watches.length}: ${arg}\n` };
      case 'unwatch': {
        const i = Number(arg) - 1;
        if (!this.watches[i]) return { out: `no watch ${arg}\n` };
        this.watches.splice(i, 1);
        return { out: `watch ${arg} removed\n` };
      }
      case 'qpus':
        return { out: qpusText(s) };
      case 'regs':
        return { out: registersText(s.stopped.snapshot.qpus[s.qpu]!, arg === 'all') };
      case 'list':
        return { out: this.list() };
      case 'vpm': {
        const [from = '0', count = '8'] = rest;
        if (!/^\d+$/.test(from) || !/^\d+$/.test(count)) return { out: 'vpm [ROW [COUNT]]\n' };
        return { out: vpmText(s.stopped.snapshot.vpm, Number(from), Number(count)) };
      }
      case 'where':
      case 'bt':
        return { out: stopText(s) };
      case 'quit':
      case 'q':
        return { out: '', quit: true };
      default:
        return { out: `no command ${JSON.stringify(cmd)}: help lists them\n` };
    }
  }

  /** Where the run stopped, and the watches' values there. */
  private stop(): string {
    const s = this.session;
    const lines = this.watches.map((w, i) => {
      try {
        const v = s.evaluate(w);
        return `  ${i + 1}: ${w} = ${v.lanes.length === 1 ? laneText(v.ty, v.lanes[0]!) : `[${v.lanes.map((x) => laneText(v.ty, x)).join(', ')}]`}`;
      } catch (e) {
        return `  ${i + 1}: ${w}: ${(e as Error).message}`;
      }
    });
    return stopText(s) + (lines.length ? `${lines.join('\n')}\n` : '');
  }

  /** Five lines either side of the selected QPU's line. */
  private list(): string {
    const q = this.session.stopped.snapshot.qpus[this.session.qpu];
    const m = q?.stmt?.loc && /^(.*):(\d+):\d+$/.exec(q.stmt.loc);
    if (!m) return 'the QPU is at no line of source\n';
    const at = Number(m[2]);
    const out: string[] = [];
    for (let l = Math.max(1, at - 5); l <= at + 5; l++) {
      const text = sourceLine(`${m[1]}:${l}:1`);
      if (text === undefined) break;
      out.push(`${l === at ? '>' : ' '}${String(l).padStart(5)} | ${text}`);
    }
    return out.join('\n') + '\n';
  }
}
