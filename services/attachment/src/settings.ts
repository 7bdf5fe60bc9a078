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
}

/** Read by buildApp; a bad value names its variable (ConfigError). */
export function loadAttachmentSettings(env: Env): AttachmentSettings {
  const read = readEnv(env, {
    UPLOAD_MAX_BYTES: wholeNumber(25 * 1024 * 1024, { min: 1 }),
    ATTACHMENTS_KEEP_METADATA: flag(false),
    ATTACHMENTS_IMAGE_MAX_PIXELS: wholeNumber(50_000_000, { min: 1_000_000, max: 1_000_000_000 }),
  });
  return {
    uploadMaxBytes: read.UPLOAD_MAX_BYTES,
    keepMetadata: read.ATTACHMENTS_KEEP_METADATA,
    imageMaxPixels: read.ATTACHMENTS_IMAGE_MAX_PIXELS,
  };
}
