import { isInlineImage, sniffMime } from './sniff.js';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('sniffMime', () => {
  it.each([
    ['png', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'rest'), 'image/png'],
    ['jpeg', bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF'), 'image/jpeg'],
    ['gif', bytes('GIF89a', [1, 0, 1, 0]), 'image/gif'],
    ['webp', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
    ['avif', bytes([0, 0, 0, 0x1c], 'ftypavif'), 'image/avif'],
    ['mp4', bytes([0, 0, 0, 0x18], 'ftypisom'), 'video/mp4'],
    ['pdf', bytes('%PDF-1.7\n'), 'application/pdf'],
    ['zip', bytes([0x50, 0x4b, 0x03, 0x04], 'x'), 'application/zip'],
    ['utf-8 text', Buffer.from('Grüße, 世界\n'), 'text/plain'],
    ['binary', bytes([0, 1, 2, 3, 0xfe]), 'application/octet-stream'],
  ])('%s', (_name, head, mime) => {
    expect(sniffMime(head)).toBe(mime);
  });

  it.each([
    ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
    [
      '\ufeff  <?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<SVG>',
    ],
  ])('SVG, also after a BOM, a declaration, comments and a doctype: %j', (text) => {
    expect(sniffMime(Buffer.from(text))).toBe('image/svg+xml');
  });

  it.each([
    ['<!DOCTYPE html><html><script>alert(1)</script>'],
    ['  \n<HTML>'],
    ['<script>alert(document.cookie)</script>'],
    ['<iframe src="https://evil.test">'],
    ['<!-- hi --><b>x</b>'],
  ])('HTML, however it opens: %j', (text) => {
    expect(sniffMime(Buffer.from(text))).toBe('text/html');
  });

  it('a GIF/HTML polyglot is a GIF (and so never served as a page)', () => {
    const polyglot = bytes('GIF89a/*', [1, 0, 1, 0], '*/=1;<html><script>alert(1)</script></html>');
    expect(sniffMime(polyglot)).toBe('image/gif');
  });

  it('an empty file is application/octet-stream', () => {
    expect(sniffMime(Buffer.alloc(0), 0)).toBe('application/octet-stream');
  });

  it('a UTF-8 character cut at the end of the head is still text', () => {
    const text = Buffer.from('ab€');
    expect(sniffMime(text.subarray(0, text.length - 1), 100)).toBe('text/plain');
  });
});

describe('isInlineImage', () => {
  it('only raster images are inline: not SVG, HTML or PDF', () => {
    expect(['image/png', 'image/jpeg', 'image/gif', 'image/webp'].every(isInlineImage)).toBe(true);
    expect(['image/svg+xml', 'text/html', 'application/pdf', 'application/octet-stream'].some(isInlineImage)).toBe(
      false,
    );
  });
});
