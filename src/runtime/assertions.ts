// After a run of compiled code: the failure records its assertions left at the start of its
// scratch memory (compiler/lower-checks.ts writes them), as the error the interpreter would
// raise (source/checks.ts). Every target that runs compiled code asks this after the run, and
// before any other error the run ended with: a QPU that failed an assertion leaves the others
// waiting for it at a barrier or a semaphore, and the assertion is what went wrong first.

import type { Compiled } from '../compiler/driver.ts';
import { type AssertFailure, KernelAssertionError } from '../source/checks.ts';
import { LANES } from '../vc4/chip.ts';

/** The error for the records in `scratch` (the scratch memory's words), or undefined when no QPU failed. */
export function failedAssertions(c: Compiled, scratch: Int32Array): KernelAssertionError | undefined {
  const { sites, rows, texts } = c.assertions;
  if (!sites.length) return undefined;
  const bySite = new Map<number, AssertFailure[]>();
  for (let q = 0; q < c.qpus; q++) {
    const at = q * rows * LANES;
    const header = scratch.subarray(at, at + LANES);
    const lanes = [...header.keys()].filter((l) => header[l] !== 0);
    if (!lanes.length) continue;
    const site = header[lanes[0]!]! - 1;
    if (!sites[site]) throw new Error(`internal: QPU ${q}'s failure record names assertion ${site}, and the kernel has ${sites.length}`);
    const values = sites[site]!.values.map((_, j) => scratch.slice(at + (1 + j) * LANES, at + (2 + j) * LANES));
    bySite.set(site, [...(bySite.get(site) ?? []), { qpu: q, lanes, values }]);
  }
  // The assertion the lowest-numbered failing QPU failed, with every QPU that failed it.
  const first = [...bySite.entries()].sort((a, b) => a[1][0]!.qpu - b[1][0]!.qpu)[0];
  if (!first) return undefined;
  const error = (site: number, failures: AssertFailure[]) => {
    const s = sites[site]!;
    return new KernelAssertionError(c.kernel, s.loc ?? '', texts[site]!, s.message, failures, s.names, s.values.map((v) => v.ty));
  };
  const out = error(first[0], first[1]);
  out.records = [...bySite].flatMap(([site, failures]) => error(site, failures).records).sort((a, b) => a.qpu - b.qpu);
  return out;
}
