/**
 * Writes a tiny, valid PDF (standard Helvetica fonts, one text line per `BT … ET`, correct xref offsets)
 * shaped like a DailyMed label print: a title line, "FULL PRESCRIBING INFORMATION" and numbered headings in
 * the bold font, body lines in the regular one. Tests use it to drive the PDF reader end to end.
 */
import fs from 'node:fs';

export interface PdfLine {
  text: string;
  bold?: boolean;
  /** Extra space above the line (a paragraph gap); default one line. */
  gapBefore?: number;
}

const esc = (s: string) => s.replace(/[\\()]/gu, (c) => `\\${c}`);

export function tinyPdf(pages: PdfLine[][]): Buffer {
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 3 + i * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  const fontRegular = 3 + pages.length * 2;
  const fontBold = fontRegular + 1;
  pages.forEach((lines, i) => {
    let y = 760;
    const ops = lines.map((l) => {
      y -= l.gapBefore ?? 15;
      return `BT /${l.bold ? 'F2' : 'F1'} 11 Tf 50 ${y} Td (${esc(l.text)}) Tj ET`;
    }).join('\n');
    const pageId = pageIds[i];
    objects[pageId] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontRegular} 0 R /F2 ${fontBold} 0 R >> >> /Contents ${pageId + 1} 0 R >>`;
    objects[pageId + 1] = `<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`;
  });
  objects[fontRegular] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  objects[fontBold] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>';
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** The label-shaped two-page PDF the ingest tests use. */
export function writeTinyLabelPdf(file: string): void {
  fs.writeFileSync(file, tinyPdf([
    [
      { text: 'TINYDRUG- tinydrug tablet' },
      { text: 'HIGHLIGHTS: Avoid quoting the highlights.' , gapBefore: 25 },
      { text: 'FULL PRESCRIBING INFORMATION', bold: true, gapBefore: 25 },
      { text: '4 CONTRAINDICATIONS', bold: true, gapBefore: 25 },
      { text: 'Tinydrug is contraindicated in patients taking warfarin.', gapBefore: 25 },
    ],
    [
      { text: '7 DRUG INTERACTIONS', bold: true },
      { text: '7.1 Antibiotics', bold: true, gapBefore: 25 },
      { text: 'Closely monitor INR when starting or stopping any antibiotic in patients taking', gapBefore: 25 },
      { text: 'warfarin. There have been reports of changes in INR.' },
      { text: 'Table 1: Examples of interacting drugs', bold: true, gapBefore: 25 },
      { text: 'Avoid this table row entirely.', gapBefore: 25 },
      { text: '8 USE IN SPECIFIC POPULATIONS', bold: true, gapBefore: 25 },
      { text: '8.1 Pregnancy', bold: true, gapBefore: 25 },
      { text: 'Avoid tinydrug during pregnancy because it can cause fetal harm.', gapBefore: 25 },
    ],
  ]));
}
