import { describe, expect, it } from 'vitest';
import { isAppRoute, isGatewayPath, looksLikeFile, relativeFilePath } from './paths.js';

const seg = (path: string) => path.split('/').filter(Boolean);

describe('web app paths', () => {
  it.each([
    ['/api/v1/x', true],
    ['/api', true],
    ['/collab', true],
    ['/docs-ui/index.html', true],
    ['/health/live', true],
    ['/actuator/health', true],
    ['/auth/config', true],
    ['/auth/dev/sign-in', true],
    ['/auth/callback', false],
    ['/auth/callback/more', true],
    ['/', false],
    ['/w/x', false],
    ['/favicon.ico', false],
  ])("%s is the gateway's own: %s", (path, own) => {
    expect(isGatewayPath(seg(path))).toBe(own);
  });

  it.each([
    ['/', true],
    ['/w/x/d/y', true],
    ['/invite/tok', true],
    ['/p/id', true],
    ['/settings', true],
    ['/sign-in', true],
    ['/auth/callback', true],
    ['/settings/x', false],
    ['/robots.txt', false],
  ])('%s is a page of the app: %s', (path, page) => {
    expect(isAppRoute(seg(path))).toBe(page);
  });

  it('tells files from pages and keeps hidden names and separators out', () => {
    expect(looksLikeFile(seg('/robots.txt'))).toBe(true);
    expect(looksLikeFile(seg('/some/page'))).toBe(false);
    expect(relativeFilePath(['icons', 'a.png'])).toBe('icons/a.png');
    expect(relativeFilePath(['.env'])).toBeUndefined();
    expect(relativeFilePath(['a', '.git', 'config'])).toBeUndefined();
    expect(relativeFilePath(['a/b'])).toBeUndefined();
    expect(relativeFilePath(['a\\b'])).toBeUndefined();
    expect(relativeFilePath(['a\0'])).toBeUndefined();
    expect(relativeFilePath([])).toBeUndefined();
  });
});
