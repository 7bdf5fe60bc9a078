/** What a page of the app answers (503) while WEB_DIR holds no build: the API works regardless. */
export function notBuiltPage(): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><title>Wiki: the web app is not built</title></head>',
    '<body>',
    '<h1>The web app is not built</h1>',
    '<p>The gateway found no build of the browser app. Run <code>npm run build</code> (or <code>npm start</code>,',
    'which builds it) and reload this page. The API is running: see <a href="/docs-ui">/docs-ui</a>.</p>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
