/**
 * Relative links between the PDFs of a tree export. Chromium prints a page loaded from memory,
 * where a relative address resolves to nothing and gets no link at all; so each such link is
 * printed as a placeholder URL, and the placeholder in the PDF's link annotation
 * (`/URI (https://…)`, which Chromium writes as an uncompressed literal string) is then written
 * over with the relative address, padded with spaces so that no byte offset of the file moves
 * (the cross-reference table stays true).
 */
const ORIGIN = 'https://wiki-export.invalid/';
const PLACED = /\/URI \(https:\/\/wiki-export\.invalid\/(\d+)\/x*\)/g;

/** The body of a PDF literal string. */
const pdfString = (text: string) => text.replace(/[\\()]/g, '\\$&');

export class PdfLinks {
  private readonly targets: string[] = [];

  /** The address to print for `relative` (ASCII, as relativeLink makes it): never shorter than what replaces it. */
  placeholder(relative: string): string {
    const prefix = `${ORIGIN}${this.targets.push(relative) - 1}/`;
    return prefix + 'x'.repeat(Math.max(0, pdfString(relative).length - prefix.length));
  }

  /** The printed PDF with every placeholder's link made relative. */
  apply(pdf: Uint8Array): Buffer {
    if (this.targets.length === 0) return Buffer.from(pdf);
    const text = Buffer.from(pdf).toString('latin1');
    const written = text.replace(PLACED, (found, index: string) => {
      const target = this.targets[Number(index)];
      if (target === undefined) return found;
      const link = `/URI (${pdfString(target)})`;
      return link.padEnd(found.length, ' ');
    });
    return Buffer.from(written, 'latin1');
  }
}
