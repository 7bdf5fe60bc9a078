import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The inline script of the stand-in build's index.html (a theme applied before first paint). */
export const THEME_SCRIPT = "document.documentElement.dataset.theme = localStorage.getItem('theme') || 'light';";

export interface WebBuild {
  dir: string;
  indexHtml: string;
  /** Writes (or replaces) a file of the build. */
  write(relative: string, content: string): void;
  remove(): void;
}

/**
 * A stand-in for what `vite build` writes (`web/dist`): index.html with an inline script, a title
 * and a description of its own, hashed files under assets/, and files at the root. `script` is the
 * body of the app's module (assets/app-3f9a1c.js).
 */
export function makeWebBuild(script = "document.body.dataset.ready = 'yes';"): WebBuild {
  const dir = mkdtempSync(join(tmpdir(), 'wiki-web-'));
  const write = (relative: string, content: string) => {
    mkdirSync(join(dir, relative, '..'), { recursive: true });
    writeFileSync(join(dir, relative), content);
  };
  const indexHtml = [
    '<!doctype html>',
    '<html lang="en">',
    '  <head>',
    '    <meta charset="UTF-8">',
    '    <title>Wiki</title>',
    '    <meta name="description" content="A wiki">',
    `    <script>${THEME_SCRIPT}</script>`,
    '    <script type="module" crossorigin src="/assets/app-3f9a1c.js"></script>',
    '    <link rel="stylesheet" crossorigin href="/assets/app-3f9a1c.css">',
    '  </head>',
    '  <body><div id="root"></div></body>',
    '</html>',
    '',
  ].join('\n');
  write('index.html', indexHtml);
  write('assets/app-3f9a1c.js', script);
  write('assets/app-3f9a1c.css', 'body { margin: 0 }');
  write('robots.txt', 'User-agent: *\nDisallow: /w/\n');
  write('silent-renew.html', '<!doctype html><title>renew</title>');
  write('.env', 'SECRET=1');
  return { dir, indexHtml, write, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
