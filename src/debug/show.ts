// The debugger's views as text: where the run stopped (with the source line), each QPU's state,
// variables as rows of 16 lanes (the lanes the enclosing Wheres keep marked), a variable as a
// grid of QPUs by lanes, and on the emulator a QPU's registers and flags. The terminal
// interface (commands.ts) prints them; the API returns the data they are made from.

import { sourceLine } from '../dsl/frames.ts';
import { disassembleInstr } from '../vc4/asm/disasm.ts';
import { LANES } from '../vc4/chip.ts';
import { statementNamer } from '../source/print.ts';
import type { Stmt } from '../source/ast.ts';
import type { DebugSession, Stopped, VariableView } from './session.ts';
import type { QpuSnapshot } from './snapshot.ts';


/** A lane's value as the variable's type reads: Ints in decimal, Floats as JavaScript writes them (to 7 digits), pointers in hex. */
export function laneText(ty: string, x: number): string {
  if (ty === 'ptr' || ty.endsWith('*')) return `0x${(x >>> 0).toString(16)}`;
  if (ty === 'float') return Number.isInteger(x) || !Number.isFinite(x) ? String(x) : String(Number(x.toPrecision(7)));
  return String(x);
}

export { sourceLine };

/** Where the run stopped and why, with the statement and its source line. */
export function stopText(s: DebugSession, st: Stopped = s.stopped): string {
  const snap = st.snapshot;
  const q = snap.qpus[snap.qpu];
  const why =
    st.reason === 'breakpoint'
      ? `breakpoint ${st.breakpoint!.id}${st.breakpoint!.condition ? ` (if ${st.breakpoint!.condition})` : ''}`
      : st.reason === 'entry'
        ? 'the start'
        : st.reason === 'step'
          ? 'a step'
          : st.reason === 'end'
            ? 'the end of the run'
            : 'an error';
  const out = [`stopped at ${why}: QPU ${snap.qpu}, step ${snap.event.toLocaleString('en-US')} of the run`];
  if (st.reason === 'error') out.push(`  ${snap.error}`);
  if (q && !snap.ended) out.push(`  ${whereText(s, q)}`);
  const line = q && !snap.ended ? sourceLine(q.stmt?.loc) : undefined;
  if (line !== undefined) out.push(`  ${q!.stmt!.loc!.replace(/:\d+$/, '')} | ${line.trim()}`);
  return out.join('\n') + '\n';
}

/** A QPU's place: its statement (and on the emulator, its instruction). */
function whereText(s: DebugSession, q: QpuSnapshot): string {
  const text = q.stmt ? statementText(s, q.stmt) : "the kernel's start or end";
  const pc = q.pc !== undefined && s.code && q.pc < s.code.instrs.length ? `pc ${q.pc} \`${disassembleInstr(s.code.instrs[q.pc]!)}\` in ` : '';
  return `${pc}${q.stmt?.loc ? `${q.stmt.loc} ` : ''}\`${text}\``;
}

const namers = new WeakMap<DebugSession, (s: Stmt) => string>();

/** A statement as the user wrote it (print.ts statementNamer). */
function statementText(s: DebugSession, stmt: Stmt): string {
  let namer = namers.get(s);
  if (!namer) namers.set(s, (namer = statementNamer(s.ast)));
  return namer(stmt);
}

/** Every QPU: running, waiting (for what), or done, and where. */
export function qpusText(s: DebugSession): string {
  const snap = s.stopped.snapshot;
  return (
    snap.qpus
      .map((q) => {
        const mark = q.id === s.qpu ? '*' : ' ';
        const state = q.state === 'waiting' ? `waiting for ${q.waitingFor}` : q.state === 'done' ? 'done' : q.steps === 0 ? 'not started' : 'running';
        const cycles = q.machine ? `, cycle ${q.machine.cycles.toLocaleString('en-US')}` : '';
        const at = q.state === 'done' ? '' : `: ${whereText(s, q)}`;
        return `${mark} QPU ${q.id}: ${state} (${q.steps.toLocaleString('en-US')} steps${cycles})${at}`;
      })
      .join('\n') + '\n'
  );
}

