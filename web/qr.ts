// A QR code drawn in the browser (decision 0128): the otpauth:// URL holds the second factor's
// secret, so it is encoded here, from uqr's module matrix, and never sent anywhere to be drawn.
import { encode } from 'uqr';

const SVG = 'http://www.w3.org/2000/svg';
/** The quiet zone the QR standard asks for around the code: four modules a side. */
const QUIET = 4;

/**
 * The code for `text` as an inline SVG: one white square with the quiet zone, and one path of the
 * dark modules (a run of dark modules in a row is one rectangle). Dark on white whatever the page's
 * colours, since an authenticator app's camera reads no other way. Built with DOM calls, not from
 * an SVG string: nothing is parsed as markup.
 */
export function qrCode(text: string, label: string): SVGSVGElement {
  // Medium error correction: a code photographed from a screen, at an angle, with glare.
  const { size, data } = encode(text, { ecc: 'M', border: 0 });
  const side = size + 2 * QUIET;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `${-QUIET} ${-QUIET} ${side} ${side}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.classList.add('qr');
  const paper = document.createElementNS(SVG, 'rect');
  for (const [name, value] of [
    ['x', -QUIET],
    ['y', -QUIET],
    ['width', side],
    ['height', side],
  ] as const)
    paper.setAttribute(name, String(value));
  paper.setAttribute('fill', '#fff');
  const ink = document.createElementNS(SVG, 'path');
  ink.setAttribute('fill', '#000');
  ink.setAttribute('d', darkRuns(data));
  svg.append(paper, ink);
  return svg;
}

/** `M x y h n v1 h-n z` for each run of dark modules along a row. */
function darkRuns(data: boolean[][]): string {
  const parts: string[] = [];
  data.forEach((row, y) => {
    let x = 0;
    while (x < row.length) {
      if (!row[x]) {
        x++;
        continue;
      }
      const start = x;
      while (row[x]) x++;
      parts.push(`M${start} ${y}h${x - start}v1h${start - x}z`);
    }
  });
  return parts.join('');
}
