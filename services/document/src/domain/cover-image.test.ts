import { AppError } from '@wiki/http';
import { describe, expect, it } from 'vitest';
import { checkCoverImageUrl, isAcceptableCoverUrl } from './cover-image.js';

describe('coverImageUrl', () => {
  it('accepts absolute http(s) URLs and same-origin paths', () => {
    for (const ok of [
      'https://img.test/c.png',
      'http://img.test:8080/a/b.jpg?x=1#y',
      'HTTPS://IMG.TEST/C.PNG',
      '/api/v1/attachments/file?key=a%2Fb',
      '/',
    ]) {
      expect(isAcceptableCoverUrl(ok), ok).toBe(true);
    }
  });

  it('refuses other schemes, protocol-relative and relative URLs, and whitespace', () => {
    for (const bad of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:image/png;base64,AAAA',
      'vbscript:x',
      'ftp://img.test/c.png',
      '//evil.test/c.png',
      '/\\evil.test/c.png',
      '/\t/evil.test',
      ' https://img.test/c.png',
      'https:img.test/c.png',
      'https://',
      'img.test/c.png',
      'c.png',
      '',
    ]) {
      expect(isAcceptableCoverUrl(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('throws a 400 naming the field; null and absent pass', () => {
    expect(() => checkCoverImageUrl(null)).not.toThrow();
    expect(() => checkCoverImageUrl(undefined)).not.toThrow();
    try {
      checkCoverImageUrl('javascript:alert(1)');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('VALIDATION_ERROR');
      expect((error as AppError).details?.[0]?.field).toBe('coverImageUrl');
    }
  });
});
