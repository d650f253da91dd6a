// A checker of well-formed XML, enough for the hand-written SVG files in docs/img: elements,
// attributes, text, comments, an XML declaration, character and entity references. It returns
// the root element, or throws an error that names the line.

export interface XmlElement {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: XmlElement[];
  text: string;
  readonly line: number;
}

const NAME = /[A-Za-z_:][\w:.-]*/y;
const SPACE = /\s*/y;
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[\da-fA-F]+);/y;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(s: string): string {
  return s.replace(/&(#x[\da-fA-F]+|#\d+|\w+);/g, (_, e: string) =>
    e.startsWith('#x') ? String.fromCodePoint(parseInt(e.slice(2), 16)) : e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1))) : ENTITIES[e]!,
  );
}

export function parseXml(src: string): XmlElement {
  let pos = 0;
  const lineAt = (p: number) => src.slice(0, p).split('\n').length;
  const fail = (why: string, p = pos): never => {
    throw new Error(`line ${lineAt(p)}: ${why}`);
  };
  const match = (re: RegExp): string | undefined => {
    re.lastIndex = pos;
    const m = re.exec(src);
    if (!m) return undefined;
    pos += m[0].length;
    return m[0];
  };
  /** Text up to the next `<`, checking that every `&` starts a reference. */
  const text = (): string => {
    const start = pos;
    while (pos < src.length && src[pos] !== '<') {
      if (src[pos] === '&') {
        if (!match(ENTITY)) fail('an & that does not start an entity or character reference');
      } else pos++;
    }
    return src.slice(start, pos);
  };
  const misc = () => {
    for (;;) {
      match(SPACE);
      if (src.startsWith('<!--', pos)) {
        const end = src.indexOf('-->', pos + 4);
        if (end < 0) fail('a comment that never ends');
        if (src.slice(pos + 4, end).includes('--')) fail('"--" inside a comment');
        pos = end + 3;
      } else return;
    }
  };

  if (src.startsWith('\uFEFF')) pos = 1;
  if (src.startsWith('<?xml', pos)) {
    const end = src.indexOf('?>', pos);
    if (end < 0) fail('an XML declaration that never ends');
    pos = end + 2;
  }
  misc();
  if (src.startsWith('<!DOCTYPE', pos)) fail('a DOCTYPE (not needed for SVG, and not checked here)');

  const element = (): XmlElement => {
    const start = pos;
    if (src[pos] !== '<') fail('expected an element');
    pos++;
    const name = match(NAME) ?? fail('expected an element name');
    const attributes = new Map<string, string>();
    for (;;) {
      const space = match(SPACE)!;
      if (src.startsWith('/>', pos) || src[pos] === '>') break;
      if (!space) fail(`expected a space, '>' or '/>' in <${name}>`);
      const attr = match(NAME) ?? fail(`expected an attribute name in <${name}>`);
      match(SPACE);
      if (src[pos] !== '=') fail(`attribute ${attr} of <${name}> has no value`);
      pos++;
      match(SPACE);
      const quote = src[pos];
      if (quote !== '"' && quote !== "'") fail(`attribute ${attr} of <${name}>: the value must be quoted`);
      pos++;
      const vstart = pos;
      while (pos < src.length && src[pos] !== quote) {
        if (src[pos] === '<') fail(`a '<' in attribute ${attr} of <${name}>`);
        if (src[pos] === '&') {
          if (!match(ENTITY)) fail(`an & in attribute ${attr} of <${name}> that does not start a reference`);
        } else pos++;
      }
      if (pos >= src.length) fail(`attribute ${attr} of <${name}> never ends`);
      if (attributes.has(attr)) fail(`attribute ${attr} twice in <${name}>`);
      attributes.set(attr, decode(src.slice(vstart, pos)));
      pos++;
    }
    const el: XmlElement = { name, attributes, children: [], text: '', line: lineAt(start) };
    if (src.startsWith('/>', pos)) {
      pos += 2;
      return el;
    }
    pos++;
    for (;;) {
      el.text += decode(text());
      if (pos >= src.length) fail(`<${name}> is never closed`, start);
      if (src.startsWith('</', pos)) {
        pos += 2;
        const close = match(NAME);
        if (close !== name) fail(`</${close ?? ''}> closes <${name}> of line ${el.line}`);
        match(SPACE);
        if (src[pos] !== '>') fail(`expected '>' after </${name}`);
        pos++;
        return el;
      }
      if (src.startsWith('<!--', pos)) {
        misc();
        continue;
      }
      if (src.startsWith('<![CDATA[', pos) || src.startsWith('<?', pos) || src.startsWith('<!', pos)) fail('CDATA, processing instructions and declarations are not expected here');
      el.children.push(element());
    }
  };

  const root = element();
  misc();
  if (pos < src.length) fail('content after the root element');
  return root;
}

/** Every element of a tree, the root first. */
export function* elements(root: XmlElement): Generator<XmlElement> {
  yield root;
  for (const c of root.children) yield* elements(c);
}
