import { ConfigError } from '@wiki/config';
import { describe, expect, it } from 'vitest';
import { loadAttachmentSettings } from './settings.js';

describe('attachment settings', () => {
  it('default to 25 MiB uploads, metadata removed, images up to 50 million pixels', () => {
    expect(loadAttachmentSettings({})).toEqual({
      uploadMaxBytes: 25 * 1024 * 1024,
      keepMetadata: false,
      imageMaxPixels: 50_000_000,
      textExtraction: { maxChars: 1_000_000, timeoutMs: 30_000, maxHeapMiB: 256 },
    });
    expect(
      loadAttachmentSettings({
        UPLOAD_MAX_BYTES: '1024',
        ATTACHMENTS_KEEP_METADATA: 'true',
        ATTACHMENTS_IMAGE_MAX_PIXELS: '2000000',
      }),
    ).toMatchObject({ uploadMaxBytes: 1024, keepMetadata: true, imageMaxPixels: 2_000_000 });
  });

  it.each([
    ['UPLOAD_MAX_BYTES', '0'],
    ['ATTACHMENTS_KEEP_METADATA', 'maybe'],
    ['ATTACHMENTS_IMAGE_MAX_PIXELS', '999999'],
    ['ATTACHMENTS_TEXT_MAX_CHARS', '10'],
    ['ATTACHMENTS_TEXT_TIMEOUT_MS', 'soon'],
    ['ATTACHMENTS_TEXT_MAX_HEAP_MIB', '8'],
  ])('names the variable of a bad value: %s=%s', (name, value) => {
    expect(() => loadAttachmentSettings({ [name]: value })).toThrow(ConfigError);
    expect(() => loadAttachmentSettings({ [name]: value })).toThrow(name);
  });
});
