import { describe, expect, it } from 'vitest';
import { snippetParts, unescapeHtml } from './snippet';

describe('snippetParts', () => {
  it('cuts a snippet into text and marked parts', () => {
    expect(snippetParts('a <mark>big</mark> step')).toEqual([
      { text: 'a ', marked: false },
      { text: 'big', marked: true },
      { text: ' step', marked: false },
    ]);
  });

  it('turns escapes back into the characters people typed, as text', () => {
    expect(snippetParts('&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; <mark>&#x27;hi&#39;</mark>')).toEqual([
      { text: '<img src=x onerror="alert(1)"> & ', marked: false },
      { text: "'hi'", marked: true },
    ]);
  });

  it('keeps tags other than mark as text', () => {
    expect(snippetParts('<b>x</b><mark><i>y</i></mark>')).toEqual([
      { text: '<b>x</b>', marked: false },
      { text: '<i>y</i>', marked: true },
    ]);
  });

  it('leaves unknown or out-of-range escapes as written', () => {
    expect(unescapeHtml('&nbsp; &#0; &#x110000; &copy;')).toBe('&nbsp; &#0; &#x110000; &copy;');
  });
});
