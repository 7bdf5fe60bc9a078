import { describe, expect, it } from 'vitest';
import { ApiError } from './client';
import { importSizeError, jobStartErrorMessage } from './jobs';

describe('why an import is refused, in words', () => {
  it('refuses a file past the server’s limit before uploading it, and lets one at the limit through', () => {
    expect(importSizeError({ name: 'big.md', size: 4097 }, 4096)).toBe(
      '“big.md” is too large to import: files may be at most 4.0 KB.',
    );
    expect(importSizeError({ name: 'fits.md', size: 4096 }, 4096)).toBeNull();
  });

  it('says the limit a 413 names, and the default when it names none', () => {
    const named = new ApiError(413, 'PAYLOAD_TOO_LARGE', 'The file is too large (at most 8192 bytes)');
    expect(jobStartErrorMessage(named, 'import', 'a.zip')).toBe(
      '“a.zip” is too large to import: files may be at most 8.0 KB.',
    );
    const bare = new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Too large');
    expect(jobStartErrorMessage(bare, 'import', 'a.zip')).toBe(
      '“a.zip” is too large to import: files may be at most 256.0 MB.',
    );
  });
});
