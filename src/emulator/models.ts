// The Raspberry Pi models whose GPU is a VideoCore IV, for the cycle model (docs/timing.md, "Each
// Pi model"). They share one V3D design (the same QPUs, TMUs, caches and DMA engines: no source
// reports a difference), and differ in the clocks and memory around it: the V3D clock that turns
// cycles into seconds, the SDRAM's speed, and whether GPU memory goes through the VideoCore's
// 128 KiB system cache. A figure set in nanoseconds (the SDRAM's) is in cycles of each model's
// clock; a figure of the V3D itself (the TMU, the caches, the DMA engines) is the same number of
// cycles on every model.
//
// Sources, per figure:
// - V3D clock (v3d_freq's default), SDRAM clock (sdram_freq's): Raspberry Pi's config.txt
//   documentation, "Overclocking options". The current page says 400 MHz for the Pi 3 and 3B+;
//   the page of the Pi 3's time (raspberrypi/documentation, configuration/config-txt/
//   overclocking.md before 2021) says 300, as the 2018 "Raspberry Pi Beginner's Guide" (App. F)
//   does for the 3B+'s 3D clock, and V3DLib's FAQ for the Pi 3 (28.8 GFLOPS peak). qpu-ts
//   follows the documentation of the Pi 3's time: 300. The old page gives the Pi 2's SDRAM 400
//   MHz, the new 450: 400 here. Every model's minimum (the clock when the ARM is idle) is 250.
// - SDRAM: LPDDR2 on a 32-bit bus on every model (the memory parts are x32; no Pi document
//   states the width): 8 bytes a memory clock at its peak (double data rate).
// - The 128 KiB system cache: on the BCM2835 (Pi 1, Zero) the ARM's memory goes through it too
//   ("the L2 cache benefits only Raspberry Pi Zero/Zero W/Pi 1", config.txt's core_freq); the
//   BCM2836/7 and RP3A0 give the ARM its own L2, and the Linux device trees map their memory at
//   the uncached alias (0xC0000000), as hello_fft allocates GPU memory there (gpu_fft_base.c).

/** A Pi model with a VideoCore IV: `--model` on the command line, `{ model }` in the API. */
export type PiModelName = 'zero' | '1' | '2' | '3' | '3b+' | 'zero2';

export interface PiModel {
  readonly name: PiModelName;
  /** The board, as people name it. */
  readonly board: string;
  /** Its short name in a sentence ("1.2 ms on a Pi 3 B+"). */
  readonly short: string;
  readonly chip: 'BCM2835' | 'BCM2836' | 'BCM2837' | 'BCM2837B0' | 'RP3A0';
  /** The V3D clock (v3d_freq's default), in Hz. */
  readonly v3dHz: number;
  /** The SDRAM's clock (sdram_freq's default), in Hz; it moves 8 bytes a clock at its peak. */
  readonly sdramHz: number;
  /** Whether GPU memory is allocated through the VideoCore's 128 KiB system cache, which the ARM shares (BCM2835 only). */
  readonly systemCache: boolean;
}

const MHZ = 1e6;

export const PI_MODELS: Readonly<Record<PiModelName, PiModel>> = {
  zero: { name: 'zero', board: 'Raspberry Pi Zero or Zero W', short: 'Pi Zero', chip: 'BCM2835', v3dHz: 300 * MHZ, sdramHz: 450 * MHZ, systemCache: true },
  '1': { name: '1', board: 'Raspberry Pi 1', short: 'Pi 1', chip: 'BCM2835', v3dHz: 250 * MHZ, sdramHz: 400 * MHZ, systemCache: true },
  '2': { name: '2', board: 'Raspberry Pi 2 B', short: 'Pi 2', chip: 'BCM2836', v3dHz: 250 * MHZ, sdramHz: 400 * MHZ, systemCache: false },
  '3': { name: '3', board: 'Raspberry Pi 3 B', short: 'Pi 3', chip: 'BCM2837', v3dHz: 300 * MHZ, sdramHz: 450 * MHZ, systemCache: false },
  '3b+': { name: '3b+', board: 'Raspberry Pi 3 B+ or 3 A+', short: 'Pi 3 B+', chip: 'BCM2837B0', v3dHz: 300 * MHZ, sdramHz: 500 * MHZ, systemCache: false },
  zero2: { name: 'zero2', board: 'Raspberry Pi Zero 2 W', short: 'Pi Zero 2 W', chip: 'RP3A0', v3dHz: 300 * MHZ, sdramHz: 450 * MHZ, systemCache: false },
};

export const PI_MODEL_NAMES: readonly PiModelName[] = ['zero', '1', '2', '3', '3b+', 'zero2'];

/**
 * The model estimates are for unless told otherwise: the Pi 1, on which the timings the model
 * was checked against were published (QPULib's, the SHA-256 series', GPU_FFT's).
 */
export const DEFAULT_MODEL: PiModelName = '1';

/** Whether `name` is a model's name. */
export const isPiModel = (name: unknown): name is PiModelName => typeof name === 'string' && Object.hasOwn(PI_MODELS, name);

/** The model named `name`, or a RangeError listing the names. */
export function piModel(name: string): PiModel {
  if (!isPiModel(name)) throw new RangeError(`no Pi model '${name}': the models are ${PI_MODEL_NAMES.join(', ')}`);
  return PI_MODELS[name];
}

/**
 * The model of the board a device tree names (/proc/device-tree/model: "Raspberry Pi 3 Model B
 * Rev 1.2", as the firmware sets it from the board's revision code), or undefined for a board no
 * model here stands for (a Compute Module: its clocks are set by its carrier's config.txt) or
 * no Raspberry Pi. The strings' forms: Raspberry Pi's device trees (linux, arch/arm/boot/dts:
 * bcm2835-rpi-*.dts, bcm2836-rpi-2-b.dts, bcm2837-rpi-3-*.dts, bcm2837-rpi-zero-2-w.dts).
 */
export function modelOfBoard(deviceTreeModel: string): PiModelName | undefined {
  const m = /^Raspberry Pi (.*)$/.exec(deviceTreeModel.trim());
  if (!m) return undefined;
  const name = m[1]!;
  if (/^Compute Module/.test(name)) return undefined;
  if (/^Zero 2/.test(name)) return 'zero2';
  if (/^Zero\b/.test(name)) return 'zero';
  if (/^2 Model B\b/.test(name)) return '2';
  if (/^3 Model [AB] Plus\b/.test(name)) return '3b+';
  if (/^3 Model B\b/.test(name)) return '3';
  if (/^Model [AB]\b/.test(name)) return '1'; // Model A, B, A+, B+ (BCM2835)
  return undefined;
}
