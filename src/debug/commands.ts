// The debugger's commands, as `qpu debug` reads them from a terminal (gdb's names and their
// one-letter forms): each command line in, its text out. Kept apart from the terminal so that
// tests and other front ends run the same commands.

import { DebugError, type DebugSession } from './session.ts';
import { gridText, laneText, qpusText, registersText, sourceLine, stopText, variablesText, vpmText } from './show.ts';
import { parseWatch, WatchError, type WatchValue } from './watch.ts';

export const HELP = `commands (a blank line repeats the last step, continue or back):
  break LINE [if COND]   b: stop where a QPU reaches LINE (file.ts:LINE or LINE), if COND
                         holds in some lane (COND: an expression, as print takes)
  delete N               remove breakpoint N; info breaks lists them
  continue [N]           c: run to the next breakpoint (the Nth), or the end
  step [N]               s: the selected QPU's next statement (interpreter) or instruction
                         (emulator), N times
  next [N]               n: the selected QPU's next statement, a func it calls run through
                         (on the emulator, its next instruction of another statement)
  out                    on until the func the selected QPU is in returns
  back [N]               the selected QPU's step before this one (the run is replayed)
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

type Out = { out: string; quit?: true };

/** Short and other names of the commands (gdb's). */
const ALIASES: Readonly<Record<string, string>> = { h: 'help', b: 'break', d: 'delete', c: 'continue', s: 'step', n: 'next', rs: 'back', thread: 'qpu', p: 'print', bt: 'where', q: 'quit' };

/** A watch's value: one lane, or all 16 in brackets. */
function valueText(v: WatchValue): string {
  return v.lanes.length === 1 ? laneText(v.ty, v.lanes[0]!) : `[${v.lanes.map((x) => laneText(v.ty, x)).join(', ')}]`;
}

export class DebugConsole {
  /** The watches by their numbers (kept when others are removed). */
  private readonly watches = new Map<number, string>();
  private nextWatch = 1;
  private last = '';

  constructor(readonly session: DebugSession) {}

  /** What the session shows when it starts. */
  start(): string {
    const s = this.session;
    const on = s.target === 'emulator' ? 'the emulator, by instruction' : 'the interpreter, by statement';
    return `debugging kernel ${s.ast.name} on ${s.qpus} QPU${s.qpus === 1 ? '' : 's'}, ${on}; help lists the commands\n${this.stop()}`;
  }

  /** Runs one command line: its output, and whether the session is over. */
  run(line: string): Out {
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

  private command(cmd: string, arg: string, rest: string[]): Out {
    const run = this.commands[ALIASES[cmd] ?? cmd];
    return run ? run(arg, rest) : { out: `no command ${JSON.stringify(cmd)}: help lists them\n` };
  }

  /** Each command by its full name: what it does with its argument text and words. */
  private readonly commands: Readonly<Record<string, (arg: string, rest: string[]) => Out>> = {
    '': () => ({ out: '' }),
    help: () => ({ out: `${HELP}\n` }),
    break: (arg) => {
      const m = /^(\S+)(?:\s+if\s+(.+))?$/.exec(arg);
      if (!m) return { out: 'break LINE [if COND]\n' };
      const b = this.session.break(m[1]!, m[2]);
      return { out: `breakpoint ${b.id} at ${b.file ? `${b.file}:` : 'line '}${b.line}${b.condition ? ` if ${b.condition}` : ''}\n` };
    },
    delete: (arg) => ({ out: this.session.delete(Number(arg)) ? `breakpoint ${arg} deleted\n` : `no breakpoint ${JSON.stringify(arg)}: delete N (info breaks lists them)\n` }),
    info: (_, rest) => this.info(rest[0]),
    continue: (arg) => this.counted(arg, (n) => this.session.continue(n)),
    step: (arg) => this.counted(arg, (n) => this.session.step(n)),
    next: (arg) => this.counted(arg, (n) => this.session.next(n)),
    back: (arg) => this.counted(arg, (n) => this.session.back(false, n)),
    out: () => this.moved(this.session.out()),
    restart: () => this.moved(this.session.restart()),
    finish: () => this.moved(this.session.finish()),
    qpu: (arg) => {
      const s = this.session;
      if (!/^\d+$/.test(arg) || Number(arg) >= s.qpus) return { out: `qpu N: N is 0 to ${s.qpus - 1}\n` };
      s.qpu = Number(arg);
      return { out: qpusText(s) };
    },
    print: (arg) => ({ out: arg ? `${arg} = ${valueText(this.session.evaluate(arg))}\n` : 'print EXPR\n' }),
    grid: (arg) => ({ out: arg ? gridText(arg, this.session.grid(arg)) : 'grid NAME\n' }),
    vars: (arg) => ({ out: variablesText(this.session.variables(this.session.qpu, arg === 'all'), this.session.stopped.snapshot.qpus[this.session.qpu]?.mask) }),
    watch: (arg) => {
      if (!arg) return { out: 'watch EXPR\n' };
      parseWatch(arg); // refused now if it does not parse; a variable not set yet shows later
      this.watches.set(this.nextWatch, arg);
      return { out: `watch ${this.nextWatch++}: ${arg}\n` };
    },
    unwatch: (arg) => ({ out: this.watches.delete(Number(arg)) ? `watch ${arg} removed\n` : `no watch ${JSON.stringify(arg)}: unwatch N (the watch's number)\n` }),
    qpus: () => ({ out: qpusText(this.session) }),
    regs: (arg) => ({ out: registersText(this.session.stopped.snapshot.qpus[this.session.qpu]!, arg === 'all') }),
    list: () => ({ out: this.list() }),
    vpm: (_, rest) => {
      const [from = '0', count = '8'] = rest;
      if (!/^\d+$/.test(from) || !/^\d+$/.test(count)) return { out: 'vpm [ROW [COUNT]]\n' };
      return { out: vpmText(this.session.stopped.snapshot.vpm, Number(from), Number(count)) };
    },
    where: () => ({ out: stopText(this.session) }),
    quit: () => ({ out: '', quit: true }),
  };

  /** A move `arg` times (a whole number, default 1). */
  private counted(arg: string, move: (n: number) => unknown): Out {
    if (arg && !/^[1-9]\d*$/.test(arg)) return { out: `a count is a whole number from 1, not ${JSON.stringify(arg)}\n` };
    return this.moved(move(arg ? Number(arg) : 1));
  }

  /** After a move: where the run stopped, and the watches. */
  private moved(_: unknown): Out {
    return { out: this.stop() };
  }

  private info(what: string | undefined): Out {
    const s = this.session;
    if (what === 'breaks' || what === 'breakpoints' || what === 'b')
      return { out: s.breakpoints.map((b) => `${b.id}: ${b.file ? `${b.file}:` : 'line '}${b.line}${b.condition ? ` if ${b.condition}` : ''}\n`).join('') || 'no breakpoints\n' };
    if (what === 'locals') return this.command('vars', '', []);
    if (what === 'qpus' || what === 'threads') return this.command('qpus', '', []);
    return { out: 'info breaks, info locals, info qpus\n' };
  }

  /** Where the run stopped, and the watches' values there. */
  private stop(): string {
    const s = this.session;
    const lines = [...this.watches].map(([i, w]) => {
      try {
        return `  ${i}: ${w} = ${valueText(s.evaluate(w))}`;
      } catch (e) {
        return `  ${i}: ${(e as Error).message}`;
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
