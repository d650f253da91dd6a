// After a run of compiled code: the failure records its assertions left at the start of its
// scratch memory (compiler/lower-checks.ts writes them), as the error the interpreter would
// raise (source/checks.ts), and the logs its prints left after them. Every target that runs compiled code asks this after the run, and
// before any other error the run ended with: a QPU that failed an assertion leaves the others
// waiting for it at a barrier or a semaphore, and the assertion is what went wrong first.

import type { Compiled } from '../compiler/driver.ts';
import { type AssertFailure, KernelAssertionError, PRINT_ROWS, type PrintLog, printRows } from '../source/checks.ts';
import { LOG_BYTES, ROW_BYTES } from '../compiler/lower-checks.ts';
import { LANES } from '../vc4/chip.ts';

/** The error for the records in `scratch` (the scratch memory's words), or undefined when no QPU failed. */
export function failedAssertions(c: Compiled, scratch: Int32Array): KernelAssertionError | undefined {
  const { sites, rows, texts } = c.assertions;
  if (!sites.length) return undefined;
  // Failures grouped by the user's assertion: a statement the compiler copied (a parallelFor's
  // last block, a pipelined loop's last iterations) is one assertion in several places.
  const bySite = new Map<string, { site: number; failures: AssertFailure[] }>();
  for (let q = 0; q < c.qpus; q++) {
    const at = q * rows * LANES;
    const header = scratch.subarray(at, at + LANES);
    const lanes = [...header.keys()].filter((l) => header[l] !== 0);
    if (!lanes.length) continue;
    const site = header[lanes[0]!]! - 1;
    if (!sites[site]) throw new Error(`internal: QPU ${q}'s failure record names assertion ${site}, and the kernel has ${sites.length}`);
    const values = sites[site]!.values.map((_, j) => scratch.slice(at + (1 + j) * LANES, at + (2 + j) * LANES));
    const key = `${sites[site]!.loc ?? ''} ${texts[site]}`;
    const group = bySite.get(key) ?? { site, failures: [] };
    group.failures.push({ qpu: q, lanes, values });
    bySite.set(key, group);
  }
  // The assertion the lowest-numbered failing QPU failed, with every QPU that failed it.
  const groups = [...bySite.values()].sort((a, b) => a.failures[0]!.qpu - b.failures[0]!.qpu);
  if (!groups.length) return undefined;
  const error = ({ site, failures }: { site: number; failures: AssertFailure[] }) => {
    const s = sites[site]!;
    return new KernelAssertionError(c.kernel, s.loc ?? '', texts[site]!, s.message, failures, s.names, s.values.map((v) => v.ty));
  };
  const out = error(groups[0]!);
  out.records = groups.flatMap((g) => error(g).records).sort((a, b) => a.qpu - b.qpu);
  return out;
}

/** What each QPU printed: its log in scratch memory after the failure records (lower-checks.ts). */
export function printLogs(c: Compiled, scratch: Int32Array): PrintLog[] {
  const { sites, offset } = c.prints;
  if (!sites.length) return [];
  const rowWords = ROW_BYTES / 4;
  return Array.from({ length: c.qpus }, (_, q) => {
    const at = offset / 4 + (q * LOG_BYTES) / 4;
    const log: PrintLog = { kept: [], ran: scratch[at]! };
    // The kept prints fill the rows after the count's in order; a row of zeros ends them.
    for (let row = 1; row <= PRINT_ROWS; ) {
      const site = scratch[at + row * rowWords]! - 1;
      const s = sites[site];
      if (!s) break;
      const values = s.values.map((_, j) => scratch.slice(at + (row + 1 + j) * rowWords, at + (row + 2 + j) * rowWords));
      log.kept.push({ s, values });
      row += printRows(s);
    }
    return log;
  });
}
