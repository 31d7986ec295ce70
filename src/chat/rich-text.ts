import { ElementType, parseDocument } from 'htmlparser2';
import { z } from 'zod';
import { IMAGE_SCHEMES, LINK_SCHEMES, allowedUrl } from './safe-url.ts';

// A message body as a typed tree (decision 023), so that every SDK renders the same thing without parsing
// HTML. Built from the sanitised HTML; the builder also checks every URL itself and knows only the
// elements below, so it stays safe even if handed HTML that was not sanitised.

export const markSchema = z
  .enum(['bold', 'italic', 'underline', 'strike', 'code'])
  .meta({ id: 'RichTextMark' });
export type Mark = z.infer<typeof markSchema>;

export const textSchema = z
  .object({
    type: z.literal('text'),
    text: z.string(),
    /** Absent when the text is plain; otherwise in the order of the enum, each once. */
    marks: z.array(markSchema).optional(),
  })
  .meta({ id: 'RichTextText' });

export const breakSchema = z.object({ type: z.literal('break') }).meta({ id: 'RichTextBreak' });

export const linkSchema = z
  .object({
    type: z.literal('link'),
    href: z.url({ protocol: /^(https?|mailto|tel)$/ }).describe('Absolute; https, http, mailto or tel only'),
    /** Links do not nest: a link holds text and line breaks. */
    children: z.array(z.discriminatedUnion('type', [textSchema, breakSchema])),
  })
  .meta({ id: 'RichTextLink' });

export const inlineSchema = z
  .discriminatedUnion('type', [textSchema, linkSchema, breakSchema])
  .meta({ id: 'RichTextInline' });
export type Inline = z.infer<typeof inlineSchema>;

const paragraphSchema = z
  .object({ type: z.literal('paragraph'), children: z.array(inlineSchema) })
  .meta({ id: 'RichTextParagraph' });

const headingSchema = z
  .object({
    type: z.literal('heading'),
    level: z.number().int().min(1).max(6),
    children: z.array(inlineSchema),
  })
  .meta({ id: 'RichTextHeading' });

const codeSchema = z
  .object({
    type: z.literal('code'),
    text: z.string().describe('Preformatted: white space and newlines kept'),
  })
  .meta({ id: 'RichTextCode' });

const imageSchema = z
  .object({
    type: z.literal('image'),
    url: z.url({ protocol: /^https?$/ }).describe('Absolute; https or http only'),
    alt: z.string().optional(),
  })
  .meta({ id: 'RichTextImage' });

// Lists and quotes hold blocks, so the block type refers to itself: zod 4 getters keep the recursion lazy
// and let the type be inferred (and the OpenAPI document gets a $ref to the component).
const quoteSchema = z
  .object({
    type: z.literal('quote'),
    get children(): z.ZodArray<typeof blockSchema> {
      return z.array(blockSchema);
    },
  })
  .meta({ id: 'RichTextQuote' });

const listItemSchema = z
  .object({
    get children(): z.ZodArray<typeof blockSchema> {
      return z.array(blockSchema);
    },
  })
  .meta({ id: 'RichTextListItem' });

const listSchema = z
  .object({ type: z.literal('list'), ordered: z.boolean(), items: z.array(listItemSchema) })
  .meta({ id: 'RichTextList' });

export const blockSchema = z
  .discriminatedUnion('type', [
    paragraphSchema,
    headingSchema,
    listSchema,
    codeSchema,
    quoteSchema,
    imageSchema,
  ])
  .meta({ id: 'RichTextBlock' });
export type Block = z.infer<typeof blockSchema>;

/** A message body as blocks, top to bottom. */
export const richTextSchema = z.array(blockSchema).meta({ id: 'RichText' });
export type RichText = z.infer<typeof richTextSchema>;

type DomNode = ReturnType<typeof parseDocument>['children'][number];

const MARK_ORDER = markSchema.options;
const MARK_OF: Readonly<Record<string, Mark>> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  s: 'strike',
  strike: 'strike',
  del: 'strike',
  code: 'code',
};
const HEADING_LEVEL: Readonly<Record<string, number>> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

