// The documents hold together: every SVG in docs/img is well-formed XML that GitHub shows
// readably, every image and relative link of the docs resolves, the assembly in qpu.md
// assembles, and no document or bench cites the figures file outside the repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { assemble } from 'qpu-ts/asm';
import { anchors, codeBlocks, headingAnchor, headingAnchors, lineSet, links, outputMatches } from './markdown.ts';
import { elements, parseXml } from './xml.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const SVGS = readdirSync(join(ROOT, 'docs/img'))
  .filter((f) => f.endsWith('.svg'))
  .map((f) => `docs/img/${f}`);
/** The documents this test checks link by link, anchors included. */
const OWN = ['docs/qpu.md', 'docs/tutorial.md', 'docs/comparisons.md'];

test('every SVG in docs/img is well-formed XML, an <svg> GitHub can show on a light or dark page', () => {
  assert.ok(SVGS.length >= 5, `only ${SVGS.length} SVG files`);
  for (const file of SVGS) {
    const root = parseXml(read(file));
    assert.equal(root.name, 'svg', `${file}: the root element is <${root.name}>`);
    assert.equal(root.attributes.get('xmlns'), 'http://www.w3.org/2000/svg', `${file}: the SVG namespace`);
    const [w, h] = [Number(root.attributes.get('width')), Number(root.attributes.get('height'))];
    assert.ok(w > 0 && h > 0, `${file}: width and height`);
    assert.equal(root.attributes.get('viewBox'), `0 0 ${w} ${h}`, `${file}: a viewBox the size of the picture, so that it scales`);
    const all = [...elements(root)];
    assert.ok(all.some((e) => e.name === 'title' && e.text.trim().length > 20), `${file}: a <title> that says what the picture shows`);
    // An opaque background: without it, dark text would vanish on GitHub's dark theme.
    const bg = root.children.find((e) => e.name === 'rect');
    assert.ok(
      bg && bg.attributes.get('width') === String(w) && bg.attributes.get('height') === String(h) && bg.attributes.get('fill') === '#ffffff',
      `${file}: its first rectangle is a white background the size of the picture`,
    );
    for (const e of all) {
      assert.ok(!['script', 'foreignObject', 'image', 'style'].includes(e.name), `${file}:${e.line}: <${e.name}> (GitHub strips it or it needs other files)`);
      for (const [k, v] of e.attributes) {
        assert.ok(!/^on/i.test(k), `${file}:${e.line}: event attribute ${k}`);
        if (k === 'href' || k === 'xlink:href') assert.ok(v.startsWith('#'), `${file}:${e.line}: a link to another file (${v})`);
        if (/url\(/.test(v)) assert.match(v, /^url\(#[\w-]+\)$/, `${file}:${e.line}: ${k} refers outside the file`);
      }
    }
    const ids = new Set(all.map((e) => e.attributes.get('id')).filter(Boolean));
    for (const e of all)
      for (const v of e.attributes.values()) {
        const ref = /^url\(#([\w-]+)\)$/.exec(v);
        if (ref) assert.ok(ids.has(ref[1]), `${file}:${e.line}: url(#${ref[1]}) names no element`);
      }
  }
});

test('the XML checker rejects what is not well-formed', () => {
  const bad = [
    '<svg><g></svg>',
    '<svg a="1" a="2"/>',
    '<svg a=1/>',
    '<svg>a & b</svg>',
    '<svg><text>1 < 2</text></svg>',
    '<svg/><svg/>',
    '<svg><!-- a -- b --></svg>',
    '<svg x="<"/>',
  ];
  for (const s of bad) assert.throws(() => parseXml(s), Error, s);
  const ok = parseXml('<?xml version="1.0"?>\n<!-- c -->\n<svg a="x &amp; y"><text>1 &lt; 2</text><g/></svg>\n');
  assert.equal(ok.attributes.get('a'), 'x & y');
  assert.equal(ok.children[0]!.text, '1 < 2');
});

test('every picture is used, and every image in the docs and the README exists', () => {
  const texts = [...DOCS, 'README.md'].map((f) => ({ file: f, md: read(f) }));
  for (const { file, md } of texts)
    for (const l of links(md).filter((l) => l.image && !/^[a-z]+:/.test(l.target))) {
      const path = normalize(join(dirname(file), l.target));
      assert.ok(existsSync(join(ROOT, path)), `${file}:${l.line}: image ${l.target} does not exist`);
    }
  for (const svg of SVGS) {
    const name = svg.slice('docs/'.length);
    assert.ok(
      texts.some(({ md }) => md.includes(`(${name})`)),
      `${svg} is not shown by any document`,
    );
  }
});

test('the links of qpu.md, tutorial.md and comparisons.md lead to files and headings that exist', () => {
  for (const file of OWN) {
    const md = read(file);
    const names = headingAnchors(md);
    assert.equal(new Set(names).size, names.length, `${file}: two headings with the same anchor (${names.filter((n, i) => names.indexOf(n) !== i)})`);
    for (const l of links(md)) {
      if (/^[a-z]+:/.test(l.target)) continue; // http:, https:, mailto:
      const [path, anchor] = l.target.split('#') as [string, string | undefined];
      const target = path ? normalize(join(dirname(file), path)) : file;
      assert.ok(existsSync(join(ROOT, target)), `${file}:${l.line}: ${l.target}: ${target} does not exist`);
      if (anchor !== undefined && target.endsWith('.md'))
        assert.ok(anchors(read(target)).has(anchor), `${file}:${l.line}: ${l.target}: no heading of ${target} has the anchor #${anchor}`);
    }
  }
  assert.equal(headingAnchor('Load pipelining (`pipeline`, from `-O2`)'), 'load-pipelining-pipeline-from--o2');
  assert.equal(headingAnchor('1. saxpy, 16 elements at a time'), '1-saxpy-16-elements-at-a-time');
});

test('the assembly in qpu.md assembles', () => {
  const asm = codeBlocks(read('docs/qpu.md')).filter((b) => b.lang === '');
  assert.ok(asm.length >= 4, 'qpu.md shows assembly');
  for (const b of asm) assert.doesNotThrow(() => assemble(b.code), `docs/qpu.md:${b.line}`);
});

test('no bench or document cites ../shared/anchors.md, which is not in the repository: the figures are in docs/comparisons.md', () => {
  const files = [...DOCS, ...readdirSync(join(ROOT, 'bench')).filter((f) => f.endsWith('.ts')).map((f) => `bench/${f}`)];
  for (const f of files) assert.ok(!read(f).includes('shared/anchors.md'), `${f} cites ../shared/anchors.md`);
  const comparisons = read('docs/comparisons.md');
  for (const figure of ['600,046', '420,057', '1,530,198', '49.34', '3,575', '3.1 million']) assert.ok(comparisons.includes(figure), `comparisons.md has ${figure}`);
});

test('the tutorial test compares output exactly, and numbers within 25% only on the lines it is told', () => {
  assert.equal(outputMatches('a 1\nb 2\n', 'a 1\nb 2'), undefined);
  assert.equal(outputMatches('a 1  \n\n', 'a 1'), undefined);
  assert.match(outputMatches('a 1\n', 'a 2')!, /line 1/);
  assert.match(outputMatches('a 1\nb\n', 'a 1')!, /2 lines printed, 1 shown/);
  const lines = lineSet('2-3');
  assert.deepEqual([...lineSet('1,3-4')], [1, 3, 4]);
  assert.equal(outputMatches('sum 10\ncycles: 1,200\n  12  99.0 us', 'sum 10\ncycles: 1,000\n 12 100.0 us', lines), undefined);
  assert.match(outputMatches('sum 11\ncycles: 1000', 'sum 10\ncycles: 1000', lines)!, /line 1/);
  assert.match(outputMatches('sum 10\ncycles: 1300', 'sum 10\ncycles: 1000', lines)!, /line 2/);
  assert.match(outputMatches('sum 10\ncycle: 1000', 'sum 10\ncycles: 1000', lines)!, /line 2/);
});

test('the markdown reader finds fenced blocks and the marker before each', () => {
  const md = ['text', '<!-- run: a.ts -->', '', '```ts', 'x', '```', 'prose', '', '```', 'y', '```', ''].join('\n');
  const b = codeBlocks(md);
  assert.deepEqual(
    b.map((x) => [x.lang, x.code, x.line, x.marker]),
    [
      ['ts', 'x\n', 4, 'run: a.ts'],
      ['', 'y\n', 9, undefined],
    ],
  );
  assert.throws(() => codeBlocks('```ts\nx\n'), /never closed/);
});
