/**
 * Text of uploaded files in the encoding they were written in. A byte order mark decides first
 * (UTF-8, UTF-16 LE/BE); an HTML file may then name its encoding in a `<meta>` (or an XML
 * declaration); everything else is UTF-8. Labels are the WHATWG Encoding Standard's, as browsers
 * read them (`iso-8859-1` means windows-1252); an unknown label falls back to UTF-8.
 */

const BOMS: ReadonlyArray<[bytes: number[], encoding: string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xff, 0xfe], 'utf-16le'],
  [[0xfe, 0xff], 'utf-16be'],
];

/** How far into an HTML file its declared encoding is looked for (browsers prescan 1,024 bytes). */
const PRESCAN_BYTES = 4096;

const DECLARED = [
  // <meta charset="x">, and <meta http-equiv="Content-Type" content="text/html; charset=x">
  /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i,
  // <?xml version="1.0" encoding="x"?> (XHTML)
  /^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/i,
];

function bomOf(bytes: Uint8Array): string | null {
  for (const [bom, encoding] of BOMS) if (bom.every((b, i) => bytes[i] === b)) return encoding;
  return null;
}

/** The WHATWG name of a label, or null when no decoder knows it. */
function encodingNamed(label: string): string | null {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}

/** The encoding an HTML file declares in its first bytes, if any that a decoder knows. */
export function declaredEncoding(bytes: Uint8Array): string | null {
  // Declarations are ASCII; latin1 maps each byte to one character, whatever the real encoding.
  const head = Buffer.from(bytes.subarray(0, PRESCAN_BYTES))
    .toString('latin1')
    .replace(/<!--[\s\S]*?-->/g, '');
  for (const pattern of DECLARED) {
    const label = pattern.exec(head)?.[1];
    if (!label) continue;
    const encoding = encodingNamed(label);
    // A file found by an ASCII scan is no UTF-16 file: browsers read such a claim as UTF-8.
    if (encoding) return encoding.startsWith('utf-16') ? 'utf-8' : encoding;
  }
  return null;
}

/**
 * windows-1252's characters for bytes 0x80-0x9F (WHATWG's index; the five it leaves as controls
 * are left out). Node since 20.18.3 decodes windows-1252 as Latin-1 (nodejs/node#60888), giving
 * U+0080-U+009F for them; no correct decoding yields those code points but the five.
 */
const CP1252_C1: Readonly<Record<string, string>> = Object.fromEntries(
  [
    [0x80, 0x20ac],
    [0x82, 0x201a],
    [0x83, 0x0192],
    [0x84, 0x201e],
    [0x85, 0x2026],
    [0x86, 0x2020],
    [0x87, 0x2021],
    [0x88, 0x02c6],
    [0x89, 0x2030],
    [0x8a, 0x0160],
    [0x8b, 0x2039],
    [0x8c, 0x0152],
    [0x8e, 0x017d],
    [0x91, 0x2018],
    [0x92, 0x2019],
    [0x93, 0x201c],
    [0x94, 0x201d],
    [0x95, 0x2022],
    [0x96, 0x2013],
    [0x97, 0x2014],
    [0x98, 0x02dc],
    [0x99, 0x2122],
    [0x9a, 0x0161],
    [0x9b, 0x203a],
    [0x9c, 0x0153],
    [0x9e, 0x017e],
    [0x9f, 0x0178],
  ].map(([byte, code]) => [String.fromCharCode(byte), String.fromCharCode(code)]),
);

function decodeAs(bytes: Uint8Array, encoding: string): string {
  // ignoreBOM: false drops the mark the encoding was recognised by.
  const text = new TextDecoder(encoding, { ignoreBOM: false }).decode(bytes);
  return encoding === 'windows-1252' ? text.replace(/[\u0080-\u009f]/g, (c) => CP1252_C1[c] ?? c) : text;
}

/** An HTML file's text: its BOM, else its `<meta>` charset, else UTF-8. */
export function decodeHtml(bytes: Uint8Array): string {
  return decodeAs(bytes, bomOf(bytes) ?? declaredEncoding(bytes) ?? 'utf-8');
}

/** A plain text file's text (Markdown): its BOM, else UTF-8. */
export function decodeText(bytes: Uint8Array): string {
  return decodeAs(bytes, bomOf(bytes) ?? 'utf-8');
}
