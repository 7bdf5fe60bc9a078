import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { escapeHtml, inlineScriptHashes, withHeadTags } from './index-page.js';

const sha = (text: string) => `sha256-${createHash('sha256').update(text).digest('base64')}`;

describe('inline script hashes', () => {
  it('hash each inline script body exactly, skip scripts with a src and empty ones', () => {
    const html = [
      '<script>a()</script>',
      '<script type="module" src="/assets/x.js"></script>',
      '<SCRIPT type="importmap">{"imports":{}}</SCRIPT >',
      '<script>  </script>',
      '<script data-src="x">\n b() \n</script>',
      '<script>a()</script>',
    ].join('');
    expect(inlineScriptHashes(html)).toEqual([sha('a()'), sha('{"imports":{}}'), sha('\n b() \n')]);
  });
});

describe('head tags of a link preview', () => {
  const page = [
    '<!doctype html><html><head>',
    '<meta charset="utf-8">',
    '<title>Wiki</title>',
    '<meta name="description" content="A wiki">',
    '<meta property="og:title" content="Wiki">',
    '<script>x()</script>',
    '</head><body><div id="root"><svg><title>Logo</title></svg></div></body></html>',
  ].join('\n');

  it('replace the page title and description and add Open Graph tags, escaped', () => {
    const html = withHeadTags(page, { title: 'Q&A: "<script>" & \'more\'', description: 'Use <b> & </head> here' });
    expect(html.slice(0, html.indexOf('</head>')).match(/<title>/g)).toHaveLength(1);
    expect(html).toContain('<title>Q&#38;A: &#34;&#60;script&#62;&#34; &#38; &#39;more&#39;</title>');
    expect(html).toContain(
      '<meta property="og:title" content="Q&#38;A: &#34;&#60;script&#62;&#34; &#38; &#39;more&#39;">',
    );
    expect(html).toContain('<meta name="description" content="Use &#60;b&#62; &#38; &#60;/head&#62; here">');
    expect(html).toContain('<meta property="og:description" content="Use &#60;b&#62; &#38; &#60;/head&#62; here">');
    expect(html).toContain('<meta property="og:type" content="article">');
    expect(html).not.toContain('content="A wiki"');
    expect(html).not.toContain('content="Wiki"');
    // Everything else of the page stays, and the tags are inside its head.
    expect(html).toContain('<script>x()</script>');
    expect(html.indexOf('og:type')).toBeLessThan(html.indexOf('</head>'));
    expect(html).toContain('<body><div id="root"><svg><title>Logo</title></svg></div></body>');
  });

  it('leave the description out when the document has no text', () => {
    const html = withHeadTags(page, { title: 'Empty', description: '' });
    expect(html).not.toContain('description');
    expect(html).toContain('<title>Empty</title>');
  });

  it('escape the five characters that matter in text and attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;',
    );
  });
});
