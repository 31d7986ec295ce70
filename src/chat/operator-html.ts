import { compile } from 'html-to-text';
import sanitizeHtml from 'sanitize-html';
import { type RichText, richTextOf } from './rich-text.ts';
import { IMAGE_SCHEMES, LINK_SCHEMES, allowedUrl } from './safe-url.ts';

// Operator HTML from Intercom made safe before it leaves the service (decision 023): an allow-list of
// elements and attributes, URL schemes checked twice (sanitize-html's check and our own parse), and the
// same HTML as a typed tree and as plain text.

/** Every rendered link gets it: no access to the opening page, no referrer, no endorsement. */
export const LINK_REL = 'noopener noreferrer nofollow';

const ALLOWED_TAGS = [
  'p',
  'div',
  'br',
  'b',
  'strong',
  'i',
  'em',
  'u',
  's',
  'strike',
  'del',
  'code',
  'pre',
  'ul',
  'ol',
  'li',
  'blockquote',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'a',
  'img',
];

/**
 * Elements whose text is dropped with them, not only the tags: script and style source, form fields,
 * and embedded documents (SVG, MathML, frames, objects), whose text is no part of the message.
 */
const DROPPED_WITH_TEXT = [
  'script',
  'style',
  'textarea',
  'option',
  'select',
  'xmp',
  'noscript',
  'noembed',
  'noframes',
  'template',
  'title',
  'head',
  'iframe',
  'frameset',
  'object',
  'embed',
  'svg',
  'math',
];

/** Deeper markup is unwrapped (text kept): bounds the work of anything that walks the result. */
const NESTING_LIMIT = 32;

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: { a: ['href', 'rel'], img: ['src', 'alt'] },
  allowedSchemes: [...LINK_SCHEMES],
  allowedSchemesByTag: { img: [...IMAGE_SCHEMES] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: DROPPED_WITH_TEXT,
  nestingLimit: NESTING_LIMIT,
  transformTags: {
    // Attributes rebuilt from scratch: only a checked, normalised URL, and our own rel; `target` goes,
    // as SDKs decide how a link opens (and the tree has no target either).
    a: (tagName, attribs): sanitizeHtml.Tag => {
      const href = allowedUrl(attribs['href'], LINK_SCHEMES);
      return { tagName, attribs: href === null ? {} : { href, rel: LINK_REL } };
    },
    img: (tagName, attribs): sanitizeHtml.Tag => {
      const kept: sanitizeHtml.Attributes = {};
      const src = allowedUrl(attribs['src'], IMAGE_SCHEMES);
      if (src !== null) kept['src'] = src;
      if (attribs['alt']) kept['alt'] = attribs['alt'];
      return { tagName, attribs: kept };
    },
  },
  // A link left without a URL keeps its text; an image without a source is nothing.
  exclusiveFilter: (frame) =>
    frame.tag === 'a' && !frame.attribs['href'] ? 'excludeTag' : frame.tag === 'img' && !frame.attribs['src'],
};

/** Operator (or any Intercom-held) HTML reduced to the allow-list of decision 023. */
export function sanitizeOperatorHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}

// Compiled once: html-to-text builds its selector tree per options object.
const toText = compile({
  wordwrap: false,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    // No "> " before quoted text and a bullet, not "*", before list items: a preview is for people.
    { selector: 'blockquote', format: 'block' },
    { selector: 'ul', options: { itemPrefix: '• ' } },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
});

/** The text of sanitised HTML on one line, as a list row shows it: white space collapsed, images left out. */
export function plainTextOf(html: string): string {
  return toText(html).replace(/\s+/g, ' ').trim();
}

export interface SafeBody {
  /** The sanitised HTML. */
  readonly body: string;
  /** The same as a typed tree. */
  readonly content: RichText;
}

/** What a message carries of its Intercom body: made once when the cache loads it, never per poll. */
export function safeBody(html: string): SafeBody {
  const body = sanitizeOperatorHtml(html);
  return { body, content: richTextOf(body) };
}
