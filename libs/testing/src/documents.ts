/**
 * A PDF of text pages (Helvetica, ASCII; each `\n` of a page's text starts a new line), built by
 * hand so tests need no PDF writer: the objects, then the cross-reference table at their byte
 * offsets. Readers (poppler, pdf.js) read its text back exactly while each line fits the page's
 * width (~80 characters): pdf.js drops the glyphs past the page's edge.
 */
export function pdfWithText(pages: readonly string[]): Buffer {
  const escaped = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${4 + i * 2} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  for (const [i, text] of pages.entries()) {
    const lines = text.split('\n').map((line) => `(${escaped(line)}) Tj`);
    const stream = `BT /F1 12 Tf 14 TL 72 720 Td ${lines.join(' T* ')} ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`,
    );
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (const [i, object] of objects.entries()) {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${object}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
