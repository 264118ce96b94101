import { describe, expect, it } from 'vitest';
import { envelopeBytes, envelopeHead } from '../src/http/envelope-bytes.js';

// What the routes sent before: the joined string, encoded by the socket.
const asString = (message: string, data: string) =>
  Buffer.from(`{"success":true,"message":${JSON.stringify(message)},"data":${data}}`);

const texts = {
  ascii: '{"reports":[],"summary":{"riskLevel":"none"}}',
  'two- and three-byte': JSON.stringify({ name: 'Ọ̀yọ́ Àdúnní — ₦5,000' }),
  'four-byte': JSON.stringify({ name: '𝔸 🚩 scam' }),
  // JSON.stringify escapes a lone surrogate, but data joined in Node need not be JSON.stringify's.
  'a lone surrogate': '{"name":"\ud800x"}',
  // Below and above Buffer's pool (4 KB): a small answer shares a slab with others.
  'over the pool': JSON.stringify({ items: 'ẹ'.repeat(5000) }),
};

describe('envelopeBytes', () => {
  for (const [kind, data] of Object.entries(texts)) {
    it(`gives the bytes the joined string gave: ${kind}`, () => {
      const message = 'Reports fetched “successfully”';
      expect(envelopeBytes(envelopeHead(message), data).equals(asString(message, data))).toBe(true);
    });
  }

  it('leaves no byte of earlier buffers in a reused pool slab', () => {
    const head = envelopeHead('m');
    // Fill the pool with a byte no answer has, then make many small answers from it.
    for (let i = 0; i < 64; i++) Buffer.allocUnsafe(100).fill(0xff);
    for (let i = 0; i < 200; i++) {
      const data = `{"n":${'7'.repeat(i % 40)}}`;
      const bytes = envelopeBytes(head, data);
      expect(bytes.includes(0xff)).toBe(false);
      expect(bytes.equals(asString('m', data))).toBe(true);
    }
  });
});