/** Rows of 16 lanes under a header of lane numbers; `mask` marks the lanes kept (others in parentheses). */
function laneTable(rows: { label: string; cells: string[] }[], mask?: Uint8Array): string {
  const width = Math.max(3, ...rows.flatMap((r) => r.cells.map((c) => c.length + 2)));
  const label = Math.max(4, ...rows.map((r) => r.label.length));
  const head = `${'lane'.padEnd(label)} ${Array.from({ length: LANES }, (_, l) => String(l).padStart(width)).join('')}`;
  const lines = rows.map((r) => `${r.label.padEnd(label)} ${r.cells.map((c, l) => (mask && !mask[l] && r.cells.length === LANES ? `(${c})` : c).padStart(width)).join('')}`);
  return [head, ...lines].join('\n') + '\n';
}

/** Variables as rows of lanes; a variable the debugger cannot show says why. */
export function variablesText(views: readonly VariableView[], mask?: Uint8Array): string {
  if (!views.length) return 'no variable is set yet\n';
  // A value the same in every lane is written once.
  const same = (v: VariableView) => v.lanes!.every((x) => Object.is(x, v.lanes![0]));
  const uniform = views.filter((v) => v.lanes && same(v)).map((v) => `${v.name} = ${laneText(v.ty, v.lanes![0]!)} in every lane\n`);
  const shown = views.filter((v) => v.lanes && !same(v));
  const missing = views.filter((v) => !v.lanes).map((v) => `${v.name}: ${v.unavailable}`);
  const table = uniform.join('') + (shown.length ? laneTable(shown.map((v) => ({ label: `${v.name}`, cells: v.lanes!.map((x) => laneText(v.ty, x)) })), mask) : '');
  const note = mask && mask.some((x) => !x) ? '(lanes in parentheses: the enclosing Wheres leave them out)\n' : '';
  return table + note + missing.map((m) => `${m}\n`).join('');
}

/** A variable on every QPU: one row a QPU. */
export function gridText(name: string, views: readonly VariableView[]): string {
  const rows = views.flatMap((v, q) => (v.lanes ? [{ label: `QPU ${q}`, cells: v.lanes.map((x) => laneText(v.ty, x)) }] : []));
  const missing = views.flatMap((v, q) => (v.lanes ? [] : [`QPU ${q}: ${v.unavailable}\n`]));
  return `${name}\n${rows.length ? laneTable(rows) : ''}${missing.join('')}`;
}

/** A QPU's registers that hold something (emulator), in hex, and its flags. */
export function registersText(q: QpuSnapshot, all = false): string {
  if (!q.machine) return 'registers are the emulator\'s: debug with --target emulator\n';
  const rows: { label: string; cells: string[] }[] = [];
  for (const [name, lanes] of q.machine.registers) if (all || lanes.some((x) => x !== 0)) rows.push({ label: name, cells: Array.from(lanes, (x) => (x >>> 0).toString(16)) });
  for (const [name, f] of Object.entries(q.machine.flags)) rows.push({ label: name.toUpperCase(), cells: Array.from(f, String) });
  const [t0, t1] = q.machine.tmuQueued;
  return `QPU ${q.id}, pc ${q.pc}, cycle ${q.machine.cycles.toLocaleString('en-US')}, TMU results waiting: ${t0} on TMU0, ${t1} on TMU1; registers in hex${all ? '' : ' (those that hold only zeros left out)'}\n${laneTable(rows)}`;
}

/** VPM rows `from` to `from + count - 1` (emulator): 16 words a row, in hex. */
export function vpmText(vpm: Int32Array | undefined, from: number, count: number): string {
  if (!vpm) return 'the VPM is the emulator\'s: debug with --target emulator\n';
  const rows = vpm.length / LANES;
  if (!(from >= 0 && from < rows)) return `vpm ROW [COUNT]: ROW is 0 to ${rows - 1}\n`;
  const out: { label: string; cells: string[] }[] = [];
  for (let r = from; r < Math.min(rows, from + count); r++) out.push({ label: `row ${r}`, cells: Array.from(vpm.subarray(r * LANES, r * LANES + LANES), (x) => (x >>> 0).toString(16)) });
  return `the VPM's rows of 16 words (words in hex; column: the word in its row)\n${laneTable(out).replace(/^lane/, 'word')}`;
}
