import { describe, expect, it } from 'vitest';
import { DESCRIPTION_LENGTH, descriptionOf, previewOf } from './link-previews.js';

describe('link preview text', () => {
  it('folds whitespace and keeps a short text whole', () => {
    expect(descriptionOf('  First line\n\nsecond\tline  ')).toBe('First line second line');
  });

  it('cuts a long text at a word, within the length, with an ellipsis', () => {
    const text = 'word '.repeat(100);
    const description = descriptionOf(text);
    expect([...description].length).toBeLessThanOrEqual(DESCRIPTION_LENGTH);
    expect(description).toMatch(/^(word )+word…$/);
  });

  it('never cuts an emoji in half', () => {
    const description = descriptionOf('😀'.repeat(200));
    expect([...description]).toHaveLength(DESCRIPTION_LENGTH);
    expect(description.endsWith('😀…')).toBe(true);
  });

  it('takes the title and the plain text of the blocks', () => {
    const content = JSON.stringify([
      { type: 'heading', content: [{ type: 'text', text: 'Intro', styles: {} }], children: [] },
      { type: 'paragraph', content: [{ type: 'text', text: 'Hello there', styles: { bold: true } }], children: [] },
    ]);
    expect(previewOf({ title: ' Guide ', content })).toEqual({ title: 'Guide', description: 'Intro Hello there' });
    expect(previewOf({ title: '', content: 'not json' })).toEqual({ title: 'Untitled', description: '' });
  });
});
