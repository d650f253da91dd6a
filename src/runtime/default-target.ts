// Where kernels run when a call does not say: on a Raspberry Pi whose QPUs this process can use
// (a Pi 1, 2, 3 or Zero with /dev/vcio, /dev/mem and the legacy graphics stack: pi/board.ts,
// where a session then opens: koffi loads, the firmware enables the QPUs), the pi target;
// anywhere else, the emulator. The QPU_TARGET environment variable (emulator,
// interpreter or pi) chooses instead. Decided once, on first use, and kept: SharedArrays are
// allocated where the default target's kernels read them (runtime/shared-array.ts).

import { detectBoard } from '../pi/board.ts';
import { piSession } from '../pi/session.ts';
import type { RunTarget } from './types.ts';

const TARGETS: readonly RunTarget[] = ['emulator', 'interpreter', 'pi'];

let chosen: { target: RunTarget; why: string } | undefined;
/** How the board is found (tests put a fake). */
let detect: typeof detectBoard = detectBoard;

/** The default target, and why it is the one (for docs and messages). */
export function defaultTarget(): { target: RunTarget; why: string } {
  if (chosen) return chosen;
  const env = process.env.QPU_TARGET;
  if (env !== undefined && env !== '') {
    if (!(TARGETS as readonly string[]).includes(env)) throw new Error(`QPU_TARGET=${env}: the targets are ${TARGETS.join(', ')}`);
    return (chosen = { target: env as RunTarget, why: `QPU_TARGET=${env}` });
  }
  const board = detect();
  if (!board.ok) return (chosen = { target: 'emulator', why: board.reason });
  // The board looks usable; the default is the pi target only if a session really opens (koffi
  // installed, the firmware enabling the QPUs). Else the emulator, said once.
  try {
    piSession();
    return (chosen = { target: 'pi', why: `this is a ${board.board.model} whose QPUs this process can use` });
  } catch (e) {
    const why = `the pi target could not start: ${(e as Error).message}`;
    process.stderr.write(`qpu-ts: kernels run on the emulator: ${why} (QPU_TARGET=emulator says so without this message)\n`);
    return (chosen = { target: 'emulator', why });
  }
}

/** Forgets the choice (tests that change QPU_TARGET), and sets how the board is found (tests: a fake). */
export function resetDefaultTarget(find: typeof detectBoard = detectBoard): void {
  chosen = undefined;
  detect = find;
}
