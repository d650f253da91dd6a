// Which pages of GPU memory are free: GpuMemory (memory.ts) asks for runs of whole pages and
// gives them back, and freed runs are handed out again. First fit, lowest address first: a run is
// taken from the lowest free range that holds it, else from the top (pages never used yet). A
// run given back merges with the free ranges beside it, and free pages at the top lower the top,
// so that a program that allocates and frees the same sizes over and over (a frame loop) keeps
// using the same pages, and mixed sizes stay within a small multiple of what is live at once.
// Needs: nothing. Guarantees: a page is in at most one run handed out; `top` and `highWater` say
// how far use has reached (highWater: ever).

export class PageRuns {
  /** Free ranges below `top`: sorted, disjoint and never adjacent (neighbours are merged); [start, end) in pages. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** The first page not in use and above every free range: pages from here on have never been used or are all free. */
  top = 0;
  /** The highest `top` has been. */
  highWater = 0;

  /** `limit`: pages there are in all. */
  constructor(readonly limit: number) {}

  /** The first page of `n` free pages in a row, now in use; -1 when no run that long is free. */
  take(n: number): number {
    const { starts, ends } = this;
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i]!;
      if (ends[i]! - start < n) continue;
      if (ends[i]! - start === n) {
        starts.splice(i, 1);
        ends.splice(i, 1);
      } else starts[i] = start + n;
      return start;
    }
    if (this.top + n > this.limit) return -1;
    const start = this.top;
    this.top += n;
    this.highWater = Math.max(this.highWater, this.top);
    return start;
  }

  /** Gives back `n` pages from `first`, which take() handed out and which are not free already. */
  give(first: number, n: number): void {
    const { starts, ends } = this;
    let start = first;
    let end = first + n;
    // i: the first free range after the one given back.
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! < start) lo = mid + 1;
      else hi = mid;
    }
    let i = lo;
    if (i > 0 && ends[i - 1] === start) {
      i--;
      start = starts[i]!;
      starts.splice(i, 1);
      ends.splice(i, 1);
    }
    if (i < starts.length && starts[i] === end) {
      end = ends[i]!;
      starts.splice(i, 1);
      ends.splice(i, 1);
    }
    if (end === this.top) this.top = start;
    else {
      starts.splice(i, 0, start);
      ends.splice(i, 0, end);
    }
  }

  /** Free pages in all, and the longest run of free pages (the pages above the top included). */
  free(): { pages: number; longest: number } {
    let pages = 0;
    let longest = this.limit - this.top;
    for (let i = 0; i < this.starts.length; i++) {
      const n = this.ends[i]! - this.starts[i]!;
      pages += n;
      longest = Math.max(longest, n);
    }
    return { pages: pages + this.limit - this.top, longest };
  }
}
