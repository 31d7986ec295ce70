import { describe, expect, it } from 'vitest';
import { lastMessageOf, previewOf } from '../../src/chat/conversation-views.ts';
import { plainTextOf, safeBody, sanitizeOperatorHtml } from '../../src/chat/operator-html.ts';
import { type Inline, richTextOf, richTextSchema } from '../../src/chat/rich-text.ts';
import { allowedUrl, IMAGE_SCHEMES, LINK_SCHEMES } from '../../src/chat/safe-url.ts';

const REL = 'rel="noopener noreferrer nofollow"';
const text = (value: string, ...marks: ('bold' | 'italic' | 'underline' | 'strike' | 'code')[]) =>
  marks.length === 0 ? { type: 'text' as const, text: value } : { type: 'text' as const, text: value, marks };
const paragraph = (...children: Inline[]) => ({ type: 'paragraph' as const, children });

describe('sanitizeOperatorHtml: hostile operator HTML', () => {
  // Each case: what an operator (or anyone able to write into Intercom) might send, and exactly what
  // leaves the service.
  it.each([
    ['a script element, source and all', '<p>Hi</p><script>alert(1)</script>', '<p>Hi</p>'],
    ['a script with a source', '<script src="https://evil.example/x.js"></script>ok', 'ok'],
    ['onerror on an image without a valid source', '<img src=x onerror=alert(1)>', ''],
    [
      'onerror on an image with a valid source',
      '<img src="https://cdn.example.com/a.png" onerror="alert(1)" alt="A pic">',
      '<img src="https://cdn.example.com/a.png" alt="A pic" />',
    ],
    ['onclick on a paragraph', '<p onclick="steal()" class="c" dir="rtl">hi</p>', '<p>hi</p>'],
    ['a javascript: link', '<a href="javascript:alert(1)">click</a>', 'click'],
    ['a javascript: link in mixed case', '<a href="JaVaScRiPt:alert(1)">click</a>', 'click'],
    ['an entity-encoded javascript: link', '<a href="jav&#x61;script:alert(1)">click</a>', 'click'],
    [
      'a javascript: link spelled in decimal entities',
      '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">click</a>',
      'click',
    ],
    ['a javascript&colon; link', '<a href="javascript&colon;alert(1)">click</a>', 'click'],
    ['a javascript: link behind spaces', '<a href="  javascript:alert(1)">click</a>', 'click'],
    ['a javascript: link split by a tab', '<a href="java&#x09;script:alert(1)">click</a>', 'click'],
    [
      'a javascript: link behind a control character',
      '<a href="\u0001javascript:alert(1)">click</a>',
      'click',
    ],
    ['a vbscript: link', '<a href="vbscript:msgbox(1)">click</a>', 'click'],
    ['a data: link', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>', 'x'],
    ['a data: image', '<img src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=">', ''],
    ['a DATA: image in capitals', '<IMG SRC="DATA:image/png;base64,AAAA">', ''],
    ['a javascript: image', '<IMG SRC=JaVaScRiPt:alert(1)>', ''],
    ['a mailto: image (images are http and https only)', '<img src="mailto:a@example.com">', ''],
    [
      'SVG with a script inside',
      '<svg onload=alert(1)><script>alert(1)</script><text>hi</text></svg>ok',
      'ok',
    ],
    ['an iframe', '<iframe src="https://evil.example"></iframe>after', 'after'],
    [
      'a style element and a style attribute',
      '<style>p{display:none}</style><p style="color:red">s</p>',
      '<p>s</p>',
    ],
    [
      'a form with fields',
      '<form action="https://evil.example"><input name=a><button formaction=javascript:alert(1)>Go</button></form>',
      'Go',
    ],
    ['a textarea with a script', '<textarea><script>alert(1)</script></textarea>ok', 'ok'],
    ['nested tag tricks', '<scr<script>ipt>alert(1)</script>', 'ipt&gt;alert(1)'],
    ['unclosed tags', '<p>unclosed <b>bold <i>both', '<p>unclosed <b>bold <i>both</i></b></p>'],
    ['an HTML comment hiding a script', '<!-- <script>alert(1)</script> -->ok', 'ok'],
    ['a noscript breakout', '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>', ''],
    ['MathML and style confusion', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', ''],
    [
      'base, meta refresh and a stylesheet link',
      '<base href="javascript:alert(1)//"><meta http-equiv="refresh" content="0;url=javascript:alert(1)">' +
        '<link rel=stylesheet href=https://x.example/s.css>ok',
      'ok',
    ],
    [
      'object, embed, video and audio',
      '<object data="x">o</object><embed src="x"><video><source onerror=alert(1)></video>',
      '',
    ],
    ['details with ontoggle', '<details open ontoggle=alert(1)><summary>s</summary>d</details>', 'sd'],
    [
      'a link with target, an event handler and its own rel',
      '<a href="https://example.com/x" target="_blank" onclick="steal()" rel="opener">link</a>',
      `<a href="https://example.com/x" ${REL}>link</a>`,
    ],
    ['a protocol-relative link', '<a href="//evil.example/x">x</a>', 'x'],
    ['a relative link', '<a href="/account">x</a>', 'x'],
    [
      'a quote breaking out of the attribute',
      '<a href="https://ok.example/?q=&quot;onmouseover=alert(1)">x</a>',
      `<a href="https://ok.example/?q=%22onmouseover=alert(1)" ${REL}>x</a>`,
    ],
    [
      'an image attribute that carries a URL of its own',
      '<img src="https://ok.example/a.png" srcset="javascript:alert(1)" style="x">',
      '<img src="https://ok.example/a.png" />',
    ],
  ])('%s', (_name, dirty, clean) => {
    expect(sanitizeOperatorHtml(dirty)).toBe(clean);
  });

  it('keeps the allow-list: formatting, lists, quotes, code, headings, links and images', () => {
    const html =
      '<h2>Steps</h2><p><b>bold</b> <strong>strong</strong> <i>i</i> <em>em</em> <u>u</u> <s>s</s> ' +
      '<strike>strike</strike> <del>del</del> <code>code</code><br>next</p>' +
      '<ol><li>one</li><li>two<ul><li>inner</li></ul></li></ol><blockquote><p>quoted</p></blockquote>' +
      '<pre><code>a &lt; b\n  c</code></pre><div><img src="https://cdn.example.com/i.png" alt="pic"></div>' +
      '<p><a href="mailto:help@example.com">mail</a> <a href="tel:+15551234">call</a> <a href="http://example.com">web</a></p>';
    expect(sanitizeOperatorHtml(html)).toBe(
      '<h2>Steps</h2><p><b>bold</b> <strong>strong</strong> <i>i</i> <em>em</em> <u>u</u> <s>s</s> ' +
        '<strike>strike</strike> <del>del</del> <code>code</code><br />next</p>' +
        '<ol><li>one</li><li>two<ul><li>inner</li></ul></li></ol><blockquote><p>quoted</p></blockquote>' +
        '<pre><code>a &lt; b\n  c</code></pre><div><img src="https://cdn.example.com/i.png" alt="pic" /></div>' +
        `<p><a href="mailto:help@example.com" ${REL}>mail</a> <a href="tel:+15551234" ${REL}>call</a> ` +
        `<a href="http://example.com/" ${REL}>web</a></p>`,
    );
  });

  it('unwraps what is not on the list, keeping its text, and escapes text', () => {
    expect(
      sanitizeOperatorHtml('<table><tr><td>cell</td></tr></table><span class="x">s</span> 1 &lt; 2 &amp; 3'),
    ).toBe('cells 1 &lt; 2 &amp; 3');
  });

  it('bounds nesting: markup deeper than 32 elements is unwrapped, its text kept', () => {
    const deep = `${'<div>'.repeat(200)}deep${'</div>'.repeat(200)}`;
    const clean = sanitizeOperatorHtml(deep);
    expect(clean).toBe(`${'<div>'.repeat(32)}deep${'</div>'.repeat(32)}`);
    expect(richTextOf(clean)).toEqual([paragraph(text('deep'))]);
  });
});

describe('allowedUrl', () => {
  it.each([
    ['https://example.com/a?b=c#d', LINK_SCHEMES, 'https://example.com/a?b=c#d'],
    ['HTTPS://Example.COM', LINK_SCHEMES, 'https://example.com/'],
    ['  http://example.com/x  ', LINK_SCHEMES, 'http://example.com/x'],
    ['mailto:help@example.com', LINK_SCHEMES, 'mailto:help@example.com'],
    ['tel:+15551234', LINK_SCHEMES, 'tel:+15551234'],
    ['java\tscript:alert(1)', LINK_SCHEMES, null],
    ['javascript:alert(1)', LINK_SCHEMES, null],
    ['ftp://example.com/f', LINK_SCHEMES, null],
    ['/relative', LINK_SCHEMES, null],
    ['//example.com/x', LINK_SCHEMES, null],
    ['http://[::1', LINK_SCHEMES, null],
    ['mailto:help@example.com', IMAGE_SCHEMES, null],
    ['data:image/png;base64,AAAA', IMAGE_SCHEMES, null],
    [undefined, LINK_SCHEMES, null],
  ])('%s', (raw, schemes, expected) => {
    expect(allowedUrl(raw, schemes)).toBe(expected);
  });
});

describe('richTextOf: the typed tree', () => {
  it('builds paragraphs with marks, breaks and links, white space as a browser shows it', () => {
    const tree = richTextOf(
      '<p>  Hello   <b>bold <i>both</i></b> and <a href="https://example.com/x">a <u>link</u><br>on two</a> lines<br></p>\n' +
        '<p><code>npm ci</code> <s>old</s></p>',
    );
    expect(tree).toEqual([
      paragraph(
        text('Hello '),
        text('bold ', 'bold'),
        text('both', 'bold', 'italic'),
        text(' and '),
        {
          type: 'link',
          href: 'https://example.com/x',
          children: [text('a '), text('link', 'underline'), { type: 'break' }, text('on two')],
        },
        text(' lines'),
      ),
      paragraph(text('npm ci', 'code'), text(' '), text('old', 'strike')),
    ]);
    expect(richTextSchema.parse(tree)).toEqual(tree);
  });

  it('builds lists (nested, ordered or not), quotes, code blocks, headings and images', () => {
    const tree = richTextOf(
      '<h3>Title</h3><ul><li>one</li><li>two<ol><li>inner</li></ol></li></ul>' +
        '<blockquote><p>said</p><ul><li>x</li></ul></blockquote>' +
        '<pre><code>\nconst a = 1;\n  b &lt; c<br>d</code></pre>' +
        '<div><img src="https://cdn.example.com/i.png" alt=" a   pic "></div><img src="https://cdn.example.com/j.png">',
    );
    expect(tree).toEqual([
      { type: 'heading', level: 3, children: [text('Title')] },
      {
        type: 'list',
        ordered: false,
        items: [
          { children: [paragraph(text('one'))] },
          {
            children: [
              paragraph(text('two')),
              { type: 'list', ordered: true, items: [{ children: [paragraph(text('inner'))] }] },
            ],
          },
        ],
      },
      {
        type: 'quote',
        children: [
          paragraph(text('said')),
          { type: 'list', ordered: false, items: [{ children: [paragraph(text('x'))] }] },
        ],
      },
      { type: 'code', text: 'const a = 1;\n  b < c\nd' },
      { type: 'image', url: 'https://cdn.example.com/i.png', alt: 'a pic' },
      { type: 'image', url: 'https://cdn.example.com/j.png' },
    ]);
    expect(richTextSchema.parse(tree)).toEqual(tree);
  });

  it('splits a paragraph around an image, and groups adjacent text of one link', () => {
    expect(
      richTextOf(
        '<p>before<img src="https://cdn.example.com/i.png">after</p>' +
          '<p><a href="https://a.example">one</a><a href="https://a.example">two</a></p>',
      ),
    ).toEqual([
      paragraph(text('before')),
      { type: 'image', url: 'https://cdn.example.com/i.png' },
      paragraph(text('after')),
      paragraph({ type: 'link', href: 'https://a.example/', children: [text('onetwo')] }),
    ]);
  });

  it('leaves out what shows nothing: empty paragraphs, lists and quotes, comments', () => {
    expect(
      richTextOf('<p> </p><p><br></p><ul><li> </li></ul><blockquote></blockquote><!-- c --><pre></pre>'),
    ).toEqual([]);
  });

  it('is safe on its own, even given HTML that was never sanitised', () => {
    expect(
      richTextOf(
        '<script>alert(1)</script><style>p{}</style><a href="jav&#x61;script:alert(1)">x</a>' +
          '<img src="data:image/png;base64,AAAA"><img src=x onerror=alert(1)><a href="/relative">y</a>',
      ),
    ).toEqual([paragraph(text('xy'))]);
  });
});

describe('safeBody', () => {
  it('gives the sanitised HTML and the tree built from it, for operator and user HTML alike', () => {
    const operator = safeBody(
      '<p onclick="x">See <a href="https://help.example.com/a" target="_blank">this</a></p><script>x</script>',
    );
    expect(operator).toEqual({
      body: `<p>See <a href="https://help.example.com/a" ${REL}>this</a></p>`,
      content: [
        paragraph(text('See '), {
          type: 'link',
          href: 'https://help.example.com/a',
          children: [text('this')],
        }),
      ],
    });
    // A user's own text, as the service escaped it for Intercom: its characters stay characters.
    expect(safeBody('<p>Hello &lt;b&gt;team&lt;/b&gt;<br>second line</p>')).toEqual({
      body: '<p>Hello &lt;b&gt;team&lt;/b&gt;<br />second line</p>',
      content: [paragraph(text('Hello <b>team</b>'), { type: 'break' }, text('second line'))],
    });
  });

  it('makes an empty body an empty tree', () => {
    expect(safeBody('')).toEqual({ body: '', content: [] });
  });
});

describe('plain text and previews', () => {
  it('reads sanitised HTML as one line of text: no markup, no URLs, entities decoded', () => {
    expect(
      plainTextOf(
        sanitizeOperatorHtml(
          '<h2>Order</h2><p>It ships <b>today</b> &amp; arrives <a href="https://t.example/1">tomorrow</a>.<br>Thanks</p>' +
            '<ul><li>one</li><li>two</li></ul><ol><li>first</li></ol><blockquote>quoted</blockquote>' +
            '<img src="https://cdn.example.com/i.png" alt="pic"><p>1 &lt; 2</p>',
        ),
      ),
    ).toBe('Order It ships today & arrives tomorrow. Thanks • one • two 1. first quoted 1 < 2');
  });

  it('cuts previews to 140 characters, by code points, and falls back to an attachment name', () => {
    const attachments = [{ name: 'receipt.pdf', url: 'https://x.example/r', contentType: 'application/pdf' }];
    expect(previewOf({ body: `<p>${'😀'.repeat(200)}</p>`, attachments: [] })).toBe(`${'😀'.repeat(139)}…`);
    expect(previewOf({ body: '<p><br></p>', attachments })).toBe('receipt.pdf');
    expect(previewOf({ body: '<img src="https://cdn.example.com/i.png">', attachments: [] })).toBe('');
  });

  it('makes the list row of a conversation from its last message', () => {
    const message = {
      id: 'm2',
      author: { type: 'operator' as const, name: 'Ann' },
      ...safeBody('<p>Try <b>this</b><script>x</script></p>'),
      attachments: [],
      createdAt: '2025-01-01T00:00:00.000Z',
    };
    const view = {
      id: 'c1',
      state: 'open' as const,
      createdAt: message.createdAt,
      updatedAt: message.createdAt,
      rated: false,
      messages: [message],
    };
    expect(lastMessageOf(view)).toEqual({
      id: 'm2',
      author: { type: 'operator', name: 'Ann' },
      preview: 'Try this',
      createdAt: message.createdAt,
    });
    expect(lastMessageOf({ ...view, messages: [] })).toBeUndefined();
  });
});
