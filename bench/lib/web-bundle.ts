import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface BundleFile {
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface BundleReport {
  /** The JavaScript a browser loads before the editor: index.html's module script and its static imports. */
  initial: BundleFile[];
  initialGzipBytes: number;
  /** The editor's own chunks (CollaborativeEditor's lazy chunk and what it alone imports). */
  editor: BundleFile[];
  editorGzipBytes: number;
}

/** The `./x.js` modules a built chunk imports statically (`import … from"./x.js"`, `import"./x.js"`). */
function staticImports(source: string): string[] {
  return [...source.matchAll(/(?:\bfrom|\bimport)\s*["']\.\/([^"']+\.js)["']/g)].map((m) => m[1]);
}

/** Every file reachable from `start` through static imports, in assets/. */
function closure(assets: string, start: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...staticImports(readFileSync(join(assets, file), 'utf8')));
  }
  return seen;
}

function measure(assets: string, files: Iterable<string>): BundleFile[] {
  return [...files]
    .map((file) => {
      const content = readFileSync(join(assets, file));
      return { file, bytes: content.byteLength, gzipBytes: gzipSync(content, { level: 9 }).byteLength };
    })
    .sort((a, b) => b.gzipBytes - a.gzipBytes);
}

const sum = (files: BundleFile[]) => files.reduce((total, f) => total + f.gzipBytes, 0);

/**
 * What web/dist makes a browser download: the module script of index.html plus its modulepreload
 * links and their static imports (before the editor), and the editor's lazy chunk with the files
 * only it needs, each gzipped at level 9 as a server would send it.
 */
export function measureBundle(distDir: string): BundleReport {
  const html = readFileSync(join(distDir, 'index.html'), 'utf8');
  const assets = join(distDir, 'assets');
  const linked = [
    ...html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g),
    ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g),
  ].map((m) => basename(m[1]));
  if (linked.length === 0) throw new Error('web/dist/index.html names no module script');
  const initial = closure(assets, linked);
  // The document page loads the editor with import('./CollaborativeEditor-<hash>.js').
  const entries = [...initial].flatMap(
    (file) => readFileSync(join(assets, file), 'utf8').match(/CollaborativeEditor-[\w-]+\.js/g) ?? [],
  );
  const editorFile = entries[0];
  if (!editorFile) throw new Error('no CollaborativeEditor chunk is imported lazily by the initial JavaScript');
  const editor = [...closure(assets, [editorFile])].filter((file) => !initial.has(file));
  const initialFiles = measure(assets, initial);
  const editorFiles = measure(assets, editor);
  return {
    initial: initialFiles,
    initialGzipBytes: sum(initialFiles),
    editor: editorFiles,
    editorGzipBytes: sum(editorFiles),
  };
}