/** What applies to the text inside an element: its marks and the link it is in. */
interface Style {
  readonly marks: readonly Mark[];
  readonly href: string | null;
}
const PLAIN: Style = { marks: [], href: null };

type Leaf =
  | { readonly kind: 'text'; text: string; readonly style: Style }
  | { readonly kind: 'break'; readonly style: Style };

/** The HTML white space a browser collapses (not U+00A0, which is meant to stay). */
const HTML_SPACE = /[ \t\n\r\f]+/g;

/** Collects blocks; inline content between blocks gathers into a paragraph (or the open heading). */
class Blocks {
  readonly blocks: Block[] = [];
  private leaves: Leaf[] = [];
  heading: number | null = null;

  text(data: string, style: Style): void {
    this.leaves.push({ kind: 'text', text: data.replace(HTML_SPACE, ' '), style });
  }

  lineBreak(style: Style): void {
    this.leaves.push({ kind: 'break', style });
  }

  block(block: Block): void {
    this.flush();
    this.blocks.push(block);
  }

  flush(): void {
    const children = inlinesOf(this.leaves);
    this.leaves = [];
    if (children.length === 0) return;
    this.blocks.push(
      this.heading === null
        ? { type: 'paragraph', children }
        : { type: 'heading', level: this.heading, children },
    );
  }
}

/**
 * The tree of HTML that went through `sanitizeOperatorHtml`. Elements it does not know are unwrapped
 * (their text kept), comments dropped, links and images with a URL outside the allow-list lose the link
 * (the text stays) or are left out.
 */
export function richTextOf(html: string): RichText {
  return blocksOf(parseDocument(html).children, PLAIN);
}

function blocksOf(nodes: readonly DomNode[], style: Style): Block[] {
  const out = new Blocks();
  for (const node of nodes) walk(node, out, style);
  out.flush();
  return out.blocks;
}

function walk(node: DomNode, out: Blocks, style: Style): void {
  if (node.type === ElementType.Text) {
    out.text(node.data, style);
    return;
  }
  // Comments, CDATA, directives, and script or style elements (which sanitised HTML never has) show nothing.
  if (node.type !== ElementType.Tag) return;
  const tag = node.name;
  const children = node.children;
  const walkChildren = (inner: Style) => {
    for (const child of children) walk(child, out, inner);
  };
  const mark = MARK_OF[tag];
  if (mark !== undefined) {
    walkChildren(style.marks.includes(mark) ? style : { ...style, marks: [...style.marks, mark] });
    return;
  }
  const level = HEADING_LEVEL[tag];
  if (level !== undefined) {
    out.flush();
    const outer = out.heading;
    out.heading = level;
    walkChildren(style);
    out.flush();
    out.heading = outer;
    return;
  }
  switch (tag) {
    case 'br':
      out.lineBreak(style);
      return;
    case 'a':
      // The innermost link wins, as a click would; one outside the allow-list keeps only its text.
      walkChildren({ ...style, href: allowedUrl(node.attribs['href'], LINK_SCHEMES) ?? style.href });
      return;
    case 'img': {
      const url = allowedUrl(node.attribs['src'], IMAGE_SCHEMES);
      const alt = (node.attribs['alt'] ?? '').replace(HTML_SPACE, ' ').trim();
      if (url !== null) out.block({ type: 'image', url, ...(alt === '' ? {} : { alt }) });
      return;
    }
    case 'pre': {
      const text = preformatted(children).replace(/^\r?\n/, '');
      if (text !== '') out.block({ type: 'code', text });
      return;
    }
    case 'blockquote': {
      const inner = blocksOf(children, style);
      if (inner.length > 0) out.block({ type: 'quote', children: inner });
      return;
    }
    case 'ul':
    case 'ol': {
      const items = itemsOf(children, style);
      if (items.length > 0) out.block({ type: 'list', ordered: tag === 'ol', items });
      return;
    }
    case 'p':
    case 'div':
    case 'li':
      out.flush();
      walkChildren(style);
      out.flush();
      return;
    default:
      walkChildren(style);
  }
}

