import { type Env, flag, readEnv, wholeNumber } from '@wiki/config';

/** What the attachment service reads besides the shared configuration (libs/config). */
export interface AttachmentSettings {
  /** The largest upload (UPLOAD_MAX_BYTES, default 25 MiB); larger is 413. */
  uploadMaxBytes: number;
  /**
   * ATTACHMENTS_KEEP_METADATA=true stores JPEG, PNG and WebP uploads as sent; by default their
   * EXIF (GPS included), XMP, IPTC and text chunks are removed and their orientation applied.
   */
  keepMetadata: boolean;
  /**
   * The most pixels (all frames) an image cleaned on upload may have (ATTACHMENTS_IMAGE_MAX_PIXELS,
   * default 50 million; WebP a quarter of it): what bounds the memory cleaning takes. Larger is 413.
   */
  imageMaxPixels: number;
  /** Text extraction for search (ARCHITECTURE 5.20), per file: see commands/extract-text.ts. */
  textExtraction: {
    /** ATTACHMENTS_TEXT_MAX_CHARS (default 1,000,000): characters kept of a file's text. */
    maxChars: number;
    /** ATTACHMENTS_TEXT_TIMEOUT_MS (default 30 s): wall-clock time per file. */
    timeoutMs: number;
    /** ATTACHMENTS_TEXT_MAX_HEAP_MIB (default 256): heap of the extraction's worker thread. */
    maxHeapMiB: number;
  };
}

/** Read by buildApp; a bad value names its variable (ConfigError). */
export function loadAttachmentSettings(env: Env): AttachmentSettings {
  const read = readEnv(env, {
    UPLOAD_MAX_BYTES: wholeNumber(25 * 1024 * 1024, { min: 1 }),
    ATTACHMENTS_KEEP_METADATA: flag(false),
    ATTACHMENTS_IMAGE_MAX_PIXELS: wholeNumber(50_000_000, { min: 1_000_000, max: 1_000_000_000 }),
    ATTACHMENTS_TEXT_MAX_CHARS: wholeNumber(1_000_000, { min: 1_000, max: 50_000_000 }),
    ATTACHMENTS_TEXT_TIMEOUT_MS: wholeNumber(30_000, { min: 1_000, max: 600_000 }),
    ATTACHMENTS_TEXT_MAX_HEAP_MIB: wholeNumber(256, { min: 32, max: 4096 }),
  });
  return {
    uploadMaxBytes: read.UPLOAD_MAX_BYTES,
    keepMetadata: read.ATTACHMENTS_KEEP_METADATA,
    imageMaxPixels: read.ATTACHMENTS_IMAGE_MAX_PIXELS,
    textExtraction: {
      maxChars: read.ATTACHMENTS_TEXT_MAX_CHARS,
      timeoutMs: read.ATTACHMENTS_TEXT_TIMEOUT_MS,
      maxHeapMiB: read.ATTACHMENTS_TEXT_MAX_HEAP_MIB,
    },
  };
}
