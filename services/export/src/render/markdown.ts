import type { Block, ExportDocument, Run } from '../domain/model.js';

/**
 * GitHub Flavored Markdown. Text is escaped so that what the user typed stays text (a `*` or a
 * `<script>` in a paragraph prints as itself); styles without a Markdown form use inline HTML
 * that GFM keeps (`<u>`), colours are dropped.
 */

// Characters that could start or end Markdown syntax anywhere in a line.
const INLINE_SPECIAL = /[\\`*_[\]<>|~&]/g;

function escapeText(text: string): string {
  return text.replace(INLINE_SPECIAL, (c) => `\\${c}`);
}

/**
 * A line's first characters that would make it a heading, a list, a quote, a rule or (four
 * spaces) a code block. Every line of a block's text is checked: after a hard line break a `# `
 * would still start a heading.
 */
function escapeLineStart(line: string): string {
  return line
    .replace(/^[ \t]+/, '')
    .replace(/^([#>+=-])/, '\\$1')
    .replace(/^(\d{1,9})([.)])/, '$1\\$2');
}

function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || /^ .* $/.test(text) ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** The link target in `<…>` form, which takes any character but `<`, `>` and line ends. */
function destination(href: string): string {
  return `<${href.replace(/[<>\n\r]/g, encodeURIComponent)}>`;
}

function runToMarkdown(run: Run, inTable = false): string {
  // Emphasis markers must touch text: the spaces around a styled run go outside them.
  const [, lead, core, trail] = /^(\s*)([\s\S]*?)(\s*)$/.exec(run.text) as RegExpExecArray;
  if (core === '') return run.text;
  // In a table cell a pipe ends the cell, inside code spans too; a line break would end the row.
  let out = run.code
    ? codeSpan((inTable ? core.replace(/\|/g, '\\|') : core).replace(/\n/g, ' '))
    : escapeText(core).replace(/\n/g, inTable ? '<br>' : '\\\n');
  if (run.underline) out = `<u>${out}</u>`;
  if (run.strike) out = `~~${out}~~`;
  if (run.italic) out = `*${out}*`;
  if (run.bold) out = `**${out}**`;
  if (run.href) out = `[${out}](${destination(run.href)})`;
  return `${lead}${out}${trail}`;
}

export function runsToMarkdown(runs: Run[]): string {
  return runs
    .map((run) => runToMarkdown(run))
    .join('')
    .split('\n')
    .map(escapeLineStart)
    .join('\n');
}

/**
 * A heading's text: a `#` at its start needs no escape after the marker, but `#`s at its end
 * after a space would be read as the heading's closing sequence and dropped, so they are escaped.
 */
function headingText(runs: Run[]): string {
  return runsToMarkdown(runs)
    .replace(/^\\#/, '#')
    .replace(/(^|[ \t])(#+[ \t]*)$/, '$1\\$2');
}

function indent(text: string, prefix: string, first = prefix): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? first + line : line === '' ? '' : prefix + line))
    .join('\n');
}

function tableToMarkdown(rows: Run[][][]): string {
  const cell = (runs: Run[]) => runs.map((run) => runToMarkdown(run, true)).join('') || ' ';
  const line = (row: Run[][]) => `| ${row.map(cell).join(' | ')} |`;
  // GFM tables have exactly one header row: further header rows print as body rows.
  const [head, ...body] = rows;
  if (!head) return '';
  return [line(head), `| ${head.map(() => '---').join(' | ')} |`, ...body.map(line)].join('\n');
}

function blockToMarkdown(block: Block, number: number): string {
  switch (block.kind) {
    case 'heading':
      return withChildren(`${'#'.repeat(block.level)} ${headingText(block.runs)}`, block.children, '');
    case 'paragraph':
      return withChildren(runsToMarkdown(block.runs), block.children, '');
    case 'item': {
      const marker =
        block.list === 'numbered' ? `${number}. ` : block.list === 'check' ? `- [${block.checked ? 'x' : ' '}] ` : '- ';
      const width = block.list === 'check' ? 2 : marker.length;
      const text = runsToMarkdown(block.runs);
      const head = indent(text, ' '.repeat(width), marker);
      return withChildren(head, block.children, ' '.repeat(width));
    }
    case 'code': {
      const longest = Math.max(2, ...(block.text.match(/^ {0,3}`{3,}/gm) ?? []).map((m) => m.trim().length));
      const fence = '`'.repeat(longest + 1);
      return `${fence}${block.language}\n${block.text}\n${fence}`;
    }
    case 'quote': {
      const inner = withChildren(runsToMarkdown(block.runs), block.children, '');
      return inner
        .split('\n')
        .map((line) => (line === '' ? '>' : `> ${line}`))
        .join('\n');
    }
    case 'table':
      return tableToMarkdown(block.rows);
    case 'image': {
      const alt = escapeText(block.caption || block.name || 'image');
      const image = block.url ? `![${alt}](${destination(block.url)})` : alt;
      return block.caption && block.url ? `${image}\n*${escapeText(block.caption)}*` : image;
    }
    case 'media': {
      const label = escapeText(block.name || block.caption || block.media);
      return block.url ? `[${label}](${destination(block.url)})` : label;
    }
    case 'divider':
      return '---';
  }
}

function withChildren(head: string, children: Block[], childIndent: string): string {
  if (children.length === 0) return head;
  const nested = blocksToMarkdown(children);
  return `${head}\n${childIndent ? indent(nested, childIndent) : `\n${nested}`}`;
}

/** Consecutive list items of one kind make one tight list; every other block stands apart. */
function blocksToMarkdown(blocks: Block[]): string {
  let out = '';
  let number = 0;
  let previous: Block | undefined;
  for (const block of blocks) {
    if (block.kind === 'paragraph' && block.runs.length === 0 && block.children.length === 0) {
      previous = undefined;
      continue; // the editor's empty trailing paragraphs
    }
    const sameList = block.kind === 'item' && previous?.kind === 'item' && previous.list === block.list;
    number = sameList ? number + 1 : 1;
    const text = blockToMarkdown(block, number);
    out += out === '' ? text : sameList ? `\n${text}` : `\n\n${text}`;
    previous = block;
  }
  return out;
}

export function renderMarkdown(doc: ExportDocument): Buffer {
  const title = doc.title.trim() ? `# ${headingText([{ text: doc.title }])}\n\n` : '';
  const body = blocksToMarkdown(doc.blocks);
  return Buffer.from(`${title}${body}${body ? '\n' : ''}`, 'utf8');
}