/** A list's items; anything between `li`s but white space becomes an item of its own. */
function itemsOf(nodes: readonly DomNode[], style: Style): { children: Block[] }[] {
  const items: { children: Block[] }[] = [];
  let stray: DomNode[] = [];
  const flushStray = () => {
    const children = blocksOf(stray, style);
    if (children.length > 0) items.push({ children });
    stray = [];
  };
  for (const node of nodes) {
    if (node.type === ElementType.Tag && node.name === 'li') {
      flushStray();
      const children = blocksOf(node.children, style);
      if (children.length > 0) items.push({ children });
    } else {
      stray.push(node);
    }
  }
  flushStray();
  return items;
}

/** The text of a `pre` as written: white space kept, `br` as a newline, markup inside dropped. */
function preformatted(nodes: readonly DomNode[]): string {
  let text = '';
  for (const node of nodes) {
    if (node.type === ElementType.Text) text += node.data;
    else if (node.type === ElementType.Tag) text += node.name === 'br' ? '\n' : preformatted(node.children);
  }
  return text;
}

/**
 * Leaves as a browser shows them: white space collapsed across elements and trimmed at the start and
 * end of each line, trailing breaks dropped (they show nothing), adjacent text of one style merged, and
 * consecutive leaves of one link grouped under it. No visible text: no inlines.
 */
function inlinesOf(leaves: readonly Leaf[]): Inline[] {
  const kept: Leaf[] = [];
  let lineStart = true;
  for (const leaf of leaves) {
    if (leaf.kind === 'break') {
      kept.push(leaf);
      lineStart = true;
      continue;
    }
    const before = kept.at(-1);
    const afterSpace = lineStart || (before?.kind === 'text' && before.text.endsWith(' '));
    const text = afterSpace ? leaf.text.trimStart() : leaf.text;
    if (text === '') continue;
    kept.push({ ...leaf, text });
    lineStart = false;
  }
  let lineEnd = true;
  for (let index = kept.length - 1; index >= 0; index -= 1) {
    const leaf = kept[index];
    if (leaf === undefined) continue;
    if (leaf.kind === 'break') {
      if (index === kept.length - 1) kept.pop();
      lineEnd = true;
      continue;
    }
    if (!lineEnd) continue;
    leaf.text = leaf.text.replace(/ +$/, '');
    if (leaf.text === '') kept.splice(index, 1);
    else lineEnd = false;
  }
  if (!kept.some((leaf) => leaf.kind === 'text')) return [];

  const inlines: Inline[] = [];
  for (const leaf of kept) {
    const target = containerFor(inlines, leaf.style.href);
    if (leaf.kind === 'break') {
      target.push({ type: 'break' });
      continue;
    }
    const marks = MARK_ORDER.filter((mark) => leaf.style.marks.includes(mark));
    const previous = target.at(-1);
    if (previous?.type === 'text' && sameMarks(previous.marks ?? [], marks)) {
      previous.text += leaf.text;
    } else {
      target.push({ type: 'text', text: leaf.text, ...(marks.length === 0 ? {} : { marks }) });
    }
  }
  return inlines;
}

type LinkChildren = Extract<Inline, { type: 'link' }>['children'];

/** Where a leaf goes: the paragraph itself, the link it continues, or a new link. */
function containerFor(inlines: Inline[], href: string | null): Inline[] | LinkChildren {
  if (href === null) return inlines;
  const last = inlines.at(-1);
  if (last?.type === 'link' && last.href === href) return last.children;
  const children: LinkChildren = [];
  inlines.push({ type: 'link', href, children });
  return children;
}

const sameMarks = (a: readonly Mark[], b: readonly Mark[]) =>
  a.length === b.length && a.every((mark, index) => mark === b[index]);
