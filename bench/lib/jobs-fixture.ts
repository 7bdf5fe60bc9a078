import { buffer } from 'node:stream/consumers';
import { crc32, deflateSync } from 'node:zlib';
import yazl from 'yazl';

/** Files per section of the import zip: its page, 7 pages in its folder, 6 notes under each of those. */
export const FILES_PER_SECTION = 50;
/** The first pages of this many sections show an image. */
const IMAGES = 10;

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}

/** A `size`×`size` RGB PNG of a gradient tinted by `seed` (a few kB, each image its own bytes). */
export function pngOf(seed: number, size = 64): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter method, no interlace
  const rows = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y += 1) {
    const row = y * (1 + size * 3);
    for (let x = 0; x < size; x += 1)
      rows.set([(x * 4 + seed * 23) & 255, (y * 4) & 255, (seed * 57) & 255], row + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const WORDS =
  'import export tree page folder link image section note wiki team plan review draft meeting notes decision owner status'.split(
    ' ',
  );
const sentence = (i: number, n: number) =>
  Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ');

/** A page of about 1 kB: heading, paragraphs, a list, links up and across, sometimes code or an image. */
function page(title: string, i: number, links: string[], image: string | null): string {
  const lines = [`# ${title}`, '', `${sentence(i, 25)}.`, '', `**${sentence(i + 1, 6)}** ${sentence(i + 2, 20)}.`, ''];
  for (let k = 0; k < 4; k += 1) lines.push(`- ${sentence(i + k, 6)}`);
  lines.push('');
  for (const link of links) lines.push(`See [${link.replace(/\.md$/, '')}](${encodeURI(link)}).`, '');
  if (i % 5 === 0) lines.push('```ts', `const page${i} = render(${i});`, '```', '');
  if (image) lines.push(`![diagram](${encodeURI(image)})`, '');
  return lines.join('\n');
}

export interface ImportFixture {
  zip: Buffer;
  files: number;
  images: number;
}

/**
 * A Markdown export of `sections` × 50 files: `Section s.md` beside `Section s/`, which holds
 * `Page s.p.md` beside `Page s.p/` of six notes. Pages link to their parent and a sibling; the
 * first pages of the first ten sections show an image from `images/`.
 */
export async function importFixture(sections: number): Promise<ImportFixture> {
  const zip = new yazl.ZipFile();
  let files = 0;
  let images = 0;
  const add = (path: string, text: string) => {
    zip.addBuffer(Buffer.from(text), `Bench export/${path}`);
    files += 1;
  };
  for (let s = 1; s <= sections; s += 1) {
    const section = `Section ${s}`;
    let image: string | null = null;
    if (s <= IMAGES) {
      zip.addBuffer(pngOf(s), `Bench export/images/diagram-${s}.png`);
      image = `../images/diagram-${s}.png`;
      images += 1;
    }
    add(`${section}.md`, page(section, s, [`${section}/Page ${s}.1.md`], null));
    for (let p = 1; p <= 7; p += 1) {
      const name = `Page ${s}.${p}`;
      const sibling = `Page ${s}.${(p % 7) + 1}.md`;
      add(`${section}/${name}.md`, page(name, s * 10 + p, [`../${section}.md`, sibling], p === 1 ? image : null));
      for (let n = 1; n <= 6; n += 1) {
        const note = `Note ${s}.${p}.${n}`;
        add(`${section}/${name}/${note}.md`, page(note, s * 100 + p * 10 + n, [`../${name}.md`], null));
      }
    }
  }
  zip.end();
  return { zip: await buffer(zip.outputStream), files, images };
}
