// Reading the documents' markdown for the docs tests: fenced code blocks with the HTML
// comment that marks them, and links.
//
// A marker is an HTML comment on its own line, which GitHub does not show, just before a block:
//   <!-- run: NAME.ts -->        a complete program: the test writes it as NAME.ts and runs it
//   <!-- file: NAME.ts -->       a module that programs import: written, not run on its own
//   <!-- output -->              the block after it is what the program before it prints, exactly
//   <!-- output: approximate 2-3 --> the same, but on lines 2 to 3 of the output (a list of
//                                lines and ranges: `1,3-4`) numbers may differ by up to 25%:
//                                cycle counts and times, which change when the compiler or
//                                the cycle model does. Results belong on the other lines.

export interface Block {
  /** The fence's info string: `ts`, `text`, or empty. */
  readonly lang: string;
  readonly code: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The marker comment just before the block (blank lines between are allowed), if any. */
  readonly marker?: string;
}

/** Every fenced code block (``` fences) of a markdown text, in order. */
export function codeBlocks(md: string): Block[] {
  const lines = md.split('\n');
  const blocks: Block[] = [];
  let marker: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const comment = /^<!--\s*(.*?)\s*-->\s*$/.exec(line);
    if (comment) {
      marker = comment[1];
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    if (fence) {
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
      if (i >= lines.length) throw new Error(`line ${start + 1}: a code block that is never closed`);
      blocks.push({ lang: fence[1]!, code: body.join('\n') + '\n', line: start + 1, marker });
      marker = undefined;
      continue;
    }
    if (line.trim() !== '') marker = undefined;
  }
  return blocks;
}

/** The targets of markdown links and images, `[text](target)` and `![alt](target)`, outside code blocks. */
export function links(md: string): { target: string; image: boolean; line: number }[] {
  const out: { target: string; image: boolean; line: number }[] = [];
  let inCode = false;
  md.split('\n').forEach((line, i) => {
    if (/^```/.test(line)) inCode = !inCode;
    if (inCode) return;
    const text = line.replace(/`[^`]*`/g, '');
    for (const m of text.matchAll(/(!?)\[[^\]]*\]\(([^)\s]+)\)/g)) out.push({ target: m[2]!, image: m[1] === '!', line: i + 1 });
  });
  return out;
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown text's headings, in order (outside code blocks). */
export function headingAnchors(md: string): string[] {
  const out: string[] = [];
  let inCode = false;
  for (const line of md.split('\n')) {
    if (/^```/.test(line)) inCode = !inCode;
    const h = !inCode && /^#{1,6}\s+(.*)$/.exec(line);
    if (h) out.push(headingAnchor(h[1]!));
  }
  return out;
}

/** The anchors of a markdown text's headings, as a set. */
export function anchors(md: string): Set<string> {
  return new Set(headingAnchors(md));
}

/** The 1-based line numbers a list such as `2-3` or `1,4-5` names. */
export function lineSet(list: string): Set<number> {
  const out = new Set<number>();
  for (const part of list.split(',')) {
    const m = /^\s*(\d+)(?:\s*-\s*(\d+))?\s*$/.exec(part);
    if (!m) throw new Error(`not a list of lines: ${JSON.stringify(list)}`);
    for (let i = Number(m[1]); i <= Number(m[2] ?? m[1]); i++) out.add(i);
  }
  return out;
}

/**
 * Whether a program's output matches what the text shows: a reason if not. Trailing spaces
 * and trailing blank lines are ignored. On the lines in `approximate` (1-based), the text
 * between numbers must be the same up to spaces, and each number within 25% of the one shown.
 */
export function outputMatches(got: string, want: string, approximate: ReadonlySet<number> = new Set()): string | undefined {
  const norm = (s: string) => s.replace(/[ \t]+$/gm, '').replace(/\n+$/, '').split('\n');
  const g = norm(got), w = norm(want);
  if (g.length !== w.length) return `${g.length} lines printed, ${w.length} shown`;
  for (let i = 0; i < w.length; i++) {
    if (g[i] === w[i]) continue;
    if (!approximate.has(i + 1)) return `line ${i + 1}: printed ${JSON.stringify(g[i])}, shown ${JSON.stringify(w[i])}`;
    const number = /\d[\d,]*(?:\.\d+)?/g;
    const gt = g[i]!.split(number), wt = w[i]!.split(number);
    const gn = g[i]!.match(number) ?? [], wn = w[i]!.match(number) ?? [];
    const close = gn.every((s, k) => {
      const a = Number(s.replace(/,/g, '')), b = Number(wn[k]!.replace(/,/g, ''));
      return Math.abs(a - b) <= 0.25 * Math.abs(b);
    });
    const sameText = gt.length === wt.length && gt.every((t, k) => t.trim() === wt[k]!.trim());
    if (!sameText || gn.length !== wn.length || !close) return `line ${i + 1}: printed ${JSON.stringify(g[i])}, shown ${JSON.stringify(w[i])} (numbers may differ by 25%)`;
  }
  return undefined;
}
