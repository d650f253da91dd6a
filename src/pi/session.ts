// The process's use of the Pi's QPUs: the device opened once, the QPUs enabled, GPU memory
// allocated as kernels need it, and everything given back on every way out of the process
// (memory released, QPUs disabled, the device closed): at a normal exit, after an uncaught
// error, and on SIGINT, SIGTERM and SIGHUP. A process killed with SIGKILL cannot clean up; its
// GPU memory stays lost until the Pi reboots (nothing in the kernel frees it: the vcio driver
// keeps no per-process state).
// Needs: a way to open the device (koffi-device.ts on a Pi; a test device in tests).
// Guarantees: one session at a time; `endPiSession` leaves nothing allocated or enabled.

import { detectBoard } from './board.ts';
import type { Board, PiDevice } from './device.ts';
import { Mailbox } from './mailbox.ts';
import { PiMemory } from './memory.ts';
import { loadKoffiOpenerSync } from './koffi-device.ts';

export interface PiSession {
  readonly device: PiDevice;
  readonly mailbox: Mailbox;
  readonly memory: PiMemory;
}

/** Opens the Pi's device for a board (koffi-device.ts; tests put their own). */
export type DeviceOpener = (board: Board) => PiDevice;

let opener: DeviceOpener | undefined;
let current: PiSession | undefined;
let hooked = false;

/** Sets how the device is opened (tests: a recording device); ends any session first. */
export function usePiDevice(open: DeviceOpener | undefined): void {
  endPiSession();
  opener = open;
}

/**
 * The session, opened on first use: the board detected (a test device brings its own), the
 * device opened, the QPUs enabled. Throws with the reason when this machine cannot run QPU code.
 */
export function piSession(): PiSession {
  if (current) return current;
  const open = opener ?? defaultOpener();
  const found = opener ? undefined : detectBoard();
  if (found && !found.ok) throw new Error(`the pi target cannot run here: ${found.reason}`);
  const device = open(found?.ok ? found.board : TEST_BOARD);
  const mailbox = new Mailbox(device);
  try {
    mailbox.enableQpus(true);
  } catch (e) {
    device.close();
    throw e;
  }
  current = { device, mailbox, memory: new PiMemory(device, mailbox) };
  hookExit();
  return current;
}

/** Whether a session is open (so memory and QPUs are in use). */
export function piSessionOpen(): boolean {
  return current !== undefined;
}

/**
 * Releases every allocation, disables the QPUs and closes the device, going on past failures;
 * returns what failed, one message each (empty when all went well).
 */
export function endPiSession(): string[] {
  const s = current;
  if (!s) return [];
  current = undefined;
  const failed = s.memory.releaseAll();
  for (const [what, step] of [
    ['disable the QPUs', () => s.mailbox.enableQpus(false)],
    ['close the device', () => s.device.close()],
  ] as const)
    try {
      step();
    } catch (e) {
      failed.push(`${what}: ${(e as Error).message}`);
    }
  return failed;
}

/** The board a test device stands for when it brings none (a Pi 3's figures). */
const TEST_BOARD: Board = { model: 'test device', soc: 'BCM2837', peripheralBase: 0x3f000000, memFlags: 0x4 };

/** The real device (koffi-device.ts): koffi, an optional dependency, is loaded on first use only. */
let realOpener: DeviceOpener | undefined;
function defaultOpener(): DeviceOpener {
  return (board) => (realOpener ??= loadKoffiOpenerSync())(board);
}

/**
 * Clean-up on every way out; a signal is re-raised afterwards so the exit status stays the
 * signal's. A program with its own handler for the signal keeps it: clean-up then comes at exit.
 */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  const report = (failed: string[]) => {
    for (const f of failed) process.stderr.write(`qpu-ts: cleaning up the Pi's GPU: ${f}\n`);
  };
  process.on('exit', () => report(endPiSession()));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = () => {
      // The program handles this signal itself (and may go on): clean-up waits for its exit.
      if (process.listenerCount(signal) > 1) return;
      report(endPiSession());
      process.off(signal, handler);
      process.kill(process.pid, signal);
    };
    process.on(signal, handler);
  }
}
