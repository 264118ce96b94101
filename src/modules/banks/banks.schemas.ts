import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';

export const Bank = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String({ description: 'Used in account identifiers: <nuban>_<slug>' }),
  code: Type.String({ description: 'CBN bank code (3 digits) or the institution code payment processors use' }),
});

export const BankListResponse = Envelope(Type.Object({ entity: Type.Array(Bank) }));
